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
stage=$(mktemp -d "${TMPDIR:-/tmp}/mkiso.XXXXXX")
trap 'rm -rf "$stage"' EXIT
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
# xorriso has been seen to end with a MISHAP once when several tests
# build ISOs at the same moment; one retry, then the whole log.
for try in 1 2; do
	grub-mkrescue -o "$out.tmp" "$stage" >"$stage/log.$try" 2>&1 && break
	if [[ $try == 2 ]]; then
		cat "$stage/log.1" "$stage/log.2" >&2
		exit 1
	fi
done
mv "$out.tmp" "$out"
