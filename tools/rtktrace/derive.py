"""The derived numbers of docs/trace-format.md, from per-CPU record lists.

Written from the document, apart from the kernel's lib/trace_stats.c; the
tests hold the two against each other on random record sets. Integers
throughout, as in the kernel.
"""
import bisect
import dataclasses

from .records import (CODE, DONE_BUDGET, DONE_DROPPED, DONE_SLEEP, GAP_PURE,
                      NO_TASK, TASK_EVENTS)

OVERHEAD_KINDS = ("tick", "sched", "cxs", "release", "ipi")
PAIRS = {  # start event, end event -> overhead kind
    "tick": ("tick_start", "tick_end"),
    "sched": ("sched_start", "sched_end"),
    "cxs": ("cxs_start", "cxs_end"),
}
SINGLE = {"release": "release", "ipi": "ipi_recv"}  # tsc - arg


@dataclasses.dataclass
class Params:
    cpus: int
    tsc_khz: int
    t0: int
    end: int
    quantum_us: int
    slots: int
    staggered: bool
    ntasks: int


def ns(cycles, khz):
    return cycles * 1_000_000 // khz


def us(cycles, khz):
    return cycles * 1000 // khz


def ns_from_t0(p, tsc):
    """A TSC time as nanoseconds from T0, rounded towards T0."""
    if tsc >= p.t0:
        return ns(tsc - p.t0, p.tsc_khz)
    return -ns(p.t0 - tsc, p.tsc_khz)


def percentile(sorted_values, q):
    """Nearest rank below: sorted[(n - 1) * q // 100]."""
    return sorted_values[(len(sorted_values) - 1) * q // 100]


def boundary(p, k, t):
    """CPU k's boundary t: T0 + n*Q/M, n = t*M (+ k when staggered)."""
    n = t * p.cpus + (k if p.staggered else 0)
    den = 1000 * p.cpus
    whole, rem = divmod(p.quantum_us * p.tsc_khz, den)
    return p.t0 + n * whole + n * rem // den


def task_valid(p, task):
    return task < p.ntasks or task == NO_TASK


def usable(p, records):
    """A CPU's records without the damage the numbers leave out: records of
    the task-bearing kinds naming a task beyond the set, and cxs_end
    records earlier than the CPU's previous kept cxs_end."""
    out, last_cxs = [], None
    for r in records:
        if r.event in TASK_EVENTS and not task_valid(p, r.task):
            continue
        if r.event == CODE["cxs_end"]:
            if last_cxs is not None and r.tsc < last_cxs:
                continue
            last_cxs = r.tsc
        out.append(r)
    return out


@dataclasses.dataclass
class Sample:
    kind: str
    cpu: int
    seq: int      # the record that closed it
    cycles: int
    end: int = 0  # its closing record's time (TSC); it began cycles before


@dataclasses.dataclass
class TaskStats:
    jobs: int = 0
    short: int = 0
    misses: int = 0
    faults: int = 0
    max_tardiness: int = 0   # cycles
    ran: int = 0
    self_cycles: int = 0


@dataclasses.dataclass
class Summary:
    n: int
    p50_ns: int
    p99_ns: int
    max_ns: int
    max_cpu: int


def summarise(samples, khz):
    """n, percentiles and the CPU of the largest (lowest CPU on ties)."""
    if not samples:
        return Summary(0, 0, 0, 0, 0)
    values = sorted(s.cycles for s in samples)
    top = values[-1]
    max_cpu = min(s.cpu for s in samples if s.cycles == top)
    return Summary(len(values), ns(percentile(values, 50), khz),
                   ns(percentile(values, 99), khz), ns(top, khz), max_cpu)


def cpu_samples(p, cpu, records, at=None):
    """Overhead samples of one CPU (its records in seq order) and its pure
    hourglass gaps. at: a record's position for the paired spans (tick,
    sched, cxs), its TSC unless given; given (insns.py: the CPU's
    instruction count at the record), only those spans are measured."""
    pos = at or (lambda r: r.tsc)
    out, gaps = [], []
    kept = {r.seq for r in usable(p, records)}
    open_start = {}
    prev_seq = None
    for r in records:
        # A jump in seq means records are missing (not merely left out):
        # what closed the open starts may be among them.
        if prev_seq is not None and r.seq != prev_seq + 1:
            open_start.clear()
        prev_seq = r.seq
        if r.seq not in kept:
            continue
        for kind, (start, end) in PAIRS.items():
            if r.event == CODE[start]:
                open_start[kind] = pos(r)
            elif r.event == CODE[end] and kind in open_start:
                out.append(Sample(kind, cpu, r.seq,
                                  max(0, pos(r) - open_start.pop(kind)),
                                  r.tsc))
        if at is not None:
            continue
        for kind, ev in SINGLE.items():
            if r.event == CODE[ev]:
                out.append(Sample(kind, cpu, r.seq, max(0, r.tsc - r.arg),
                                  r.tsc))
        if r.event == CODE["hourglass_gap"] and r.flags == GAP_PURE:
            gaps.append(Sample("hourglass_gap", cpu, r.seq,
                               max(0, r.tsc - r.arg), r.tsc))
    return out, gaps


def intervals(p, records):
    """[(start, stop, task or None, order)]: what the CPU ran, from its
    cxs_end records; order 0 is the idle time before the first."""
    cuts = [r for r in records if r.event == CODE["cxs_end"]]
    out = []
    starts = [None] + [r.tsc for r in cuts]
    whos = [None] + [None if r.task == NO_TASK else r.task for r in cuts]
    for j, (start, who) in enumerate(zip(starts, whos)):
        stop = cuts[j].tsc if j < len(cuts) else p.end
        stop = min(stop, p.end)
        out.append((start, stop, who, j))
    return out


@dataclasses.dataclass
class JobSlice:
    cpu: int
    start: int    # TSC
    stop: int
    task: int
    job: int             # None for a task without jobs (weight=)
    after: bool = False   # the thread ran on after job `job` ended


def completions(p, per_cpu):
    """{task: [(time, job)]} sorted: every completion record (a dropped
    job's too) at the time it was accounted for (its arg)."""
    out = {}
    for recs in per_cpu:
        for r in usable(p, recs):
            if r.event == CODE["completion"] and r.task < p.ntasks and \
                    r.flags in (DONE_BUDGET, DONE_SLEEP, DONE_DROPPED):
                out.setdefault(r.task, []).append((r.arg, r.job))
    return {task: sorted(c) for task, c in out.items()}


def cut(start, stop, done, goes_on=None, first=0):
    """[start, stop) of one task, in pieces, one per job: [(start, stop,
    job, after)]. done: the task's completions as sorted (time, job). The
    first piece belongs to the job after the latest completion at or
    before start (job 0 before any), or to job `first` if that is later
    (the job a switch named); a completion strictly inside ends a piece.
    What follows the completion of job j belongs to job j + 1 when
    goes_on(time, j) says the task went on to it (always, without
    goes_on); else it is the thread running on after job j until it is
    switched away, for no job: (start, stop, j, True)."""
    at = bisect.bisect_right(done, (start, float("inf")))
    job, after = max(first, done[at - 1][1] + 1 if at else 0), False
    out = []
    for when, j in done[at:]:
        if when >= stop:
            break
        if when > start:
            out.append((start, when, job, after))
            start = when
        if goes_on is None or goes_on(when, j):
            job, after = j + 1, False
        else:
            job, after = j, True
    out.append((start, stop, job, after))
    return out


def job_slices(p, per_cpu, goes_on=None, jobless=()):
    """What each CPU ran, one piece per job: the intervals of the executed
    schedule (cxs_end to the next, until the run's end), cut at the
    running task's completions (cut(); goes_on(cpu, task, time, job)); an
    interval's first job is at least the one its cxs_end names (a job
    dropped silently, as at a leave, leaves no completion). The tasks in
    jobless (weight= tasks) have none: their pieces' job is None."""
    done = completions(p, per_cpu)
    out = []
    for k in range(p.cpus):
        recs = usable(p, per_cpu[k]) if k < len(per_cpu) else []
        named = [r.job for r in recs if r.event == CODE["cxs_end"]]
        for start, stop, who, j in intervals(p, recs):
            if who is None or start is None or stop <= start:
                continue
            if who in jobless:
                out.append(JobSlice(k, start, stop, who, None))
                continue
            on = None if goes_on is None else (
                lambda when, j, k=k, who=who: goes_on(k, who, when, j))
            out += [JobSlice(k, a, b, who, job, after) for a, b, job, after
                    in cut(start, stop, done.get(who, []), on,
                           named[j - 1])]
    return out


def event_driven(per_cpu):
    """Whether the records are an event-driven run's (kernel/events/event_run.c:
    timer records, no ticks)."""
    return any(r.event == CODE["timer"] for recs in per_cpu for r in recs)


def went_on(p, per_cpu, schedule, tasks):
    """goes_on for job_slices from a kernel's records: did the task whose
    job j ended at `when` on CPU k go on to job j + 1 there? In a
    quantum-driven run a job ends at a boundary of its CPU: it did when
    the executed schedule gives the task the slot that boundary begins
    (Pfair's early release runs a job before its release). In an
    event-driven run (timer records): when job j + 1 had been released by
    then (phase + (j + 1) p quanta; tasks: {index: task with e, p,
    phase}), or, for a server, had arrived (its arrival record)."""
    if event_driven(per_cpu):
        arrived = {(r.task, r.job): r.tsc for recs in per_cpu for r in recs
                   if r.event == CODE["arrival"]}

        def by_release(k, task, when, j):
            t = tasks.get(task)
            if t is not None and t.p:
                us_ = (t.phase + (j + 1) * t.p) * p.quantum_us
                return p.t0 + us_ * p.tsc_khz // 1000 <= when
            return arrived.get((task, j + 1), when + 1) <= when
        return by_release
    bounds = [[boundary(p, k, t) for t in range(p.slots + 1)]
              for k in range(p.cpus)]

    def by_slot(k, task, when, j):
        t = bisect.bisect_left(bounds[k], when)
        if t > p.slots or bounds[k][t] != when:
            return True         # not at a boundary: nothing says otherwise
        return t < p.slots and schedule[t][k] == task
    return by_slot


def slot_task(ivs, starts, stops, b0, b1):
    """Who ran longest in [b0, b1) (ties: the later interval); None when
    idle did or nothing ran."""
    ran, order = {}, {}
    # Starts and stops never decrease (usable() saw to it): the intervals
    # that can overlap the slot stop after b0 and begin before b1.
    lo = bisect.bisect_right(stops, b0)
    hi = bisect.bisect_left(starts, b1) + 1
    for start, stop, who, j in ivs[lo:hi]:
        inside = min(stop, b1) - (b0 if start is None else max(start, b0))
        if inside <= 0:
            continue
        ran[who] = ran.get(who, 0) + inside
        order[who] = j
    if not ran:
        return None
    return max(ran, key=lambda w: (ran[w], order[w]))


def job_runs(p, per_cpu):
    """[(task, job, time, flags, cycles)], one per completion record, by
    task and job: how long the task's thread ran (its intervals, as for
    ran_us) between the previous completion record of the task (the epoch
    for the first) and this one's time."""
    ran_in, done = {}, {}
    for raw in per_cpu:
        recs = usable(p, raw)
        for start, stop, who, _ in intervals(p, recs):
            if who is not None and start is not None and stop > start:
                ran_in.setdefault(who, []).append((start, stop))
        for r in recs:
            if r.event == CODE["completion"] and r.task < p.ntasks:
                done.setdefault(r.task, []).append((r.job, r.arg, r.flags))
    out = []
    for task in sorted(done):
        ivs = sorted(ran_in.get(task, []))
        lo, i = p.t0, 0
        for job, hi, flags in sorted(done[task]):
            while i < len(ivs) and ivs[i][1] <= lo:
                i += 1
            ran, j = 0, i
            while j < len(ivs) and ivs[j][0] < hi:
                ran += max(0, min(ivs[j][1], hi) - max(ivs[j][0], lo))
                j += 1
            out.append((task, job, hi, flags, ran))
            lo = max(lo, hi)
    return out


# A budget job is short below SHORT_NUM / SHORT_DEN of its allocation.
SHORT_NUM, SHORT_DEN = 3, 4


def allocation(p, e):
    """A job's budget of e quanta, in cycles."""
    return e * p.quantum_us * p.tsc_khz // 1000


def is_short(p, e, flags, ran):
    """A job its budget ended whose thread ran less than three quarters
    of that budget: the plugin counted quanta the thread did not get."""
    return flags == DONE_BUDGET and e > 0 and \
        ran * SHORT_DEN < allocation(p, e) * SHORT_NUM


@dataclasses.dataclass
class Derived:
    schedule: list            # [slot][cpu] -> task index or None
    tasks: list               # TaskStats per task
    samples: list             # overhead Samples
    overheads: dict           # kind -> Summary
    gaps: list                # per CPU: list of Samples
    hourglass: list           # per CPU: (Summary of gaps, got cycles)


def derive(p, per_cpu, budget=None):
    """per_cpu[k]: CPU k's records in seq order (gaps allowed); budget:
    {task: e quanta}, for the short jobs (none without it)."""
    tasks = [TaskStats() for _ in range(p.ntasks)]
    schedule = [[None] * p.cpus for _ in range(p.slots)]
    samples, gaps, got = [], [], []
    for k in range(p.cpus):
        raw = per_cpu[k] if k < len(per_cpu) else []
        s, g = cpu_samples(p, k, raw)
        recs = usable(p, raw)
        samples += s
        gaps.append(g)
        got.append(max((r.arg for r in recs
                        if r.event == CODE["hourglass_total"]), default=0))
        for r in recs:
            if r.task >= p.ntasks:
                continue
            t = tasks[r.task]
            if r.event == CODE["completion"]:
                if r.flags in (DONE_BUDGET, DONE_SLEEP):
                    t.jobs += 1
                elif r.flags == DONE_DROPPED:
                    t.misses += 1
            elif r.event == CODE["deadline_miss"]:
                t.misses += 1
                t.max_tardiness = max(t.max_tardiness, r.arg)
            elif r.event == CODE["fault"]:
                t.faults += 1
            elif r.event == CODE["self"]:
                t.self_cycles = max(t.self_cycles, r.arg)
        ivs = intervals(p, recs)
        for start, stop, who, j in ivs:
            if who is not None and start is not None:
                tasks[who].ran += max(0, stop - start)
        starts = [iv[0] for iv in ivs[1:]]     # the idle start is None
        stops = [iv[1] for iv in ivs]
        for t in range(p.slots):
            schedule[t][k] = slot_task(ivs, starts, stops, boundary(p, k, t),
                                       boundary(p, k, t + 1))
    for task, _, _, flags, ran in job_runs(p, per_cpu) if budget else []:
        if is_short(p, budget.get(task, 0), flags, ran):
            tasks[task].short += 1
            tasks[task].jobs -= 1
    overheads = {kind: summarise([s for s in samples if s.kind == kind],
                                 p.tsc_khz) for kind in OVERHEAD_KINDS}
    hourglass = [(summarise(g, p.tsc_khz), c) for g, c in zip(gaps, got)]
    return Derived(schedule, tasks, samples, overheads, gaps, hourglass)


def result_lines(p, d):
    """The RESULT overhead, hourglass and (trace part of) task lines, as
    lib/trace_stats formats them for the kernel."""
    out = []
    for kind in OVERHEAD_KINDS:
        s = d.overheads[kind]
        out.append(f"RESULT overhead event={kind} n={s.n} p50_ns={s.p50_ns} "
                   f"p99_ns={s.p99_ns} max_ns={s.max_ns} max_cpu={s.max_cpu}")
    for k, (s, got) in enumerate(d.hourglass):
        out.append(f"RESULT hourglass cpu={k} gaps={s.n} gap_p50_ns="
                   f"{s.p50_ns} gap_max_ns={s.max_ns} got_us="
                   f"{us(got, p.tsc_khz)}")
    return out


def task_keys(p, t):
    """jobs= short= misses= max_tardiness_us= ran_us= self_us= faults=."""
    khz = p.tsc_khz
    return (f"jobs={t.jobs} short={t.short} misses={t.misses} "
            f"max_tardiness_us={us(t.max_tardiness, khz)} "
            f"ran_us={us(t.ran, khz)} self_us={us(t.self_cycles, khz)} "
            f"faults={t.faults}")
