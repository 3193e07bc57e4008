"""Firmware tables the kernel must not trust (issue 2, item 5): QEMU's
`-acpitable` adds a second MADT to the firmware's. QEMU fixes up the
checksum of such a table, so its damage is inside: an entry that runs past
the table's end. The host test tests/host/c/test_acpi_tables.c covers
checksums, lengths and signatures."""
import struct

import pytest

from harness import cpu_count_ok, extra_madt, qemu

# ACPI 6.4, 5.2.12.2: a processor local APIC entry (type 0, length 8):
# processor UID, APIC ID, flags (bit 0 Enabled). APIC ID 7 does not exist on
# a 2-CPU machine, so a kernel that trusts the entry tries to start it.
ABSENT_CPU = bytes([0, 8, 7, 7]) + struct.pack("<I", 1)
# An I/O APIC entry (type 1) claiming 40 bytes where 4 are left.
OVERRUN = bytes([1, 40, 0, 0])


@pytest.mark.parametrize("entries,trusted", [
    ([ABSENT_CPU], True),               # control: the extra MADT is read
    ([ABSENT_CPU, OVERRUN], False),
])
def test_malformed_madt_is_reported_and_ignored(iso, tmp_path, entries,
                                                trusted):
    table = tmp_path / "madt.bin"
    table.write_bytes(extra_madt(entries))
    boot = qemu(iso, smp=2, extra=["-acpitable", f"file={table}"])
    assert boot.passed, boot.tail()
    smp = boot.result("smp")
    missing = boot.results("smp_missing")
    if trusted:
        # The kernel reads the table, waits for APIC ID 7, names it and
        # goes on with the CPUs that came up.
        assert smp["cpus_found"] == "3" and smp["cpus_online"] == "2", smp
        assert [m["apic_id"] for m in missing] == ["7"], boot.tail()
    else:
        assert ("acpi: MADT entry 1 (type 1 at offset 52) runs past the "
                "table's end or has length 40; the MADT is not trusted"
                in boot.serial), boot.tail()
        assert not missing, boot.tail()
        cpu_count_ok(boot, 2)
