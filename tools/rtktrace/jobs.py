"""Per-job rows (like LITMUS^RT's st-job-stats) from the records: release,
first start, completion, response time and tardiness of every job."""
import dataclasses

from .derive import event_driven, ns, ns_from_t0, usable
from .records import CODE, DONE_BUDGET, DONE_DROPPED, DONE_SLEEP, NO_TASK

OUTCOME = {DONE_BUDGET: "budget", DONE_SLEEP: "sleep",
           DONE_DROPPED: "dropped"}


@dataclasses.dataclass
class Job:
    task: int
    job: int
    release: int = None       # ideal release (TSC)
    start: int = None         # when it first ran (TSC)
    completion: int = None    # as accounted (TSC)
    outcome: str = ""
    misses: int = 0           # deadline_miss records + a dropped completion
    tardiness: int = 0        # cycles, the largest deadline_miss

    def deadline(self, p, d_quanta):
        if self.release is None or d_quanta is None:
            return None
        return self.release + d_quanta * p.quantum_us * p.tsc_khz // 1000


def jobs(p, per_cpu, slices=(), tasks=None):
    """Job rows sorted by task and job; the same usable records as the
    derived numbers, so their misses add up to RESULT task's. A job's
    start is that of its first slice (derive.job_slices). An event-driven
    run has no release records: a periodic task's job j is released at
    phase + j p quanta (tasks: {index: task with p, phase}) until the
    run's end, a server's job at its arrival record."""
    out = {}

    def job(r):
        return out.setdefault((r.task, r.job), Job(r.task, r.job))

    if tasks and event_driven(per_cpu):
        q = p.quantum_us * p.tsc_khz // 1000
        for i, t in tasks.items():
            n = 0
            while t.p and i < p.ntasks and \
                    p.t0 + (t.phase + n * t.p) * q < p.end:
                out[i, n] = Job(i, n, release=p.t0 + (t.phase + n * t.p) * q)
                n += 1
        for recs in per_cpu:
            for r in usable(p, recs):
                if r.event == CODE["arrival"] and r.task < p.ntasks:
                    job(r).release = r.tsc

    for recs in per_cpu:
        for r in usable(p, recs):
            if r.task >= p.ntasks or r.task == NO_TASK:
                continue
            if r.event == CODE["release"]:
                job(r).release = r.arg
            elif r.event == CODE["completion"] and r.flags in OUTCOME:
                j = job(r)
                j.completion = r.arg
                j.outcome = OUTCOME[r.flags]
                j.misses += r.flags == DONE_DROPPED
            elif r.event == CODE["deadline_miss"]:
                j = job(r)
                j.misses += 1
                j.tardiness = max(j.tardiness, r.arg)
    for piece in slices:
        if piece.after or piece.job is None:
            continue
        j = out.setdefault((piece.task, piece.job),
                           Job(piece.task, piece.job))
        j.start = piece.start if j.start is None else min(j.start,
                                                           piece.start)
    return [out[k] for k in sorted(out)]


HEADER = ["task", "job", "release_ns", "deadline_ns", "start_ns",
          "completion_ns", "response_ns", "tardiness_ns", "misses",
          "outcome"]


def rows(p, job_list, names, d_of):
    """CSV rows: times in ns from T0 (empty when the trace lacks them)."""
    def rel(tsc):
        return "" if tsc is None else ns_from_t0(p, tsc)

    for j in job_list:
        dl = j.deadline(p, d_of(j.task))
        response = (ns(j.completion - j.release, p.tsc_khz)
                    if j.completion is not None and j.release is not None
                    and j.completion >= j.release else "")
        yield [names(j.task), j.job, rel(j.release), rel(dl), rel(j.start),
               rel(j.completion), response, ns(j.tardiness, p.tsc_khz),
               j.misses, j.outcome]
