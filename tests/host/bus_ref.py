"""Reference for sched/bus_model (docs/bus-model.md), written apart from
the C: exact rational times (fractions.Fraction), a processor-sharing bus
stepped from event to event, fed a schedule's slot lines.

Each quantum start whose task did not run on that CPU in its previous
quantum opens a burst of `lines` line fetches; while n bursts are open each
gets 1/n of the bus's one line per cycle; a burst ends when its lines are
in or at start + q (cut off). Its delay is its duration minus min(lines,
q); a job (the task's quanta n*e .. n*e + e - 1) sums its bursts'."""
from fractions import Fraction


def quantum_starts(slots, m, q, staggered):
    """(time, cpu, task, reload) in boundary order from slot lines'
    `cpus` lists (task name or None)."""
    prev = [None] * m
    out = []
    for t, cpus in enumerate(slots):
        for k, task in enumerate(cpus):
            at = Fraction(t * q) + (Fraction(k * q, m) if staggered else 0)
            out.append((at, k, task, task is not None and task != prev[k]))
            prev[k] = task
    return out


def run_bus(starts, lines, q):
    """Every burst as (task, quantum index of the task, start, end, served
    lines, cut)."""
    bursts = []     # finished
    active = {}     # cpu -> [task, n, start, remaining]
    count = {}
    now = Fraction(0)

    def step_to(limit):
        nonlocal now
        while active:
            n = len(active)
            # The next end: the smallest remaining done at rate 1/n, or a cut.
            ends = {c: min(now + a[3] * n, a[2] + q) for c, a in
                    active.items()}
            nxt = min(ends.values())
            if limit is not None and nxt > limit:
                for a in active.values():
                    a[3] -= (limit - now) / n
                now = limit
                return
            for a in active.values():
                a[3] -= (nxt - now) / n
            now = nxt
            for c in sorted(c for c, e in ends.items() if e == nxt):
                task, idx, start, rem = active.pop(c)
                bursts.append((task, idx, start, nxt, lines - rem, rem > 0))
        if limit is not None:
            now = max(now, limit)

    for at, cpu, task, reload in starts:
        step_to(at)
        if task is None:
            continue
        idx = count.get(task, 0)
        count[task] = idx + 1
        if reload and lines:
            active[cpu] = [task, idx, at, Fraction(lines)]
    step_to(None)
    return bursts, count


def per_task(slots, m, e, lines, q, staggered):
    """{task: dict(quanta, bursts, cut, jobs, delay_total, delay_max, wait,
    served)} in bus cycles (Fractions); e maps task name to quanta per
    job."""
    bursts, count = run_bus(quantum_starts(slots, m, q, staggered), lines, q)
    alone = min(lines, q)
    out = {}
    for task, quanta in count.items():
        mine = [b for b in bursts if b[0] == task]
        jobs = quanta // e[task]
        per_job = [Fraction(0)] * jobs
        for _, idx, start, end, served, cut in mine:
            if idx // e[task] < jobs:
                per_job[idx // e[task]] += end - start - alone
        out[task] = dict(
            quanta=quanta, bursts=len(mine), cut=sum(b[5] for b in mine),
            jobs=jobs, delay_total=sum(per_job),
            delay_max=max(per_job, default=Fraction(0)),
            wait=sum(b[3] - b[2] - b[4] for b in mine),
            served=sum(b[4] for b in mine))
    return out
