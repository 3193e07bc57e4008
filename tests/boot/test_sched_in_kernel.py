"""The scheduler plugins run in the kernel, on the quantum clock, and make
exactly the decisions the host simulator makes with the same code (the
executed schedule of every plugin: tests/boot/test_tasks.py); waiting for
a turn, missed deadlines, and the set's errors."""
import json
import subprocess
from fractions import Fraction

import pytest

from conftest import host_tool
from harness import ROOT, qemu

ICOUNT = "shift=3,sleep=off"


def kernel_schedule(serial):
    """The schedule JSON lines the kernel printed, in order."""
    return [line.strip() for line in serial.splitlines()
            if line.strip().startswith("{")]


def simulator_schedule(sched, cpus, slots, tasks_file, params=()):
    extra = [a for p in params for a in ("--param", p)]
    out = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
         "--slots", str(slots), *extra, str(tasks_file)],
        capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.splitlines()


@pytest.mark.parametrize("sched,cpus", [("pd2", 4), ("spd2", 3)])
def test_cpus_halted_for_their_turn_are_woken(iso_with, sched, cpus):
    """spin_us=0: every CPU that has to wait for its turn halts at once and
    is woken by the IPI of the CPU before it; a lost wake-up would hang the
    run. The decisions stay those of the simulator."""
    tasks = ROOT / "tasks" / "default.tasks"
    slots = 60
    iso = iso_with(f"sched={sched} slots={slots} spin_us=0", tasks=tasks)
    boot = qemu(iso, smp=cpus, icount=ICOUNT)
    assert boot.passed, boot.tail()
    assert kernel_schedule(boot.serial) == \
        simulator_schedule(sched, cpus, slots, tasks)
    assert boot.result("ticks")["quanta"] == str(slots)


# Admitted by global EDF (U = 2/10 + 2/10 + 10/11 <= 2) and still late
# (Dhall's effect): A and B take both CPUs for two slots with the earlier
# deadline, and C's 10 quanta no longer fit before 11.
DHALL = """\
task A e=2 p=10
task B e=2 p=10
task C e=10 p=11
"""

# Total weight 298/105 <= 3, so Pfair-feasible; under staggered quanta a
# subtask may still end up to (M-1)/M of a quantum after its deadline
# (staggered Pfair, Sec. 4, effect E1).
E1 = """\
task T0 e=4 p=5
task T1 e=4 p=7
task T2 e=4 p=5
task T3 e=2 p=3
"""


@pytest.mark.parametrize("sched,cpus,taskset", [("gedf", 2, DHALL),
                                                ("spd2", 3, E1)])
def test_missed_deadlines_are_the_simulators(iso_with, tmp_path, sched, cpus,
                                             taskset):
    tasks = tmp_path / "late.tasks"
    tasks.write_text(taskset)
    weights = [Fraction(*map(int, (w.split("=")[1] for w in line.split()[2:4])))
               for line in taskset.splitlines()]
    assert sum(weights) <= cpus
    slots = 60
    boot = qemu(iso_with(f"sched={sched} slots={slots}", tasks=tasks),
                smp=cpus, icount=ICOUNT)
    assert boot.passed, boot.tail()
    want = simulator_schedule(sched, cpus, slots, tasks)
    assert kernel_schedule(boot.serial) == want
    summary = json.loads(want[-1])["summary"]
    # The set really misses, and the kernel's count is the simulator's.
    assert summary["misses"] > 0, summary
    assert int(boot.result("sched")["misses"]) == summary["misses"]
    if sched == "spd2":
        tardiness = Fraction(summary["max_tardiness"]).limit_denominator(cpus)
        assert 0 < tardiness <= Fraction(cpus - 1, cpus), summary


def test_empty_task_set_is_named_and_fails(iso_with, tmp_path):
    """GRUB loads an empty module at address 0; it is still a task set
    that was given, and the parser says what is wrong with it."""
    tasks = tmp_path / "empty.tasks"
    tasks.write_text("")
    boot = qemu(iso_with("sched=gedf slots=20", tasks=tasks), smp=2)
    assert "taskset: empty.tasks: no task declared" in boot.serial, boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=taskset"


def test_bad_task_set_is_named_and_fails(iso_with, tmp_path):
    tasks = tmp_path / "broken.tasks"
    tasks.write_text("task A e=1 p=2\ntask B e=3 p=2\n")
    boot = qemu(iso_with("sched=spd2 slots=20", tasks=tasks), smp=2)
    assert "taskset: broken.tasks:2: task 'B': e=3 is greater than p=2" in \
        boot.serial, boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=taskset"


def test_overweight_set_is_refused_naming_the_task(iso_with, tmp_path):
    tasks = tmp_path / "heavy.tasks"
    tasks.write_text("task A e=1 p=1\ntask B e=1 p=1\ntask C e=1 p=9\n")
    boot = qemu(iso_with("sched=pd2 slots=20", tasks=tasks), smp=2)
    lines = [l for l in boot.serial.splitlines() if l.startswith("sched: ")]
    assert any("task C" in l and "exceeds 2 processors" in l for l in lines), \
        boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=admission"


def test_sched_without_task_set_says_so(iso_with):
    boot = qemu(iso_with("sched=spd2 slots=20"), smp=2)
    assert "needs a task set" in boot.serial, boot.tail()
    assert not boot.passed
