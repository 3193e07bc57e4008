"""A run as something to look at, whoever produced it: what each CPU ran
(one slice per job), the instants of the tasks' lives (releases,
deadlines, completions, misses, kills, ...) and the overhead spans, all in
integer nanoseconds from the run's time 0. The Gantt chart and the
trace-event export (chrome.py) draw this; a kernel dump becomes one here
(from_dump), a schedsim run in simrun.py."""
import dataclasses

from .derive import event_driven, ns, ns_from_t0, usable
from .locks import spans as lock_spans
from .records import CODE, DONE_BUDGET, DONE_DROPPED, DONE_SLEEP


@dataclasses.dataclass
class Slice:
    cpu: int
    start: int            # ns from time 0
    stop: int
    task: str
    job: int = None       # None: the task has no jobs (a weight= task)
    background: bool = False   # a server at background priority
    after: bool = False   # the thread ran on after job `job` ended


@dataclasses.dataclass
class Instant:
    kind: str             # release, deadline, done, drop, miss, kill, ...
    at: int               # ns from time 0
    task: str
    job: int = None
    args: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Span:
    kind: str             # tick, sched, cxs, release, ipi
    cpu: int
    start: int            # ns from time 0
    stop: int
    args: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class View:
    source: str           # "kernel trace" or "schedsim"
    sched: str
    cpus: int
    tasks: list           # names, in the task set's order
    end: int              # ns: the run's end
    quantum_us: int
    slots: int
    staggered: bool
    event_driven: bool = False
    slices: list = dataclasses.field(default_factory=list)
    instants: list = dataclasses.field(default_factory=list)
    spans: list = dataclasses.field(default_factory=list)
    # Waits for and holds of resources (locks.LockSpan), sets with
    # resources only.
    locks: list = dataclasses.field(default_factory=list)
    # Instants and spans before time 0 (the kernel's records from before
    # its T0) that are not drawn.
    before_zero: int = 0

    def add_slice(self, cpu, start, stop, task, job=None, background=False,
                  after=False):
        self.slices.append(Slice(cpu, start, stop, task, job, background,
                                 after))

    def add_instant(self, kind, at, task, job=None, **args):
        if at < 0:
            self.before_zero += 1
            return
        self.instants.append(Instant(kind, at, task, job, args))

    def add_span(self, kind, cpu, start, stop, **args):
        if start < 0:
            self.before_zero += 1
            return
        self.spans.append(Span(kind, cpu, start, stop, args))


COMPLETION_KIND = {DONE_BUDGET: ("done", "budget"),
                   DONE_SLEEP: ("done", "sleep"),
                   DONE_DROPPED: ("drop", "dropped")}
LIFE = {CODE["block"]: "block", CODE["wake"]: "wake", CODE["join"]: "join",
        CODE["leave"]: "leave"}
BUDGET = {CODE["budget_exhausted"]: ("exhausted", "left_ns"),
          CODE["budget_replenished"]: ("replenished", "amount_ns")}


def from_dump(run):
    """The view of a decoded kernel dump (decode.Run): its slices
    (derive.job_slices), clipped to T0; instants from the records; spans from the overhead
    samples (the same pairs RESULT overhead counts)."""
    p = run.params
    per_cpu = run.dump.per_cpu()
    names = [run.name(i) for i in range(p.ntasks)]
    v = View("kernel trace", run.dump.header["sched"], p.cpus, names,
             max(0, ns_from_t0(p, p.end)), p.quantum_us, p.slots,
             p.staggered, event_driven=event_driven(per_cpu))

    def at(tsc):
        return ns_from_t0(p, tsc)

    for s in run.slices:
        start, stop = max(0, at(s.start)), at(s.stop)
        if stop > start:
            v.add_slice(s.cpu, start, stop, names[s.task], s.job,
                        after=s.after)
    deadline = {}
    for j in run.jobs:
        if j.release is not None:
            v.add_instant("release", at(j.release), names[j.task], j.job)
        dl = j.deadline(p, run.d_of(j.task))
        if dl is not None:
            deadline[j.task, j.job] = dl
            v.add_instant("deadline", at(dl), names[j.task], j.job)
    for recs in per_cpu:
        for r in usable(p, recs):
            if r.task >= p.ntasks:
                continue
            name = names[r.task]
            if r.event == CODE["completion"] and r.flags in COMPLETION_KIND:
                kind, how = COMPLETION_KIND[r.flags]
                v.add_instant(kind, at(r.arg), name, r.job, outcome=how,
                              cpu=r.cpu)
            elif r.event == CODE["deadline_miss"]:
                # At the late completion: the deadline plus the tardiness.
                dl = deadline.get((r.task, r.job))
                v.add_instant("miss", at(r.tsc if dl is None else dl + r.arg),
                              name, r.job,
                              tardiness_ns=ns(r.arg, p.tsc_khz), cpu=r.cpu)
            elif r.event == CODE["fault"]:
                v.add_instant("kill", at(r.tsc), name, r.job, vector=r.flags,
                              address=hex(r.arg), cpu=r.cpu)
            elif r.event in LIFE:
                v.add_instant(LIFE[r.event], at(r.tsc), name, slot=r.arg,
                              by_kernel=bool(r.flags & 1), cpu=r.cpu)
            elif r.event == CODE["arrival"]:
                v.add_instant("arrive", at(r.tsc), name, r.job, cost_ns=r.arg,
                              cpu=r.cpu)
            elif r.event in BUDGET:
                kind, key = BUDGET[r.event]
                v.add_instant(kind, at(r.tsc), name, cpu=r.cpu,
                              **{key: r.arg})
    for s in run.derived.samples:
        v.add_span(s.kind, s.cpu, at(s.end - s.cycles), at(s.end),
                   ns=ns(s.cycles, p.tsc_khz), seq=s.seq)
    if run.dump.resources:
        unit = 1000 if v.event_driven else p.quantum_us * 1000
        v.locks = lock_spans(run.lock_events(), unit, v.end)
    return v
