#!/usr/bin/env bash
# Boots an ISO in QEMU with the serial console on the terminal (and in
# build/run/console.log); exits 0 iff the kernel reported a pass through
# isa-debug-exit. A trace dump (trace=events) is decoded into build/run/trace.
#   SMP=4 MACHINE=pc ACCEL=tcg FIRMWARE=bios scripts/run-qemu.sh ISO [qemu args]
set -uo pipefail
iso=$1
shift
args=(-machine "${MACHINE:-pc}" -smp "${SMP:-4}" -m 256M -display none
      -serial stdio -monitor none -no-reboot -cdrom "$iso"
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)
case ${ACCEL:-tcg} in
tcg) args+=(-accel tcg) ;;
# -arch-capabilities: QEMU 7.2 aborts setting that MSR on AMD hosts.
kvm) args+=(-accel kvm -cpu host,-arch-capabilities) ;;
*) echo "run-qemu: ACCEL must be tcg or kvm" >&2; exit 2 ;;
esac
if [[ ${FIRMWARE:-bios} == uefi ]]; then
	vars=$(mktemp)
	trap 'rm -f "$vars"' EXIT
	cp /usr/share/OVMF/OVMF_VARS.fd "$vars"
	args+=(-drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE.fd
	       -drive "if=pflash,format=raw,file=$vars")
elif [[ ${FIRMWARE:-bios} != bios ]]; then
	echo "run-qemu: FIRMWARE must be bios or uefi" >&2; exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
log=$root/build/run/console.log
rm -rf "$root/build/run/trace"
mkdir -p "$root/build/run"
# The terminal's keys reach COM1 only when the kernel takes typed lines
# (TYPED=1: arrivals=uart or irqcheck=uart); else a stray key press would
# land in GRUB's menu.
if [[ ${TYPED:-0} == 1 ]]; then
	qemu-system-x86_64 "${args[@]}" "$@" | tee "$log"
else
	qemu-system-x86_64 "${args[@]}" "$@" </dev/null | tee "$log"
fi
status=${PIPESTATUS[0]}
if grep -q 'TRACE-BEGIN' "$log"; then
	"$root/tools/rtk-trace" decode "$log" --out "$root/build/run/trace" &&
		echo "run-qemu: trace pictures in build/run/trace/ (gantt.png," \
		     "gantt.svg, overhead_hist.png, overhead_cdf.png), tables in" \
		     "build/run/trace/report.md"
fi
# arch/x86/power.c writes EXIT_QEMU_PASS (0x10) for a pass; QEMU exits with
# (value << 1) | 1 = 33. Anything else -- a fail, a crash, a reset -- fails.
if [[ $status == 33 ]]; then
	exit 0
fi
echo "run-qemu: the kernel did not pass (QEMU exit status $status)" >&2
exit 1
