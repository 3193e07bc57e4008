"""An independent reference for the lock variants of pedf, gedf and cedf,
written for the tests from docs/locking.md and the model stated in
sched/lock/lcore.h, apart from sched/lock.

Everything is explicit and slow: every boundary is visited (no events
skipped), each job is a record, each protocol's queue a Python list, and
every choice is made by sorting. The output is what `schedsim --locks`
prints: per slot the task each CPU runs, the lock events in order, and
per task its accounting and its "lock" totals.
"""
from dataclasses import dataclass, field

from cedf_ref import cluster_ffd
from edf_ref import ffd_partition, tasks_text


@dataclass
class LTask:
    name: str
    e: int
    p: int
    d: int
    phase: int = 0
    cs: list = field(default_factory=list)   # (resource, at, length)


def set_text(tasks, resources, protocol):
    """The task file: resource lines, then edf_ref's task lines with
    their cs=."""
    lines = [f"resource {r} protocol={protocol}" for r in resources]
    for t, line in zip(tasks, tasks_text(tasks).splitlines()):
        if t.cs:
            line += " cs=" + ",".join(f"{r}:{n}@{a}" for r, a, n in t.cs)
        lines.append(line)
    return "\n".join(lines) + "\n"


def operations(task):
    """(point, kind, resource) in the order the job meets them: by point;
    releases before requests; of releases the section begun last first
    (the shorter; of equal ones the one written later); of requests the
    longer first (of equal ones the one written first)."""
    ops = []
    for k, (r, at, n) in enumerate(task.cs):
        ops.append(((at, 1, -n, k), "request", r))
        ops.append(((at + n, 0, n, -k), "release", r))
    ops.sort(key=lambda o: o[0])
    return [(key[0], kind, r) for key, kind, r in ops]


@dataclass
class Job:
    index: int
    release: int
    deadline: int
    task: int
    work: int = 0
    started: bool = False
    held: list = field(default_factory=list)     # in the order acquired
    waiting: str = None
    spinning: bool = False
    cats: dict = field(default_factory=lambda: dict(
        spin=0, wait=0, pi=0, intf=0))
    cat: str = None      # its category for the slot being run
    next_op: int = 0     # its first operation not yet made


class LockRef:
    """mode "partitioned" (pedf) or "global" (gedf, cedf: clusters of
    `cluster` CPUs)."""

    def __init__(self, tasks, resources, protocol, cpus, mode,
                 cluster=None):
        self.tasks, self.res, self.protocol = tasks, resources, protocol
        self.cpus, self.mode = cpus, mode
        if mode == "partitioned":
            self.k = 1
            self.home = ffd_partition(tasks, cpus)
        else:
            self.k = cluster or cpus
            self.home = cluster_ffd(tasks, cpus // self.k, self.k)
        assert isinstance(self.home, list), self.home
        self.ops = [operations(t) for t in tasks]
        users = {r: [i for i, t in enumerate(tasks)
                     if any(c[0] == r for c in t.cs)] for r in resources}
        self.local = {r: len({self.home[i] for i in u}) <= 1
                      for r, u in users.items()}
        # srp ceiling: the smallest relative deadline among the users.
        self.ceiling = {r: min((tasks[i].d for i in u), default=None)
                        for r, u in users.items()}
        self.holder = {r: None for r in resources}
        self.fifo = {r: [] for r in resources}   # omlp: head holds it
        self.pq = {r: [] for r in resources}
        self.job = [None] * len(tasks)
        self.released = [0] * len(tasks)
        self.next_release = [t.phase for t in tasks]
        self.run = [None] * cpus        # task index per CPU, last slot
        self.events = []
        self.stats = [dict(quanta=0, jobs=0, misses=0, max_tardiness=0,
                           lock=dict(requests=0, spin_max=0, wait_max=0,
                                     pi_max=0, intf_max=0, blocked_max=0,
                                     forced=0))
                      for _ in tasks]

    # -- helpers
    def key(self, i):
        return (self.job[i].deadline, i)

    def emit(self, kind, i, t, res=None, **extra):
        ev = {"lock": kind, "at": t, "task": self.tasks[i].name,
              "job": self.stats[i]["jobs"]}
        if res is not None:
            ev["res"] = res
        ev.update(extra)
        self.events.append(ev)

    def suspended(self, i):
        j = self.job[i]
        return j is not None and j.waiting is not None and not j.spinning

    def ready(self, i):
        return self.job[i] is not None and not self.suspended(i)

    def nonpreemptive(self, i):
        j = self.job[i]
        if self.protocol != "msrp" or j is None:
            return False
        return j.spinning or any(not self.local[r] for r in j.held)

    # -- the protocols
    def acquire(self, i, r, t):
        self.holder[r] = i
        j = self.job[i]
        j.held.append(r)
        j.waiting, j.spinning = None, False
        self.emit("acquire", i, t, r)

    def request(self, i, r, t):
        self.stats[i]["lock"]["requests"] += 1
        self.emit("request", i, t, r)
        j = self.job[i]
        if self.protocol == "omlp":
            if len(self.fifo[r]) < self.k:
                self.fifo[r].append(i)
                if len(self.fifo[r]) == 1:
                    self.acquire(i, r, t)
                    return
            else:
                self.pq[r].append(i)
                self.pq[r].sort(key=self.key)
            j.waiting, j.spinning = r, False
            self.emit("suspend", i, t, r)
            return
        if self.holder[r] is None and not self.fifo[r]:
            self.acquire(i, r, t)
            return
        self.fifo[r].append(i)
        spin = self.protocol == "msrp" and not self.local[r]
        j.waiting, j.spinning = r, spin
        self.emit("spin" if spin else "suspend", i, t, r)

    def release(self, i, r, t, forced=False):
        self.job[i].held.remove(r)
        self.holder[r] = None
        if forced:
            self.stats[i]["lock"]["forced"] += 1
        self.emit("forced" if forced else "release", i, t, r)
        if self.protocol == "omlp":
            self.fifo[r].remove(i)
            if self.pq[r]:
                self.fifo[r].append(self.pq[r].pop(0))
            if self.fifo[r]:
                self.acquire(self.fifo[r][0], r, t)
        elif self.fifo[r]:
            self.acquire(self.fifo[r].pop(0), r, t)

    # -- jobs
    def finish(self, i, t):
        j = self.job[i]
        if j.waiting is not None:
            if i in self.fifo[j.waiting]:
                self.fifo[j.waiting].remove(i)
            if i in self.pq[j.waiting]:
                self.pq[j.waiting].remove(i)
            j.waiting, j.spinning = None, False
        while j.held:
            self.release(i, j.held[-1], t, forced=True)
        c = j.cats
        lk = self.stats[i]["lock"]
        for name in ("spin", "wait", "pi", "intf"):
            lk[name + "_max"] = max(lk[name + "_max"], c[name])
        lk["blocked_max"] = max(lk["blocked_max"],
                                c["spin"] + c["wait"] + c["pi"])
        self.emit("blocked", i, t, spin=c["spin"], wait=c["wait"],
                  pi=c["pi"], intf=c["intf"])
        st = self.stats[i]
        st["jobs"] += 1
        if t > j.deadline:
            st["misses"] += 1
            st["max_tardiness"] = max(st["max_tardiness"], t - j.deadline)
        self.job[i] = None

    def release_jobs(self, t):
        for i, task in enumerate(self.tasks):
            if self.job[i] is None and self.next_release[i] <= t:
                r = self.next_release[i]
                self.job[i] = Job(self.released[i], r, r + task.d, i)
                self.released[i] += 1
                self.next_release[i] = r + task.p

    def boundary(self, t):
        """Slot t - 1 charged, then the operations, completions and
        releases of boundary t."""
        worked = []
        for i in self.run:
            if i is None or self.job[i] is None:
                continue
            j = self.job[i]
            if not j.spinning:
                j.work += 1
                self.stats[i]["quanta"] += 1
                worked.append(i)
        for i, j in enumerate(self.job):
            if j is not None and j.cat in j.cats:
                j.cats[j.cat] += 1
        # Releases end the quantum that reaches them; requests wait for
        # the decision (make_requests).
        for i in sorted(worked):
            j, ops = self.job[i], self.ops[i]
            while j.next_op < len(ops) and ops[j.next_op][0] <= j.work \
                    and ops[j.next_op][1] == "release":
                self.release(i, ops[j.next_op][2], t)
                j.next_op += 1
        for i in sorted(worked):
            if self.job[i].work == self.tasks[i].e:
                self.finish(i, t)
        self.release_jobs(t)

    # -- who runs
    def cpu_ceiling(self, cpu):
        held = [r for r in self.res if self.holder[r] is not None and
                self.local[r] and self.home[self.holder[r]] == cpu]
        return min((self.ceiling[r] for r in held), default=None)

    def pick_partitioned(self, cpu):
        prev = self.run[cpu]
        if prev is not None and self.job[prev] is not None and \
                self.nonpreemptive(prev):
            return prev
        mine = sorted((i for i in range(len(self.tasks))
                       if self.home[i] == cpu and self.ready(i)),
                      key=self.key)
        if not mine:
            return None
        best = mine[0]
        ceil = self.cpu_ceiling(cpu)
        if self.job[best].started or ceil is None or \
                self.tasks[best].d < ceil:
            return best
        started = [i for i in mine if self.job[i].started]
        return started[0] if started else best

    def effective(self, i):
        """Base key, or the smallest key of a job waiting for what it
        holds (omlp's inheritance)."""
        keys = [self.key(i)]
        for r in self.job[i].held:
            keys += [self.key(w) for w in self.fifo[r] + self.pq[r]
                     if w != i]
        return min(keys)

    def pick_global(self, cl, row):
        cpus = range(cl * self.k, (cl + 1) * self.k)
        ready = sorted((i for i in range(len(self.tasks))
                        if self.home[i] == cl and self.ready(i)),
                       key=self.effective)[:self.k]
        for c in cpus:
            row[c] = None
        placed = set()
        for i in ready:
            for c in cpus:
                if self.run[c] == i:
                    row[c] = i
                    placed.add(i)
        for i in ready:
            if i not in placed:
                c = next(c for c in cpus if row[c] is None)
                row[c] = i

    def categorise(self):
        for i, j in enumerate(self.job):
            if j is None:
                continue
            if i in self.run:
                j.cat = "spin" if j.spinning else "run"
                continue
            if self.mode == "partitioned":
                r = self.run[self.home[i]]
                pi = not self.suspended(i) and r is not None and \
                    self.key(r) > self.key(i)
            else:
                above = sum(1 for x, y in enumerate(self.job)
                            if y is not None and x != i and
                            self.home[x] == self.home[i] and
                            self.key(x) < self.key(i))
                pi = above < self.k
            j.cat = "pi" if pi else "wait" if self.suspended(i) else "intf"

    def make_requests(self, i, t):
        """A job chosen to run makes the requests its work has reached,
        in order, until one leaves it waiting; True when it is then
        suspended (it cannot run)."""
        j, ops = self.job[i], self.ops[i]
        while j.waiting is None and j.next_op < len(ops) and \
                ops[j.next_op][0] <= j.work and \
                ops[j.next_op][1] == "request":
            self.request(i, ops[j.next_op][2], t)
            j.next_op += 1
        return self.suspended(i)

    def decide(self, t):
        """Who runs in slot t: a choice, then the chosen jobs' requests
        (by task index); while one of them leaves a job suspended, the
        choice again."""
        while True:
            row = [None] * self.cpus
            if self.mode == "partitioned":
                for c in range(self.cpus):
                    row[c] = self.pick_partitioned(c)
            else:
                for cl in range(self.cpus // self.k):
                    self.pick_global(cl, row)
            stopped = [self.make_requests(i, t)
                       for i in sorted(i for i in row if i is not None)]
            if not any(stopped):
                break
        self.run = row
        for i in row:
            if i is not None:
                self.job[i].started = True
        self.categorise()

    def simulate(self, slots):
        rows = []
        for t in range(slots):
            if t == 0:
                self.release_jobs(0)
            else:
                self.boundary(t)
            self.decide(t)
            rows.append([None if i is None else self.tasks[i].name
                         for i in self.run])
        return rows


def parse_set(text):
    """(tasks, resources, protocol) of a task file with resources, for the
    tests' hand-written sets (only e, p, d, phase and cs= are read)."""
    tasks, resources, protocol = [], [], None
    for line in text.splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] == "resource":
            resources.append(words[1])
            protocol = words[2].split("=")[1]
            continue
        kv = dict(w.split("=", 1) for w in words[2:])
        cs, at = [], 1
        for item in filter(None, kv.get("cs", "").split(",")):
            r, rest = item.split(":")
            n, _, a = rest.partition("@")
            at = int(a) if a else at
            cs.append((r, at, int(n)))
            at += int(n)
        e, p = int(kv["e"]), int(kv["p"])
        t = LTask(words[1], e, p, int(kv.get("d", p)),
                  int(kv.get("phase", 0)), cs)
        # pfp's keys, for lock_bounds.pcp and mpcp.
        t.prio, t.cpu = int(kv.get("prio", 0)), int(kv.get("cpu", 0))
        tasks.append(t)
    return tasks, resources, protocol
