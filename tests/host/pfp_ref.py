"""An independent reference for the pfp plugin and the simulated machine
(sched/pfp, sched/evsim), written for the tests.

It steps time one microsecond at a time -- no timers, no heaps, no event
queue -- and at every instant t does, in this order (the order the
interface fixes, docs/schedulers-event-driven.md):

  1. jobs whose work is done complete;
  2. arrivals at t are delivered;
  3. on every CPU: releases at t, the servers' timers (replenishments,
     period boundaries), the servers' transitions (chunks close and open,
     exhaustion, overload, light load), then the choice -- the ready entity
     of least (level, prio, FIFO order), a server that preempts a task
     paying its toll first;
  4. unless t is the end, every CPU runs its choice for one microsecond:
     a foreground server spends a microsecond of budget, and the CPU does
     a microsecond of work unless it is still inside a context switch.

Server rules, as docs/servers.md states them:
  polling  -- at every boundary k*P the budget is B if jobs are queued,
              else 0; empty queue: the rest is given up; no background.
  sporadic -- budget held as cap plus pending (time, amount); a chunk is
              activated when the server has work and budget; it closes on
              exhaustion or blocking and posts what it used at act + P;
              a post that fills max_repl takes the unused cap along; a
              replenishment due while a chunk is open closes it there;
              out of budget with work: background level.
  hybrid   -- sporadic, plus at exhaustion with work: immediate merges
              every pending replenishment into the last and max_repl
              becomes 1; gradual merges the first two into the second and
              max_repl becomes the number pending; blocking with budget
              left restores max_repl.
"""
from dataclasses import dataclass, field

FG, BG = 0, 1


@dataclass
class Entity:
    idx: int
    name: str
    cpu: int
    prio: int
    level: object = None          # None, FG or BG
    seq: int = 0
    run_us: int = 0
    self_us: int = 0


@dataclass
class Periodic(Entity):
    e: int = 0                    # microseconds
    p: int = 0
    d: int = 0
    phase: int = 0
    released: int = 0
    done: int = 0
    work: int = 0
    jobs: int = 0
    misses: int = 0
    max_tardiness: int = 0

    def ready(self):
        return FG if self.released > self.done else None


@dataclass
class Server(Entity):
    kind: str = "sporadic"
    budget: int = 0
    period: int = 0
    max_repl: int = 0
    toll: int = 0
    coalesce: str = "immediate"
    cap: int = 0
    pending: list = field(default_factory=list)   # [time, amount]
    max_now: int = 0
    open: bool = False
    act: int = 0
    used: int = 0
    granted: bool = False
    boundary: int = -1            # polling: the boundary taken last
    queue: list = field(default_factory=list)     # [arrival, cost, done]
    arrived: int = 0
    finished: int = 0
    responses: list = field(default_factory=list)
    stats: dict = field(default_factory=lambda: dict(
        arrivals=0, jobs=0, demand_us=0, consumed_us=0, background_us=0,
        tolls=0, toll_us=0, exhaustions=0, replenishments=0, coalesces=0,
        max_pending=0))
    spans: list = field(default_factory=list)     # foreground [from, to)

    def ready(self):
        if self.queue and self.cap:
            return FG
        if self.queue and self.kind != "polling":
            return BG
        return None


class Reference:
    def __init__(self, tasks, servers, arrivals, cpus, quantum_us, until,
                 cxs_us=0):
        """tasks: (name, e, p, d, phase, prio, cpu) in quanta; servers:
        dicts of the `server` keys; arrivals: (time_us, server name, cost)
        in time order; the order of entities is tasks then servers, as
        given (their indices in the task set)."""
        self.cpus, self.until, self.cxs = cpus, until, cxs_us
        self.ents = []
        for name, e, p, d, phase, prio, cpu in tasks:
            q = quantum_us
            self.ents.append(Periodic(len(self.ents), name, cpu, prio,
                                      e=e * q, p=p * q, d=d * q,
                                      phase=phase * q))
        for sv in servers:
            s = Server(len(self.ents), sv["name"], sv.get("cpu", 0),
                       sv["prio"], kind=sv["kind"], budget=sv["budget"],
                       period=sv["period"],
                       max_repl=0 if sv["kind"] == "polling"
                       else sv.get("max_repl", 100),
                       toll=sv.get("toll_us", 0),
                       coalesce=sv.get("coalesce", "immediate"))
            s.max_now = s.max_repl
            s.cap = 0 if s.kind == "polling" else s.budget
            self.ents.append(s)
        self.by_name = {x.name: x for x in self.ents}
        self.arrivals = list(arrivals)
        self.cur = [None] * cpus          # the entity each CPU runs
        self.bg = [False] * cpus
        self.work_from = [0] * cpus
        self.seq = [0] * cpus
        self.events = []                  # job events and notes, in order
        self.segments = []
        self.seg = [None] * cpus          # [from, task, bg, overhead]

    # ---- notes and levels

    def note(self, t, kind, s, amount, due=None):
        ev = {"at_us": t, "event": kind, "task": s.name}
        key = {"exhausted": "left_us", "coalesced": "pending"}.get(
            kind, "amount_us")
        ev[key] = amount
        if due is not None:
            ev["due_us"] = due
        self.events.append(ev)

    def relevel(self, x):
        new = x.ready()
        if new != x.level:
            x.level = new
            if new is not None:
                self.seq[x.cpu] += 1
                x.seq = self.seq[x.cpu]

    # ---- server budget rules

    def post(self, s, t, amount):
        due = s.act + s.period
        s.pending.append([due, amount])
        s.stats["max_pending"] = max(s.stats["max_pending"], len(s.pending))
        self.note(t, "posted", s, amount, due)

    def close(self, s, t):
        amount = s.used
        if len(s.pending) + (1 if amount > 0 else 0) == s.max_now:
            amount += s.cap
            s.cap = 0
        if amount:
            self.post(s, t, amount)
        s.open, s.used = False, 0

    def coalesce(self, s, t):
        if s.coalesce == "immediate":
            if len(s.pending) > 1:
                last = s.pending[-1]
                last[1] = sum(a for _, a in s.pending)
                s.pending = [last]
                s.stats["coalesces"] += 1
                self.note(t, "coalesced", s, 1)
            s.max_now = 1
        else:
            if len(s.pending) > 1:
                first = s.pending.pop(0)
                s.pending[0][1] += first[1]
                s.stats["coalesces"] += 1
                self.note(t, "coalesced", s, len(s.pending))
            s.max_now = max(1, len(s.pending))

    def timers(self, s, t):
        if s.kind == "polling":
            if t % s.period == 0 and s.boundary != t:
                s.boundary = t
                s.granted = bool(s.queue)
                s.cap = s.budget if s.granted else 0
                if s.granted:
                    s.stats["replenishments"] += 1
                    self.note(t, "replenished", s, s.budget)
            return
        while s.pending and s.pending[0][0] <= t:
            _, amount = s.pending.pop(0)
            if s.open:
                self.close(s, t)
            s.cap += amount
            s.stats["replenishments"] += 1
            self.note(t, "replenished", s, amount)

    def exhausted(self, s, t):
        s.stats["exhaustions"] += 1
        self.note(t, "exhausted", s, s.cap)

    def settle(self, s, t):
        if s.kind == "polling":
            if s.granted and not s.queue:
                s.cap, s.granted = 0, False
            elif s.granted and not s.cap:
                s.granted = False
                self.exhausted(s, t)
            return
        if s.open and not s.cap:
            self.close(s, t)
            if s.queue:
                self.exhausted(s, t)
                if s.kind == "hybrid":
                    self.coalesce(s, t)
        elif s.open and not s.queue:
            if s.kind == "hybrid":
                s.max_now = s.max_repl
            self.close(s, t)
        if not s.open and s.queue and s.cap:
            s.open, s.act, s.used = True, t, 0

    def spend(self, s, amount):
        s.cap -= amount
        s.used += amount
        s.stats["consumed_us"] += amount

    # ---- one instant

    def complete(self, x, t):
        if isinstance(x, Server):
            arrival = x.queue.pop(0)[0]
            x.responses.append(t - arrival)
            x.stats["jobs"] += 1
            self.events.append({"at_us": t, "event": "done", "task": x.name,
                                "job": x.finished, "response_us":
                                t - arrival})
            x.finished += 1
        else:
            deadline = x.phase + x.done * x.p + x.d
            self.events.append({"at_us": t, "event": "done", "task": x.name,
                                "job": x.done})
            x.done += 1
            x.jobs += 1
            x.work = 0
            if t > deadline:
                x.misses += 1
                x.max_tardiness = max(x.max_tardiness, t - deadline)
        self.relevel(x)

    def arrive(self, s, t, cost):
        s.queue.append([t, cost, 0])
        s.stats["arrivals"] += 1
        s.stats["demand_us"] += cost
        self.events.append({"at_us": t, "event": "arrive", "task": s.name,
                            "job": s.arrived, "cost_us": cost})
        s.arrived += 1
        self.relevel(s)

    def choose(self, c, t):
        mine = [x for x in self.ents if x.cpu == c]
        for x in mine:
            if isinstance(x, Periodic) and x.p and t >= x.phase and \
                    (t - x.phase) % x.p == 0:
                x.released += 1
                self.relevel(x)
        servers = [x for x in mine if isinstance(x, Server)]
        self.servers_at(servers, t)
        cur = self.cur[c]
        paid = set()
        while True:
            ready = [x for x in mine if x.level is not None]
            top = min(ready, key=lambda x: (x.level, x.prio, x.seq),
                      default=None)
            if not (isinstance(top, Server) and top.level == FG and
                    top.toll and top.idx not in paid and cur is not None
                    and cur is not top and cur.level is not None):
                return top
            paid.add(top.idx)
            amount = min(top.toll, top.cap)
            if amount:
                self.spend(top, amount)
                top.stats["tolls"] += 1
                top.stats["toll_us"] += amount
                self.note(t, "toll", top, amount)
            self.servers_at(servers, t)

    def servers_at(self, servers, t):
        """Timers, then transitions, again while a replenishment posted
        now is due now (a chunk that lasted a whole period)."""
        while True:
            for s in servers:
                self.timers(s, t)
            for s in servers:
                self.settle(s, t)
                self.relevel(s)
            if not any(s.pending and s.pending[0][0] <= t for s in servers):
                return

    def remaining(self, x):
        if isinstance(x, Server):
            return x.queue[0][1] - x.queue[0][2]
        return x.e - x.work

    def end_segment(self, c, t):
        seg = self.seg[c]
        if seg is None or t <= seg[0]:
            return
        frm, x, bg, ovh = seg
        d = {"cpu": c, "from_us": frm, "to_us": t, "task": x.name}
        if bg:
            d["background"] = True
        if ovh:
            d["overhead_us"] = min(ovh, t - frm)
        self.segments.append(d)
        if isinstance(x, Server) and not bg:
            x.spans.append((frm, t))

    def run(self):
        k = 0
        for t in range(self.until + 1):
            for c in range(self.cpus):
                x = self.cur[c]
                if x is not None and t >= self.work_from[c] and \
                        self.remaining(x) == 0:
                    self.complete(x, t)
            while k < len(self.arrivals) and self.arrivals[k][0] <= t:
                _, name, cost = self.arrivals[k]
                self.arrive(self.by_name[name], t, cost)
                k += 1
            for c in range(self.cpus):
                x = self.choose(c, t)
                bg = x is not None and x.level == BG
                if x is not self.cur[c] or bg != self.bg[c]:
                    self.end_segment(c, t)
                    switched = x is not self.cur[c]
                    if switched:
                        self.work_from[c] = t + self.cxs
                    self.seg[c] = None if x is None else [
                        t, x, bg, self.cxs if switched else 0]
                    self.cur[c], self.bg[c] = x, bg
            if t == self.until:
                break
            for c in range(self.cpus):
                x = self.cur[c]
                if x is None:
                    continue
                x.run_us += 1
                if isinstance(x, Server):
                    if x.queue and x.cap:
                        self.spend(x, 1)
                    else:
                        x.stats["background_us"] += 1
                if t >= self.work_from[c]:
                    x.self_us += 1
                    if isinstance(x, Server):
                        x.queue[0][2] += 1
                    else:
                        x.work += 1
        for c in range(self.cpus):
            self.end_segment(c, self.until)
        return self

    # ---- what the summary says

    def top(self, s):
        return all(x.prio > s.prio for x in self.ents
                   if x is not s and x.cpu == s.cpu)

    def window_max(self, s):
        """Brute force over every window start: the most foreground time
        in any [x, x + period)."""
        ran = [0] * (self.until + 1)
        for a, b in s.spans:
            for u in range(a, b):
                ran[u] = 1
        prefix = [0]
        for v in ran:
            prefix.append(prefix[-1] + v)

        def inside(x):
            lo, hi = max(0, x), min(len(ran), x + s.period)
            return prefix[hi] - prefix[lo] if hi > lo else 0
        return max((inside(x) for x in range(-s.period, self.until + 1)),
                   default=0), inside

    def summary_tasks(self):
        return {x.name: {"jobs": x.jobs, "misses": x.misses,
                         "max_tardiness_us": x.max_tardiness,
                         "run_us": x.run_us, "self_us": x.self_us}
                for x in self.ents if isinstance(x, Periodic)}

    def summary_servers(self):
        out = {}
        for s in self.ents:
            if not isinstance(s, Server):
                continue
            d = {"kind": s.kind, "arrivals": s.stats["arrivals"],
                 "jobs": s.stats["jobs"], "queued": len(s.queue)}
            r = sorted(s.responses)
            if r:
                d["response_mean_us"] = round(sum(r) / len(r), 6)
                d["response_p50_us"] = r[max(1, -(-50 * len(r) // 100)) - 1]
                d["response_p99_us"] = r[max(1, -(-99 * len(r) // 100)) - 1]
                d["response_max_us"] = r[-1]
            else:
                d["response_mean_us"] = None
            d["run_us"] = s.run_us
            d["self_us"] = s.self_us
            for key in ("demand_us", "consumed_us", "background_us", "tolls",
                        "toll_us", "exhaustions", "replenishments",
                        "coalesces", "max_pending"):
                d[key] = s.stats[key]
            d["window_max_us"] = self.window_max(s)[0]
            d["window_bound_us"] = s.budget
            d["window_ok"] = (d["window_max_us"] <= s.budget
                              if self.top(s) else None)
            out[s.name] = d
        return out
