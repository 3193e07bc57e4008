#!/usr/bin/env bash
# `make debug`: QEMU halted with its GDB stub, GDB attached with the
# kernel's symbols and the project's commands (tools/gdb/rtk.py).
#   SMP=4 MACHINE=pc ACCEL=tcg FIRMWARE=bios scripts/debug.sh ISO KERNEL_ELF
set -euo pipefail
iso=$1 elf=$2
port=${GDB_PORT:-1234}
SMP=${SMP:-4} MACHINE=${MACHINE:-pc} ACCEL=${ACCEL:-tcg} FIRMWARE=${FIRMWARE:-bios} \
	"$(dirname "$0")/run-qemu.sh" "$iso" -S -gdb "tcp:127.0.0.1:$port" &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT
sleep 0.5 # let QEMU open its stub before GDB connects
gdb -q -x "$(dirname "$0")/../tools/gdb/rtk.py" -ex "file $elf" \
	-ex "target remote 127.0.0.1:$port" \
	-ex 'echo Halted at the reset vector. Try: hbreak smp_ap_main, continue, rtk cpus\n'
