"""schedsim for tasks whose jobs end early (exec=K, tools/schedsim_exec.h):
checked against what the executed schedule must hold whatever the plugin,
written here from the rule (docs/user-programs.md, "Jobs that end early")
and not from the simulator -- each job of a task executes exactly K slots
(e for the others) when no deadline is missed; exec=e is the set without
exec=; under partitioned EDF exec=K executes as e=K does, under global
EDF the same tasks run in every slot; and a Pfair CPU whose job ended at
the start of its slot idles for the rest of it."""
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import host_tool, parse_schedule, run_schedsim

SETTINGS = dict(deadline=None, max_examples=60, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
QUANTUM_PLUGINS = ["gedf", "pedf", "ngedf", "pd2", "spd2"]


@st.composite
def exec_sets(draw, max_cpus=3):
    """M, and tasks (name, e, p, exec or None) with sum e/p <= M * 0.8, so
    that every plugin here admits them."""
    cpus = draw(st.integers(1, max_cpus))
    tasks, total = [], 0.0
    for i in range(draw(st.integers(1, 3 * cpus + 1))):
        p = draw(st.integers(2, 10))
        e = draw(st.integers(1, p))
        if total + e / p > 0.8 * cpus:
            continue
        total += e / p
        k = draw(st.one_of(st.none(), st.integers(0, e)))
        tasks.append((f"T{i}", e, p, k))
    if not tasks:
        tasks.append(("T0", 1, 2, 0))
    return cpus, tasks


def text(tasks, override_e=False):
    lines = []
    for name, e, p, k in tasks:
        if override_e and k is not None:
            lines.append(f"task {name} e={max(k, 1)} p={p}")
        elif k is None:
            lines.append(f"task {name} e={e} p={p}")
        else:
            lines.append(f"task {name} e={e} p={p} work=rtspin exec={k}")
    return "\n".join(lines) + "\n"


def simulate(txt, sched, cpus, slots, tmp_path):
    proc = run_schedsim(txt, sched, cpus, slots, tmp_path, check=False)
    if proc.returncode != 0:
        return None     # not admitted
    return parse_schedule(proc.stdout)


def executed_per_window(rows, name, p, slots):
    """Slots task `name` executes in each whole period [j*p, (j+1)*p)."""
    return [sum(row.count(name) for row in rows[j * p:(j + 1) * p])
            for j in range(slots // p)]


@pytest.mark.parametrize("sched", QUANTUM_PLUGINS)
@settings(**SETTINGS)
@given(drawn=exec_sets())
def test_each_job_executes_its_exec_quanta(tmp_path, sched, drawn):
    cpus, tasks = drawn
    slots = 60
    got = simulate(text(tasks), sched, cpus, slots, tmp_path)
    if got is None:
        return
    rows, summary = got
    if summary["misses"]:
        return      # a late job may run into the next window
    for name, e, p, k in tasks:
        want = e if k is None else k
        assert executed_per_window(rows, name, p, slots) == \
            [want] * (slots // p), (name, e, p, k, rows)


@pytest.mark.parametrize("sched", QUANTUM_PLUGINS)
@settings(**SETTINGS)
@given(drawn=exec_sets())
def test_exec_equal_to_e_is_the_set_without_it(tmp_path, sched, drawn):
    cpus, tasks = drawn
    full = [(n, e, p, None if k is None else e) for n, e, p, k in tasks]
    plain = [(n, e, p, None) for n, e, p, _ in tasks]
    a = simulate(text(full), sched, cpus, 40, tmp_path)
    b = simulate(text(plain), sched, cpus, 40, tmp_path)
    assert a == b


def with_smaller_budget(tmp_path, sched, drawn):
    """The rows of a set with exec= and of the same set with e=exec
    instead (exec=0 left out), or None when either missed a deadline."""
    cpus, tasks = drawn
    tasks = [t for t in tasks if t[3] != 0]
    if not tasks:
        return None
    a = simulate(text(tasks), sched, cpus, 40, tmp_path)
    b = simulate(text(tasks, override_e=True), sched, cpus, 40, tmp_path)
    if a is None or b is None or a[1]["misses"] or b[1]["misses"]:
        return None
    return a[0], b[0]


@settings(**SETTINGS)
@given(drawn=exec_sets(max_cpus=1))
def test_partitioned_edf_executes_exec_as_a_smaller_budget(tmp_path, drawn):
    """A job that ends at the start of its K+1-th slot leaves that slot to
    the next job of its CPU, which is what a budget of K gives it. (One
    CPU: a smaller budget may partition the set otherwise.)"""
    rows = with_smaller_budget(tmp_path, "pedf", drawn)
    if rows:
        assert rows[0] == rows[1]


@settings(**SETTINGS)
@given(drawn=exec_sets())
def test_global_edf_runs_the_same_tasks_as_a_smaller_budget(tmp_path, drawn):
    """Global EDF: the M earliest deadlines run, so each slot holds the same
    tasks, whichever CPU each ended up on."""
    rows = with_smaller_budget(tmp_path, "gedf", drawn)
    if rows:
        a, b = rows
        assert [sorted(filter(None, r)) for r in a] == \
            [sorted(filter(None, r)) for r in b]


def test_pfair_idles_the_rest_of_a_slot_whose_job_ended(tmp_path):
    """pd2 runs A (2/4: subtask windows [0, 2) and [2, 4)) at 0 and 2 and
    B (1/4) at 1. With exec=1 A's job ends as its second quantum starts at
    slot 2, and Pfair, which never reschedules, leaves CPU 0 idle there
    where its answer is A."""
    txt = "task A e=2 p=4 work=rtspin exec=1\ntask B e=1 p=4\n"
    rows, _ = simulate(txt, "pd2", 1, 8, tmp_path)
    plain, _ = simulate("task A e=2 p=4\ntask B e=1 p=4\n", "pd2", 1, 8,
                        tmp_path)
    assert [r[0] for r in plain[:4]] == ["A", "B", "A", None]
    assert [r[0] for r in rows[:4]] == ["A", "B", None, None]


def test_at_events_is_refused_with_early_ends(tmp_path):
    f = tmp_path / "x.tasks"
    f.write_text("task A e=2 p=4 work=rtspin exec=1\n")
    proc = subprocess.run([str(host_tool("schedsim")), "--sched", "gedf",
                           "--cpus", "1", "--slots", "8", "--at-events",
                           str(f)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "exec=" in proc.stderr


def test_event_driven_jobs_take_exec_quanta_of_work(tmp_path):
    """pfp (sched/evsim): a job of A needs exec * quantum_us of work."""
    txt = ("task A e=3 p=10 prio=1 exec=1\n"
           "task B e=2 p=10 prio=2\n")
    f = tmp_path / "ev.tasks"
    f.write_text(txt)
    proc = subprocess.run([str(host_tool("schedsim")), "--sched", "pfp",
                           "--cpus", "1", "--slots", "20", str(f)],
                          capture_output=True, text=True, timeout=60,
                          check=True)
    import json
    segs = [json.loads(l) for l in proc.stdout.splitlines()
            if '"from_us"' in l]
    a = [(s["from_us"], s["to_us"]) for s in segs if s["task"] == "A"]
    b = [(s["from_us"], s["to_us"]) for s in segs if s["task"] == "B"]
    assert a == [(0, 1000), (10000, 11000)]
    assert b == [(1000, 3000), (11000, 13000)]
