#!/usr/bin/env bash
# Builds a bootable ISO (BIOS and UEFI, hybrid for USB sticks) from
# build/kernel/kernel.elf and boot/grub.cfg.
#   scripts/mkiso.sh OUT.iso [--cmdline "words"] [--tasks FILE.tasks]
#                            [--entry N]   (the default menu entry, from 0)
# Safe to run concurrently for different OUT paths.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
extra="" tasks="" entry=0
while (($#)); do
	case $1 in
	--cmdline) extra=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	--entry) entry=$2; shift 2 ;;
	*) echo "mkiso: unknown option $1" >&2; exit 2 ;;
	esac
done
elf=build/kernel/kernel.elf
[[ -f $elf ]] || { echo "mkiso: $elf missing: run make kernel" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mkiso.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The ISO's tree and grub-mkrescue's log live apart: a log inside the tree
# grows while xorriso packs it, which xorriso reports as a MISHAP.
stage=$work/tree
mkdir -p "$stage/boot/grub"
cp "$elf" "$stage/boot/kernel.elf"
module=""
if [[ -n $tasks ]]; then
	cp "$tasks" "$stage/boot/taskset.tasks"
	# The module string is the file's name: the kernel's messages quote it.
	module="module2 /boot/taskset.tasks $(basename "$tasks")"
fi
# Words go to GRUB's command line verbatim; keep sed's metacharacters out.
esc_extra=$(printf '%s' "$extra" | sed 's/[&/\]/\\&/g')
[[ $entry =~ ^[0-9]+$ ]] || { echo "mkiso: --entry wants a number" >&2; exit 2; }
sed -e "s/@EXTRA@/$esc_extra/" -e "s|@MODULE@|$module|" \
	-e "s/^set default=0$/set default=$entry/" boot/grub.cfg \
	> "$stage/boot/grub/grub.cfg"
mkdir -p "$(dirname "$out")"
grub-mkrescue -o "$out.tmp" "$stage" >"$work/log" 2>&1 ||
	{ cat "$work/log" >&2; exit 1; }
mv "$out.tmp" "$out"
