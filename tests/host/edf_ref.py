"""An independent reference for the EDF plugins, written for the tests.

It implements the job model of sched/edf/edf.h in the plainest way: every
job is an explicit record in a per-task list, and at every slot the global
scheduler sorts all ready jobs and takes the first M (G-EDF), or each CPU
sorts its own tasks' jobs (P-EDF). No queues, no push or pull, no heap.

Priority: smaller (absolute deadline, task index) first.
"""
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass
class Task:
    name: str
    e: int
    p: int
    d: int
    phase: int = 0


@dataclass
class Job:
    release: int
    deadline: int
    rem: int


@dataclass
class State:
    task: Task
    next_release: int
    present: bool = True
    blocked: bool = False
    blocked_at: int = 0
    jobs: list = field(default_factory=list)
    quanta: int = 0
    done: int = 0
    misses: int = 0
    max_tardiness: int = 0


def tasks_text(tasks, events=()):
    """The task-set file (docs/formats.md) for tasks and `at` events
    given as (time, action, name)."""
    lines = []
    for t in tasks:
        line = f"task {t.name} e={t.e} p={t.p}"
        if t.d != t.p:
            line += f" d={t.d}"
        if t.phase:
            line += f" phase={t.phase}"
        lines.append(line)
    for when, action, name in events:
        lines.append(f"at {when} {action} {name}")
    return "\n".join(lines) + "\n"


def density(task):
    """e / min(d, p): the utilisation when the deadline is implicit."""
    return Fraction(task.e, min(task.d, task.p))


def ffd_partition(tasks, cpus):
    """First-fit decreasing by density (ties: file order), each CPU's
    density sum <= 1. Returns the CPU of each task, or the index of the
    first task that did not fit as ("fail", i)."""
    order = sorted(range(len(tasks)), key=lambda i: (-density(tasks[i]), i))
    load = [Fraction(0)] * cpus
    where = [None] * len(tasks)
    for i in order:
        u = density(tasks[i])
        for c in range(cpus):
            if load[c] + u <= 1:
                load[c] += u
                where[i] = c
                break
        else:
            return ("fail", i)
    return where


class Reference:
    """Simulates `slots` slots; rows[t] is the list of task indices that
    run in slot t (G-EDF: a set, in priority order; P-EDF: per CPU)."""

    def __init__(self, tasks, cpus, events=(), partition=None):
        self.tasks = tasks
        self.cpus = cpus
        self.partition = None if partition is None else list(partition)
        self.events = sorted(events, key=lambda ev: ev[0])
        self.st = [State(t, t.phase) for t in tasks]
        self.index = {t.name: i for i, t in enumerate(tasks)}
        self.dropped = 0

    def _release_due(self, b):
        for s in self.st:
            while s.present and not s.blocked and s.next_release <= b:
                r = s.next_release
                s.jobs.append(Job(r, r + s.task.d, s.task.e))
                s.next_release = r + s.task.p

    def _new_job_at(self, s, w):
        s.jobs = [Job(w, w + s.task.d, s.task.e)]
        s.next_release = w + s.task.p

    def _event(self, b, action, name):
        s = self.st[self.index[name]]
        if action == "block":
            s.blocked, s.blocked_at = True, b
        elif action == "wake":
            s.blocked = False
            if s.jobs and b < s.jobs[0].deadline:
                return
            if s.jobs:
                s.misses += len(s.jobs)
                self.dropped += len(s.jobs)
                self._new_job_at(s, b)
            elif s.next_release <= b:
                self._new_job_at(s, b)
        elif action == "leave":
            s.present, s.blocked, s.jobs = False, False, []
        elif action == "join":
            s.present = True
            s.next_release = max(s.next_release, b)
            self._release_due(b)

    def ready(self):
        """Indices of tasks with a ready job, in priority order."""
        ready = [i for i, s in enumerate(self.st)
                 if s.present and not s.blocked and s.jobs]
        return sorted(ready, key=lambda i: (self.st[i].jobs[0].deadline, i))

    def run(self, slots):
        rows, ready_counts = [], []
        ev = 0
        for b in range(slots):
            if b > 0:
                for i in rows[-1]:
                    if i is None:
                        continue
                    s = self.st[i]
                    job = s.jobs[0]
                    job.rem -= 1
                    s.quanta += 1
                    if job.rem == 0:
                        s.jobs.pop(0)
                        s.done += 1
                        if b > job.deadline:
                            s.misses += 1
                            s.max_tardiness = max(s.max_tardiness,
                                                  b - job.deadline)
            self._release_due(b)
            while ev < len(self.events) and self.events[ev][0] <= b:
                self._event(b, self.events[ev][1], self.events[ev][2])
                ev += 1
            ready = self.ready()
            ready_counts.append(len(ready))
            rows.append(self.choose(ready))
        self.ready_counts = ready_counts
        return rows

    def choose(self, ready):
        """A slot's row from the ready tasks in priority order."""
        if self.partition is None:
            return ready[:self.cpus]
        row = []
        for c in range(self.cpus):
            mine = [i for i in ready if self.partition[i] == c]
            row.append(mine[0] if mine else None)
        return row

    def stats(self):
        return {s.task.name: {"quanta": s.quanta, "jobs": s.done,
                              "misses": s.misses,
                              "max_tardiness": s.max_tardiness}
                for s in self.st}


def gfb_ok(tasks, cpus):
    """Goossens-Funk-Baruah: implicit deadlines and U <= M - (M-1) u_max
    imply no miss under G-EDF."""
    us = [Fraction(t.e, t.p) for t in tasks]
    return (all(t.d == t.p for t in tasks)
            and sum(us) <= cpus - (cpus - 1) * max(us))


def tardiness_bound(tasks, cpus, k):
    """A bound on task k's tardiness under G-EDF for implicit deadlines and
    U <= M: Devi and Anderson's (E_L - e_min) / (M - U_L) + e_k, loosened to
    E_L = the M-1 largest e and U_L = the M-2 largest u (which only raises
    it: their Lambda is at most M-1)."""
    es = sorted((t.e for t in tasks), reverse=True)
    us = sorted((Fraction(t.e, t.p) for t in tasks), reverse=True)
    e_l = sum(es[:max(cpus - 1, 0)])
    u_l = sum(us[:max(cpus - 2, 0)])
    x = Fraction(max(e_l - min(es), 0)) / (cpus - u_l)
    return x + tasks[k].e
