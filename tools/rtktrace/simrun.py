"""A schedsim run (its JSON lines on stdout) as a view (view.py) and the
same jobs.csv rows a kernel dump gives (docs/trace-format.md, "schedsim
runs"). Two kinds of run:

- quantum-driven: one {"t": T, "cpus": [...]} line per slot, then the
  summary. The jobs come from the task set and the
  kernel's rules for jobs (kernel/task/jobs.c, described in the document): a
  task's job j is released at its anchor + j p quanta, every quantum the
  task runs counts towards its oldest unfinished job, which ends with its
  e-th quantum -- at the end of that slot on that CPU -- and misses when
  that is after its release plus d quanta; the `at` events move the
  anchor and drop unfinished jobs as the kernel does.
- event-driven (docs/schedulers-event-driven.md): segments, job and budget
  events in microseconds, then the summary. The jobs are the run's own
  "done" events; releases and deadlines come from the task set.

Every line is checked; the first that is not what schedsim writes stops
the reading with an InputError naming it.
"""
import dataclasses
import heapq
import json
import pathlib
import subprocess

from . import locks
from .derive import cut
from .records import LOCK_KINDS
from .view import Span, View

ROOT = pathlib.Path(__file__).resolve().parents[2]
TASKSET_CHECK = ROOT / "build" / "host" / "taskset_check"
QUANTUM_US_DEFAULT = 1000          # schedsim's and the kernel's default
JOB_EVENTS = ("arrive", "done")
BUDGET_EVENTS = {"exhausted": "left_us", "replenished": "amount_us",
                 "posted": "amount_us", "toll": "amount_us",
                 "coalesced": "pending"}
IGNORED = ("bus", "bus_summary")   # schedsim --bus: not drawn


class InputError(Exception):
    """What is wrong, and the line (1-based; 0 for the file as a whole)."""

    def __init__(self, line, what):
        super().__init__(what)
        self.line = line
        self.what = what


class TaskSetError(Exception):
    """The task set could not be read; the message names the file (and
    the line, as the kernel's parser does)."""


@dataclasses.dataclass
class TaskSpec:
    name: str
    e: int = 0
    p: int = 0
    d: int = 0
    phase: int = 0
    server: bool = False


@dataclasses.dataclass
class TaskSet:
    tasks: list            # TaskSpec, in the set's order
    events: list           # (t in quanta, action, name), in time order

    def index(self):
        return {t.name: i for i, t in enumerate(self.tasks)}


def load_taskset(path):
    """The task set through build/host/taskset_check (the parser the
    kernel and schedsim use); TaskSetError with its message when it
    refuses the file."""
    if not TASKSET_CHECK.exists():
        raise TaskSetError(f"{TASKSET_CHECK} is missing: run `make host` "
                           "(the task set is read with the kernel's parser)")
    proc = subprocess.run([str(TASKSET_CHECK), str(path)],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise TaskSetError(proc.stderr.strip() or
                           f"{path}: taskset_check refused it")
    tasks, events = [], []
    for line in proc.stdout.splitlines():
        obj = json.loads(line)
        if "task" in obj and "e" in obj:
            tasks.append(TaskSpec(obj["task"], obj["e"], obj["p"], obj["d"],
                                  obj["phase"]))
        elif "server" in obj:
            tasks.append(TaskSpec(obj["server"], server=True))
        elif "event" in obj:
            events.append((obj["at"], obj["event"], obj["task"]))
    return TaskSet(tasks, events)


# ---- reading the lines


def need(obj, key, kind, line, what="", minimum=None):
    """obj[key], which must be of kind (int: not a bool) and at least
    minimum; else an InputError naming the line and the key."""
    if key not in obj:
        raise InputError(line, f"{what or 'the line'} has no \"{key}\"")
    v = obj[key]
    ok = isinstance(v, kind) and not (kind is int and isinstance(v, bool))
    if not ok:
        raise InputError(line, f"\"{key}\": {json.dumps(v)} is not "
                         f"{'an integer' if kind is int else 'a string'}")
    if minimum is not None and v < minimum:
        raise InputError(line, f"\"{key}\": {v} is below {minimum}")
    return v


@dataclasses.dataclass
class Lines:
    text: str
    slots: list = dataclasses.field(default_factory=list)     # (line, cpus)
    segments: list = dataclasses.field(default_factory=list)  # (line, obj)
    events: list = dataclasses.field(default_factory=list)    # (line, obj)
    locks: list = dataclasses.field(default_factory=list)     # (line, obj)
    summary: dict = None
    summary_line: int = 0


def read_lines(text):
    """The schedsim lines of text, checked one by one."""
    out = Lines(text)
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        if out.summary is not None:
            raise InputError(n, "a line after the summary (line "
                             f"{out.summary_line}): the summary ends a run")
        try:
            obj = json.loads(raw)
        except ValueError as e:
            raise InputError(n, f"not JSON ({e.msg} at column {e.colno})")
        if not isinstance(obj, dict):
            raise InputError(n, "not a JSON object")
        if "summary" in obj:
            if not isinstance(obj["summary"], dict):
                raise InputError(n, "\"summary\" is not an object")
            out.summary, out.summary_line = obj["summary"], n
        elif "t" in obj:
            t = need(obj, "t", int, n, "a slot line")
            if t != len(out.slots):
                raise InputError(n, f"slot {t} where slot {len(out.slots)} "
                                 "belongs (slots count up from 0)")
            cpus = obj.get("cpus")
            if not isinstance(cpus, list) or not cpus or not all(
                    c is None or isinstance(c, str) for c in cpus):
                raise InputError(n, "\"cpus\" is not a list of task names "
                                 "and nulls")
            if out.slots and len(cpus) != len(out.slots[0][1]):
                raise InputError(n, f"{len(cpus)} CPUs where slot 0 has "
                                 f"{len(out.slots[0][1])}")
            out.slots.append((n, cpus))
        elif "from_us" in obj:
            need(obj, "cpu", int, n, "a segment", 0)
            a = need(obj, "from_us", int, n, "a segment", 0)
            b = need(obj, "to_us", int, n, "a segment", 0)
            need(obj, "task", str, n, "a segment")
            if b <= a:
                raise InputError(n, f"the segment ends at {b} us, not after "
                                 f"its start at {a} us")
            if "overhead_us" in obj:
                need(obj, "overhead_us", int, n, "a segment", 0)
            out.segments.append((n, obj))
        elif "lock" in obj:
            # schedsim --locks (docs/locking.md): drawn, and its spinning
            # is no work for the job model.
            kind = need(obj, "lock", str, n, "a lock event")
            if kind not in LOCK_KINDS:
                raise InputError(n, f"unknown lock event \"{kind}\"")
            need(obj, "at_us" if "at_us" in obj else "at", int, n,
                 "a lock event", 0)
            need(obj, "task", str, n, "a lock event")
            out.locks.append((n, obj))
        elif "event" in obj:
            need(obj, "at_us", int, n, "an event", 0)
            kind = need(obj, "event", str, n, "an event")
            need(obj, "task", str, n, "an event")
            if kind in JOB_EVENTS:
                need(obj, "job", int, n, f"a \"{kind}\" event", 0)
            elif kind not in BUDGET_EVENTS:
                raise InputError(n, f"unknown event \"{kind}\"")
            out.events.append((n, obj))
        elif not any(k in obj for k in IGNORED):
            raise InputError(n, "neither a slot, a segment, an event nor "
                             "the summary (keys: " + ", ".join(obj) + ")")
    if out.summary is None:
        raise InputError(0, "no summary line: the run is incomplete (did "
                         "schedsim finish?)")
    if out.slots and (out.segments or out.events):
        first = min(n for n, _ in out.segments + out.events)
        raise InputError(first, "a segment or event among slot lines: a run "
                         "is quantum-driven or event-driven, not both")
    need(out.summary, "sched", str, out.summary_line, "the summary")
    need(out.summary, "cpus", int, out.summary_line, "the summary", 1)
    for key in ("tasks", "servers"):
        if not isinstance(out.summary.get(key, {}), dict):
            raise InputError(out.summary_line, f"the summary's \"{key}\" "
                             "is not an object")
    return out


# ---- the run


@dataclasses.dataclass
class JobRow:
    task: str
    job: int
    release: int = None     # ns from time 0
    deadline: int = None
    start: int = None
    completion: int = None
    misses: int = 0
    tardiness: int = 0
    outcome: str = ""

    def row(self):
        def f(v):
            return "" if v is None else v
        response = (self.completion - self.release
                    if self.completion is not None and self.release is not None
                    and self.completion >= self.release else "")
        return [self.task, self.job, f(self.release), f(self.deadline),
                f(self.start), f(self.completion), response, self.tardiness,
                self.misses, self.outcome]


@dataclasses.dataclass
class SimRun:
    lines: Lines
    view: View
    jobs: list              # JobRow, by task (set order) and job
    problems: list          # (line, text): the run against its summary

    def job_rows(self):
        return [j.row() for j in self.jobs]


def check_names(lines, ts, taskfile):
    """Every task the run names is in the set, and the summary's tasks are
    the set's."""
    known = ts.index()
    for n, cpus in lines.slots:
        for name in cpus:
            if name is not None and name not in known:
                raise InputError(n, f"task \"{name}\" is not in {taskfile}")
    for n, obj in lines.segments + lines.events:
        if obj["task"] not in known:
            raise InputError(n, f"task \"{obj['task']}\" is not in "
                             f"{taskfile}")
    s = lines.summary
    named = set(s.get("tasks", {})) | set(s.get("servers", {}))
    if named and named != set(known):
        raise InputError(lines.summary_line, "the summary's tasks ("
                         + ", ".join(sorted(named)) + f") are not those of "
                         f"{taskfile} (" + ", ".join(sorted(known)) +
                         "): is it the set that ran?")


def from_lines(text, ts, taskfile="the task set",
               quantum_us=QUANTUM_US_DEFAULT):
    """A SimRun from schedsim's output text and its task set (TaskSet)."""
    lines = read_lines(text)
    check_names(lines, ts, taskfile)
    if lines.slots or "slots" in lines.summary:
        return quantum_run(lines, ts, quantum_us)
    return event_run(lines, ts)


def compare(problems, what, mine, summary, key, spare=0):
    """Names a count of the run's that its summary (a task's or server's
    entry) does not share; the summary may count up to spare fewer."""
    if isinstance(summary, dict) and key in summary and \
            not mine - spare <= summary[key] <= mine:
        problems.append((0, f"{what}: {mine} {key} here, the summary says "
                         f"{summary[key]}"))


# ---- quantum-driven runs


@dataclasses.dataclass
class JobState:
    """One task's jobs as the kernel keeps them (kernel/task/jobs.c)."""
    spec: TaskSpec
    present: bool = True
    blocked: bool = False
    anchor_slot: int = 0
    anchor_job: int = 0
    released: int = 0
    done: int = 0
    ran: int = 0

    def release_slot(self, j):
        return self.anchor_slot + (j - self.anchor_job) * self.spec.p

    def next_release(self):
        return self.release_slot(self.released)


class QuantumJobs:
    """The kernel's job rules over a slotted schedule; times in ns."""

    def __init__(self, ts, cpus, staggered, quantum_ns):
        self.ts, self.cpus, self.staggered = ts, cpus, staggered
        self.q = quantum_ns
        self.state = {t.name: JobState(t, anchor_slot=t.phase)
                      for t in ts.tasks if t.p > 0}
        self.rows = {}                  # (name, job) -> JobRow
        self.view_instants = []         # (kind, ns, name, job, args)
        # The next releases, as (slot, set order, name); an entry whose
        # slot is no longer its task's next release, or whose task is
        # blocked or gone, is stale and skipped.
        self.order = {t.name: i for i, t in enumerate(ts.tasks)}
        self.due = []
        for name in self.state:
            self.requeue(name)
        self.spun = {}          # name -> slots it spun for a lock

    def requeue(self, name):
        s = self.state[name]
        if s.present and not s.blocked:
            heapq.heappush(self.due, (s.next_release(), self.order[name],
                                      name))

    def boundary(self, k, t):
        """CPU k's boundary t: T0 + n Q / M, n = t M (+ k when staggered),
        rounded down to the nanosecond."""
        n = t * self.cpus + (k if self.staggered else 0)
        return n * self.q // self.cpus

    def row(self, name, j):
        return self.rows.setdefault((name, j), JobRow(name, j))

    def note(self, kind, at, name, job=None, **args):
        self.view_instants.append((kind, at, name, job, args))

    def release_due(self, t):
        while self.due and self.due[0][0] <= t:
            slot, _, name = heapq.heappop(self.due)
            s = self.state[name]
            if not s.present or s.blocked or s.next_release() != slot:
                continue
            j = s.released
            r = self.row(name, j)
            r.release = slot * self.q
            r.deadline = r.release + s.spec.d * self.q
            self.note("release", r.release, name, j)
            self.note("deadline", r.deadline, name, j)
            s.released += 1
            self.requeue(name)

    def drop_unfinished(self, name, s, at, counted):
        for j in range(s.done, s.released):
            if counted:
                r = self.row(name, j)
                r.completion, r.outcome, r.misses = at, "dropped", 1
                self.note("drop", at, name, j, outcome="dropped")
        s.done = max(s.done, s.released)
        s.ran = 0

    def event(self, w, action, name):
        at = self.boundary(0, w)
        self.note(action, at, name, slot=w)
        s = self.state.get(name)
        if s is None:
            return
        if action == "block":
            s.blocked = True
        elif action == "wake":
            s.blocked = False
            late = s.done < s.released and s.release_slot(s.done) + \
                s.spec.d <= w
            if late or s.next_release() < w:
                self.drop_unfinished(name, s, at, True)
                s.anchor_job, s.anchor_slot = s.released, w
        elif action == "leave":
            s.present = False
            self.drop_unfinished(name, s, at, False)
        elif action == "join":
            s.present, s.blocked = True, False
            if s.next_release() < w:
                s.anchor_job, s.anchor_slot = s.released, w
        self.requeue(name)

    def charge(self, k, t, name):
        """name ran in CPU k's slot t: the job that quantum belongs to (a
        slot it spun for a lock is no work, docs/locking.md)."""
        s = self.state.get(name)
        if s is None:
            return None
        j = s.done
        if t in self.spun.get(name, ()):
            return j
        s.ran += 1
        if s.ran >= s.spec.e:
            when = self.boundary(k, t + 1)
            due = (s.release_slot(j) + s.spec.d) * self.q
            r = self.row(name, j)
            r.completion, r.outcome = when, "budget"
            self.note("done", when, name, j, outcome="budget", cpu=k)
            if when > due:
                r.misses, r.tardiness = 1, when - due
                self.note("miss", when, name, j, tardiness_ns=when - due,
                          cpu=k)
            s.done += 1
            s.ran = 0
        return j

    def run(self, rows):
        """The job of every CPU's every slot ([t][k], None for idle or a
        task without jobs)."""
        pending = list(self.ts.events)
        out = []
        for t, cpus in enumerate(rows):
            self.release_due(t)
            while pending and pending[0][0] <= t:
                self.event(*pending.pop(0))
            out.append([None if name is None else self.charge(k, t, name)
                        for k, name in enumerate(cpus)])
        return out


def quantum_run(lines, ts, quantum_us):
    s = lines.summary
    cpus, n = s["cpus"], lines.summary_line
    rows = [c for _, c in lines.slots]
    if rows and len(rows[0]) != cpus:
        raise InputError(lines.slots[0][0], f"{len(rows[0])} CPUs; the "
                         f"summary (line {n}) says {cpus}")
    if "slots" in s and s["slots"] != len(rows):
        raise InputError(n, f"the summary says slots={s['slots']}, "
                         f"{len(rows)} slot lines came (schedsim "
                         "--summary-only leaves them out)")
    ticks = s.get("ticks", "aligned")
    if ticks not in ("aligned", "staggered"):
        raise InputError(n, f"the summary's ticks \"{ticks}\" is neither "
                         "aligned nor staggered")
    model = QuantumJobs(ts, cpus, ticks == "staggered", quantum_us * 1000)
    lock_evs = [obj for _, obj in lines.locks]
    for sp in locks.spans(lock_evs, 1, len(rows)):
        if sp.kind == "spin":
            model.spun.setdefault(sp.task, set()).update(
                range(sp.start, sp.stop))
    jobs_of = model.run(rows)
    view = View("schedsim", s["sched"], cpus, [t.name for t in ts.tasks],
                model.boundary(cpus - 1, len(rows)), quantum_us, len(rows),
                ticks == "staggered")
    for k in range(cpus):
        for t, cpus_t in enumerate(rows):
            name, job = cpus_t[k], jobs_of[t][k]
            if name is None:
                continue
            start, stop = model.boundary(k, t), model.boundary(k, t + 1)
            last = view.slices[-1] if view.slices else None
            if last and (last.cpu, last.task, last.job, last.stop) == (
                    k, name, job, start):
                last.stop = stop
            else:
                view.add_slice(k, start, stop, name, job)
            if job is not None:
                r = model.row(name, job)
                r.start = start if r.start is None else min(r.start, start)
    for kind, at, name, job, args in model.view_instants:
        view.add_instant(kind, at, name, job, **args)
    view.locks = locks.spans(lock_evs, quantum_us * 1000, view.end)
    problems = []
    counted = s.get("tasks", {})
    # A scheduler that counts no jobs at all (gdq: proportional share)
    # has nothing to compare. The EDF family charges a slot at the next
    # boundary, and the last slot has none: its summary leaves out a job
    # that ends with the run.
    if any(isinstance(c, dict) and c.get("jobs") for c in counted.values()):
        done, at_end = {}, {}
        last = model.boundary(0, len(rows))
        for r in model.rows.values():
            if r.outcome == "budget":
                done[r.task] = done.get(r.task, 0) + 1
                at_end[r.task] = at_end.get(r.task, 0) + (r.completion >= last)
        for name in model.state:
            compare(problems, f"task {name}", done.get(name, 0),
                    counted.get(name), "jobs", at_end.get(name, 0))
    order = {t.name: i for i, t in enumerate(ts.tasks)}
    jobs = sorted(model.rows.values(), key=lambda r: (order[r.task], r.job))
    return SimRun(lines, view, jobs, problems)


# ---- event-driven runs


def event_run(lines, ts):
    s, n = lines.summary, lines.summary_line
    cpus = s["cpus"]
    time_us = need(s, "time_us", int, n, "the summary of an event-driven "
                   "run", 0)
    q_us = need(s, "quantum_us", int, n, "the summary of an event-driven "
                "run", 1)
    view = View("schedsim", s["sched"], cpus, [t.name for t in ts.tasks],
                time_us * 1000, q_us, -(-time_us // q_us), False,
                event_driven=True)
    specs = {t.name: t for t in ts.tasks}
    rows = {}

    def row(name, j):
        return rows.setdefault((name, j), JobRow(name, j))

    done = {}            # name -> [(at_us, job)] in time order
    for line, ev in lines.events:
        name, at = ev["task"], ev["at_us"] * 1000
        if ev["event"] == "arrive":
            r = row(name, ev["job"])
            r.release = at
            view.add_instant("arrive", at, name, ev["job"],
                             cost_us=ev.get("cost_us"))
        elif ev["event"] == "done":
            done.setdefault(name, []).append((at, ev["job"]))
            r = row(name, ev["job"])
            r.completion, r.outcome = at, "budget"
            view.add_instant("done", at, name, ev["job"], outcome="budget")
        else:
            key = BUDGET_EVENTS[ev["event"]]
            args = {key: ev.get(key)}
            if "due_us" in ev:
                args["due_us"] = ev["due_us"]
            view.add_instant(ev["event"], at, name, **args)
    for name, t in specs.items():
        if t.server or t.p == 0:
            continue
        j = 0
        while (t.phase + j * t.p) * q_us < time_us:
            r = row(name, j)
            r.release = (t.phase + j * t.p) * q_us * 1000
            r.deadline = r.release + t.d * q_us * 1000
            view.add_instant("release", r.release, name, j)
            view.add_instant("deadline", r.deadline, name, j)
            if r.completion is not None and r.completion > r.deadline:
                r.misses, r.tardiness = 1, r.completion - r.deadline
                view.add_instant("miss", r.completion, name, j,
                                 tardiness_ns=r.tardiness)
            j += 1
    done = {name: sorted(d) for name, d in done.items()}
    last = {}
    for line, seg in lines.segments:
        k, a, b = seg["cpu"], seg["from_us"], seg["to_us"]
        if k >= cpus:
            raise InputError(line, f"cpu {k} of {cpus} (the summary's "
                             "cpus)")
        if b > time_us:
            raise InputError(line, f"the segment ends at {b} us, after the "
                             f"run's end at {time_us} us")
        if a < last.get(k, 0):
            raise InputError(line, f"CPU {k}'s segment from {a} us begins "
                             f"before its previous one ended at "
                             f"{last[k]} us")
        last[k] = b
        name, bg = seg["task"], bool(seg.get("background"))
        if seg.get("overhead_us"):
            view.spans.append(Span("cxs", k, a * 1000,
                                   min(b, a + seg["overhead_us"]) * 1000))
        # A segment goes on past a "done" only when the plugin's answer
        # stayed: the task went on to its next job.
        for start, stop, job, _ in cut(a * 1000, b * 1000,
                                       done.get(name, [])):
            view.add_slice(k, start, stop, name, job, bg)
    view.slices.sort(key=lambda x: (x.cpu, x.start))
    for x in view.slices:
        r = row(x.task, x.job)
        r.start = x.start if r.start is None else min(r.start, x.start)
    problems = []
    for name, t in specs.items():
        mine = [r for r in rows.values() if r.task == name]
        got = s.get("servers" if t.server else "tasks", {}).get(name)
        compare(problems, f"{'server' if t.server else 'task'} {name}",
                sum(r.outcome == "budget" for r in mine), got, "jobs")
        if not t.server:
            compare(problems, f"task {name}", sum(r.misses for r in mine),
                    got, "misses")
    order = {t.name: i for i, t in enumerate(ts.tasks)}
    jobs = sorted(rows.values(), key=lambda r: (order[r.task], r.job))
    return SimRun(lines, view, jobs, problems)
