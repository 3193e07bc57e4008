"""Under KVM (where the host allows it) QEMU's CPU has an x2APIC and the
TSC-deadline timer, so this is the QEMU run of those two paths (TCG in
QEMU 7.2 has neither; Bochs covers them otherwise)."""
import os

import pytest

from harness import cpu_count_ok, qemu

# Opt-in (`make test KVM_TESTS=1`): the nested KVM of the build machines runs
# firmware some forty times slower than TCG, and no test may depend on it.
pytestmark = pytest.mark.skipif(
    os.environ.get("KVM_TESTS") != "1" or
    not os.access("/dev/kvm", os.R_OK | os.W_OK),
    reason="KVM tests are opt-in: KVM_TESTS=1 with a usable /dev/kvm")


# The host's CPU without IA32_ARCH_CAPABILITIES: on an AMD host under
# nested KVM, QEMU 7.2's `-cpu host` aborts setting that MSR (0x10a), and
# nothing the kernel uses depends on it.
KVM_CPU = "host,-arch-capabilities"


def test_kvm_x2apic_and_tsc_deadline(iso_with):
    # One boot only: under nested KVM the firmware's real-mode part alone
    # takes over a minute, and a whole boot took 6 to 10 minutes on the
    # development machine (an AMD host, itself a guest).
    smp = 2
    boot = qemu(iso_with("slots=200"), smp=smp, machine="q35", timeout=1200,
                extra=["-accel", "kvm", "-cpu", KVM_CPU])
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, smp)
    assert boot.result("smp")["apic"] == "x2apic", boot.tail()
    assert boot.result("tsc")["deadline"] == "1", boot.tail()
    assert "timer in TSC-deadline mode" in boot.serial, boot.tail()
    for t in boot.results("ticks"):
        assert int(t["cpus"]) == smp
        assert int(t["missed"]) >= int(t["quanta"]) - int(t["seen_min"])
