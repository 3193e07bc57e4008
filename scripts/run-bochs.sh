#!/usr/bin/env bash
# `make bochs`: the ISO under Bochs with SMP CPUs of a model that has x2APIC
# and the TSC-deadline timer; the serial console on the terminal.
# TIMING=virtual (the default): Bochs's clock follows the instructions run
# (`clock: sync=none` at ips= instructions a second); TIMING=real: it is
# held to the host's clock (`sync=realtime`).
# Debian's Bochs has no GDB stub and no `nogui` display: it uses the rfb
# display without waiting for a viewer and starts with an rc file holding
# `c`; sound drivers are set to dummy, without which it aborts at start-up.
set -euo pipefail
iso=$(realpath "$1")
case ${TIMING:-virtual} in
virtual) sync=none ;;
real) sync=realtime ;;
*) echo "run-bochs: TIMING must be virtual or real" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/bochsrc" <<EOT
megs: 256
cpu: model=corei7_haswell_4770, count=1:${SMP:-2}:1, ips=50000000
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=$iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=/dev/stdout
display_library: rfb, options="timeout=0"
log: $dir/bochs.log
panic: action=fatal
clock: sync=$sync, time0=local
port_e9_hack: enabled=1
speaker: enabled=0
sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy
EOT
echo c >"$dir/rc"
cd "$dir"
set +e
bochs -q -f bochsrc -rc rc </dev/null | tr -d '\r' | tee "$dir/console.log"
set -e
# Bochs's exit status only says how it stopped (the kernel's power-off
# request through port 0x8900 counts as an error): as `make run` does with
# QEMU's exit code, the kernel's last RESULT line decides, with the same
# exit statuses (0 pass, 3 late, 1 anything else).
last=$(grep -a '^RESULT ' "$dir/console.log" | tail -n 1 || true)
if [[ $last == "RESULT exit status=pass" ]]; then
	exit 0
fi
if [[ $last == "RESULT exit status=late "* ]]; then
	echo "run-bochs: the run was late: its time was not kept ($last)" >&2
	exit 3
fi
echo "run-bochs: the kernel did not pass (${last:-no RESULT line})" >&2
exit 1
