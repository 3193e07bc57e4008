"""Independent reference for GDQ (Caprita, Nieh & Stein), written apart from
sched/gdq: weights, feasibility, grouping, the ideal service against which a
schedule's service error is measured (Sec. 3.1), and GdqModel, the whole
schedule slot by slot (run_model)."""
from fractions import Fraction

from ref_slots import run_slots


def ep_weight(e, p):
    """docs/formats.md, "`task` lines": an e/p task has GDQ weight round(e * 2^16 / p)
    (halves round up)."""
    return (e * 65536 + p // 2) // p


def feasible_weights(weights, cpus):
    """Sec. 2.3: the closest feasible assignment (every phi <= Phi_T / P).
    The k largest weights are capped to one value W = floor(rest / (P - k)),
    rest the sum of the others, with k the least count for which the next
    weight already fits; with fewer processes than processors each gets a
    processor, i.e. equal weights."""
    n = len(weights)
    if n < cpus:
        return [1] * n
    order = sorted(range(n), key=lambda i: -weights[i])
    for k in range(cpus):
        rest = sum(weights[i] for i in order[k:])
        cap = rest // (cpus - k)
        if weights[order[k]] <= cap:
            out = list(weights)
            for i in order[:k]:
                out[i] = cap
            return out
    raise AssertionError("no feasible cap found")


def order_of(w):
    """Group order: 2^k <= w < 2^(k+1) (Sec. 2.1)."""
    return w.bit_length() - 1


def groups(weights, cpus):
    """{order: (group weight, floor, ceil of its processor entitlement)}."""
    total = sum(weights)
    out = {}
    for w in weights:
        k = order_of(w)
        out[k] = out.get(k, 0) + w
    return {k: (g, g * cpus // total, -(-g * cpus // total))
            for k, g in out.items()}


def theorem_3_6_bounds(delta, T, g):
    """-2(2 delta + 2) - T <= e <= 2(2 delta + 2) + g T."""
    return -2 * (2 * delta + 2) - T, 2 * (2 * delta + 2) + g * T


def service_errors(rows, names, phi):
    """Yields, after each slot t, {name: e} with e = w - phi * W_T / Phi_T
    (Sec. 3.1): w the quanta the process got in slots 0..t, W_T all quanta
    given. Idle processors give no work, so W_T counts only service given,
    as the paper's W_T (the total work) does."""
    total_phi = sum(phi[n] for n in names)
    work = dict.fromkeys(names, 0)
    given = 0
    for cpus in rows:
        for c in cpus:
            if c is not None:
                work[c] += 1
                given += 1
        yield {n: work[n] - Fraction(phi[n] * given, total_phi)
               for n in names}


# ---------------------------------------------------------------------------
# An exact model of the GDQ schedule, slot by slot, for comparing schedsim's
# output line by line. It follows the paper's pseudocode (MFQ, Sec. 2.2.1;
# INTRAGROUP, Sec. 2.2.2; arrivals and departures, Sec. 2.4) with exact
# rationals: NVTs are w 2^k / phi as Fractions, VFTs 1/hat(phi) steps. Where
# the paper is silent it follows the decisions documented in sched/gdq/*.c,
# each cited where it applies ("decided in gdq.c ...").
#
# Representation (unlike the C): a queue is a Python list in round-robin
# order starting at its current process, ring[0] = C(Q); next(C(Q)) is
# ring[1], the process "right before C(Q)" is ring[-1].


class Proc:
    """A process. status is the task-set file's view (present, blocked,
    gone); a task with a phase has not arrived before it. It is runnable,
    i.e. in the scheduler (Sec. 2.4), when it has arrived and is present."""

    def __init__(self, idx, name, weight, phase):
        self.idx, self.name, self.w0, self.phase = idx, name, weight, phase
        self.status = "present"
        self.arrived = phase == 0
        self.phi = 0
        self.nv = Fraction(0)
        self.queue = None

    def runnable(self):
        return self.arrived and self.status == "present"


class Queue:
    def __init__(self, nv):
        self.ring = []
        self.nv = nv          # nv_Q, an integer round counter
        self.cpu = None       # None: stalled

    def weight(self):
        return sum(p.phi for p in self.ring)

    def append(self, p):
        """Right before C(Q): last of the current round (gdq_queue_add)."""
        self.ring.append(p)
        p.queue = self

    def remove(self, p):
        """Removing C(Q) makes next(C(Q)) current (decided in intra.c)."""
        self.ring.remove(p)
        p.queue = None


class Group:
    def __init__(self, order):
        self.order = order
        self.queues = []
        self.floor = self.ceil = self.alloc = 0
        self.hat = Fraction(0)    # fictitious weight, Sec. 2.2.1
        self.vft = Fraction(0)

    def min_queue(self):
        """GET-MIN-QUEUE: least nv_Q among stalled queues with a process and
        active ones with two; ties to the lower index."""
        best = None
        for q in self.queues:
            ok = len(q.ring) >= (1 if q.cpu is None else 2)
            if ok and (best is None or q.nv < best.nv):
                best = q
        return best

    def add(self, q, p):
        """An empty queue first joins the round of the group's slowest
        non-empty queue (decided in intra.c, gdq_group_add)."""
        if not q.ring:
            busy = [x.nv for x in self.queues if x.ring]
            if busy:
                q.nv = min(busy)
        q.append(p)

    def refill(self, q):
        """REASSIGN's hand-over (Sec. 2.2.1) and Sec. 2.4: an empty queue
        pulls next(C(MinQ)) from the queue of least NVT."""
        src = self.min_queue()
        if src is None or src is q:
            return False
        c = src.ring[1 % len(src.ring)]
        src.remove(c)
        self.add(q, c)
        return True


class GdqModel:
    """GDQ on `cpus` processors. tasks: [(name, weight, phase)] in file
    order (weights already integers, ep_weight for e/p tasks)."""

    def __init__(self, tasks, cpus, T=20, delta=4):
        self.P, self.T, self.delta = cpus, T, delta
        self.procs = [Proc(i, *t) for i, t in enumerate(tasks)]
        self.by_name = {p.name: p for p in self.procs}
        self.groups = {}
        self.cpu_group = [None] * cpus
        self.cpu_queue = [None] * cpus
        self.dedicated = [False] * cpus
        self.swap = [None] * cpus
        self.work = dict.fromkeys(self.by_name, 0)
        self.change_of_mix()

    # -- Sec. 2.3, 2.1, 2.4: a change of mix ------------------------------
    def change_of_mix(self):
        live = [p for p in self.procs if p.runnable()]
        phi = dict(zip((p.name for p in live),
                       feasible_weights([p.w0 for p in live], self.P)))
        total = sum(phi.values())
        weight = {}
        for w in phi.values():
            weight[order_of(w)] = weight.get(order_of(w), 0) + w
        for k in set(weight) | set(self.groups):
            g = self.groups.setdefault(k, Group(k))
            share = Fraction(weight.get(k, 0) * self.P, total) if total \
                else Fraction(0)
            g.floor = share.numerator // share.denominator
            g.ceil = -(-share.numerator // share.denominator)
            # hat(phi) = phi - floor(phi P / Phi_T) Phi_T / P (Sec. 2.2.1)
            g.hat = weight.get(k, 0) - Fraction(g.floor * total, self.P)
            # The VFT sum restarts at each change of mix (decided in gdq.c,
            # regroup): every group begins again at 1/hat(phi).
            g.vft = 1 / g.hat if g.hat else Fraction(0)
            g.alloc = 0
        # A process keeps its queue (and NVT) unless its weight changed or
        # its queue is beyond the group's new Pbar^k queues (gdq.c).
        for p in self.procs:
            if p.queue is None:
                continue
            g = self.groups[order_of(p.phi)]
            if phi.get(p.name) != p.phi or \
                    g.queues.index(p.queue) >= g.ceil:
                p.queue.remove(p)
        for g in self.groups.values():
            kept = g.queues[:g.ceil]
            # New queues start at the group's furthest round (gdq.c regroup).
            start = max([1] + [q.nv for q in kept])
            g.queues = kept + [Queue(start) for _ in
                               range(g.ceil - len(kept))]
            for q in g.queues:
                q.cpu = None
        # Sec. 2.4: an arrival goes to the lightest queue of its group (ties
        # to the lower index), in task order, and starts at the beginning of
        # that queue's current round, NVT nv_Q - 1 (decided in gdq.c).
        for p in self.procs:
            if p.name not in phi or p.queue is not None:
                continue
            p.phi = phi[p.name]
            g = self.groups[order_of(p.phi)]
            q = min(g.queues, key=lambda x: (x.weight(), g.queues.index(x)))
            g.add(q, p)
            p.nv = Fraction(q.nv - 1)
        # Processors are dealt afresh (decided in gdq.c, reallocate):
        # dedicated ones first, highest order first, then the rest by MFQ.
        self.cpu_group = [None] * self.P
        self.cpu_queue = [None] * self.P
        self.dedicated = [False] * self.P
        self.swap = [None] * self.P
        cpu = 0
        for k in sorted(self.groups, reverse=True):
            for _ in range(self.groups[k].floor):
                self.dedicated[cpu] = True
                self.bind(cpu, self.groups[k])
                cpu += 1
        for cpu in range(cpu, self.P):
            g = self.mfq_pick(None)
            if g is not None:
                self.bind(cpu, g)

    # -- Sec. 2.2.1: MFQ ---------------------------------------------------
    def mfq_pick(self, leaving):
        """MFQ lines 3-7: charge the leaving group one interval, then the
        group of least VFT that is short of Pbar^k processors (counting the
        leaving one as gone), has a fictitious weight, and can feed one more
        processor (the leaving group always can); ties to the lower
        order."""
        if leaving is not None:
            leaving.vft += 1 / leaving.hat
        best = None
        for k in sorted(self.groups):
            g = self.groups[k]
            alloc = g.alloc - (g is leaving)
            if alloc >= g.ceil or not g.hat:
                continue
            if g is not leaving and g.min_queue() is None:
                continue
            if best is None or g.vft < best.vft:
                best = g
        return best

    def bind(self, cpu, g):
        """REASSIGN, second half: a stalled queue of g, one with processes
        first (lowest index); an empty one is refilled."""
        stalled = [q for q in g.queues if q.cpu is None]
        assert stalled, "a group short of processors has a stalled queue"
        q = next((x for x in stalled if x.ring), stalled[0])
        self.cpu_group[cpu], self.cpu_queue[cpu] = g, q
        g.alloc += 1
        q.cpu = cpu
        if not q.ring:
            g.refill(q)

    def unbind(self, cpu):
        g = self.cpu_group[cpu]
        if g is None:
            return
        self.cpu_queue[cpu].cpu = None
        g.alloc -= 1
        self.cpu_group[cpu] = self.cpu_queue[cpu] = None

    def mfq_due(self, cpu, t):
        """Processor j (0-based) re-decides at T + jT/P, 2T + jT/P, ...
        rounded up to a quantum boundary (Sec. 2.2.1)."""
        first = self.T + -(-cpu * self.T // self.P)
        return t >= first and (t - first) % self.T == 0

    def mfq(self, cpu, t):
        # An idle processor looks for work every quantum (gdq.c, mfq).
        if self.dedicated[cpu]:
            return                                      # MFQ lines 1-2
        idle = self.cpu_group[cpu] is None
        if not idle and not self.mfq_due(cpu, t):
            return
        src = self.cpu_group[cpu]
        dst = self.mfq_pick(src)
        if dst is not src:                              # lines 8-9
            self.plan_stall(cpu)
            self.unbind(cpu)
            if dst is not None:
                self.bind(cpu, dst)

    def plan_stall(self, cpu):
        """Decided in gdq.c (plan_stall): the queue a group loses goes, at
        its next pick, to the processor of the same group whose queue has
        the greatest NVT (the first such in processor order), which stalls
        its own queue instead."""
        mine, g = self.cpu_queue[cpu], self.cpu_group[cpu]
        if mine is None:
            return
        fast = mine
        for j in range(self.P):
            q = self.cpu_queue[j]
            if j != cpu and self.cpu_group[j] is g and q is not None \
                    and q.nv > fast.nv:
                fast = q
        if fast is not mine:
            self.swap[fast.cpu] = mine

    def take_planned_stall(self, cpu):
        q, self.swap[cpu] = self.swap[cpu], None
        g, mine = self.cpu_group[cpu], self.cpu_queue[cpu]
        if q is None or mine is None or q.cpu is not None or g is None or \
                q not in g.queues:
            return
        mine.cpu = None
        q.cpu = cpu
        self.cpu_queue[cpu] = q
        if not q.ring:
            g.refill(q)

    # -- Sec. 2.2.2: INTRAGROUP -------------------------------------------
    def intragroup(self, g, q):
        if not q.ring and not g.refill(q):      # Sec. 2.4
            return None
        if q.ring[0].nv >= q.nv:                # line 2
            q.ring.append(q.ring.pop(0))        # line 3
            if q.ring[0].nv >= q.nv:            # line 4
                src = g.min_queue()             # line 5
                if src is not None and q.nv > src.nv + self.delta:   # 6
                    c = src.ring[1 % len(src.ring)]                  # 7
                    src.remove(c)                                    # 8
                    q.ring.insert(0, c)
                    c.queue = q
                else:
                    q.nv += 1                   # line 9
        c = q.ring[0]
        c.nv += Fraction(2 ** g.order, c.phi)   # line 10
        return c                                # line 11

    # -- one quantum boundary ----------------------------------------------
    def event(self, action, name):
        """A join brings the task in at once, even before its phase; a task
        that leaves or blocks before its phase arrives gone or blocked. Only
        a change of the runnable set is an arrival or departure (Sec. 2.4):
        a blocked task that leaves changes nothing."""
        p = self.by_name[name]
        before = p.runnable()
        p.status = {"join": "present", "leave": "gone", "block": "blocked",
                    "wake": "present"}[action]
        if action == "join":
            p.arrived = True
        if p.runnable() != before:
            self.change_of_mix()

    def schedule(self, cpu, t):
        self.mfq(cpu, t)
        self.take_planned_stall(cpu)
        c = None
        # A queue that empties and cannot be refilled hands its processor
        # to another group by MFQ, or leaves it idle (Sec. 2.4).
        for _ in range(33):
            g = self.cpu_group[cpu]
            if g is None:
                break
            c = self.intragroup(g, self.cpu_queue[cpu])
            if c is not None:
                break
            self.unbind(cpu)
            dst = self.mfq_pick(None)
            if dst is not None:
                self.bind(cpu, dst)
        if c is not None:
            self.work[c.name] += 1
            return c.name
        return None

    def step(self, t, events=()):
        """Slot t: its events (file order), then the tasks whose phase is t
        arrive (one change of mix for all), then CPU 0 to P-1 choose."""
        for action, name in events:
            self.event(action, name)
        changed = False
        for p in self.procs:
            if p.phase == t and not p.arrived:
                p.arrived = True
                changed |= p.runnable()
        if changed:
            self.change_of_mix()
        return [self.schedule(cpu, t) for cpu in range(self.P)]


def run_model(tasks, cpus, slots, T=20, delta=4, events=()):
    """tasks: [(name, weight, phase)]; events: [(time, action, name)] in time
    order. Returns (rows, model)."""
    model = GdqModel(tasks, cpus, T, delta)
    return run_slots(model.step, slots, events), model
