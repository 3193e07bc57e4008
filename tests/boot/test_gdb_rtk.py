"""GDB's `rtk` commands (tools/gdb/rtkgdb) against what the kernel prints at
the same point, through QEMU's stub and through the kernel's own (gdb=wait,
COM2): with dumpstate=, the kernel prints the plugin's state
(STATE lines) from dumpstate_print; GDB stops there, runs the command, and
the kernel then prints. The commands walk the plugin's heaps and queues in
memory, the kernel's dump finds the same sets its own way (flags, array
order), so equal output says the commands read the structures right."""
import fractions

import pytest

from conftest import parse_schedule
from gdbrun import Machine, between, gdb_batch, lag_problems

PFAIR_SET = """\
task A e=1 p=2
task B e=2 p=3
task C e=3 p=5
task D e=1 p=4
task E e=2 p=7
task F e=3 p=8 phase=20
task G e=1 p=3
task H e=2 p=9
task I e=2 p=5
task J e=1 p=5
"""
GDQ_SET = """\
task W1 weight=1
task W2 weight=2
task W3 weight=3
task W5 weight=5
task W8 weight=8
task W13 weight=13
task W21 weight=21
task W34 weight=34 phase=30
"""
# U = 3.95 on 4 CPUs, so that queues hold jobs behind their heads.
EDF_SET = """\
task E1 e=1 p=2
task E2 e=2 p=5 d=4
task E3 e=3 p=7
task E4 e=1 p=3 d=2
task E5 e=2 p=9
task E6 e=4 p=10 d=8
task E7 e=1 p=6
task E8 e=3 p=4
task E9 e=2 p=6
task E10 e=5 p=12
"""
# EDF_SET without E7 (U = 3.78): first-fit decreasing by utilisation fills
# cluster 0 (E8, E1, E3, E5) to 1.90 and cluster 1 to 1.88 of 2.
CEDF_SET = EDF_SET.replace("task E7 e=1 p=6\n", "")
# Utilisation 1 on each of 4 CPUs under first-fit decreasing.
PEDF_SET = """\
task P1 e=1 p=2
task P2 e=1 p=2
task P3 e=2 p=5
task P4 e=3 p=5
task P5 e=1 p=4
task P6 e=3 p=4
task P7 e=1 p=3
task P8 e=2 p=3
"""

CASES = [
    # stub, scheduler, extra words, task set, dump point, rtk commands
    ("qemu", "spd2", "", PFAIR_SET, "9", ["pfair"]),
    ("qemu", "pd2", "", PFAIR_SET, "end", ["pfair", "clock", "tasks"]),
    ("qemu", "gdq", "gdq_T=6", GDQ_SET, "12", ["gdq"]),
    ("qemu", "gedf", "edf_cpudl=1", EDF_SET, "end",
     ["edf", "clock", "tasks"]),
    ("qemu", "gedf", "", EDF_SET, "7", ["edf"]),
    ("qemu", "ngedf", "", EDF_SET, "9", ["edf"]),
    ("qemu", "cedf", "cluster=2", CEDF_SET, "7", ["edf"]),
    ("qemu", "gfp", "", CEDF_SET, "6", ["gfp"]),
    ("kernel", "spd2", "", PFAIR_SET, "end", ["pfair", "clock", "tasks"]),
    ("kernel", "pd2", "", PFAIR_SET, "14", ["pfair"]),
    ("kernel", "gdq", "gdq_T=6 gdq_err=1", GDQ_SET, "end",
     ["gdq", "clock", "tasks"]),
    ("kernel", "gedf", "", EDF_SET, "11", ["edf"]),
    ("kernel", "pedf", "", PEDF_SET, "5", ["edf"]),
]
# Lines each command's output must have ("command plugin" where a plugin
# shows other ones), so that the comparison is not one of empty sets.
EXPECTED = {
    "pfair": ["pfair cpu ", "pfair Incoming ", "pfair task "],
    "gdq": ["gdq group ", "gdq queue ", "gdq proc ", "gdq cpu "],
    "edf": ["edf rq "],
    "gfp": ["gfp cpu ", "gfp wait "],
    "clock": ["clock cpu 3 "],
    "tasks": ["task "],
    "edf ngedf": ["edf cpu ", "edf ready "],
}


def check_lags_and_errors(sched, tasks, boot, extra):
    """Pfair lags against the quanta each task ran; GDQ's service errors
    against the kernel's summary (err_NAME, gdq_err=1); no such lines from
    the EDF plugins."""
    if sched in ("pd2", "spd2"):
        results = {r["name"]: r for r in boot.results("task")}
        assert lag_problems(extra, tasks, 30, results) == [], extra
    elif sched == "gdq":
        _, summary = parse_schedule("\n".join(
            l.strip() for l in boot.serial.splitlines()
            if l.strip().startswith("{")))
        errs = {l.split()[1]: fractions.Fraction(l.split()[2])
                for l in extra}
        assert set(errs) == {k[len("err_"):] for k in summary
                             if k.startswith("err_")}, extra
        for name, e in errs.items():
            assert abs(float(e) - summary[f"err_{name}"]) < 1e-6, (
                name, e, summary[f"err_{name}"])
    else:
        assert extra == []


@pytest.mark.parametrize("stub,sched,words,tasks,when,commands", CASES,
                         ids=["-".join(c[:2] + (c[4],)) for c in CASES])
def test_rtk_matches_the_kernels_dump(iso_with, tmp_path, stub, sched,
                                      words, tasks, when, commands):
    f = tmp_path / "set.tasks"
    f.write_text(tasks)
    gdb_word = " gdb=wait" if stub == "kernel" else ""
    iso = iso_with(f"sched={sched} slots=30 dumpstate={when} {words}"
                   f"{gdb_word}", tasks=f)
    m = Machine(iso, stub)
    try:
        if stub == "kernel":
            m.wait_for(r"^gdb: waiting for GDB on COM2")
        script = "break dumpstate_print\ncontinue\n"
        for c in commands:
            script += f"echo RTK-BEGIN\\n\nrtk {c}\necho RTK-END\\n\n"
        out, err = gdb_batch(m.port, script + "delete\ncontinue\n")
        boot = m.finish()
    finally:
        m.kill()
    # Stopped in GDB, the run's clock went on: it ends late
    # (docs/running.md, "Debugging"), its numbers still all reported.
    assert boot.finished, boot.tail() + out + err
    label = "end" if when == "end" else f"slot {when}"
    printed = [l.strip()[len("STATE "):] for l in between(
        boot.serial.replace("\r", ""), f"STATE begin {label}", "STATE end")]
    shown = []
    for c in commands:
        shown += between(out[out.index("RTK-BEGIN"):], "RTK-BEGIN",
                         "RTK-END")
        out = out[out.index("RTK-END") + 1:]
    # What the kernel does not print: `rtk tasks`' lags and errors.
    extra = [l for l in shown if l.split()[0] in ("lag", "err")]
    shown = [l for l in shown if l not in extra]
    assert shown == printed, "\n".join(["GDB:"] + shown + ["kernel:"] +
                                       printed) + err
    if "tasks" in commands:
        check_lags_and_errors(sched, tasks, boot, extra)
    for c in commands:
        for prefix in EXPECTED.get(f"{c} {sched}", EXPECTED[c]):
            assert any(l.startswith(prefix) for l in printed), (prefix,
                                                                printed)
    if "edf" in commands and "push=heap" in printed[0]:
        assert any(l.startswith("edf cpudl ") for l in printed), printed


def test_a_done_cpu_is_never_armed_again(iso_with, tmp_path):
    """A reschedule IPI sent before the run's end can be taken after it;
    its handler re-arms the CPU for the next decision (decide_rearm). On a
    CPU whose run is done, that must change nothing: here GDB stops the
    kernel at its end-of-run dump and calls qclock_cpu_arm for the last
    slot on CPU 0, as such a late IPI would. Once this brought the CPU's
    `next` back below the end (and `rtk clock` and the kernel's dump
    disagreed, by chance, in test_rtk_matches_the_kernels_dump)."""
    f = tmp_path / "set.tasks"
    f.write_text(EDF_SET)
    iso = iso_with("sched=gedf slots=30 dumpstate=end edf_cpudl=1", tasks=f)
    m = Machine(iso, "qemu")
    try:
        script = ("break dumpstate_print\ncontinue\nthread 1\n"
                  "printf \"BEFORE %d %d\\n\", qclock.cpu[0].next, "
                  "qclock.cpu[0].done\n"
                  "call qclock_cpu_arm(qclock.slots - 1)\n"
                  "printf \"AFTER %d %d\\n\", qclock.cpu[0].next, "
                  "qclock.cpu[0].done\n"
                  "delete\ncontinue\n")
        out, err = gdb_batch(m.port, script)
        boot = m.finish()
    finally:
        m.kill()
    assert boot.finished, boot.tail() + out + err
    before = [l for l in out.splitlines() if l.startswith("BEFORE ")]
    after = [l for l in out.splitlines() if l.startswith("AFTER ")]
    assert before == ["BEFORE 31 1"], out + err
    assert after == ["AFTER 31 1"], out + err
    dump = [l.strip() for l in boot.serial.splitlines()
            if l.strip().startswith("STATE clock cpu 0 ")]
    assert len(dump) == 1 and " next=31 done=1" in dump[0], dump
