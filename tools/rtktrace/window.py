"""The sliding-window check of a server (docs/servers.md) from the trace of
an event-driven run: the intervals its thread ran (cxs_end naming it to the
next cxs_start on that CPU), less its background time (a budget_exhausted
record of it to its next budget_replenished), in any window of one period.

Written from docs/trace-format.md and docs/servers.md, apart from the
kernel's sched/pfp/window.c (an O(n) sweep): here every window that starts
where a span starts is summed in full, O(n^2), which finds the same
maximum because moving a window's start back to the span it lies in never
lowers its sum.
"""
from .derive import us
from .records import CODE


def servers_of(tasks_text):
    """{name: (budget_us, period_us)} from a task set's `server` lines."""
    out = {}
    for line in tasks_text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) < 2 or words[0] != "server":
            continue
        kv = dict(w.split("=", 1) for w in words[2:] if "=" in w)
        if "budget" not in kv or "period" not in kv:
            continue
        out[words[1]] = (int(kv["budget"]), int(kv["period"]))
    return out


def ran(per_cpu, task, end):
    """[from, to) TSC intervals in which task's thread was switched in."""
    out = []
    for records in per_cpu:
        since = None
        for r in records:
            if r.event == CODE["cxs_start"] and since is not None:
                out.append((since, r.tsc))
                since = None
            if r.event == CODE["cxs_end"] and r.task == task:
                since = r.tsc
        if since is not None:
            out.append((since, end))
    return sorted(out)


def background(per_cpu, task, end):
    """[from, to) TSC intervals from an exhaustion of task's budget to the
    replenishment after it."""
    marks = sorted((r.tsc, r.event) for records in per_cpu for r in records
                   if r.task == task and r.event in
                   (CODE["budget_exhausted"], CODE["budget_replenished"]))
    out, since = [], None
    for tsc, event in marks:
        if event == CODE["budget_exhausted"] and since is None:
            since = tsc
        elif event == CODE["budget_replenished"] and since is not None:
            out.append((since, tsc))
            since = None
    if since is not None:
        out.append((since, end))
    return out


def minus(spans, holes):
    """spans with the holes cut out (both sorted, not overlapping)."""
    out = []
    for a, b in spans:
        for h0, h1 in holes:
            if h1 <= a or h0 >= b:
                continue
            if h0 > a:
                out.append((a, h0))
            a = max(a, h1)
            if a >= b:
                break
        if a < b:
            out.append((a, b))
    return out


def window_max(spans, period):
    """(most time of spans inside any [x, x + period), its x)."""
    best, at = 0, spans[0][0] if spans else 0
    for x, _ in spans:
        got = sum(max(0, min(b, x + period) - max(a, x)) for a, b in spans)
        if got > best:
            best, at = got, x
    return best, at


def check(run, servers):
    """One dict per server of the set that the dump names: its foreground
    time's most in one period against its budget, in microseconds from
    the run's start."""
    p = run.params
    per_cpu = run.dump.per_cpu()
    names = {run.name(i): i for i in range(p.ntasks)}
    out = []
    for name, (budget, period) in servers.items():
        if name not in names:
            continue
        i = names[name]
        spans = minus(ran(per_cpu, i, p.end), background(per_cpu, i, p.end))
        spans = [(us(a - p.t0, p.tsc_khz), us(b - p.t0, p.tsc_khz))
                 for a, b in spans if a >= p.t0]
        spans = [(a, b) for a, b in spans if b > a]
        most, x = window_max(spans, period)
        out.append({"server": name, "max_us": most, "from_us": x,
                    "bound_us": budget, "period_us": period,
                    "spans": len(spans), "ok": most <= budget})
    return out

