"""Many CPUs (issue 15): every CPU QEMU gives comes online, is numbered in
the firmware's order, and takes part in the quantum clock; CPUs beyond what
the kernel runs on are named and counted, never dropped silently; the TSC
handshake also works with every wait halted.

The scale boots run under plain TCG and check what bring-up does, not how
fast (that is `make bench`, tools/bench/bench_bringup.py)."""
import re
import struct

import pytest

from harness import cpu_count_ok, q35_madt, qemu

ICOUNT = "shift=3,sleep=off"
# QEMU 7.2 TCG offers no x2APIC, so 255 CPUs (APIC IDs 0-254) is its most;
# q35 takes up to 288 with KVM.
TCG_MAX_CPUS = 255


def clock_table(boot, mode):
    """The quantum clock's per-CPU rows for one mode: {cpu: apic_id}."""
    text = boot.serial.split(f"quantum clock, {mode}:", 1)[1]
    text = text.split("RESULT ticks", 1)[0]
    return {int(c): int(a) for c, a in
            re.findall(r"^\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s*$", text, re.M)}


@pytest.mark.parametrize("cpus", [64, 128, TCG_MAX_CPUS])
def test_every_cpu_online_at_scale(iso_with, cpus):
    boot = qemu(iso_with("slots=50"), smp=cpus, machine="q35", timeout=900,
                memory="512M")
    assert boot.passed, boot.tail()
    smp = boot.result("smp")
    assert int(smp["cpus_found"]) == cpus, smp
    assert int(smp["cpus_online"]) == cpus, smp
    assert smp["cpus_unsupported"] == "0", smp
    assert not boot.results("smp_missing"), boot.tail()
    for t in boot.results("ticks"):
        assert int(t["cpus"]) == cpus, t
    # -smp N numbers the CPUs' APIC IDs 0..N-1 in the MADT: CPU k is the
    # k-th, every one distinct.
    for mode in ("aligned", "staggered"):
        assert clock_table(boot, mode) == {k: k for k in range(cpus)}


def local_apic(apic_id):
    """Processor local APIC entry (5.2.12.2), enabled; UID = APIC ID."""
    return bytes([0, 8, apic_id, apic_id]) + struct.pack("<I", 1)


def local_x2apic(apic_id):
    """Processor local x2APIC entry (5.2.12.12), enabled."""
    return bytes([9, 16, 0, 0]) + struct.pack("<III", apic_id, 1, apic_id)


def test_cpus_beyond_the_limit_are_named_and_counted(iso_with, tmp_path):
    # An MADT in place of QEMU's (GRUB loads it: a second one would be
    # ignored): the two real CPUs (APIC IDs 0, 1), 253 listed ones that do
    # not exist (2-254) and five x2APIC ones (255-259): 260 CPUs, four past
    # the kernel's 256, and ID 255 needs x2APIC mode, which TCG does not
    # offer.
    table = tmp_path / "madt.bin"
    table.write_bytes(q35_madt([local_apic(i) for i in range(0, 255)] +
                               [local_x2apic(i) for i in range(255, 260)]))
    boot = qemu(iso_with("slots=50", acpi_tables=[table]), smp=2,
                machine="q35", timeout=600)
    assert "acpi: a second MADT" not in boot.serial, boot.tail()
    assert boot.passed, boot.tail()
    assert ("acpi: CPUs with APIC IDs 256-259 left out: the kernel runs on "
            "at most 256 CPUs" in boot.serial), boot.tail()
    assert ("smp: CPU with APIC ID 255 needs x2APIC mode, which the boot CPU "
            "does not offer; left out" in boot.serial), boot.tail()
    smp = boot.result("smp")
    assert smp["cpus_found"] == "260", smp
    assert smp["cpus_online"] == "2", smp
    assert smp["cpus_unsupported"] == "5", smp
    # Every listed CPU that did not come up is named once, and the two
    # that did are renumbered 0 and 1 for the clock.
    missing = sorted(int(m["apic_id"]) for m in boot.results("smp_missing"))
    assert missing == list(range(2, 255)), missing
    for t in boot.results("ticks"):
        assert t["cpus"] == "2", t
    assert clock_table(boot, "staggered") == {0: 0, 1: 1}


def test_tsc_handshake_with_every_wait_halted(iso_with):
    # spin_us=0: each side of the TSC handshake halts at once in every
    # round and is woken by the other's IPI (kernel/core/smp.c) -- the path a
    # busy emulator host takes. Under -icount the clock is virtual, so the
    # offsets must still be good enough that no boundary is missed.
    boot = qemu(iso_with("spin_us=0 slots=200"), smp=8, machine="q35",
                icount=ICOUNT)
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 8)
    for t in boot.results("ticks"):
        assert t["missed"] == "0", t
