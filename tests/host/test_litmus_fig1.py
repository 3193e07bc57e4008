"""LITMUS^RT, Fig. 1 and the text of Sec. 2 around it: two processors,
X (cost 1.5, period 3), Y (2, 3) and Z (4, 6), under G-EDF, NG-EDF, PD2
and S-PD2. "Under each of G-EDF, NG-EDF, and S-PD2, a deadline is missed";
PD2 meets every deadline.

The EDF schedules are in half-quantum units (X e=3 p=6, Y e=4 p=6, Z e=8
p=12), so X's cost is exact. Pfair windows assume integral costs: "we must
round up X's cost to 2.0, giving it a weight of 2/3", so the Pfair
schedules are in whole quanta with X e=2 p=3 (its quanta half used).
Deadline ties, which this example is full of, go to the task declared
first (X, then Y, then Z): the rule of sched/edf (edf.h, ngedf.c) and of
PD2's last tie-break."""
from conftest import run_schedsim
from pfair_ref import run_reference
from test_pfair import sets_of, staggered_outcome

HALF = "task X e=3 p=6\ntask Y e=4 p=6\ntask Z e=8 p=12\n"
WHOLE = [("X", 2, 3, 0), ("Y", 2, 3, 0), ("Z", 4, 6, 0)]


def test_gedf(tmp_path):
    """Inset (a). X and Y win every deadline tie, so at time 3.0 (slot 6)
    both preempt Z, which has run 1.5 of its 4.0; it runs 1.5 more from
    4.5 and the last 1.0 from 6.0, finishing at 7.0: 1.0 after its
    deadline."""
    rows, summary = run_schedsim(HALF, "gedf", 2, 24, tmp_path)
    assert sets_of(rows[:14]) == (
        [["X", "Y"]] * 3 + [["Y", "Z"]] + [["Z"]] * 2 + [["X", "Y"]] * 3 +
        [["Y", "Z"]] + [["Z"]] * 2 + [["X", "Z"]] * 2)
    assert summary["misses"] == 1
    assert summary["tasks"]["Z"]["misses"] == 1
    assert summary["tasks"]["Z"]["max_tardiness"] == 2     # 1.0 time unit


def test_ngedf(tmp_path):
    """Inset (b): "task Y's second job cannot execute at time 3 since Z's
    job must execute non-preemptively (there is actually a deadline tie
    here)". Z starts at 1.5 on the CPU X left and keeps it until 5.5; at
    3.0 X's and Y's second jobs and Z's job all have deadline 6.0, the one
    free CPU takes X's, and Y's runs from 4.5 to 6.5: 0.5 late."""
    rows, summary = run_schedsim(HALF, "ngedf", 2, 14, tmp_path)
    assert rows[:12] == (
        [["X", "Y"]] * 3 + [["Z", "Y"]] + [["Z", None]] * 2 +
        [["Z", "X"]] * 3 + [["Z", "Y"]] * 2 + [[None, "Y"]])
    assert rows[6][1] != "Y", "Y's second job cannot execute at time 3"
    assert summary["misses"] == 1
    assert summary["tasks"]["Y"]["misses"] == 1
    assert summary["tasks"]["Y"]["max_tardiness"] == 1     # 0.5 time unit


def test_pd2(tmp_path):
    """Inset (c): PD2 meets every deadline; the schedule is the reference
    PD2's, CPU by CPU."""
    text = "".join(f"task {n} e={e} p={p}\n" for n, e, p, _ in WHOLE)
    rows, summary = run_schedsim(text, "pd2", 2, 6, tmp_path)
    want, _ = run_reference(WHOLE, 2, 6)
    assert rows == want
    assert sets_of(rows) == [["X", "Y"], ["X", "Z"], ["Y", "Z"]] * 2
    assert summary["misses"] == 0


def test_spd2(tmp_path):
    """Inset (d): the same window structure as PD2 (the same tasks in each
    slot), but processor 2's quanta start half a quantum later, so some
    subtasks finish after their deadlines -- by 0.5 quantum, never by a
    whole one (Sec. 2: "by up to one quantum")."""
    text = "".join(f"task {n} e={e} p={p}\n" for n, e, p, _ in WHOLE)
    rows, summary = run_schedsim(text, "spd2", 2, 6, tmp_path)
    pd2_rows, _ = run_reference(WHOLE, 2, 6)
    assert sets_of(rows) == sets_of(pd2_rows)
    misses, worst = staggered_outcome(rows, WHOLE, 2)
    assert summary["misses"] == sum(misses.values()) > 0
    assert summary["max_tardiness"] == 0.5
    for name, *_ in WHOLE:
        assert summary["tasks"][name]["misses"] == misses[name]
