"""An independent reference for the gfp plugin (global fixed priority,
rate-monotonic), written for the tests apart from sched/gfp.

Every job is an explicit record; at every slot the ready tasks are sorted
by (period, index) and the first M run. CPUs: a task that ran in the slot
before and still runs keeps its CPU; the others take the free CPUs from
the lowest, highest priority first. The job model is edf_ref's (releases
at phase + k p, completion at the end of the last quantum, a late task's
next job waiting for the current one); `leave` is the only event.
"""
from dataclasses import dataclass


@dataclass
class Job:
    deadline: int
    rem: int


class Reference:
    def __init__(self, tasks, cpus, leaves=()):
        """leaves: (time, task name) pairs."""
        self.tasks = tasks
        self.cpus = cpus
        self.leaves = sorted(leaves)
        self.index = {t.name: i for i, t in enumerate(tasks)}
        self.next_release = [t.phase for t in tasks]
        self.jobs = [[] for _ in tasks]      # released, not done
        self.gone = [False] * len(tasks)
        self.stats = [{"quanta": 0, "jobs": 0, "misses": 0,
                       "max_tardiness": 0} for _ in tasks]

    def _release(self, b):
        for i, t in enumerate(self.tasks):
            while not self.gone[i] and self.next_release[i] <= b:
                r = self.next_release[i]
                self.jobs[i].append(Job(r + t.d, t.e))
                self.next_release[i] = r + t.p

    def _charge(self, row, b):
        """Slot b - 1 ran row; its jobs' quanta end at b."""
        for i in row:
            if i is None or not self.jobs[i]:
                continue
            job = self.jobs[i][0]
            job.rem -= 1
            self.stats[i]["quanta"] += 1
            if job.rem == 0:
                self.jobs[i].pop(0)
                st = self.stats[i]
                st["jobs"] += 1
                if b > job.deadline:
                    st["misses"] += 1
                    st["max_tardiness"] = max(st["max_tardiness"],
                                              b - job.deadline)

    def run(self, slots):
        """rows[t][k]: the index of the task CPU k runs in slot t, or
        None."""
        rows, row, k = [], [None] * self.cpus, 0
        for b in range(slots):
            if b > 0:
                self._charge(row, b)
            self._release(b)
            while k < len(self.leaves) and self.leaves[k][0] <= b:
                i = self.index[self.leaves[k][1]]
                self.gone[i], self.jobs[i] = True, []
                k += 1
            ready = sorted((i for i in range(len(self.tasks))
                            if self.jobs[i]),
                           key=lambda i: (self.tasks[i].p, i))
            run = ready[:self.cpus]
            new = [i if i in run else None for i in row]
            for i in run:
                if i not in new:
                    new[new.index(None)] = i
            row = new
            rows.append(row)
        return rows

    def summary_tasks(self):
        return {t.name: dict(self.stats[i]) for i, t in enumerate(self.tasks)}
