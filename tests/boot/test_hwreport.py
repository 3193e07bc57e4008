"""The hardware report (hwreport=on, the menu entry "hardware report"):
under QEMU with SeaBIOS, under OVMF where the screen is the framebuffer
console, and under Bochs, the block prints, tools/rtk-hwreport verifies
and decodes it, and what it says agrees with the RESULT lines the same
boot printed (RESULT cpu, smp, tsc, ticks), which come from other code."""
import json
import pathlib
import re
import subprocess
import tempfile

from harness import ROOT, bochs, qemu
from test_fbcon_screen import (CELL_COLS, CELL_ROWS, find_line, load_font,
                               read_ppm, screen, text_mask)

TOOL = ROOT / "tools" / "rtk-hwreport"
# boot/grub.cfg's menu entry of the report (mk/hardware.mk's USB_ENTRY).
REPORT_ENTRY = 4
# The block's widest line (lib/hwblock.h) and the rows VGA text shows
# besides RESULT exit and the cursor's line.
COLS, ROWS = 64, 23


def decode(serial):
    out = subprocess.run([str(TOOL), "--json"], input=serial,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    (fields,) = [json.loads(line) for line in out.stdout.splitlines()]
    return fields


def kv(tokens):
    return dict(t.split("=", 1) for t in tokens if "=" in t)


def block_lines(serial):
    lines = [l.strip() for l in serial.splitlines()]
    start = next(i for i, l in enumerate(lines) if l == "rtk-hw begin v1")
    end = next(i for i, l in enumerate(lines) if l.startswith("rtk-hw end"))
    return lines[start:end + 1]


def agrees_with_results(boot, fields, slots):
    """Every field that a RESULT line of the boot also gives is the same."""
    cpu = boot.result("cpu")
    assert kv(fields["cpu"]) == {k: cpu[k] for k in
                                 ("vendor", "family", "model", "stepping")}
    for key in ("uses", "lacks", "unused"):
        assert ",".join(fields[key]) == cpu[key], key
    smp, tsc = boot.result("smp"), boot.result("tsc")
    apic = kv(fields["apic"])
    assert apic["mode"] == smp["apic"]
    assert apic["online"] == smp["cpus_online"]
    assert apic["found"] == smp["cpus_found"]
    t = kv(fields["tsc"])
    assert t["khz"] == tsc["khz"] and t["via"] == tsc["method"]
    assert t["invariant"] == tsc["invariant"]
    assert t["skew_cycles"] == tsc["max_skew_cycles"]
    assert kv(fields["timer"])["used"] == \
        ("deadline" if tsc["deadline"] == "1" else "oneshot")
    assert kv(fields["run"])["quanta"] == str(slots)
    ticks = {t["mode"]: t for t in boot.results("ticks")}
    for mode in ("aligned", "staggered"):
        c = kv(fields[mode])
        assert c["missed"] == ticks[mode]["missed"]
        for q in ("p50", "p99", "max"):
            assert c[f"{q}_us"] == ticks[mode][f"err_{q}_us"], (mode, q)
        late = [float(re.fullmatch(r"([\d.]+)us@\d+:\d+", x).group(1))
                for x in fields[f"{mode}_late"]]
        assert late == sorted(late, reverse=True) and len(late) == 3
    # Staggered: the lateness is the deviation where the interrupt came
    # after its time, so it is never more than the largest deviation.
    assert max(late) <= float(ticks["staggered"]["err_max_us"])
    # The APIC IDs' runs cover exactly the CPUs online.
    ids = []
    for run in fields["ids"]:
        a, _, b = run.partition("-")
        ids += range(int(a), int(b or a) + 1)
    assert len(ids) == int(smp["cpus_online"])


def latest_from_trace(serial, mode):
    """The three latest boundaries by the TRACE tick lines (trace=on)."""
    late = [max(0, int(m.group(1))) for m in re.finditer(
        rf"TRACE tick mode={mode} cpu=\d+ slot=\d+ at_ns=-?\d+ "
        r"late_ns=(-?\d+)", serial)]
    return ["%d.%03dus" % (ns // 1000, ns % 1000)
            for ns in sorted(late, reverse=True)[:3]]


def test_report_under_seabios_with_an_intel_cpu(iso_with):
    """The menu entry, with end=exit added (a later word wins) so that QEMU
    ends; an Intel model, so the SMI count is read (QEMU counts the SMIs
    SeaBIOS raises). trace=on prints every boundary, from which the
    latest are found apart from the kernel's own choice."""
    slots = 60
    iso = iso_with(f"end=exit slots={slots} trace=on", entry=REPORT_ENTRY)
    boot = qemu(iso, smp=3, extra=["-cpu", "Skylake-Server"], timeout=400)
    assert boot.passed, boot.tail()
    lines = block_lines(boot.serial)
    assert max(map(len, lines)) <= COLS, lines
    assert len(lines) <= ROWS, f"{len(lines)} lines do not fit VGA text"
    fields = decode(boot.serial)
    agrees_with_results(boot, fields, slots)
    assert kv(fields["cpu"])["vendor"] == "GenuineIntel"
    run = kv(fields["run"])
    assert int(run["smi_after"]) >= int(run["smi_before"]), run
    assert " ".join(fields["name"]) == "Intel Xeon Processor (Skylake)"
    for mode in ("aligned", "staggered"):
        assert [x.split("@")[0] for x in fields[f"{mode}_late"]] == \
            latest_from_trace(boot.serial, mode), mode


def test_report_on_the_uefi_framebuffer(iso_with):
    """Under OVMF the screen is the kernel's framebuffer console; with the
    entry's end=halt the block stays up, and every line of it is drawn,
    one under the other, as the serial port has it."""
    iso = iso_with("slots=40", entry=REPORT_ENTRY)
    with tempfile.TemporaryDirectory() as tmp:
        serial, shot = screen(iso, pathlib.Path(tmp), "std", uefi=True,
                              timeout=400)
        assert "RESULT exit status=pass" in serial, serial[-3000:]
        assert "boot: UEFI firmware" in serial
        width, height, pixels = read_ppm(shot)
        font = load_font()
        lines = block_lines(serial)
        rows = {}
        for scale in range(1, 4):
            if width // (CELL_COLS * scale) < COLS:
                continue
            rows = {i: find_line(width, height, pixels,
                                 text_mask(font, line, scale),
                                 CELL_ROWS * scale)
                    for i, line in enumerate(lines)}
            if rows[0]:
                break
        assert rows and all(rows.values()), rows
        first = rows[0][-1]
        assert all(first + i in rows[i] for i in rows), rows
    decode(serial)


def test_report_under_bochs_x2apic_and_msr_probe(iso_with):
    """Bochs's Haswell has x2APIC and TSC-deadline mode, and raises #GP for
    an MSR it does not model when told to (ignore_bad_msrs=0; QEMU's TCG
    reads such an MSR as 0): the probe the SMI count is read with survives
    it, and the block follows."""
    slots = 20
    boot = bochs(iso_with(f"end=exit slots={slots} selftest=msr_gp",
                          entry=REPORT_ENTRY), cpus=2, timeout=900,
                 strict_msrs=True)
    assert boot.passed, boot.tail()
    # The probe's fault path: an MSR Bochs does not model faults, is caught.
    assert "selftest: RDMSR 0xdead0000 raised #GP, caught" in boot.serial, \
        boot.tail()
    fields = decode(boot.serial)
    agrees_with_results(boot, fields, slots)
    assert kv(fields["apic"])["mode"] == "x2apic"
    assert kv(fields["timer"])["used"] == "deadline"
    assert {"x2apic", "tsc_deadline"} <= set(fields["uses"])
    run = kv(fields["run"])
    assert run.get("smi") == "none:gp" or "smi_before" in run, run
