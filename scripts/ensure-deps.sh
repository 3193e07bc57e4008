#!/usr/bin/env bash
# Installs what the build and the tests need, or prints the exact command.
#   scripts/ensure-deps.sh host     compilers and the Python virtualenv
#   scripts/ensure-deps.sh kernel   + NASM, GRUB, xorriso, QEMU, OVMF, Bochs, GDB
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-kernel}

need_pkgs=()
want() { # want COMMAND-OR-PATH PACKAGE
	if [[ $1 == /* ]]; then [[ -e $1 ]] || need_pkgs+=("$2")
	else command -v "$1" >/dev/null 2>&1 || need_pkgs+=("$2"); fi
}
want gcc gcc
# gcc comes without its recommended libc6-dev under --no-install-recommends
# (below), and the host programs need the C library's headers.
want /usr/include/stdio.h libc6-dev
want make make
want python3 python3
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_pkgs+=(python3-venv)
# The fuzz targets (mk/fuzz.mk): clang, and its libFuzzer runtime, which
# clang only recommends.
want clang clang
command -v clang >/dev/null 2>&1 &&
	[[ -e $(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a ]] ||
	need_pkgs+=(libclang-rt-dev)
if [[ $what == kernel ]]; then
	want nasm nasm
	want grub-mkrescue grub-common
	want /usr/lib/grub/i386-pc/multiboot2.mod grub-pc-bin
	want /usr/lib/grub/x86_64-efi/multiboot2.mod grub-efi-amd64-bin
	want xorriso xorriso
	want mformat mtools
	want qemu-system-x86_64 qemu-system-x86
	want /usr/share/OVMF/OVMF_CODE.fd ovmf
	want bochs bochs
	want /usr/share/bochs/BIOS-bochs-latest bochsbios
	want /usr/share/vgabios/vgabios.bin vgabios
	want gdb gdb
fi
if ((${#need_pkgs[@]})); then
	# shellcheck disable=SC2207
	need_pkgs=($(printf '%s\n' "${need_pkgs[@]}" | sort -u))
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "ensure-deps: installing ${need_pkgs[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
	else
		echo "ensure-deps: missing packages; run:" >&2
		echo "  sudo apt-get install -y --no-install-recommends ${need_pkgs[*]}" >&2
		exit 1
	fi
fi

venv=build/venv
stamp=$venv/.installed
if [[ ! -f $stamp || tests/requirements.txt -nt $stamp ]]; then
	echo "ensure-deps: Python packages into $venv"
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check -r tests/requirements.txt
	touch "$stamp"
fi
