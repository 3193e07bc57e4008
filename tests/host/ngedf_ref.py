"""An independent reference for the ngedf plugin, written for the tests.

Non-preemptive global EDF (LITMUS^RT Sec. 2) in the plainest way: every
job is an explicit record, released at its periodic time; each slot, the
jobs that used their budget leave their CPUs, and every free CPU -- in CPU
order -- takes the earliest (deadline, task index) job among those that
are released, not started and the oldest unfinished job of their task.
A started job keeps its CPU until its last quantum. Like the plugin, which
charges a slot at the boundary that ends it, the statistics leave out the
run's last slot.
"""
from dataclasses import dataclass


@dataclass
class Job:
    task: int
    release: int
    deadline: int
    rem: int
    started: bool = False


def run(tasks, cpus, slots):
    """tasks: edf_ref.Task list. Returns (rows of task indices or None per
    CPU, per-task stats as the summary prints them)."""
    jobs = [[] for _ in tasks]          # per task, oldest first, unfinished
    k = [0] * len(tasks)                # next job index per task
    stats = [dict(quanta=0, jobs=0, misses=0, max_tardiness=0)
             for _ in tasks]
    on = [None] * cpus
    rows = []
    for t in range(slots):
        for i, task in enumerate(tasks):
            while task.phase + k[i] * task.p <= t:
                r = task.phase + k[i] * task.p
                jobs[i].append(Job(i, r, r + task.d, task.e))
                k[i] += 1
        for c in range(cpus):
            if on[c] is None:
                heads = [js[0] for js in jobs if js and not js[0].started]
                if heads:
                    job = min(heads, key=lambda j: (j.deadline, j.task))
                    job.started = True
                    on[c] = job
        rows.append([None if j is None else j.task for j in on])
        if t == slots - 1:
            break
        for c, job in enumerate(on):
            if job is None:
                continue
            st = stats[job.task]
            st["quanta"] += 1
            job.rem -= 1
            if job.rem == 0:
                jobs[job.task].pop(0)
                st["jobs"] += 1
                if t + 1 > job.deadline:
                    st["misses"] += 1
                    st["max_tardiness"] = max(st["max_tardiness"],
                                              t + 1 - job.deadline)
                on[c] = None
    return rows, stats
