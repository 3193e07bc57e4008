#!/usr/bin/env bash
# `make run SCHED=NAME`: NAME against the schedulers the simulator has (the
# registry of sched/, which the kernel has too), before anything is booted.
#   scripts/check-sched.sh SCHEDSIM NAME
set -uo pipefail
sim=$1 name=$2
# --list prints one JSON line per plugin, its name first.
names=$("$sim" --list | sed -n 's/^{"name": "\([^"]*\)".*/\1/p') &&
	[[ -n $names ]] || { echo "check-sched: $sim --list failed" >&2; exit 2; }
if grep -qxF -- "$name" <<<"$names"; then
	exit 0
fi
echo "make: SCHED=$name: no such scheduler; there are: $(tr '\n' ' ' <<<"$names")" >&2
exit 2
