#!/usr/bin/env bash
# `make debug`: GDB attached to the kernel in QEMU, with the kernel's symbols
# and the project's commands (tools/gdb/rtk.py).
#   STUB=qemu:   QEMU halted at the reset vector with its own GDB stub.
#   STUB=kernel: the kernel's stub (kernel/debug/gdbstub.c) on COM2, a TCP socket
#                here; the ISO must say gdb=wait (make debug adds it), and
#                GDB attaches once the kernel waits for it.
#   STUB=qemu SMP=4 MACHINE=pc ACCEL=tcg FIRMWARE=bios \
#       scripts/debug.sh ISO KERNEL_ELF
set -euo pipefail
iso=$1 elf=$2
here=$(dirname "$0")
port=${GDB_PORT:-1234}
export SMP=${SMP:-4} MACHINE=${MACHINE:-pc} ACCEL=${ACCEL:-tcg} \
	FIRMWARE=${FIRMWARE:-bios}
case ${STUB:-qemu} in
qemu)
	"$here/run-qemu.sh" "$iso" -S -gdb "tcp:127.0.0.1:$port" &
	qemu=$!
	trap 'kill $qemu 2>/dev/null || true' EXIT
	sleep 0.5 # let QEMU open its stub before GDB connects
	hint='Halted at the reset vector. Try: hbreak smp_ap_main, continue, rtk cpus'
	;;
kernel)
	# The console goes to the terminal and to a log, where the kernel says
	# when it waits: bytes GDB sent earlier would meet a UART the kernel
	# has not opened yet.
	log=$(mktemp)
	"$here/run-qemu.sh" "$iso" \
		-serial "tcp:127.0.0.1:$port,server=on,wait=off" \
		> >(tee "$log") 2>&1 &
	qemu=$!
	trap 'kill $qemu 2>/dev/null || true; rm -f "$log"' EXIT
	until grep -q '^gdb: waiting for GDB' "$log"; do
		kill -0 $qemu 2>/dev/null ||
			{ echo "debug: the kernel ended before waiting for GDB" >&2;
			  exit 1; }
		sleep 0.2
	done
	hint='Stopped in gdbstub_init, every CPU a thread. Try: info threads, break spd2_schedule, continue, rtk pfair'
	;;
*)
	echo "debug: STUB must be qemu or kernel" >&2
	exit 2
	;;
esac
gdb -q -x "$here/../tools/gdb/rtk.py" -ex "file $elf" \
	-ex "target remote 127.0.0.1:$port" -ex "echo $hint\n"
