"""Bochs with two CPUs of a model with x2APIC and the TSC-deadline timer:
QEMU 7.2's TCG has no x2APIC, so this is the x2APIC path's test."""
from harness import bochs, cpu_count_ok


def test_bochs_two_cpus_x2apic(iso_with):
    boot = bochs(iso_with("slots=100"), cpus=2)
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 2)
    assert boot.result("smp")["apic"] == "x2apic", boot.tail()
    assert boot.result("tsc")["deadline"] == "1", boot.tail()
    assert len(boot.results("ticks")) == 2
