"""Bad command-line words and page faults on an AP and on the boot CPU
(issue 2, tests)."""
import re
import subprocess

import pytest

from conftest import host_tool
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


def schedulers():
    """The plugin names, as the simulator (the same sched/registry.c) lists
    them in its usage message."""
    usage = subprocess.run([str(host_tool("schedsim"))], capture_output=True,
                           text=True, timeout=60).stderr
    line = [l for l in usage.splitlines() if l.startswith("schedulers:")]
    assert line, usage
    return line[0].split()[1:]


def last_line(boot):
    return [l.strip() for l in boot.serial.splitlines() if l.strip()][-1]


def test_unknown_scheduler_fails_the_boot_naming_the_ones_there_are(
        iso_with):
    """Its default, no scheduler, would run the self-measurement and pass."""
    boot = qemu(iso_with("sched=nonexistent slots=50"), smp=2)
    assert f"cmdline: bad value 'sched=nonexistent': no such scheduler; " \
        f"this kernel has {' '.join(schedulers())}" in boot.serial, boot.tail()
    assert last_line(boot) == "RESULT exit status=fail reason=cmdline", \
        boot.tail()
    assert not boot.results("ticks"), boot.tail()


def test_a_console_line_longer_than_1023_bytes_prints_whole(iso_with):
    """The kernel echoes its command line on one line: here 1,200 bytes of
    (unknown, so harmless) words. It arrives whole, and the next line is
    a line of its own."""
    words = " ".join(f"pad{i:03d}=x" for i in range(120))
    boot = qemu(iso_with(f"slots=50 {words}"), smp=1)
    lines = boot.serial.splitlines()
    echo = [i for i, l in enumerate(lines)
            if l.startswith("cmdline: ") and "pad000=x pad001=x" in l]
    assert len(echo) == 1, boot.tail()
    assert lines[echo[0]].rstrip().endswith(words), lines[echo[0]][-200:]
    assert lines[echo[0] + 1].startswith("fb: "), lines[echo[0] + 1][:200]
    assert boot.passed, boot.tail()


def test_running_out_of_boot_memory_names_the_size(iso_with):
    """slots=1000000 on 4 CPUs wants 128 MB of boundary records (32 bytes
    each, a slot and the end boundary per CPU, 16 to spare) in a 48 MiB
    machine: the kernel says what did not fit and fails with
    reason=memory, never writing past what it has."""
    boot = qemu(iso_with("slots=1000000 ticks=aligned"), smp=4, memory="48M")
    m = re.search(r"^trace: no memory for (\d+) records on each of (\d+) "
                  r"CPUs \((\d+) bytes left\)", boot.serial, re.M)
    assert m, boot.tail()
    records, cpus, left = map(int, m.groups())
    assert (records, cpus) == (1000000 + 16, 4), m.group(0)
    assert left < records * cpus * 32, m.group(0)
    assert last_line(boot) == "RESULT exit status=fail reason=memory", \
        boot.tail()


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
    # The kernel names it too, from its own symbol table (kernel/core/ksyms).
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
    def make(target, cmdline, *more):
        return subprocess.run(
            ["make", "--no-print-directory", "-C", str(ROOT), target,
             "SMP=2", f"CMDLINE={cmdline}", *more],
            capture_output=True, text=True, timeout=300)
    for target in ("run", "bochs"):
        good = make(target, "slots=100")
        assert good.returncode == 0, \
            target + good.stdout[-3000:] + good.stderr[-2000:]
        assert "RESULT exit status=pass" in good.stdout
        # The default task set runs: a readable table of what each task
        # got, one row per task, before the RESULT lines.
        out = good.stdout.replace("\r", "")
        header = re.search(r"^  task +work +e/p +jobs +misses +"
                           r"tardiness_us +quanta +ran_ms +self_ms +state$",
                           out, re.M)
        assert header, target + out[-3000:]
        names = re.findall(r"^task (\S+)", (ROOT / "tasks" /
                                             "default.tasks").read_text(),
                           re.M)
        rows = re.findall(r"^  (\S+) +spin +\d+/\d+ +\d+ +\d+ +\d+ +"
                          r"(\d+) +[\d.]+ +[\d.]+ +ok$",
                          out[header.end():], re.M)
        assert [r[0] for r in rows] == names, target + out[-3000:]
        assert all(int(q) > 0 for _, q in rows), rows
        assert out.index("RESULT task ") > header.end()
        bad = make(target, "selftest=pf_ap")
        assert bad.returncode != 0, target
        assert "RESULT exit status=fail reason=exception" in bad.stdout
    # A run made late (here on purpose) is neither: make's own status is
    # 2, as for any failed step, and the step's status 3 says late.
    late = make("run", "slots=20 late_boundary=0:5:2500", "SCHED=pd2")
    assert late.returncode == 2
    assert "RESULT exit status=late reason=boundaries" in late.stdout
    assert "boot-run] Error 3" in late.stderr, late.stderr
    # A misspelt SCHED= is named with the schedulers there are, before
    # anything is built or booted; it used to fall back to the
    # self-measurement and pass.
    typo = make("run", "slots=100", "SCHED=typo")
    assert typo.returncode == 2
    assert f"make: SCHED=typo: no such scheduler; there are: " \
        f"{' '.join(schedulers())}" in typo.stderr, typo.stderr[-3000:]
    assert "RESULT" not in typo.stdout
