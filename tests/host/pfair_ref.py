"""An independent, plain reference PD2 for the tests (not the sched/ code).

It keeps each task's global subtask index i (counted from its last join)
and applies the textbook formulas directly, in O(N log N) per slot:

  r(T_i) = theta + floor((i-1) p / e)      d(T_i) = theta + ceil(i p / e)
  b(T_i) = 1 iff i p / e is not an integer
  D(T_i) = theta + ceil(ceil(ceil(i p/e) (p-e)/p) p/(p-e))   (heavy, e/p >= 1/2)

Priority: earlier d; b = 1 first; (both b = 1) later D; lower task index.
Events follow the rules documented in sched/pfair/pfair.h (block, wake as
an IS delay, leave with the weight released at d+b or D of the last
scheduled subtask, deferred joins in task-index order at slot starts).
"""
from fractions import Fraction

from ref_slots import run_slots


def ceil_div(a, b):
    return -(-a // b)


class Task:
    def __init__(self, idx, name, e, p, phase=0):
        self.idx, self.name, self.e, self.p = idx, name, e, p
        self.theta, self.i, self.not_before = phase, 1, 0
        self.state = "active"         # active, blocked, leaving, gone
        self.leave_ok = 0
        self.free_at = 0
        self.pending = False
        self.join_blocked = False
        self.quanta = self.jobs = self.misses = 0
        self.max_tard = Fraction(0)

    @property
    def heavy(self):
        return 2 * self.e >= self.p and self.e < self.p

    def release(self):
        return self.theta + (self.i - 1) * self.p // self.e

    def deadline(self):
        return self.theta + ceil_div(self.i * self.p, self.e)

    def bbit(self):
        return int((self.i * self.p) % self.e != 0)

    def group_deadline(self):
        if not self.heavy:
            return 0
        e, p = self.e, self.p
        c = ceil_div(ceil_div(self.i * p, e) * (p - e), p)
        return self.theta + ceil_div(c * p, p - e)

    def elig(self, early_release):
        if early_release:
            r = self.theta + ((self.i - 1) // self.e) * self.p
        else:
            r = self.release()
        return max(r, self.not_before)

    def key(self):
        b = self.bbit()
        return (self.deadline(), -b, -self.group_deadline() if b else 0,
                self.idx)


class RefPD2:
    """Slot-by-slot PD2 on M processors.

    step(t, events) returns the list of M assignments (task name or None)
    with the master/slave rule: a task running back to back keeps its CPU,
    the others take the free CPUs in priority order. With staggered=True
    completions are at t + 1 + k/M on CPU k (for misses and tardiness).
    """

    def __init__(self, tasks, m, staggered=False, early_release=False):
        self.tasks = [Task(k, *t) for k, t in enumerate(tasks)]
        self.by_name = {t.name: t for t in self.tasks}
        self.m, self.staggered, self.er = m, staggered, early_release
        self.prev = [None] * m
        total = sum(Fraction(t.e, t.p) for t in self.tasks)
        assert total <= m

    def held(self, exclude_leaving=False):
        s = Fraction(0)
        for t in self.tasks:
            if t.state in ("active", "blocked") or (
                    t.state == "leaving" and not exclude_leaving):
                s += Fraction(t.e, t.p)
        return s

    def event(self, t, action, name):
        x = self.by_name[name]
        if action == "block":
            if x.pending:
                x.join_blocked = True
            if x.state == "active":
                x.state = "blocked"
        elif action == "wake":
            if x.pending:
                x.join_blocked = False
            if x.state == "blocked":
                if x.release() < t:
                    x.theta += t - x.release()
                x.not_before = t
                x.state = "active"
        elif action == "leave":
            if x.pending:
                x.pending = x.join_blocked = False
                return
            if x.state in ("active", "blocked"):
                x.state = "leaving"
                x.free_at = max(t, x.leave_ok)
        elif action == "join":
            if self.held(True) + Fraction(x.e, x.p) > self.m:
                raise ValueError(f"join refused: {name}")
            x.pending = True

    def tick(self, t):
        for x in self.tasks:
            if x.state == "leaving" and x.free_at <= t:
                x.state = "gone"
        for x in self.tasks:
            if x.pending and x.state == "gone" and \
                    self.held() + Fraction(x.e, x.p) <= self.m:
                x.pending = False
                x.state = "blocked" if x.join_blocked else "active"
                x.join_blocked = False
                x.theta, x.i, x.not_before, x.leave_ok = t, 1, 0, t

    def choose(self, t):
        ready = [x for x in self.tasks
                 if x.state == "active" and x.elig(self.er) <= t]
        ready.sort(key=Task.key)
        return ready[:self.m]

    def charge(self, x, t, cpu):
        x.quanta += 1
        den = self.m if self.staggered else 1
        done = Fraction((t + 1) * den + (cpu if self.staggered else 0), den)
        if done > x.deadline():
            x.misses += 1
            x.max_tard = max(x.max_tard, done - x.deadline())
        x.leave_ok = x.group_deadline() if x.heavy else \
            x.deadline() + x.bbit()
        if x.i % x.e == 0:
            x.jobs += 1
        x.i += 1

    def step(self, t, events=()):
        for action, name in events:
            self.event(t, action, name)
        self.tick(t)
        chosen = self.choose(t)
        row = [None] * self.m
        rest = []
        for x in chosen:
            if x.name in self.prev:
                row[self.prev.index(x.name)] = x
            else:
                rest.append(x)
        free = [k for k in range(self.m) if row[k] is None]
        for k, x in zip(free, rest):
            row[k] = x
        for k, x in enumerate(row):
            if x is not None:
                self.charge(x, t, k)
        self.prev = [x.name if x else None for x in row]
        return list(self.prev)


def run_reference(tasks, m, slots, events=(), staggered=False,
                  early_release=False):
    """tasks: [(name, e, p, phase)]; events: [(time, action, name)] sorted.
    Returns (rows, ref)."""
    ref = RefPD2(tasks, m, staggered, early_release)
    return run_slots(ref.step, slots, events), ref


def lag_ok(rows, tasks, m):
    """|lag(T, t)| < 1 at every boundary for static periodic tasks."""
    got = {name: 0 for name, *_ in tasks}
    for t in range(len(rows) + 1):
        for name, e, p, phase in tasks:
            if t >= phase:
                lag = Fraction(e * (t - phase), p) - got[name]
                if not -1 < lag < 1:
                    return False, (name, t, lag)
        if t < len(rows):
            for name in rows[t]:
                if name is not None:
                    got[name] += 1
    return True, None


class RefStaggered:
    """Staggered Pfair, Fig. 5, for static sets, with plain Python sets for
    the heaps: which task Schedule(p) hands CPU p in each slot, i.e. the
    CPU mapping as well as the set. Priorities and windows are Task's;
    SchedNow hands out its lowest priority first (line 16). "T in S_t"
    (line 4) is read as sched/pfair/spd2.c documents: T was granted a
    processor in slot t."""

    def __init__(self, tasks, m, early_release=False):
        self.tasks = [Task(k, *t) for k, t in enumerate(tasks)]
        self.m, self.er = m, early_release
        self.t, self.count = -1, m
        self.running = [None] * m
        self.now, self.resched_now = set(), set()
        self.next, self.resched_next = set(), set()
        self.eligible = set()
        self.incoming = set(self.tasks)
        self.ran_in = {}
        self.merge(0)
        while self.eligible and len(self.next) < m:     # lines 2-3
            self.select(self.extract_max())

    def merge(self, h):
        """Eligible := Eligible + Incoming[..h]."""
        due = {x for x in self.incoming if x.elig(self.er) <= h}
        self.incoming -= due
        self.eligible |= due

    def extract_max(self):
        x = min(self.eligible, key=Task.key)
        self.eligible.remove(x)
        return x

    def select(self, x):                                # lines 4-6
        ran = self.ran_in.get(x.name) == self.t
        (self.resched_next if ran else self.next).add(x)

    def schedule(self, p):
        if self.count == self.m:                        # lines 7-11
            self.t += 1
            self.merge(self.t + 1)
            self.now, self.next = self.next, self.now
            self.resched_now, self.resched_next = \
                self.resched_next, self.resched_now
        x = self.running[p]
        if x in self.resched_now:                       # lines 12-14
            self.resched_now.remove(x)
        elif self.now:                                  # lines 15-16
            x = max(self.now, key=Task.key)
            self.now.remove(x)
        else:
            x = None
        self.running[p] = x
        if x is not None:                               # lines 19-23
            self.ran_in[x.name] = self.t
            x.i += 1
            (self.eligible if x.elig(self.er) <= self.t + 1
             else self.incoming).add(x)
        if self.eligible:                               # lines 24-25
            self.select(self.extract_max())
        self.count = self.count % self.m + 1            # line 26
        return x.name if x is not None else None

    def step(self, t, events=()):
        assert not events, "static sets only"
        return [self.schedule(p) for p in range(self.m)]


def run_staggered(tasks, m, slots, early_release=False):
    """Rows of Fig. 5 for the static set tasks [(name, e, p, phase)]."""
    ref = RefStaggered(tasks, m, early_release)
    return run_slots(ref.step, slots, ())
