"""The pfp plugin with polling, sporadic and hybrid servers (sched/pfp) on
the simulated machine (sched/evsim), through tools/schedsim, against the
independent time-stepped reference of pfp_ref.py: the same segments, job
events and budget events, to the microsecond, and the same summary; and
the sliding-window bound of the sporadic-server paper for every server
that nothing on its CPU outranks."""
import json
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import host_tool
from pfp_ref import Reference

SETTINGS = dict(deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
QUANTUM = 10


def set_text(tasks, servers, arrivals):
    lines = []
    for name, e, p, d, phase, prio, cpu in tasks:
        lines.append(f"task {name} e={e} p={p} d={d} phase={phase} "
                     f"prio={prio} cpu={cpu}")
    for s in servers:
        line = (f"server {s['name']} kind={s['kind']} budget={s['budget']} "
                f"period={s['period']} prio={s['prio']} cpu={s['cpu']}")
        for key in ("max_repl", "toll_us", "coalesce"):
            if key in s:
                line += f" {key}={s[key]}"
        lines.append(line)
    for t, name, cost in arrivals:
        lines.append(f"at {t} arrive {name} cost_us={cost}")
    return "\n".join(lines) + "\n"


def run_pfp(text, cpus, slots, tmp_path, quantum=QUANTUM, cxs=0,
            check=True, *extra):
    f = tmp_path / "set.tasks"
    f.write_text(text)
    proc = subprocess.run(
        [str(host_tool("schedsim")), "--sched", "pfp", "--cpus", str(cpus),
         "--slots", str(slots), "--quantum-us", str(quantum), "--cxs-us",
         str(cxs), *extra, str(f)],
        capture_output=True, text=True, timeout=300)
    if not check:
        return proc
    assert proc.returncode == 0, proc.stderr
    return parse(proc.stdout)


def parse(text):
    segments, events, summary = [], [], None
    for line in text.splitlines():
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        elif "cpu" in obj:
            segments.append(obj)
        else:
            events.append(obj)
    assert summary is not None
    return segments, events, summary


@st.composite
def server_sets(draw, max_cpus=2, max_tasks=3, max_servers=3, until=1200):
    cpus = draw(st.integers(1, max_cpus))
    tasks = []
    for i in range(draw(st.integers(0, max_tasks))):
        p = draw(st.integers(2, 20))
        e = draw(st.integers(1, p))
        d = draw(st.integers(e, p))
        tasks.append((f"T{i}", e, p, d, draw(st.integers(0, 5)),
                      draw(st.integers(0, 6)),
                      draw(st.integers(0, cpus - 1))))
    servers = []
    for j in range(draw(st.integers(1, max_servers))):
        kind = draw(st.sampled_from(["sporadic", "polling", "hybrid",
                                     "hybrid"]))
        budget = draw(st.integers(1, 40))
        s = dict(name=f"S{j}", kind=kind, budget=budget,
                 period=draw(st.integers(budget, 150)),
                 prio=draw(st.integers(0, 6)),
                 cpu=draw(st.integers(0, cpus - 1)))
        if kind != "polling":
            s["max_repl"] = draw(st.integers(1, 5))
        if kind == "hybrid":
            s["coalesce"] = draw(st.sampled_from(["immediate", "gradual"]))
        s["toll_us"] = draw(st.integers(0, 8))
        servers.append(s)
    arrivals = sorted(
        (draw(st.integers(0, until)), f"S{draw(st.integers(0, len(servers) - 1))}",
         draw(st.integers(1, 30)))
        for _ in range(draw(st.integers(0, 40))))
    cxs = draw(st.integers(0, 6))
    return cpus, tasks, servers, arrivals, cxs


def check_against_reference(case, tmp_path, slots=120):
    cpus, tasks, servers, arrivals, cxs = case
    until = slots * QUANTUM
    segments, events, summary = run_pfp(
        set_text(tasks, servers, arrivals), cpus, slots, tmp_path, cxs=cxs)
    ref = Reference(tasks, servers, arrivals, cpus, QUANTUM, until,
                    cxs).run()
    key = lambda s: (s["cpu"], s["from_us"])
    assert sorted(segments, key=key) == sorted(ref.segments, key=key)
    assert events == ref.events
    assert summary["tasks"] == ref.summary_tasks()
    want = ref.summary_servers()
    for name, got in summary["servers"].items():
        exp = want[name]
        mean, exp_mean = got.pop("response_mean_us"), exp.pop(
            "response_mean_us")
        assert (mean is None) == (exp_mean is None)
        if mean is not None:
            assert abs(mean - exp_mean) < 1e-5
        frm = got.pop("window_from_us")
        _, inside = ref.window_max(ref.by_name[name])
        assert inside(frm) == got["window_max_us"], "the window named"
        assert got == exp, name
    return summary


@settings(max_examples=150, **SETTINGS)
@given(server_sets())
def test_matches_reference(tmp_path, case):
    summary = check_against_reference(case, tmp_path)
    for s in summary["servers"].values():
        # Foreground time plus tolls is what the budget paid for.
        assert s["consumed_us"] == (s["run_us"] - s["background_us"] +
                                    s["toll_us"])
        # Sec. 3.3, the sliding-window constraint (window.h).
        assert s["window_ok"] is not False


@settings(max_examples=60, **SETTINGS)
@given(server_sets(max_cpus=1, max_tasks=2, max_servers=1, until=3000))
def test_lone_top_server_keeps_its_window(tmp_path, case):
    """A server that nothing on its CPU outranks never runs more than its
    budget in any window of one period (the paper's set-up, Sec. 3)."""
    cpus, tasks, servers, arrivals, cxs = case
    tasks = [t[:5] + (t[5] + 100,) + t[6:] for t in tasks]
    summary = check_against_reference((cpus, tasks, servers, arrivals, cxs),
                                      tmp_path, slots=300)
    (s,) = summary["servers"].values()
    assert s["window_ok"] is True
    assert s["window_max_us"] <= s["window_bound_us"]


@st.composite
def loaded_hybrids(draw):
    """One hybrid (or sporadic) server above a CPU hog, under a stream of
    small jobs: fragmentation, exhaustion and coalescing (Sec. 3.2-3.3)."""
    budget = draw(st.integers(10, 40))
    server = dict(name="S0", kind=draw(st.sampled_from(["hybrid", "sporadic"])),
                  budget=budget, period=draw(st.integers(budget + 20, 150)),
                  prio=0, cpu=0, max_repl=draw(st.integers(2, 6)),
                  toll_us=draw(st.integers(0, 5)))
    if server["kind"] == "hybrid":
        server["coalesce"] = draw(st.sampled_from(["immediate", "gradual"]))
    arrivals = sorted((draw(st.integers(0, 1500)), "S0",
                       draw(st.integers(1, 6)))
                      for _ in range(draw(st.integers(20, 80))))
    hog = ("H", 10, 10, 10, 0, 9, 0)
    return 1, [hog], [server], arrivals, draw(st.integers(0, 4))


@settings(max_examples=60, **SETTINGS)
@given(loaded_hybrids())
def test_loaded_hybrid_matches_reference(tmp_path, case):
    summary = check_against_reference(case, tmp_path, slots=160)
    assert summary["servers"]["S0"]["window_ok"] is True


@pytest.mark.parametrize("text,message", [
    ("task A e=1 p=2\n", "task A (line 1) has no prio=: pfp needs a "
     "priority for every task"),
    ("task A weight=3 prio=1\n", "task A (line 1) has only weight=: pfp "
     "needs e= and p="),
    ("task A e=1 p=2 prio=1 cpu=2\n", "task A (line 1): cpu=2, but there "
     "are 2 CPUs"),
    ("server S kind=polling budget=1 period=2 prio=0 cpu=5\n",
     "server S (line 1): cpu=5, but there are 2 CPUs"),
    ("task A e=1 p=2 prio=1\nat 3 block A\n",
     ":2: pfp does not support 'block' events"),
])
def test_refusals_name_what_is_wrong(tmp_path, text, message):
    proc = run_pfp(text, 2, 10, tmp_path, check=False)
    assert proc.returncode == 1
    assert message in proc.stderr, proc.stderr

