"""The gfp plugin (global fixed priority, rate-monotonic, sched/gfp)
through tools/schedsim, against the independent reference of gfp_ref.py:
the exact CPU of every task in every slot, the per-task accounting, the
preemptions and migrations counted from the schedule itself, and the
refusals. docs/writing-a-scheduler.md builds this plugin and this test."""
from hypothesis import given, settings, strategies as st

from conftest import run_schedsim
from edf_ref import Task, tasks_text
from gfp_ref import Reference
from test_edf import SETTINGS, run_bad, task_sets


def moves(rows, tasks, leaves=()):
    """(preemptions, migrations) from a schedule: a job that ran in slot t
    and has quanta left but does not run in slot t + 1 (its task has not
    left by then); a job whose next slot is on another CPU than its
    last."""
    e = {t.name: t.e for t in tasks}
    left = {n: t for t, n in leaves}
    ran = {n: 0 for n in e}
    last = {}
    preempted = migrated = 0
    for t, row in enumerate(rows):
        for k, n in enumerate(row):
            if n is None:
                continue
            if ran[n] % e[n] and last.get(n, k) != k:
                migrated += 1
            last[n] = k
            ran[n] += 1
            if ran[n] % e[n] and t + 1 < len(rows) and \
                    n not in rows[t + 1] and left.get(n, t + 2) > t + 1:
                preempted += 1
    return preempted, migrated


def check(tasks, cpus, slots, tmp_path, leaves=()):
    ref = Reference(tasks, cpus, leaves)
    want = [[None if i is None else tasks[i].name for i in row]
            for row in ref.run(slots)]
    text = tasks_text(tasks, [(t, "leave", n) for t, n in leaves])
    rows, summary = run_schedsim(text, "gfp", cpus, slots, tmp_path)
    for t, (got, exp) in enumerate(zip(rows, want)):
        assert got == exp, f"slot {t}: gfp runs {got}, the reference {exp}"
    assert summary["tasks"] == ref.summary_tasks()
    assert (summary["preemptions"], summary["migrations"]) == \
        moves(rows, tasks, leaves)
    return rows, summary


def test_hand_worked_example(tmp_path):
    """Two CPUs; priorities A (p 2), B (p 3), C (p 4), D (p 6); U = 11/6.
    Slot 0: A and B on CPUs 0 and 1. Slot 1: A is done, C takes CPU 0, B
    keeps 1. Slot 2: A's second job and C; C keeps CPU 0, A takes the free
    1. Slot 3: B's second job and D on CPUs 0 and 1 (C done). Slot 4: A's
    third job and B; B keeps CPU 0. Slot 5: C's second job alone, on the
    lowest free CPU."""
    tasks = [Task("A", 1, 2, 2), Task("B", 2, 3, 3), Task("C", 2, 4, 4),
             Task("D", 1, 6, 6)]
    rows, summary = check(tasks, 2, 6, tmp_path)
    assert rows == [["A", "B"], ["C", "B"], ["C", "A"], ["B", "D"],
                    ["B", "A"], ["C", None]]
    assert summary["misses"] == 0


def test_fixed_priority_misses_below_full_utilisation(tmp_path):
    """U = 1/2 + 1/2 + 9/10 = 1.9 <= M = 2, yet C (the longest period,
    lowest priority) gets a CPU only while A or B is done, 5 slots of its
    10: its first job ends 8 slots late. The reference agrees job by job."""
    tasks = [Task("A", 1, 2, 2), Task("B", 1, 2, 2), Task("C", 9, 10, 10)]
    rows, summary = check(tasks, 2, 40, tmp_path)
    assert [t for t, r in enumerate(rows[:19]) if "C" in r] == \
        list(range(1, 18, 2))
    assert summary["tasks"]["C"]["misses"] > 0
    assert summary["tasks"]["A"]["misses"] == 0


@settings(max_examples=80, **SETTINGS)
@given(task_sets())
def test_matches_reference(tmp_path, cs):
    cpus, tasks = cs
    check(tasks, cpus, 60, tmp_path)


@settings(max_examples=40, **SETTINGS)
@given(st.data())
def test_leave_matches_reference(tmp_path, data):
    cpus, tasks = data.draw(task_sets())
    names = data.draw(st.lists(st.sampled_from([t.name for t in tasks]),
                               unique=True, max_size=3))
    leaves = sorted((data.draw(st.integers(1, 59)), n) for n in names)
    check(tasks, cpus, 60, tmp_path, leaves)


def test_refusals_name_what_was_wrong(tmp_path):
    err = run_bad(tmp_path, "task A e=2 p=3\ntask B e=2 p=3\n"
                  "task C e=2 p=3\ntask D e=1 p=100\n", "gfp")
    assert "task D (line 4): total utilisation exceeds M = 2" in err
    err = run_bad(tmp_path, "task A e=1 p=2\ntask W weight=3\n", "gfp")
    assert "task W (line 2) has only weight=" in err
    err = run_bad(tmp_path, "task A e=1 p=2\n", "gfp", 2, "--ticks",
                  "staggered")
    assert "gfp runs on aligned quanta only" in err
    proc = run_schedsim("task A e=1 p=2\nat 3 block A\n", "gfp", 2, 10,
                        tmp_path, check=False)
    assert proc.returncode != 0
    assert ":2: gfp does not support 'block' events" in proc.stderr
    err = run_bad(tmp_path, "task A e=1 p=2\n", "gfp", 2, "--param",
                  "edf_cpudl=1")
    assert "--param edf_cpudl: not a parameter of gfp (takes: none)" in err
