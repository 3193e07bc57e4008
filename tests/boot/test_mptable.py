"""ACPI off: the CPUs come from the MP tables (issue 2, item 5). SeaBIOS
lists one processor per package there, so the kernel derives each package's
other APIC IDs from CPUID leaf 0xB; every CPU of the topology must come up."""
import pytest

from harness import cpu_count_ok, qemu


@pytest.mark.parametrize("smp,cpus", [
    ("4", 4),                               # one socket of four cores
    ("4,sockets=2,cores=1,threads=2", 4),   # SMT siblings
    ("6,sockets=2,cores=3,threads=1", 6),   # cores not a power of two
])
def test_cpus_from_mp_tables(iso_with, smp, cpus):
    boot = qemu(iso_with("slots=100"), smp=smp, machine="pc,acpi=off")
    assert boot.passed, boot.tail()
    assert "acpi: no RSDP found" in boot.serial, boot.tail()
    assert f"{cpus} CPUs from mptable" in boot.serial, boot.tail()
    cpu_count_ok(boot, cpus)
    for t in boot.results("ticks"):
        assert int(t["cpus"]) == cpus
