"""An independent reference for pfp's lock variant (pcp, mpcp), written for
the tests from docs/locking.md and the model stated in sched/lock/lpfp.h,
apart from sched/lock: a machine in microseconds that moves from instant to
instant (a release, a job's work reaching a section's point or its end),
decides every CPU afresh at each, and keeps every job's blocking by
category. The output is what `schedsim --locks` prints for an
event-driven run without context-switch cost: segments, lock events, job
completions and per task its accounting and lock totals.
"""
from dataclasses import dataclass, field

from lock_ref import operations


@dataclass
class PTask:
    name: str
    e: int
    p: int
    d: int
    prio: int
    cpu: int = 0
    phase: int = 0
    cs: list = field(default_factory=list)   # (resource, at, length)


def set_text(tasks, resources, protocol):
    lines = [f"resource {r} protocol={protocol}" for r in resources]
    for t in tasks:
        line = (f"task {t.name} e={t.e} p={t.p} d={t.d} prio={t.prio} "
                f"cpu={t.cpu} phase={t.phase}")
        if t.cs:
            line += " cs=" + ",".join(f"{r}:{n}@{a}" for r, a, n in t.cs)
        lines.append(line)
    return "\n".join(lines) + "\n"


class LpfpRef:
    def __init__(self, tasks, resources, protocol, cpus, q=1000):
        self.tasks, self.protocol, self.cpus, self.q = tasks, protocol, cpus, q
        self.ops = [operations(t) for t in tasks]
        used = {r: {t.cpu for t in tasks if any(c[0] == r for c in t.cs)}
                for r in resources}
        self.is_global = {r: len(c) > 1 for r, c in used.items()}
        # pcp's ceiling: the highest priority (smallest prio) of the users.
        self.ceil = {r: min((t.prio for t in tasks
                             if any(c[0] == r for c in t.cs)),
                            default=None) for r in resources}
        self.holder = {r: None for r in resources}
        self.queue = {r: [] for r in resources}     # mpcp waiters
        n = len(tasks)
        self.released = [0] * n
        self.done = [0] * n
        self.work = [0] * n
        self.next_op = [0] * n
        self.held = [[] for _ in range(n)]
        self.waiting = [None] * n
        self.cats = [dict(spin=0, wait=0, pi=0, intf=0) for _ in range(n)]
        self.cat = [None] * n
        self.run = [None] * cpus
        self.out = []          # the printed lines, as dicts, in order
        self.seg_from = [0] * cpus
        self.stats = [dict(jobs=0, misses=0, max_tardiness_us=0, run_us=0,
                           self_us=0,
                           lock=dict(requests=0, spin_max=0, wait_max=0,
                                     pi_max=0, intf_max=0, blocked_max=0,
                                     forced=0)) for _ in tasks]

    # -- jobs and keys
    def pending(self, i):
        return self.released[i] > self.done[i]

    def base(self, i):
        return (self.tasks[i].prio, i)

    def emit(self, kind, i, now, res):
        self.out.append({"lock": kind, "at_us": now,
                         "task": self.tasks[i].name, "job": self.done[i],
                         "res": res})

    def held_by_others(self, i):
        """Local resources held by other jobs of i's CPU."""
        c = self.tasks[i].cpu
        return [r for r, h in self.holder.items()
                if h is not None and h != i and not self.is_global[r] and
                self.tasks[h].cpu == c]

    def may_lock(self, i, r):
        return self.holder[r] is None and all(
            self.tasks[i].prio < self.ceil[q] for q in self.held_by_others(i))

    def blocked_by(self, w):
        r = self.waiting[w]
        if r is None or self.is_global[r]:
            return None
        if self.holder[r] is not None:
            return self.holder[r]
        cand = [q for q in self.held_by_others(w)
                if self.ceil[q] <= self.tasks[w].prio]
        if not cand:
            return None
        return self.holder[min(cand, key=lambda q: self.ceil[q])]

    def key(self, i):
        c = self.tasks[i].cpu
        g = [min(t.prio for j, t in enumerate(self.tasks) if t.cpu != c and
                 any(x[0] == r for x in t.cs))
             for r in self.held[i] if self.is_global[r]]
        if g:
            return (0, min(g), i)
        prio = min([self.tasks[i].prio] +
                   [self.tasks[w].prio for w in range(len(self.tasks))
                    if self.tasks[w].cpu == c and self.blocked_by(w) == i])
        return (1, prio, i)

    # -- the protocols
    def acquire(self, i, r, now):
        self.holder[r] = i
        self.held[i].append(r)
        self.waiting[i] = None
        self.emit("acquire", i, now, r)

    def request(self, i, r, now):
        self.stats[i]["lock"]["requests"] += 1
        self.emit("request", i, now, r)
        ok = self.holder[r] is None if self.is_global[r] \
            else self.may_lock(i, r)
        if ok:
            self.acquire(i, r, now)
            return
        if self.is_global[r]:
            self.queue[r].append(i)
            self.queue[r].sort(key=self.base)
        self.waiting[i] = r
        self.emit("suspend", i, now, r)

    def release(self, i, r, now, forced=False):
        self.held[i].remove(r)
        self.holder[r] = None
        if forced:
            self.stats[i]["lock"]["forced"] += 1
        self.emit("forced" if forced else "release", i, now, r)
        if self.is_global[r]:
            if self.queue[r]:
                self.acquire(self.queue[r].pop(0), r, now)
            return
        c = self.tasks[i].cpu
        while True:
            ready = sorted((w for w in range(len(self.tasks))
                            if self.tasks[w].cpu == c and
                            self.waiting[w] is not None and
                            not self.is_global[self.waiting[w]] and
                            self.may_lock(w, self.waiting[w])),
                           key=self.base)
            if not ready:
                return
            self.acquire(ready[0], self.waiting[ready[0]], now)

    def finish(self, i, now):
        if self.waiting[i] is not None:
            r = self.waiting[i]
            if i in self.queue[r]:
                self.queue[r].remove(i)
            self.waiting[i] = None
        while self.held[i]:
            self.release(i, self.held[i][-1], now, forced=True)
        c, lk = self.cats[i], self.stats[i]["lock"]
        for k in ("spin", "wait", "pi", "intf"):
            lk[k + "_max"] = max(lk[k + "_max"], c[k])
        lk["blocked_max"] = max(lk["blocked_max"],
                                c["spin"] + c["wait"] + c["pi"])
        self.out.append({"lock": "blocked", "at_us": now,
                         "task": self.tasks[i].name, "job": self.done[i],
                         **c})
        self.cats[i] = dict(spin=0, wait=0, pi=0, intf=0)
        t, st = self.tasks[i], self.stats[i]
        deadline = (t.phase + self.done[i] * t.p + t.d) * self.q
        self.out.append({"at_us": now, "event": "done", "task": t.name,
                         "job": self.done[i]})
        self.done[i] += 1
        self.work[i] = 0
        self.next_op[i] = 0
        st["jobs"] += 1
        if now > deadline:
            st["misses"] += 1
            st["max_tardiness_us"] = max(st["max_tardiness_us"],
                                         now - deadline)

    # -- the machine
    def releases(self, now):
        for i, t in enumerate(self.tasks):
            while (t.phase + self.released[i] * t.p) * self.q <= now:
                self.released[i] += 1

    def categorise(self):
        for i, t in enumerate(self.tasks):
            if not self.pending(i):
                self.cat[i] = None
                continue
            run = self.run[t.cpu]
            lower = run is not None and self.base(run) > self.base(i)
            w = self.waiting[i]
            if run == i:
                self.cat[i] = "run"
            elif w is not None and (self.is_global[w] or lower):
                self.cat[i] = "wait"
            elif w is None and lower:
                self.cat[i] = "pi"
            else:
                self.cat[i] = "intf"

    def decide(self, now):
        for c in range(self.cpus):
            ready = [i for i, t in enumerate(self.tasks)
                     if t.cpu == c and self.pending(i) and
                     self.waiting[i] is None]
            pick = min(ready, key=self.key) if ready else None
            if pick != self.run[c]:
                if self.run[c] is not None and now > self.seg_from[c]:
                    self.out.append({"cpu": c, "from_us": self.seg_from[c],
                                     "to_us": now,
                                     "task": self.tasks[self.run[c]].name})
                self.run[c] = pick
                self.seg_from[c] = now
        self.categorise()

    def point(self, i):
        """The next operation's point in us of work, or None."""
        if self.next_op[i] == len(self.ops[i]):
            return None
        return self.ops[i][self.next_op[i]][0] * self.q

    def simulate(self, slots):
        end = slots * self.q
        now = 0
        while True:
            # Completions CPU by CPU (the machine's order).
            for i in [i for i in self.run if i is not None]:
                if self.pending(i) and self.work[i] == self.tasks[i].e * self.q:
                    self.finish(i, now)
            self.releases(now)
            self.decide(now)
            # Then the calls of the jobs that run, and decisions again,
            # until none is due.
            while True:
                made = 0
                for kind in ("release", "request"):
                    for i in sorted(i for i in self.run if i is not None):
                        while self.next_op[i] < len(self.ops[i]) and \
                                self.ops[i][self.next_op[i]][1] == kind and \
                                self.point(i) <= self.work[i] < \
                                self.tasks[i].e * self.q:
                            r = self.ops[i][self.next_op[i]][2]
                            self.next_op[i] += 1
                            (self.release if kind == "release"
                             else self.request)(i, r, now)
                            made += 1
                if not made:
                    break
                self.decide(now)
            if now >= end:
                break
            nxt = [end]
            for i, t in enumerate(self.tasks):
                nxt.append((t.phase + self.released[i] * t.p) * self.q)
            for i in self.run:
                if i is None:
                    continue
                nxt.append(now + self.tasks[i].e * self.q - self.work[i])
                p = self.point(i)
                if p is not None and p > self.work[i]:
                    nxt.append(now + p - self.work[i])
            later = min(x for x in nxt if x > now)
            dt = later - now
            for c, i in enumerate(self.run):
                if i is not None:
                    self.work[i] += dt
                    self.stats[i]["run_us"] += dt
                    self.stats[i]["self_us"] += dt
            for i in range(len(self.tasks)):
                if self.cat[i] in self.cats[i]:
                    self.cats[i][self.cat[i]] += dt
            now = later
        for c in range(self.cpus):
            if self.run[c] is not None and end > self.seg_from[c]:
                self.out.append({"cpu": c, "from_us": self.seg_from[c],
                                 "to_us": end,
                                 "task": self.tasks[self.run[c]].name})
        return self.out
