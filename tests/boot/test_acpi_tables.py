"""Firmware that lists two MADTs (issue 24, item 1): QEMU's `-acpitable`
adds a second MADT after the firmware's own in the root table. The kernel
uses the first, as Linux does, names the second in the boot log, and reads
nothing from it: neither a CPU it lists (APIC ID 7, absent on a 2-CPU
machine, which a kernel that read the table would wait for and name as
missing) nor its damage (an entry running past the table's end, which a
kernel that read the table would report). The host tests cover the rest:
tests/host/c/test_acpi_tables.c checksums, lengths, signatures and damage
inside the MADT used; tests/host/test_acpi_machines.py real machines'
tables."""
import re
import struct

import pytest

from harness import cpu_count_ok, extra_madt, qemu

# ACPI 6.4, 5.2.12.2: a processor local APIC entry (type 0, length 8):
# processor UID, APIC ID, flags (bit 0 Enabled).
ABSENT_CPU = bytes([0, 8, 7, 7]) + struct.pack("<I", 1)
# An I/O APIC entry (type 1) claiming 40 bytes where 4 are left.
OVERRUN = bytes([1, 40, 0, 0])

SECOND = re.compile(r"acpi: a second MADT \(APIC table at (0x[0-9a-f]+)\) "
                    r"ignored: the first, at (0x[0-9a-f]+), is used")


@pytest.mark.parametrize("entries", [[ABSENT_CPU], [ABSENT_CPU, OVERRUN]],
                         ids=["well-formed", "damaged"])
def test_a_second_madt_is_named_and_ignored(iso, tmp_path, entries):
    table = tmp_path / "madt.bin"
    table.write_bytes(extra_madt(entries))
    boot = qemu(iso, smp=2, extra=["-acpitable", f"file={table}"])
    assert boot.passed, boot.tail()
    named = SECOND.findall(boot.serial)
    assert len(named) == 1, boot.tail()
    assert named[0][0] != named[0][1]
    assert "2 CPUs from acpi" in boot.serial, boot.tail()
    assert boot.result("smp")["cpus_found"] == "2", boot.tail()
    assert not boot.results("smp_missing"), boot.tail()
    assert "runs past the table's end" not in boot.serial, boot.tail()
    cpu_count_ok(boot, 2)
