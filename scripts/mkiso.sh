#!/usr/bin/env bash
# Builds a bootable ISO (BIOS and UEFI, hybrid for USB sticks) from
# build/kernel/kernel.elf, the ring-3 programs build/user/NAME.elf (one for
# each user/NAME.c) and boot/grub.cfg.
#   scripts/mkiso.sh OUT.iso [--cmdline "words"] [--tasks FILE.tasks]
#                            [--entry N]   (the default menu entry, from 0)
#                            [--omit-program NAME]   (leave user/NAME out,
#                            as a medium without that program would be)
# Safe to run concurrently for different OUT paths.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
extra="" tasks="" entry=0 omit=""
while (($#)); do
	case $1 in
	--cmdline) extra=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	--entry) entry=$2; shift 2 ;;
	--omit-program) omit=$2; shift 2 ;;
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
modules=()
if [[ -n $tasks ]]; then
	cp "$tasks" "$stage/boot/taskset.tasks"
	# The module string is the file's name: the kernel's messages quote it.
	# The task set comes first: a kernel that takes the first module as
	# the task set still finds it.
	modules+=("module2 /boot/taskset.tasks $(basename "$tasks")")
fi
# Every program of user/ as a module named user:NAME, the name a task's
# work= gives (lib/taskset), by which the kernel finds it.
mkdir -p "$stage/boot/user"
for src in user/*.c; do
	name=$(basename "$src" .c)
	[[ $name == "$omit" ]] && continue
	prog=build/user/$name.elf
	[[ -f $prog ]] || { echo "mkiso: $prog missing: run make user" >&2; exit 1; }
	cp "$prog" "$stage/boot/user/$name.elf"
	modules+=("module2 /boot/user/$name.elf user:$name")
done
# The first entry's name says what it boots: the scheduler over its task
# set, or the self-measurement; the others add the words given.
read -ra words <<<"$extra"
sched="" rest=""
for w in "${words[@]}"; do
	case $w in
	sched=*) sched=${w#sched=} ;;
	*) rest+="${rest:+ }$w" ;;
	esac
done
if [[ -n $sched ]]; then
	what="run $sched over no task set"
	[[ -n $tasks ]] && what="run $sched over $(basename "$tasks")"
	[[ -n $rest ]] && what="$what ($rest)"
else
	what="measure the aligned and staggered quantum clocks"
	[[ -n $extra ]] && what="$what ($extra)"
fi
also=${extra:+ ($extra)}
# GRUB's quoted entry names end at a double quote.
what=${what//\"/\'} also=${also//\"/\'}
# Words go to GRUB's command line verbatim; keep sed's metacharacters out.
esc() { printf '%s' "$1" | sed 's/[&/\]/\\&/g'; }
esc_extra=$(esc "$extra")
[[ $entry =~ ^[0-9]+$ ]] || { echo "mkiso: --entry wants a number" >&2; exit 2; }
# A line holding only @MODULE@ becomes the module lines, indented as it was.
sed -e "s/@EXTRA@/$esc_extra/" -e "s/@WHAT@/$(esc "$what")/" \
	-e "s/@ALSO@/$(esc "$also")/" -e "s/^set default=0$/set default=$entry/" \
	boot/grub.cfg | while IFS= read -r line; do
	if [[ $line =~ ^([[:space:]]*)@MODULE@[[:space:]]*$ ]]; then
		for m in "${modules[@]}"; do
			printf '%s%s\n' "${BASH_REMATCH[1]}" "$m"
		done
	else
		printf '%s\n' "$line"
	fi
done > "$stage/boot/grub/grub.cfg"
mkdir -p "$(dirname "$out")"
grub-mkrescue -o "$out.tmp" "$stage" >"$work/log" 2>&1 ||
	{ cat "$work/log" >&2; exit 1; }
mv "$out.tmp" "$out"
