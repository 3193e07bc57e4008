"""pfp's lock variant (pcp, mpcp; sched/lock/lpfp.c) through
tools/schedsim, against the independent reference of lpfp_ref.py: on
generated sets every segment, lock event and completion in order, and
every task's accounting and blocking totals; and the refusals."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from lock_bounds import mpcp, pcp
from lpfp_ref import LpfpRef, PTask, set_text
from test_locks import SETTINGS, refused, schedsim


def run(text, cpus, slots, tmp_path):
    """(lines but the summary, summary) of an event-driven schedsim run."""
    proc = schedsim(text, "pfp", cpus, slots, tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    return lines[:-1], lines[-1]["summary"]


@st.composite
def pfp_sets(draw, protocol, max_cpus=3):
    """Tasks on 1 to 3 CPUs with distinct priorities, each with up to two
    sections ending before its last quantum; pcp's resources stay on one
    CPU, mpcp's are shared or not."""
    cpus = draw(st.integers(1, max_cpus))
    n = draw(st.integers(2, 3 * cpus + 1))
    prios = draw(st.permutations(list(range(n))))
    tasks = []
    for i in range(n):
        p = draw(st.integers(5, 16))
        e = draw(st.integers(2, min(p, 6)))
        t = PTask(f"T{i}", e, p, p, prios[i], draw(st.integers(0, cpus - 1)),
                  draw(st.integers(0, 3)))
        local = protocol == "pcp" or draw(st.booleans())
        names = [f"L{t.cpu}_{k}" if local else f"G{k}" for k in range(2)]
        at = 1
        for _ in range(draw(st.integers(0, 2))):
            if at + 1 > e - 1:
                break
            length = draw(st.integers(1, e - 1 - at))
            r = draw(st.sampled_from(names))
            if any(c[0] == r for c in t.cs):
                break
            t.cs.append((r, at, length))
            at += length + draw(st.integers(0, 1))
        tasks.append(t)
    resources = sorted({c[0] for t in tasks for c in t.cs}) or ["L0_0"]
    return cpus, tasks, resources


@pytest.mark.parametrize("protocol", ["pcp", "mpcp"])
@settings(**SETTINGS)
@given(data=st.data())
def test_matches_reference(tmp_path, protocol, data):
    cpus, tasks, resources = data.draw(pfp_sets(protocol))
    text = set_text(tasks, resources, protocol)
    lines, summary = run(text, cpus, 60, tmp_path)
    ref = LpfpRef(tasks, resources, protocol, cpus)
    want = ref.simulate(60)
    assert lines == want, text
    for i, t in enumerate(tasks):
        assert summary["tasks"][t.name] == ref.stats[i], f"{t.name}\n{text}"


def test_pcp_needs_each_resource_on_one_cpu(tmp_path):
    text = ("resource R protocol=pcp\ntask A e=3 p=5 prio=1 cpu=0 cs=R:1\n"
            "task B e=3 p=5 prio=2 cpu=1 cs=R:1\n")
    err = refused(tmp_path, text, "pfp")
    assert "resource R (line 1): used by A on CPU 0 and B on CPU 1; pcp " \
        "needs every user of a resource on one CPU" in err, err


def test_pfp_sections_end_before_the_last_quantum(tmp_path):
    text = "resource R protocol=pcp\ntask A e=3 p=5 prio=1 cs=R:2@1\n"
    err = refused(tmp_path, text, "pfp")
    assert "A (line 2) has a section that ends with its job's work" in err
    text = "resource R protocol=mpcp\ntask A e=3 p=5 prio=1\n" \
        "server S kind=polling budget=100 period=1000 prio=0\n"
    err = refused(tmp_path, text, "pfp")
    assert "S (line 3) is a server: pfp's lock variant takes none" in err


def test_pcp_blocks_at_the_ceiling_not_only_on_the_resource(tmp_path):
    """The classic case: L holds S, whose ceiling is H's priority; H asks
    for T, which is free, and is blocked all the same (its priority is not
    above the ceiling of what L holds). L inherits H's priority and M,
    between them, cannot run meanwhile."""
    text = ("resource S protocol=pcp\nresource T protocol=pcp\n"
            "task H e=5 p=20 prio=1 phase=2 cs=T:1@1,S:1@3\n"
            "task M e=3 p=20 prio=2 phase=3\n"
            "task L e=6 p=20 prio=3 cs=S:3@1\n")
    lines, summary = run(text, 1, 20, tmp_path)
    locks = [(l["lock"], l["at_us"], l["task"], l.get("res"))
             for l in lines if "lock" in l and l["lock"] != "blocked"]
    assert locks[:6] == [
        ("request", 1000, "L", "S"), ("acquire", 1000, "L", "S"),
        ("request", 3000, "H", "T"), ("suspend", 3000, "H", "T"),
        ("release", 5000, "L", "S"), ("acquire", 5000, "H", "T")]
    segs = [(l["from_us"], l["to_us"], l["task"]) for l in lines
            if "from_us" in l]
    # L runs through M's release at 3000 with H's priority.
    assert segs[:3] == [(0, 2000, "L"), (2000, 3000, "H"), (3000, 5000, "L")]
    # H waited 2000 us behind L's section, the bound (S's 3 quanta, of
    # which 1 ran before H came).
    assert summary["tasks"]["H"]["lock"]["wait_max"] == 2000


@pytest.mark.parametrize("protocol", ["pcp", "mpcp"])
@settings(**SETTINGS)
@given(data=st.data())
def test_measured_blocking_within_bound(tmp_path, protocol, data):
    """Every task's worst job blocked (waiting and priority inversion, in
    us) within its protocol's published bound (tests/host/lock_bounds.py,
    in quanta of 1000 us) over 120 quanta."""
    cpus, tasks, resources = data.draw(pfp_sets(protocol))
    _, summary = run(set_text(tasks, resources, protocol), cpus, 120,
                     tmp_path)
    bound = (pcp if protocol == "pcp" else mpcp)(tasks)
    for t, b in zip(tasks, bound):
        got = summary["tasks"][t.name]["lock"]
        assert got["spin_max"] == 0
        if b["blocked"] is not None:
            assert got["blocked_max"] <= b["blocked"] * 1000, (t, got, b)


def test_pcp_worst_case_within_a_quantum(tmp_path):
    """L takes S (ceiling: H's priority) after 1 quantum and has run 1 of
    its section's 3 when H arrives; H's request, after its own first
    quantum, is blocked on S, and L runs the rest with H's priority, which
    also keeps M (arriving then) from running: H waits 2 quanta, M is
    pushed through 2. The bound, a whole section of 3, counts on L taking S
    at the very instant H arrives; here a job makes its calls while it
    runs, and H's arrival preempts L before it could: so the worst case
    comes one quantum short, 2000 us of the bound's 3000."""
    tasks = [PTask("H", 3, 10, 10, 1, 0, 2, [("S", 1, 1)]),
             PTask("M", 3, 12, 12, 2, 0, 3, [("T", 1, 1)]),
             PTask("L", 5, 20, 20, 3, 0, 0, [("S", 1, 3)])]
    _, summary = run(set_text(tasks, ["S", "T"], "pcp"), 1, 20, tmp_path)
    bound = pcp(tasks)
    assert [b["blocked"] for b in bound] == [3, 3, 0]
    got = {n: summary["tasks"][n]["lock"] for n in ("H", "M", "L")}
    assert (got["H"]["wait_max"], got["H"]["blocked_max"]) == (2000, 2000)
    assert (got["M"]["pi_max"], got["M"]["blocked_max"]) == (2000, 2000)
    assert got["L"]["blocked_max"] == 0
