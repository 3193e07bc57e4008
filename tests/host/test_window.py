"""The sliding-window check (sched/pfp/window.c) through tools/window_check:
its maximum against brute force over every window, and that it catches a
sporadic server whose replenishment rule is broken the way the POSIX
definition was (the sporadic-server paper's [15]: budget replenished one
period after the job arrived rather than after the instant the server had
budget to serve it)."""
import json
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import host_tool

SETTINGS = dict(deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def window_check(period, budget, spans, tmp_path):
    f = tmp_path / "spans.txt"
    f.write_text(f"period {period} budget {budget}\n" +
                 "".join(f"{a} {b}\n" for a, b in spans))
    proc = subprocess.run([str(host_tool("window_check")), str(f)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 2, 3), proc.stderr
    return proc


def brute_force(period, spans):
    """Every window start x, one microsecond apart: the time inside."""
    ran = set()
    for a, b in spans:
        ran.update(range(a, b))

    def inside(x):
        return sum(1 for u in range(x, x + period) if u in ran)
    end = max((b for _, b in spans), default=0)
    return max((inside(x) for x in range(-period, end + 1)), default=0), \
        inside


@st.composite
def span_lists(draw):
    spans, t = [], 0
    for _ in range(draw(st.integers(0, 25))):
        t += draw(st.integers(0, 30))
        length = draw(st.integers(1, 20))
        spans.append((t, t + length))
        t += length
    return draw(st.integers(1, 80)), spans


@settings(max_examples=200, **SETTINGS)
@given(span_lists())
def test_maximum_matches_brute_force(tmp_path, case):
    period, spans = case
    want, inside = brute_force(period, spans)
    proc = window_check(period, want, spans, tmp_path)
    got = json.loads(proc.stdout)
    assert got["max_us"] == want
    assert inside(got["from_us"]) == want, "the window it names holds it"
    assert proc.returncode == 0 and got["ok"]
    if want:
        proc = window_check(period, want - 1, spans, tmp_path)
        assert proc.returncode == 3 and not json.loads(proc.stdout)["ok"]


def sporadic_spans(arrivals, budget, period, until, broken):
    """A sporadic server alone on its CPU (nothing outranks it), time-
    stepped: it runs while it has work and budget; a chunk opens when it
    has both and posts what it used one period after its activation -- or,
    broken, one period after the arrival of the job it started with."""
    cap, pending, queue = budget, [], []
    chunk, spans, k = None, [], 0
    for t in range(until):
        while pending and pending[0][0] <= t:
            cap += pending.pop(0)[1]
        while k < len(arrivals) and arrivals[k][0] <= t:
            queue.append(list(arrivals[k]))
            k += 1
        if chunk is None and queue and cap:
            chunk = [queue[0][0] if broken else t, 0]
        if chunk is None:
            continue
        cap -= 1
        chunk[1] += 1
        queue[0][1] -= 1
        if queue[0][1] == 0:
            queue.pop(0)
        if spans and spans[-1][1] == t:
            spans[-1][1] = t + 1
        else:
            spans.append([t, t + 1])
        if cap == 0 or not queue:
            pending.append((chunk[0] + period, chunk[1]))
            chunk = None
    return [tuple(s) for s in spans]


@st.composite
def workloads(draw):
    budget = draw(st.integers(2, 20))
    period = draw(st.integers(budget + 1, 60))
    arrivals = sorted((draw(st.integers(0, 300)), draw(st.integers(1, 25)))
                      for _ in range(draw(st.integers(1, 20))))
    return budget, period, arrivals


@settings(max_examples=150, **SETTINGS)
@given(workloads())
def test_correct_rule_passes_and_broken_rule_is_caught(tmp_path, case):
    budget, period, arrivals = case
    good = sporadic_spans(arrivals, budget, period, 600, broken=False)
    assert window_check(period, budget, good, tmp_path).returncode == 0
    bad = sporadic_spans(arrivals, budget, period, 600, broken=True)
    over = brute_force(period, bad)[0] > budget
    proc = window_check(period, budget, bad, tmp_path)
    assert proc.returncode == (3 if over else 0)


def test_the_broken_rule_does_break_the_window(tmp_path):
    """One job of 5 against a budget of 2 every 10: it exhausts the budget
    at once; when the budget comes back at 10 the broken rule dates the new
    chunk from the job's arrival at 0, so that chunk's replenishment is due
    at 10 already and the job finishes at 13: 3 of budget 2 in the window
    [10, 20). The correct rule dates it 10 and runs the rest at 20."""
    spans = sporadic_spans([(0, 5)], 2, 10, 40, broken=True)
    assert spans == [(0, 2), (10, 13)]
    proc = window_check(10, 2, spans, tmp_path)
    assert proc.returncode == 3
    assert json.loads(proc.stdout)["max_us"] > 2
    good = sporadic_spans([(0, 5)], 2, 10, 40, broken=False)
    assert good == [(0, 2), (10, 12), (20, 21)]
    assert window_check(10, 2, good, tmp_path).returncode == 0


@pytest.mark.parametrize("extra,ok", [(0, True), (1, False)])
def test_exactly_the_budget_keeps_the_window_one_microsecond_more_breaks_it(
        tmp_path, extra, ok):
    """The verdict is "no more than B" (sched_window_within): 300 + 200 in
    a period of 1000 against B = 500 is within it; the same with the
    second span starting one microsecond earlier is over. The simulator's summary and
    the kernel's RESULT window give the same verdict from the same
    function."""
    spans = [(100, 400), (900 - extra, 1100)]
    proc = window_check(1000, 500, spans, tmp_path)
    got = json.loads(proc.stdout)
    assert got["max_us"] == 500 + extra
    assert got["ok"] is ok and proc.returncode == (0 if ok else 3)
    assert rtktrace_window().window_max(spans, 1000)[0] == 500 + extra


def test_the_simulators_window_verdict_at_the_budget(tmp_path):
    """A polling server alone at the top of its CPU with more work than
    budget runs exactly its budget every period: the summary's window is
    at its bound and still ok (the simulator's summary and the kernel's
    RESULT window ask sched_window_within too)."""
    f = tmp_path / "p.tasks"
    f.write_text("task H e=1 p=1 prio=2\n"
                 "server P kind=polling budget=200 period=1000 prio=1\n"
                 "at 0 arrive P cost_us=5000\n")
    proc = subprocess.run([str(host_tool("schedsim")), "--sched", "pfp",
                           "--cpus", "1", "--slots", "40", "--quantum-us",
                           "100", str(f)], capture_output=True, text=True,
                          timeout=60)
    summary = json.loads(proc.stdout.splitlines()[-1])["summary"]
    s = summary["servers"]["P"]
    assert s["window_max_us"] == s["window_bound_us"] == 200, s
    assert s["window_ok"] is True and proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("text,line,reason", [
    ("period 0 budget 1\n", 1, "expected 'period P budget B'"),
    ("period 10 budget 1\n5 5\n", 2, "FROM < TO"),
    ("period 10 budget 1\n5 7\n6 8\n", 3, "in time order, not overlapping"),
    ("period 10 budget 1\n5\n", 2, "expected 'FROM TO'"),
    ("# nothing\n", 1, "no 'period P budget B' line"),
])
def test_bad_input_is_named(tmp_path, text, line, reason):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    proc = subprocess.run([str(host_tool("window_check")), str(f)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{f}:{line}: ") and reason in proc.stderr


def rtktrace_window():
    import sys
    from conftest import ROOT
    sys.path.insert(0, str(ROOT / "tools"))
    from rtktrace import window
    return window


@settings(max_examples=200, **SETTINGS)
@given(span_lists())
def test_the_trace_decoders_check_matches_brute_force(case):
    """tools/rtktrace/window.py, the check `rtk-trace window` runs on an
    event-driven run's records, written apart from window.c."""
    period, spans = case
    want, _ = brute_force(period, spans)
    assert rtktrace_window().window_max(spans, period)[0] == want


@settings(max_examples=200, **SETTINGS)
@given(span_lists(), span_lists())
def test_background_time_is_cut_out_of_the_spans(ran, holes):
    """minus(): a microsecond is left exactly when it was in a span and in
    no hole."""
    (_, spans), (_, cut) = ran, holes
    left = rtktrace_window().minus(spans, cut)
    units = {u for a, b in left for u in range(a, b)}
    assert units == {u for a, b in spans for u in range(a, b)} - \
        {u for a, b in cut for u in range(a, b)}
    assert all(a < b for a, b in left) and left == sorted(left)
