"""Bad command-line words and a fault in an AP (issue 2, tests)."""
import re
import subprocess

from harness import ROOT, cpu_count_ok, qemu


def test_unknown_word_and_bad_value_are_named_and_boot_passes(iso_with):
    iso = iso_with("frobnicate=7 quantum_us=abc slots=200")
    boot = qemu(iso, smp=2)
    assert "cmdline: unknown word 'frobnicate=7'" in boot.serial, boot.tail()
    bad = [l for l in boot.serial.splitlines()
           if "cmdline: bad value 'quantum_us=abc'" in l]
    assert bad and "using default" in bad[0], boot.tail()
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 2)
    for t in boot.results("ticks"):
        # The good word still applies; the bad one fell back to the default.
        assert t["quanta"] == "200" and t["quantum_us"] == "1000", t


def test_page_fault_on_an_ap_is_reported_and_fails(iso_with):
    iso = iso_with("selftest=pf_ap")
    boot = qemu(iso, smp=2)
    assert not boot.passed
    panic = [l for l in boot.serial.splitlines() if l.startswith("PANIC ")]
    assert panic, boot.tail()
    m = re.search(r"cpu=(\d+) vector=14 \(#PF\) error=0x[0-9a-f]+ "
                  r"rip=0x[0-9a-f]+ cr2=0x[0-9a-f]+", panic[0])
    assert m, panic[0]
    assert m.group(1) != "0", "the fault was meant for an AP"
    last = [l.strip() for l in boot.serial.splitlines() if l.strip()][-1]
    assert last == "RESULT exit status=fail reason=exception", boot.tail()


def test_make_run_exit_status_follows_the_result():
    def make_run(cmdline):
        return subprocess.run(
            ["make", "--no-print-directory", "-C", str(ROOT), "run", "SMP=2",
             f"CMDLINE={cmdline}"],
            capture_output=True, text=True, timeout=300)
    good = make_run("slots=100")
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr[-2000:]
    assert "RESULT exit status=pass" in good.stdout
    bad = make_run("selftest=pf_ap")
    assert bad.returncode != 0
    assert "RESULT exit status=fail reason=exception" in bad.stdout
