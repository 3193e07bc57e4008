#!/usr/bin/env bash
# `make bochs`: the ISO under Bochs with SMP CPUs of a model that has x2APIC
# and the TSC-deadline timer; the serial console on the terminal.
# Debian's Bochs has no GDB stub and no `nogui` display: it uses the rfb
# display without waiting for a viewer and starts with an rc file holding
# `c`; sound drivers are set to dummy, without which it aborts at start-up.
set -euo pipefail
iso=$(realpath "$1")
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
clock: sync=none, time0=local
port_e9_hack: enabled=1
speaker: enabled=0
sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy
EOT
echo c >"$dir/rc"
cd "$dir"
bochs -q -f bochsrc -rc rc </dev/null | tr -d '\r'
grep -q "RESULT exit status=pass" "$dir/bochs.log" 2>/dev/null || true
