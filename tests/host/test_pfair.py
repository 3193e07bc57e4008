"""pd2 and spd2 (sched/pfair) against the reference PD2 in pfair_ref.py,
the bounds of staggered Pfair (Holman & Anderson) and the task-set rules."""
import json
import os
import subprocess
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import host_tool, run_schedsim
from pfair_ref import Task, lag_ok, run_reference, run_staggered

SLOTS = 48


def tasks_text(tasks, events=()):
    lines = [f"task {n} e={e} p={p}" + (f" phase={ph}" if ph else "")
             for n, e, p, ph in tasks]
    lines += [f"at {t} {a} {n}" for t, a, n in events]
    return "\n".join(lines) + "\n"


@st.composite
def task_sets(draw, max_m=4, phases=True):
    """Light, heavy and weight-1 tasks; total weight <= M, often == M."""
    m = draw(st.integers(1, max_m))
    tasks, total = [], Fraction(0)
    for k in range(draw(st.integers(1, 3 * m + 2))):
        p = draw(st.integers(1, 12))
        e = draw(st.integers(1, p))
        if total + Fraction(e, p) > m:
            continue
        ph = draw(st.sampled_from([0, 0, 0, 1, 3])) if phases else 0
        tasks.append((f"T{k}", e, p, ph))
        total += Fraction(e, p)
    rest = m - total
    if draw(st.booleans()) and 0 < rest <= 1:
        tasks.append(("F", rest.numerator, rest.denominator, 0))
    return m, tasks


@st.composite
def dynamic_sets(draw):
    """A task set plus join/leave/block/wake events in a legal order."""
    m, tasks = draw(task_sets(max_m=3, phases=False))
    events = []
    state = {n: "present" for n, *_ in tasks}
    times = sorted(draw(st.lists(st.integers(0, SLOTS - 8), max_size=10)))
    for t in times:
        name = draw(st.sampled_from(sorted(state)))
        s = state[name]
        action = draw(st.sampled_from(
            {"present": ["leave", "block"], "blocked": ["wake", "leave"],
             "gone": ["join"]}[s]))
        state[name] = {"leave": "gone", "block": "blocked",
                       "wake": "present", "join": "present"}[action]
        events.append((t, action, name))
    return m, tasks, events


def sets_of(rows):
    return [sorted(n for n in r if n) for r in rows]


def check_affinity(rows):
    """No task twice in a slot; back to back means the same CPU (Sec. 3),
    which under staggering is what keeps its quanta from overlapping."""
    for t, row in enumerate(rows):
        names = [n for n in row if n]
        assert len(names) == len(set(names)), (t, row)
        if t:
            for k, n in enumerate(row):
                if n and n in rows[t - 1]:
                    assert rows[t - 1].index(n) == k, (t, n)


def lag_around_quanta(rows, tasks):
    """Largest |lag| at the boundaries just before and just after each
    quantum a task gets (where its lag peaks and dips)."""
    got, worst = {n: 0 for n, *_ in tasks}, Fraction(0)
    spec = {n: (e, p, ph) for n, e, p, ph in tasks}
    for t, row in enumerate(rows):
        for n in row:
            if n:
                e, p, ph = spec[n]
                worst = max(worst, abs(Fraction(e * (t - ph), p) - got[n]),
                            abs(Fraction(e * (t + 1 - ph), p) - got[n] - 1))
                got[n] += 1
    return worst


def staggered_outcome(rows, tasks, m):
    """Misses and largest tardiness of static tasks when CPU k's slot t ends
    at t + 1 + k/M, computed from the schedule with the window formulas."""
    ref = {n: Task(i, n, e, p, ph) for i, (n, e, p, ph) in enumerate(tasks)}
    misses, worst = {n: 0 for n in ref}, {n: Fraction(0) for n in ref}
    for t, row in enumerate(rows):
        for k, n in enumerate(row):
            if n:
                x = ref[n]
                late = t + 1 + Fraction(k, m) - x.deadline()
                if late > 0:
                    misses[n] += 1
                    worst[n] = max(worst[n], late)
                x.i += 1
    return misses, worst


SETTINGS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@SETTINGS
@given(task_sets(max_m=6))
def test_static_sets(tmp_path, case):
    m, tasks = case
    text = tasks_text(tasks)
    ref_rows, ref = run_reference(tasks, m, SLOTS)
    rows, summ = run_schedsim(text, "pd2", m, SLOTS, tmp_path)
    # pd2: exactly the reference schedule, CPU by CPU.
    assert rows == ref_rows
    assert summ["misses"] == 0
    ok, where = lag_ok(rows, tasks, m)
    assert ok, where
    assert abs(summ["max_abs_lag"] - float(lag_around_quanta(rows, tasks))) \
        < 1e-6 and summ["max_abs_lag"] < 1
    for x in ref.tasks:
        got = summ["tasks"][x.name]
        assert (got["quanta"], got["jobs"]) == (x.quanta, x.jobs)

    srows, ssum = run_schedsim(text, "spd2", m, SLOTS, tmp_path)
    # spd2: Fig. 5 slot by slot and CPU by CPU; the same set of tasks in
    # every slot as PD2 (same tie-breaking).
    assert srows == run_staggered(tasks, m, SLOTS)
    assert sets_of(srows) == sets_of(ref_rows)
    check_affinity(rows)
    check_affinity(srows)
    misses, worst = staggered_outcome(srows, tasks, m)
    for n, *_ in tasks:
        # E1 (Sec. 4): at most (M-1)/M late.
        assert worst[n] <= Fraction(m - 1, m)
        got = ssum["tasks"][n]
        assert got["misses"] == misses[n]
        assert abs(got["max_tardiness"] - float(worst[n])) < 1e-6
    if m == 1:
        assert srows == rows


@SETTINGS
@given(dynamic_sets())
def test_dynamic_sets(tmp_path, case):
    m, tasks, events = case
    text = tasks_text(tasks, events)
    try:
        ref_rows, ref = run_reference(tasks, m, SLOTS, events)
    except ValueError:
        proc = run_schedsim(text, "pd2", m, SLOTS, tmp_path, check=False)
        assert proc.returncode != 0 and "join refused" in proc.stderr
        return
    assert all(x.misses == 0 for x in ref.tasks)
    rows, summ = run_schedsim(text, "pd2", m, SLOTS, tmp_path)
    assert rows == ref_rows
    assert summ["misses"] == 0
    srows, ssum = run_schedsim(text, "spd2", m, SLOTS, tmp_path)
    assert sets_of(srows) == sets_of(ref_rows)
    check_affinity(srows)
    assert ssum["max_tardiness"] <= (m - 1) / m + 1e-6   # printed to 6 places


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(task_sets(max_m=3))
def test_early_release(tmp_path, case):
    m, tasks = case
    text = tasks_text(tasks)
    ref_rows, ref = run_reference(tasks, m, SLOTS, early_release=True)
    rows, summ = run_schedsim(text, "pd2", m, SLOTS, tmp_path,
                              "--param", "pfair_er=1")
    assert rows == ref_rows
    assert summ["misses"] == 0
    srows, _ = run_schedsim(text, "spd2", m, SLOTS, tmp_path,
                            "--param", "pfair_er=1")
    assert srows == run_staggered(tasks, m, SLOTS, early_release=True)
    assert sets_of(srows) == sets_of(ref_rows)
    check_affinity(srows)


def test_windows_of_figure_4a():
    """Sec. 2.1: for weight 3/10, T2 is released at 3 and due at 7."""
    x = Task(0, "T", 3, 10)
    x.i = 2
    assert (x.release(), x.deadline()) == (3, 7)


def test_heavy_task_order(tmp_path):
    """Hand-derived PD2 tie-break on one CPU pair. H (3/4) and G (2/3) are
    heavy; at slot 0 H1 has d=2,b=1,D=4 and G1 d=2,b=1,D=3: H first (later
    group deadline). L (1/2) gets d=2 but b=0, so it loses to both, and
    the leftover 1/12 task X runs only when the others are not eligible."""
    text = tasks_text([("L", 1, 2, 0), ("G", 2, 3, 0), ("H", 3, 4, 0),
                       ("X", 1, 12, 0)])
    rows, summ = run_schedsim(text, "pd2", 2, 12, tmp_path)
    assert rows[0] == ["H", "G"]
    assert summ["misses"] == 0
    assert summ["tasks"]["X"]["quanta"] == 1


def test_early_rejoin_is_deferred(tmp_path):
    """A (1/4) last ran subtask 1 (d=4, b=0), so it may leave only at 4. A
    rejoin asked at 3 is deferred to 4: subtask 1 again released at 4, due
    at 8; B (1/2) has d=6 there, so A runs at 5. Derived by hand, M = 1."""
    tasks = [("A", 1, 4, 0), ("B", 1, 2, 0)]
    events = [(2, "leave", "A"), (3, "join", "A")]
    expect = [["B"], ["A"], ["B"], [None], ["B"], ["A"], ["B"], [None]]
    for sched in ("pd2", "spd2"):
        rows, summ = run_schedsim(tasks_text(tasks, events), sched, 1, 8,
                                  tmp_path)
        assert rows == expect, sched
        assert summ["deferred_joins"] == 1 and summ["joins"] == 1
    # Asked for at the legal time, the same join is not deferred.
    rows, summ = run_schedsim(
        tasks_text(tasks, [(2, "leave", "A"), (4, "join", "A")]), "pd2", 1,
        8, tmp_path)
    assert rows == expect and summ["deferred_joins"] == 0


def test_wake_is_an_is_delay(tmp_path):
    """B (1/2) blocks at 1 and wakes at 5: its subtask 2 (normally released
    at 2) is right-shifted to 5, due at 7; M = 1 with A (1/3)."""
    tasks = [("A", 1, 3, 0), ("B", 1, 2, 0)]
    events = [(1, "block", "B"), (5, "wake", "B")]
    rows, summ = run_schedsim(tasks_text(tasks, events), "pd2", 1, 9,
                              tmp_path)
    # A: [0,3) [3,6) [6,9); B1 [0,2), B2 shifted from [2,4) to [5,7),
    # B3 [7,9). Slot 0: B1 (d=2) beats A1 (d=3); 1: A1; 2: nothing
    # eligible; 3: A2; 4: nothing (B still blocked); 5: B2; 6: A3 (B3 not
    # released); 7: B3; 8: nothing.
    assert rows == [["B"], ["A"], [None], ["A"], [None], ["B"], ["A"],
                    ["B"], [None]]
    assert summ["misses"] == 0


def run_bad(tmp_path, text, sched="pd2", cpus=2):
    f = tmp_path / "bad.tasks"
    f.write_text(text)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    return subprocess.run([str(host_tool("schedsim")), "--sched", sched,
                           "--cpus", str(cpus), "--slots", "4", str(f)],
                          capture_output=True, text=True, timeout=60,
                          env=env)


@pytest.mark.parametrize("sched", ["pd2", "spd2"])
def test_over_weight_names_the_task(tmp_path, sched):
    proc = run_bad(tmp_path, "task A e=2 p=3\ntask B e=1 p=2\n"
                   "task C e=1 p=2\ntask D e=1 p=7\n", sched)
    # 2/3 + 1/2 + 1/2 = 5/3 fits in 2; adding 1/7 still fits (38/21 < 2).
    assert proc.returncode == 0, proc.stderr
    proc = run_bad(tmp_path, "task A e=2 p=3\ntask B e=1 p=2\n"
                   "task C e=1 p=2\ntask D e=1 p=3\ntask E e=1 p=9\n", sched)
    # 2/3 + 1/2 + 1/2 + 1/3 = 2 exactly: fits; E breaks it.
    assert proc.returncode != 0
    assert "task E (line 5)" in proc.stderr and "exceeds" in proc.stderr


def test_exact_admission_with_huge_denominators(tmp_path):
    """Weights whose common denominator has hundreds of bits: 1/p for 40
    distinct primes, then Z = e/2^30 just above (refused) or just below
    (admitted) what is left of one CPU. Floating point cannot tell."""
    primes = [p for p in range(1000, 1400)
              if all(p % q for q in range(2, int(p ** 0.5) + 1))][:40]
    lines = [f"task P{p} e=1 p={p}" for p in primes]
    total = sum(Fraction(1, p) for p in primes)
    p = 2 ** 30
    e = -(-(1 - total).numerator * p // (1 - total).denominator)
    assert Fraction(e, p) > 1 - total
    proc = run_bad(tmp_path, "\n".join(lines + [f"task Z e={e} p={p}"]),
                   "pd2", 1)
    assert proc.returncode != 0 and "task Z (line 41)" in proc.stderr
    e -= 1
    assert Fraction(e, p) < 1 - total
    proc = run_bad(tmp_path, "\n".join(lines + [f"task Z e={e} p={p}"]),
                   "pd2", 1)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("text,needle", [
    ("task A weight=3\n", "task A (line 1) has only weight="),
    ("task A e=1 p=4 d=3\n", "task A (line 1) has d != p"),
    ("task A e=1 p=4 foo=3\n", "bad.tasks:1:"),
    ("task A e=5 p=4\n", "bad.tasks:1:"),
    ("task A e=1 p=4\ntask A e=1 p=4\n", "bad.tasks:2:"),
    ("task A e=1 p=4\nat 3 wake A\n", "bad.tasks:2:"),
    ("task A e=1 p=4\nbogus\n", "bad.tasks:2:"),
])
def test_bad_files(tmp_path, text, needle):
    proc = run_bad(tmp_path, text)
    assert proc.returncode != 0
    assert needle in proc.stderr, proc.stderr


def definitional_group_deadline(e, p, i):
    """D(T_i) by its definition (PD2, Anderson and Srinivasan): the earliest
    t >= d(T_i) with t = d(T_k), b(T_k) = 0, or t + 1 = d(T_k) where T_k's
    window is 3 slots long, for some k >= i."""
    x = Task(0, "T", e, p)
    x.i = i
    d = x.deadline()
    while True:
        dk, rk, bk = x.deadline(), x.release(), x.bbit()
        found = [t for t, ok in ((dk, bk == 0), (dk - 1, dk - rk == 3))
                 if ok and t >= d]
        if found:
            return min(found)
        x.i += 1


def test_group_deadline_formula_matches_definition():
    """The closed form the reference (and sched/) uses, for every heavy
    weight with p <= 30, over three jobs."""
    for p in range(2, 31):
        for e in range(-(-p // 2), p):
            x = Task(0, "T", e, p)
            for i in range(1, 3 * e + 1):
                x.i = i
                assert x.group_deadline() == \
                    definitional_group_deadline(e, p, i), (e, p, i)
