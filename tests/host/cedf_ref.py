"""An independent reference for clustered EDF (`cedf`), written for the
tests apart from sched/edf.

The placement is first-fit decreasing by utilisation, done here with
Python's fractions: tasks in order of decreasing e/p (equal ones in file
order), each into the first cluster whose total utilisation stays at most
K with it. The schedule is edf_ref's job model (every job an explicit
record, the `at` events' rules) with one choice per slot: in each cluster,
the K earliest-deadline ready jobs of its tasks run -- no queues, pushes,
pulls or heaps.
"""
from fractions import Fraction

from edf_ref import Reference


def utilisation(task):
    return Fraction(task.e, task.p)


def cluster_ffd(tasks, clusters, k):
    """Each task's cluster (0 to clusters - 1), or ("fail", i) for the
    first task that fits in none."""
    order = sorted(range(len(tasks)), key=lambda i: (-utilisation(tasks[i]),
                                                     i))
    load = [Fraction(0)] * clusters
    where = [None] * len(tasks)
    for i in order:
        u = utilisation(tasks[i])
        fit = next((c for c in range(clusters) if load[c] + u <= k), None)
        if fit is None:
            return ("fail", i)
        load[fit] += u
        where[i] = fit
    return where


def divisors(m):
    return [d for d in range(1, m + 1) if m % d == 0]


def default_cluster(m):
    """cedf's cluster size without cluster=: two clusters when M is
    even, else one."""
    return m // 2 if m % 2 == 0 else m


class ClusteredReference(Reference):
    """rows[t]: the tasks that run in slot t, cluster by cluster (the K
    earliest of cluster 0, then of cluster 1, ...); split them with
    cluster_of."""

    def __init__(self, tasks, cpus, k, cluster_of, events=()):
        super().__init__(tasks, cpus, events)
        self.k = k
        self.cluster_of = list(cluster_of)

    def choose(self, ready):
        row = []
        for c in range(self.cpus // self.k):
            row += [i for i in ready if self.cluster_of[i] == c][:self.k]
        return row

    def by_cluster(self, row):
        """A row of choose() as one sorted list per cluster."""
        out = [[] for _ in range(self.cpus // self.k)]
        for i in row:
            out[self.cluster_of[i]].append(i)
        return [sorted(c) for c in out]
