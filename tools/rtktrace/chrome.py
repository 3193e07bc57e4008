"""A view (view.py) as a trace in the Trace Event Format's JSON object form,
which Perfetto's UI (ui.perfetto.dev) and chrome://tracing open
(docs/trace-format.md, "Perfetto and chrome://tracing"):

- process 1, "CPUs": one thread per CPU; a complete event (ph X) per
  slice, named "TASK job J", "TASK after job J" (the thread running on
  after its job until switched away) or, for a task without jobs, TASK;
- process 2, "Tasks": one thread per task of the set; instant events
  (ph i, thread scope) for releases, deadlines, completions, drops,
  misses, kills and the other moments of its life; with resources
  (docs/locking.md), complete events for its jobs' waits for a resource
  ("spin R", "wait R": from the request to the acquisition) and holds
  ("hold R"), which nest as its critical sections do;
- process 3, "Overheads": the overhead spans as complete events, one
  thread per CPU and kind ("CPU 0 sched"); spans of one kind that overlap
  on a CPU (several releases at one boundary, two IPIs in flight) go to
  further threads ("CPU 0 release #2"), so that no thread's events
  overlap;
- metadata events (ph M) naming and ordering the processes and threads.

ts and dur are microseconds from the run's time 0, exact to the
nanosecond; displayTimeUnit "ns" asks the viewer to show nanoseconds.
"""
import json

FILE = "perfetto.json"
CPUS, TASKS, OVERHEADS = 1, 2, 3
PROCESSES = {CPUS: "CPUs", TASKS: "Tasks", OVERHEADS: "Overheads"}
KIND_ORDER = ("tick", "sched", "cxs", "release", "ipi")


def us(ns):
    """Nanoseconds as a JSON number of microseconds: an integer when whole,
    else the decimal with up to three places (which a double holds
    exactly enough to give the nanoseconds back by rounding)."""
    return ns // 1000 if ns % 1000 == 0 else ns / 1000


def metadata(pid, tid, name, value):
    key = "name" if name.endswith("_name") else "sort_index"
    ev = {"ph": "M", "name": name, "pid": pid, "args": {key: value}}
    if tid is not None:
        ev["tid"] = tid
    return ev


def job_name(task, job):
    return task if job is None else f"{task} job {job}"


def lanes(spans):
    """Spans (sorted by start) spread over the fewest lanes in which none
    overlaps another: [(lane, span)]."""
    ends, out = [], []
    for s in spans:
        for lane, end in enumerate(ends):
            if end <= s.start:
                break
        else:
            lane = len(ends)
            ends.append(0)
        ends[lane] = s.stop
        out.append((lane, s))
    return out


def trace_events(view):
    """The export as a dict, ready for json.dump."""
    meta, body = [], []
    for pid, name in PROCESSES.items():
        meta.append(metadata(pid, None, "process_name", name))
        meta.append(metadata(pid, None, "process_sort_index", pid))
    for k in range(view.cpus):
        meta.append(metadata(CPUS, k + 1, "thread_name", f"CPU {k}"))
        meta.append(metadata(CPUS, k + 1, "thread_sort_index", k))
    for i, name in enumerate(view.tasks):
        meta.append(metadata(TASKS, i + 1, "thread_name", name))
        meta.append(metadata(TASKS, i + 1, "thread_sort_index", i))
    for s in view.slices:
        args = {"task": s.task, "cpu": s.cpu}
        if s.after:
            name, cat = f"{s.task} after job {s.job}", "after"
            args["after_job"] = s.job
        else:
            name, cat = job_name(s.task, s.job), "job"
            if s.job is not None:
                args["job"] = s.job
        if s.background:
            args["background"] = True
            name, cat = name + " (background)", "background"
        body.append({"ph": "X", "name": name, "cat": cat,
                     "ts": us(s.start), "dur": us(s.stop - s.start),
                     "pid": CPUS, "tid": s.cpu + 1, "args": args})
    task_tid = {name: i + 1 for i, name in enumerate(view.tasks)}
    for e in view.instants:
        args = dict(e.args, task=e.task)
        if e.job is not None:
            args["job"] = e.job
        body.append({"ph": "i", "s": "t", "name": f"{e.kind} "
                     f"{job_name(e.task, e.job)}", "cat": e.kind,
                     "ts": us(e.at), "pid": TASKS, "tid": task_tid[e.task],
                     "args": args})
    for lk in view.locks:
        body.append({"ph": "X", "name": f"{lk.kind} {lk.res}", "cat": "lock",
                     "ts": us(lk.start), "dur": us(lk.stop - lk.start),
                     "pid": TASKS, "tid": task_tid[lk.task],
                     "args": {"task": lk.task, "job": lk.job,
                              "resource": lk.res}})
    tid = 0
    order = {k: i for i, k in enumerate(KIND_ORDER)}
    tracks = sorted({(s.cpu, s.kind) for s in view.spans},
                    key=lambda t: (t[0], order.get(t[1], len(order)), t[1]))
    for cpu, kind in tracks:
        mine = sorted((s for s in view.spans
                       if (s.cpu, s.kind) == (cpu, kind)),
                      key=lambda s: (s.start, s.stop))
        first = tid + 1
        for lane, s in lanes(mine):
            if first + lane > tid:
                tid = first + lane
                meta.append(metadata(OVERHEADS, tid, "thread_name",
                                     f"CPU {cpu} {kind}" +
                                     (f" #{lane + 1}" if lane else "")))
                meta.append(metadata(OVERHEADS, tid, "thread_sort_index",
                                     tid))
            body.append({"ph": "X", "name": kind, "cat": "overhead",
                         "ts": us(s.start), "dur": us(s.stop - s.start),
                         "pid": OVERHEADS, "tid": first + lane,
                         "args": dict(s.args, cpu=cpu)})
    body.sort(key=lambda e: (e["ts"], e["pid"], e["tid"]))
    other = {"source": view.source, "sched": view.sched,
             "cpus": str(view.cpus), "time": "ts in microseconds from the "
             "run's time 0", "end_us": str(us(view.end))}
    if view.event_driven:
        other["quantum_us"] = str(view.quantum_us)
    else:
        other.update(quantum_us=str(view.quantum_us), slots=str(view.slots),
                     ticks="staggered" if view.staggered else "aligned")
    if view.before_zero:
        other["left_out"] = (f"{view.before_zero} instants and spans before "
                             "time 0")
    return {"traceEvents": meta + body, "displayTimeUnit": "ns",
            "otherData": other}


def write(view, path):
    # json.dumps, not json.dump: the former encodes in C, several times
    # faster on a long run.
    with open(path, "w") as f:
        f.write(json.dumps(trace_events(view), separators=(",", ":")) + "\n")
