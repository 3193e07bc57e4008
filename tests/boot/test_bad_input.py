"""Bad command-line words and page faults on an AP and on the boot CPU
(issue 2, tests)."""
import re
import subprocess

import pytest

from harness import ROOT, cpu_count_ok, qemu


def test_unknown_word_and_bad_value_are_named_and_boot_passes(iso_with):
    iso = iso_with("frobnicate=7 quantum_us=abc slots=200 sched=bogus")
    boot = qemu(iso, smp=2)
    assert "cmdline: unknown word 'frobnicate=7'" in boot.serial, boot.tail()
    bad = [l for l in boot.serial.splitlines()
           if "cmdline: bad value 'quantum_us=abc'" in l]
    assert bad and "using default" in bad[0], boot.tail()
    assert "cmdline: bad value 'sched=bogus' (no such scheduler in this " \
        "kernel); using default none" in boot.serial, boot.tail()
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 2)
    for t in boot.results("ticks"):
        # The good word still applies; the bad one fell back to the default.
        assert t["quanta"] == "200" and t["quantum_us"] == "1000", t


# selftest=pf_ap writes to an unmapped address from fault_on_ap on CPU 1;
# pf_bsp from kernel_main on CPU 0 (kernel/main.c).
SELFTEST_BAD_ADDRESS = 0x700000000000


@pytest.mark.parametrize("word,on_ap,function", [
    ("pf_ap", True, "fault_on_ap"),
    ("pf_bsp", False, "kernel_main"),
])
def test_page_fault_is_reported_and_fails(iso_with, word, on_ap, function):
    iso = iso_with(f"selftest={word}")
    boot = qemu(iso, smp=2)
    assert not boot.passed
    panic = [l for l in boot.serial.splitlines() if l.startswith("PANIC ")]
    assert panic, boot.tail()
    m = re.search(r"cpu=(\d+) vector=14 \(#PF\) error=(0x[0-9a-f]+) "
                  r"rip=(0x[0-9a-f]+) cr2=(0x[0-9a-f]+)", panic[0])
    assert m, panic[0]
    assert (m.group(1) != "0") == on_ap, panic[0]
    # SDM vol. 3, 4.7: bit 1 of the error code is set for a write.
    assert int(m.group(2), 16) & 2, panic[0]
    assert int(m.group(4), 16) == SELFTEST_BAD_ADDRESS, panic[0]
    where = subprocess.run(["addr2line", "-f", "-e",
                            str(ROOT / "build/kernel/kernel.elf"), m.group(3)],
                           capture_output=True, text=True, check=True)
    assert where.stdout.split()[0] == function, where.stdout
    # The kernel names it too, from its own symbol table (kernel/ksyms).
    frame0 = re.search(r"#0 (0x[0-9a-f]+) (\w+)\+0x[0-9a-f]+$",
                       boot.serial, re.M)
    assert frame0, boot.tail()
    assert int(frame0.group(1), 16) == int(m.group(3), 16)
    assert frame0.group(2) == function
    last = [l.strip() for l in boot.serial.splitlines() if l.strip()][-1]
    assert last == "RESULT exit status=fail reason=exception", boot.tail()


def test_make_run_and_bochs_exit_status_follows_the_result():
    """`make run` (QEMU) and `make bochs` exit 0 exactly when the kernel
    passed. One test for both: they build the same build/run.iso."""
    def make(target, cmdline):
        return subprocess.run(
            ["make", "--no-print-directory", "-C", str(ROOT), target,
             "SMP=2", f"CMDLINE={cmdline}"],
            capture_output=True, text=True, timeout=300)
    for target in ("run", "bochs"):
        good = make(target, "slots=100")
        assert good.returncode == 0, \
            target + good.stdout[-3000:] + good.stderr[-2000:]
        assert "RESULT exit status=pass" in good.stdout
        bad = make(target, "selftest=pf_ap")
        assert bad.returncode != 0, target
        assert "RESULT exit status=fail reason=exception" in bad.stdout
