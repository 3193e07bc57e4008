#!/usr/bin/env bash
# Builds a bootable ISO (BIOS and UEFI, hybrid for USB sticks) from
# build/kernel/kernel.elf and boot/grub.cfg.
#   scripts/mkiso.sh OUT.iso [--cmdline "words"] [--tasks FILE.tasks]
# Safe to run concurrently for different OUT paths.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
extra="" tasks=""
while (($#)); do
	case $1 in
	--cmdline) extra=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	*) echo "mkiso: unknown option $1" >&2; exit 2 ;;
	esac
done
elf=build/kernel/kernel.elf
[[ -f $elf ]] || { echo "mkiso: $elf missing: run make kernel" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mkiso.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The ISO's tree; the logs stay outside it, or xorriso packs a file that
# is still growing and gives up with a MISHAP.
stage=$work/root
mkdir -p "$stage/boot/grub"
cp "$elf" "$stage/boot/kernel.elf"
module=""
if [[ -n $tasks ]]; then
	cp "$tasks" "$stage/boot/taskset.tasks"
	module="module2 /boot/taskset.tasks taskset"
fi
# Words go to GRUB's command line verbatim; keep sed's metacharacters out.
esc_extra=$(printf '%s' "$extra" | sed 's/[&/\]/\\&/g')
sed -e "s/@EXTRA@/$esc_extra/" -e "s|@MODULE@|$module|" boot/grub.cfg \
	> "$stage/boot/grub/grub.cfg"
mkdir -p "$(dirname "$out")"
if ! grub-mkrescue -o "$out.tmp" "$stage" >"$work/log" 2>&1; then
	cat "$work/log" >&2
	exit 1
fi
mv "$out.tmp" "$out"
