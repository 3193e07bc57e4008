"""The same ISO under UEFI (OVMF), and 32 CPUs on q35 (issue 2, tests)."""
from harness import cpu_count_ok, qemu


def test_uefi_two_cpus(iso_with):
    boot = qemu(iso_with("slots=200"), smp=2, machine="q35", firmware="uefi",
                timeout=400)
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 2)
    assert len(boot.results("ticks")) == 2


def test_thirty_two_cpus_on_q35(iso_with):
    # 32 emulated CPUs on two host cores: boundaries may be missed here, and
    # are reported as such; bring-up and the pass are what is checked.
    boot = qemu(iso_with("slots=200"), smp=32, machine="q35", timeout=600)
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 32)
    for t in boot.results("ticks"):
        assert int(t["cpus"]) == 32
        assert int(t["missed"]) >= int(t["quanta"]) - int(t["seen_min"])
