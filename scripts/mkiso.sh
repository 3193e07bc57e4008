#!/usr/bin/env bash
# Builds a bootable ISO (BIOS and UEFI, hybrid for USB sticks) from
# build/kernel/kernel.elf, ring-3 programs and boot/grub.cfg.
#   scripts/mkiso.sh OUT.iso [--cmdline "words"] [--tasks FILE.tasks]
#                            [--entry N]   (the default menu entry, from 0)
#                            [--program PATH.elf]...   (a program besides
#                            user/'s, named by its file: USER_PROGS_DIR)
#                            [--program NAME=FILE]...   (FILE as user:NAME
#                            instead of the program of that name)
#                            [--omit-program NAME]   (leave NAME out, as a
#                            medium without that program would be)
#                            [--acpi-table FILE]...   (GRUB puts FILE in
#                            place of the firmware's table of the same
#                            signature before any entry boots: tests give
#                            the kernel tables QEMU cannot)
#                            [--menu-wait S]   (seconds GRUB shows its menu
#                            before it boots the default entry; 1 unless
#                            given. A person at a screen needs it; a boot
#                            in QEMU that nobody watches takes 0: under
#                            -icount GRUB's one second costs 2.5-5 s)
# The programs there are: build/user/NAME.elf for each user/NAME.c, and
# each --program. With --tasks it packs exactly those the task set names
# (work=, tools/taskset_check --works) and refuses a name none of them
# has, naming its task and line; without, or when the set does not parse
# (the kernel then says why at boot), it packs them all.
# Safe to run concurrently for different OUT paths.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
extra="" tasks="" entry=0 omit="" wait=1
acpi_files=()
declare -A have=()
names=()
for src in user/*.c; do
	name=$(basename "$src" .c)
	have[$name]=build/user/$name.elf
	names+=("$name")
done
while (($#)); do
	case $1 in
	--cmdline) extra=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	--entry) entry=$2; shift 2 ;;
	--menu-wait) wait=$2; shift 2 ;;
	--omit-program) omit=$2; shift 2 ;;
	--acpi-table) acpi_files+=("$2"); shift 2 ;;
	--program)
		if [[ $2 == ?*=?* ]]; then
			name=${2%%=*}
			if [[ -z ${have[$name]:-} ]]; then
				echo "mkiso: --program $2: no program $name to replace" >&2
				exit 2
			fi
			have[$name]=${2#*=}
			shift 2
			continue
		fi
		name=$(basename "$2" .elf)
		if [[ -n ${have[$name]:-} ]]; then
			echo "mkiso: two programs named $name: ${have[$name]} and $2" >&2
			exit 2
		fi
		have[$name]=$2
		names+=("$name")
		shift 2 ;;
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
# The programs to pack: those the task set names, or all of them.
want=()
if [[ -n $tasks ]]; then
	check=build/host/taskset_check-fast
	[[ -x $check ]] || { echo "mkiso: $check missing: run make host" >&2; exit 1; }
	# A set that does not parse gets every program: the kernel names
	# what is wrong with it at boot (the tests boot such sets on purpose).
	works=$("$check" --works "$tasks" 2>/dev/null) ||
		works=$(printf '0 - %s\n' "${names[@]}")
	declare -A seen=()
	while read -r line task name; do
		[[ -z $name || -n ${seen[$name]:-} || $name == "$omit" ]] &&
			continue
		seen[$name]=1
		if [[ -z ${have[$name]:-} ]]; then
			echo "mkiso: $tasks:$line: task $task: work=$name: no program" \
			     "$name (no user/$name.c, and no $name.c in USER_PROGS_DIR)" >&2
			exit 1
		fi
		want+=("$name")
	done <<<"$works"
else
	for name in "${names[@]}"; do
		[[ $name == "$omit" ]] || want+=("$name")
	done
fi
# Each as a module named user:NAME, the name a task's work= gives
# (lib/taskset), by which the kernel finds it.
mkdir -p "$stage/boot/user"
for name in "${want[@]}"; do
	prog=${have[$name]}
	[[ -f $prog ]] || { echo "mkiso: $prog missing: run make user" >&2; exit 1; }
	cp "$prog" "$stage/boot/user/$name.elf"
	modules+=("module2 /boot/user/$name.elf user:$name")
done
# ACPI tables to replace the firmware's: GRUB's acpi command, with each
# table's signature (its first four bytes) left out of the firmware's.
acpi_line="" sigs=""
if ((${#acpi_files[@]})); then
	mkdir -p "$stage/boot/acpi"
	i=0
	for f in "${acpi_files[@]}"; do
		[[ -f $f ]] || { echo "mkiso: --acpi-table $f: no such file" >&2; exit 2; }
		sig=$(head -c 4 "$f")
		[[ $sig =~ ^[A-Z0-9_]{4}$ ]] ||
			{ echo "mkiso: --acpi-table $f: its first four bytes are not an ACPI signature" >&2; exit 2; }
		cp "$f" "$stage/boot/acpi/$i.bin"
		sigs+="${sigs:+,}$sig"
		acpi_line+=" /boot/acpi/$i.bin"
		i=$((i + 1))
	done
	acpi_line="acpi --exclude=$sigs$acpi_line"
fi
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
[[ $wait =~ ^[0-9]+$ ]] ||
	{ echo "mkiso: --menu-wait wants a number of seconds, not '$wait'" >&2; exit 2; }
# A line holding only @MODULE@ becomes the module lines, indented as it was.
sed -e "s/@EXTRA@/$esc_extra/" -e "s/@WHAT@/$(esc "$what")/" \
	-e "s/@ALSO@/$(esc "$also")/" -e "s/^set default=0$/set default=$entry/" \
	-e "s/^set timeout=1$/set timeout=$wait/" \
	boot/grub.cfg | while IFS= read -r line; do
	if [[ $line =~ ^[[:space:]]*@ACPI@[[:space:]]*$ ]]; then
		[[ -z $acpi_line ]] || printf 'insmod acpi\n%s\n' "$acpi_line"
	elif [[ $line =~ ^([[:space:]]*)@MODULE@[[:space:]]*$ ]]; then
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
