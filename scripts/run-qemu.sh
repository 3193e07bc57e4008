#!/usr/bin/env bash
# Boots an ISO in QEMU with the serial console on the terminal (and in
# RUN_DIR/console.log, RUN_DIR build/run by default). Exits with the
# kernel's status as it reported it through isa-debug-exit (docs/running.md,
# "Statuses and exit codes"): 0 pass, 3 late, 1 fail or anything else (a
# crash, a reset, no status). A trace dump (trace=events) is decoded into
# RUN_DIR/trace.
#   SMP=4 MACHINE=pc ACCEL=tcg FIRMWARE=bios ICOUNT=shift=3,sleep=off \
#       scripts/run-qemu.sh ISO [qemu args]
# ICOUNT (empty: none) is QEMU's -icount argument: virtual time.
set -uo pipefail
iso=$1
shift
# No network card and no floppy drives: the kernel drives neither, and
# SeaBIOS's probes of them cost seconds a boot under -icount.
args=(-machine "${MACHINE:-pc}" -smp "${SMP:-4}" -m 256M -display none
      -serial stdio -monitor none -no-reboot -cdrom "$iso"
      -nic none -global isa-fdc.fdtypeA=none -global isa-fdc.fdtypeB=none
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)
case ${ACCEL:-tcg} in
tcg) args+=(-accel tcg)
     [[ -n ${ICOUNT:-} ]] && args+=(-icount "$ICOUNT") ;;
# -arch-capabilities: QEMU 7.2 aborts setting that MSR on AMD hosts.
kvm) [[ -n ${ICOUNT:-} ]] &&
	{ echo "run-qemu: -icount (virtual time) needs TCG, not KVM" >&2; exit 2; }
     args+=(-accel kvm -cpu host,-arch-capabilities) ;;
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
# RUN_DIR: where the console log and the decoded trace go.
run_dir=${RUN_DIR:-$root/build/run}
log=$run_dir/console.log
rm -rf "$run_dir/trace"
mkdir -p "$run_dir"
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
	"$root/tools/rtk-trace" decode "$log" --out "$run_dir/trace" &&
		echo "run-qemu: trace pictures in $run_dir/trace/ (gantt.png," \
		     "gantt.svg, overhead_hist.png, overhead_cdf.png), tables in" \
		     "$run_dir/trace/report.md"
fi
# The kernel writes 0x10 for a pass, 0x11 for a fail and 0x12 for a late
# run (arch/x86/power.c); QEMU exits with (value << 1) | 1.
case $status in
33) exit 0 ;;
37) echo "run-qemu: the run was late: its time was not kept (the verdict" \
	"above says how late; exit status 3)" >&2
    exit 3 ;;
35) echo "run-qemu: the kernel reported a fail (exit status 1)" >&2 ;;
*) echo "run-qemu: the kernel did not report a status (QEMU exit status" \
	"$status; exit status 1)" >&2 ;;
esac
exit 1
