"""tools/rtk-trace on schedsim runs and the Trace Event Format export
(docs/trace-format.md, "schedsim runs" and "Perfetto and
chrome://tracing"): the export keeps the format's rules (trace_event_ref,
a checker written from the format's definition) and holds exactly the
schedule -- every slice is a piece of the schedule and every piece of the
schedule is a slice -- for quantum-driven plugins, for the event-driven
pfp and for a kernel dump; its instants and overhead spans are those of
the run; a kernel dump of the schedule schedsim gave exports the same
slices and the same jobs.csv as the schedsim run; the kernel's job rules
under `at` events, worked by hand; and bad input is named with its
line."""
import contextlib
import csv
import io
import json
import subprocess
import sys

import pytest

from conftest import ROOT, host_tool
from trace_enc import boundary as enc_boundary
from trace_enc import dump, records_with_jobs
from trace_event_ref import by_thread, events_of, validate

sys.path.insert(0, str(ROOT / "tools"))
from rtktrace import chrome, simrun  # noqa: E402
from rtktrace.cli import main  # noqa: E402

RTK_TRACE = ROOT / "tools" / "rtk-trace"
Q_US = 1000

# (name, e, p, d) in quanta. HEAVY misses under spd2 on 3 CPUs (a subtask
# may end up to 2/3 of a quantum late), TIGHT under ngedf on 2.
LIGHT = [("A", 1, 2, 2), ("B", 2, 3, 3), ("C", 1, 4, 4), ("D", 2, 6, 6)]
HEAVY = [("A", 1, 2, 2), ("B", 2, 3, 3), ("C", 2, 3, 3), ("D", 1, 2, 2),
         ("E", 1, 3, 3)]
TIGHT = [("A", 1, 2, 2), ("B", 2, 3, 3), ("C", 2, 5, 5), ("D", 3, 10, 10)]
SERVERS = (ROOT / "tasks" / "servers.tasks").read_text()


def text_of(specs, extra=""):
    return "".join(f"task {n} e={e} p={p}\n" for n, e, p, _ in specs) + extra


def schedsim(tmp_path, text, sched, cpus, slots, *extra):
    f = tmp_path / f"{sched}.tasks"
    f.write_text(text)
    out = tmp_path / f"{sched}.jsonl"
    proc = subprocess.run([str(host_tool("schedsim")), "--sched", sched,
                           "--cpus", str(cpus), "--slots", str(slots),
                           *map(str, extra), str(f)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out.write_text(proc.stdout)
    return f, out, [json.loads(line) for line in proc.stdout.splitlines()]


def rtk_trace(*args):
    """tools/rtk-trace's main, in this process (a second faster than a
    process of its own): its exit status and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])
    return subprocess.CompletedProcess(args, status, out.getvalue(),
                                       err.getvalue())


def decode(tmp_path, tasks, run, *extra):
    out = tmp_path / "out"
    proc = rtk_trace("decode", run, "--tasks", tasks, "--out", out, *extra)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "perfetto.json").read_text())
    assert validate(doc) == []
    return out, doc


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cpu_slices(doc):
    """{cpu: [X event]} in time order; no two of a CPU's overlap."""
    out = {}
    for name, evs in by_thread(doc, "CPUs", "X").items():
        assert name.startswith("CPU ")
        evs.sort(key=lambda e: e["start_ns"])
        for a, b in zip(evs, evs[1:]):
            assert a["end_ns"] <= b["start_ns"], (a, b)
        out[int(name[4:])] = evs
    return out


def task_and_job(ev):
    """"A job 3" -> ("A", 3); "W" -> ("W", None); "A after job 3" (the
    thread running on after its job) -> ("A", None); the args say the
    same."""
    name = ev["name"].removesuffix(" (background)")
    if " after job " in name:
        task, after = name.split(" after job ")
        assert ev["args"]["after_job"] == int(after) and \
            "job" not in ev["args"] and ev["cat"] == "after"
        return task, None
    words = name.split(" job ")
    job = int(words[1]) if len(words) > 1 else None
    assert ev["args"]["task"] == words[0] and ev["args"].get("job") == job
    return words[0], job


# ---- the checker itself


def ok_doc(*events):
    return {"traceEvents": list(events), "displayTimeUnit": "ns"}


X = {"ph": "X", "name": "a", "ts": 0, "dur": 2, "pid": 1, "tid": 1}


@pytest.mark.parametrize("doc,wrong", [
    ({"events": []}, "traceEvents"),
    (ok_doc(dict(X, ts="0")), "ts '0' is not a number"),
    (ok_doc(dict(X, ts=True)), "ts True is not a number"),
    (ok_doc({k: v for k, v in X.items() if k != "dur"}), "no dur"),
    (ok_doc(dict(X, dur=-1)), "not negative"),
    (ok_doc(dict(X, pid="1")), "pid '1' is not an integer"),
    (ok_doc({k: v for k, v in X.items() if k != "tid"}), "no tid"),
    (ok_doc(dict(X, ph="Q")), "phase 'Q'"),
    (ok_doc(X, dict(X, ts=1, dur=2)), "without nesting"),
    (ok_doc(dict(X, ph="B"), dict(X, ph="E", ts=1, name="b")),
     "closes 'a'"),
    (ok_doc(dict(X, ph="E")), "no open B"),
    (ok_doc(dict(X, ph="B")), "never closed"),
    (ok_doc(dict(X, ph="B", ts=5), dict(X, ph="E", ts=3)), "before"),
    (ok_doc({"ph": "i", "name": "r", "ts": 1, "pid": 1, "tid": 1, "s": "x"}),
     "scope 'x'"),
    (ok_doc({"ph": "i", "name": "r", "ts": 1, "pid": 1, "tid": 1,
             "dur": 1}), "no dur"),
    (ok_doc({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1,
             "args": {"name": 3}}), "args.name 3"),
    (ok_doc({"ph": "M", "name": "thread_name", "pid": 1,
             "args": {"name": "x"}}), "no tid"),
    (ok_doc({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 1,
             "args": {"sort_index": "1"}}), "args.sort_index"),
    (ok_doc({"ph": "M", "name": "colour", "pid": 1, "args": {}}),
     "not a metadata name"),
    (dict(ok_doc(X), displayTimeUnit="us"), "displayTimeUnit"),
])
def test_the_checker_refuses_what_the_format_forbids(doc, wrong):
    errors = validate(doc)
    assert any(wrong in e for e in errors), errors


def test_the_checker_takes_what_the_format_allows():
    nested = [X, dict(X, ts=0.5, dur=1), dict(X, ts=2, dur=0),
              dict(X, ph="B", ts=3), dict(X, ph="B", ts=3.5),
              {"ph": "E", "ts": 4, "pid": 1, "tid": 1},
              dict(X, ph="E", ts=4.5),
              {"ph": "i", "name": "g", "ts": 1, "s": "g"},
              {"ph": "I", "name": "p", "ts": 1, "pid": 2, "s": "p"},
              {"ph": "M", "name": "process_name", "pid": 1,
               "args": {"name": "P"}},
              {"ph": "M", "name": "process_labels", "pid": 1,
               "args": {"labels": "l"}}]
    assert validate(ok_doc(*nested)) == []
    assert validate(nested) == []      # the array form


# ---- schedsim runs, quantum-driven


def slot_bounds(cpus, staggered, k, t):
    """CPU k's slot t in ns: [t + k/M, t + 1 + k/M) quanta when staggered,
    each end rounded down to the nanosecond."""
    def at(n):
        return n * Q_US * 1000 // cpus
    off = k if staggered else 0
    return at(t * cpus + off), at((t + 1) * cpus + off)


QUANTUM_RUNS = [("pd2", 2, LIGHT, ""), ("spd2", 3, HEAVY, ""),
                ("gedf", 2, LIGHT, ""), ("pedf", 2, LIGHT, ""),
                ("ngedf", 2, TIGHT, ""),
                ("gdq", 2, LIGHT, "task W weight=9000\n")]


@pytest.mark.parametrize("sched,cpus,specs,extra", QUANTUM_RUNS)
def test_a_quantum_run_exports_its_schedule(tmp_path, sched, cpus, specs,
                                            extra):
    slots = 36
    tasks, run, lines = schedsim(tmp_path, text_of(specs, extra), sched,
                                 cpus, slots)
    rows = [line["cpus"] for line in lines[:-1]]
    summary = lines[-1]["summary"]
    staggered = summary["ticks"] == "staggered"
    out, doc = decode(tmp_path, tasks, run, "--no-pictures")
    assert (out / "schedule.jsonl").read_text() == run.read_text()
    spec = {n: (e, p, d) for n, e, p, d in specs}
    # Each slice covers whole slots of its CPU, all of its task; each busy
    # slot lies in exactly one slice; the job of a quantum is the task's
    # quanta before it over e (no `at` events here).
    covered = {}
    for k, evs in cpu_slices(doc).items():
        for ev in evs:
            task, job = task_and_job(ev)
            t = next(t for t in range(slots)
                     if slot_bounds(cpus, staggered, k, t)[0] ==
                     ev["start_ns"])
            while True:
                assert rows[t][k] == task, (k, t, ev)
                assert (k, t) not in covered
                covered[k, t] = (task, job)
                end = slot_bounds(cpus, staggered, k, t)[1]
                if end == ev["end_ns"]:
                    break
                assert end < ev["end_ns"]
                t += 1
    assert set(covered) == {(k, t) for t, row in enumerate(rows)
                            for k, task in enumerate(row) if task}
    quanta = {}
    for t, row in enumerate(rows):
        for k, task in enumerate(row):
            if task is None:
                continue
            n = quanta[task] = quanta.get(task, 0) + 1
            want = (n - 1) // spec[task][0] if task in spec else None
            assert covered[k, t] == (task, want), (k, t)
    # Releases and deadlines where the task set puts them; a completion
    # at the end of each e-th quantum; the summary's job counts (the EDF
    # family leaves out a job ending with the run: the report says none
    # differ).
    instants = by_thread(doc, "Tasks", "i")
    misses = {}
    for task, (e, p, d) in spec.items():
        mine = instants[task]
        assert sorted(ev["start_ns"] for ev in mine
                      if ev["cat"] == "release") == \
            [j * p * Q_US * 1000 for j in range(-(-slots // p))]
        assert sorted(ev["start_ns"] for ev in mine
                      if ev["cat"] == "deadline") == \
            [(j * p + d) * Q_US * 1000 for j in range(-(-slots // p))]
        # The ends of its e-th, 2e-th, ... quanta; late after j p + d.
        ends = sorted(slot_bounds(cpus, staggered, k, t)[1]
                      for (k, t), (x, job) in covered.items() if x == task
                      and sum(1 for (_, t2), (x2, _) in covered.items()
                              if x2 == task and t2 <= t) % e == 0)
        assert sorted(ev["start_ns"] for ev in mine
                      if ev["cat"] == "done") == ends
        late = [c for j, c in enumerate(ends) if c > (j * p + d) * Q_US * 1000]
        assert sorted(ev["start_ns"] for ev in mine
                      if ev["cat"] == "miss") == late
        misses[task] = len(late)
    assert "## Where the jobs here and the summary differ" not in \
        (out / "report.md").read_text()
    jobs = read_csv(out / "jobs.csv")
    assert {r["task"] for r in jobs} <= set(spec)
    for task in spec:
        assert sum(int(r["misses"]) for r in jobs if r["task"] == task) \
            == misses[task]
        # The EDF family counts jobs' misses (Pfair its subtasks').
        if sched in ("gedf", "pedf", "ngedf"):
            assert misses[task] == summary["tasks"][task]["misses"]
    if sched in ("spd2", "ngedf"):
        assert sum(misses.values()) > 0


# ---- schedsim runs, event-driven


# Fixed priorities on two CPUs: B's jobs end exactly at their deadlines
# (not misses), E's after theirs.
FIXED = """\
task A e=2 p=4 prio=1 cpu=0
task B e=2 p=4 prio=2 cpu=0
task D e=3 p=5 prio=1 cpu=1
task E e=2 p=4 prio=2 cpu=1
"""


@pytest.mark.parametrize("text,slots,cxs_us", [(SERVERS, 60, 5),
                                               (FIXED, 24, 0)])
def test_an_event_driven_run_exports_its_segments(tmp_path, text, slots,
                                                  cxs_us):
    tasks, run, lines = schedsim(tmp_path, text, "pfp", 2, slots,
                                 "--cxs-us", cxs_us)
    out, doc = decode(tmp_path, tasks, run, "--no-pictures")
    summary = lines[-1]["summary"]
    segments = [x for x in lines if "from_us" in x]
    events = [x for x in lines if "event" in x]
    slices = cpu_slices(doc)
    # Every segment is tiled by the slices of its CPU, task and priority,
    # and every slice lies in a segment.
    used = set()
    for seg in segments:
        k, a, b = seg["cpu"], seg["from_us"] * 1000, seg["to_us"] * 1000
        mine = [ev for ev in slices[k] if a <= ev["start_ns"] < b]
        assert mine and mine[0]["start_ns"] == a and \
            mine[-1]["end_ns"] == b, seg
        for x, y in zip(mine, mine[1:]):
            assert x["end_ns"] == y["start_ns"]
        for ev in mine:
            assert task_and_job(ev)[0] == seg["task"]
            assert ev["args"].get("background", False) == \
                seg.get("background", False)
            used.add((k, ev["start_ns"]))
    assert used == {(k, ev["start_ns"]) for k, evs in slices.items()
                    for ev in evs}
    # A task's job j runs before its "done" and job j + 1 after it.
    done = {}
    for ev in events:
        if ev["event"] == "done":
            done[ev["task"], ev["job"]] = ev["at_us"] * 1000
    for evs in slices.values():
        for ev in evs:
            task, job = task_and_job(ev)
            if (task, job) in done:
                assert ev["end_ns"] <= done[task, job]
            if job and (task, job - 1) in done:
                assert ev["start_ns"] >= done[task, job - 1]
    # The switches' cost on each CPU's cxs track, one span per segment
    # that began with one.
    spans = by_thread(doc, "Overheads", "X")
    for k in range(2):
        assert sorted((ev["start_ns"], ev["end_ns"])
                      for ev in spans.get(f"CPU {k} cxs", [])) == sorted(
            (s["from_us"] * 1000, (s["from_us"] + s["overhead_us"]) * 1000)
            for s in segments if s["cpu"] == k and s.get("overhead_us"))
    # The job and budget events, each an instant of its task.
    instants = by_thread(doc, "Tasks", "i")
    for kind in ("arrive", "done", "exhausted", "replenished", "posted",
                 "toll"):
        assert sorted((t, ev["start_ns"]) for t, evs in instants.items()
                      for ev in evs if ev["cat"] == kind) == sorted(
            (x["task"], x["at_us"] * 1000) for x in events
            if x["event"] == kind), kind
    # A miss at each late completion, as many as the summary counts.
    for task, st in summary["tasks"].items():
        misses = [ev for ev in instants.get(task, []) if ev["cat"] == "miss"]
        assert len(misses) == st["misses"]
        for ev in misses:
            assert done[task, ev["args"]["job"]] == ev["start_ns"]
    if text == FIXED:
        assert summary["misses"] > 0
    # jobs.csv counts what the summary counts.
    jobs = read_csv(out / "jobs.csv")
    for name, st in list(summary["tasks"].items()) + \
            list(summary["servers"].items()):
        mine = [r for r in jobs if r["task"] == name]
        assert sum(r["outcome"] == "budget" for r in mine) == st["jobs"]
        if name in summary["tasks"]:
            assert sum(int(r["misses"]) for r in mine) == st["misses"]
    for x in events:
        if x["event"] == "done" and "response_us" in x:
            row = next(r for r in jobs if r["task"] == x["task"] and
                       int(r["job"]) == x["job"])
            assert int(row["response_ns"]) == x["response_us"] * 1000


# ---- kernel dumps


def kernel_log(tmp_path, specs, sched, cpus, slots, offset, khz=2_000_000,
               faults=()):
    """A kernel console of the schedule schedsim gives for specs: the dump
    a kernel would write running it (trace_enc.records_with_jobs)."""
    _, _, lines = schedsim(tmp_path, text_of(specs), sched, cpus, slots)
    names = [s[0] for s in specs]
    rows = [[None if n is None else names.index(n) for n in line["cpus"]]
            for line in lines[:-1]]
    run = {"cpus": cpus, "tsc_khz": khz, "t0": 7_000_000,
           "quantum_us": Q_US, "slots": slots,
           "staggered": lines[-1]["summary"]["ticks"] == "staggered",
           "sched": sched}
    run["end"] = enc_boundary(run, cpus - 1, slots) + 1000
    per_cpu, truth = records_with_jobs(run, rows, specs, offset, faults)
    text = "\n".join(dump(run, specs, [[r for _, r in c] for c in per_cpu],
                          json.dumps(lines[-1]))) + "\n"
    return run, rows, truth, text


def test_a_kernel_dump_exports_its_schedule(tmp_path):
    run, rows, truth, text = kernel_log(tmp_path, HEAVY, "spd2", 3, 30, 300,
                                        faults={(20, 1)})
    (tmp_path / "console.log").write_text(text)
    out = tmp_path / "out"
    proc = rtk_trace("decode", tmp_path / "console.log", "--out", out,
                     "--no-pictures")
    assert proc.returncode == 0 and " 0 problems" in proc.stdout, proc.stderr
    doc = json.loads((out / "perfetto.json").read_text())
    assert validate(doc) == []

    def ns(tsc):
        return (tsc - run["t0"]) * 1_000_000 // run["tsc_khz"]

    names = [s[0] for s in HEAVY]
    # What each CPU ran, switch to switch, cut where a completion of its
    # task lies inside. A piece that begins with a switch is the job after
    # the task's completions so far; one that begins with the completion
    # of job j is job j + 1 if the task holds the slot the completion
    # begins, else the thread running on after job j until the switch.
    want = set()
    for k in range(run["cpus"]):
        starts = {enc_boundary(run, k, t): t for t in range(len(rows) + 1)}
        mine = [(tsc, task) for cpu, tsc, task in truth["switches"]
                if cpu == k] + [(run["end"], None)]
        for (a, task), (b, _) in zip(mine, mine[1:]):
            if task is None:
                continue
            ends = {tsc: j for i, j, tsc in truth["completions"]
                    if i == task and a < tsc < b}
            cuts = sorted(ends)
            for x, y in zip([a] + cuts, cuts + [b]):
                if x == a:
                    job = sum(1 for i, _, tsc in truth["completions"]
                              if i == task and tsc <= x)
                    name = f"{names[task]} job {job}"
                elif starts[x] < len(rows) and rows[starts[x]][k] == task:
                    name = f"{names[task]} job {ends[x] + 1}"
                else:
                    name = f"{names[task]} after job {ends[x]}"
                want.add((k, ns(x), ns(y), name))
    assert any(" after job " in name for *_, name in want)
    got = {(k, ev["start_ns"], ev["end_ns"], ev["name"])
           for k, evs in cpu_slices(doc).items() for ev in evs}
    assert got == want
    # schedule.jsonl is what the slices say, slot by slot: the task that
    # ran longest in the slot (docs/trace-format.md).
    sched = [json.loads(line) for line in
             (out / "schedule.jsonl").read_text().splitlines()[:-1]]
    slices = cpu_slices(doc)
    for t, line in enumerate(sched):
        for k, task in enumerate(line["cpus"]):
            b0 = ns(enc_boundary(run, k, t))
            b1 = ns(enc_boundary(run, k, t + 1))
            ran = {None: b1 - b0}
            for ev in slices[k]:
                inside = min(ev["end_ns"], b1) - max(ev["start_ns"], b0)
                if inside > 0:
                    who = task_and_job(ev)[0]
                    ran[who] = ran.get(who, 0) + inside
                    ran[None] -= inside
            assert task == max(ran, key=ran.get), (t, k, ran)
            assert task == (None if rows[t][k] is None else
                            names[rows[t][k]])
    # The instants: releases, completions, misses (at the late
    # completion), the kill.
    instants = by_thread(doc, "Tasks", "i")

    def at(kind):
        return sorted((t, ev["start_ns"], ev["args"].get("job"))
                      for t, evs in instants.items() for ev in evs
                      if ev["cat"] == kind)

    assert at("release") == sorted((names[i], ns(tsc), j)
                                   for i, j, tsc in truth["releases"])
    assert at("done") == sorted((names[i], ns(tsc), j)
                                for i, j, tsc in truth["completions"])
    assert truth["misses"] and at("miss") == sorted(
        (names[i], ns(tsc), j) for i, j, tsc, _ in truth["misses"])
    assert [(t, x) for t, x, _ in at("kill")] == [
        (names[i], ns(tsc)) for i, tsc in truth["kills"]]
    # The overheads, each on its CPU's track of its kind.
    spans = by_thread(doc, "Overheads", "X")
    for k in range(run["cpus"]):
        for kind in ("tick", "sched", "cxs"):
            assert sorted((ev["start_ns"], ev["end_ns"])
                          for ev in spans[f"CPU {k} {kind}"]) == sorted(
                (ns(a), ns(b)) for cpu, kd, a, b in truth["spans"]
                if (cpu, kd) == (k, kind))


@pytest.mark.parametrize("sched,cpus,specs", [("spd2", 3, HEAVY),
                                              ("ngedf", 2, TIGHT)])
def test_a_kernel_dump_and_schedsim_export_the_same(tmp_path, sched, cpus,
                                                    specs):
    """A kernel that switched on its boundaries (at a TSC of 1 GHz, so that
    cycles are nanoseconds) gives the same slices, instants of jobs and
    jobs.csv as the schedsim run whose schedule it ran."""
    run, rows, truth, text = kernel_log(tmp_path, specs, sched, cpus, 30, 0,
                                        khz=1_000_000)
    (tmp_path / "console.log").write_text(text)
    kernel = tmp_path / "kernel"
    proc = rtk_trace("decode", tmp_path / "console.log", "--out", kernel,
                     "--no-pictures")
    assert proc.returncode == 0, proc.stderr
    tasks, sim_run, _ = schedsim(tmp_path, text_of(specs), sched, cpus, 30)
    sim, _ = decode(tmp_path, tasks, sim_run, "--no-pictures")
    docs = [json.loads((d / "perfetto.json").read_text())
            for d in (kernel, sim)]

    def slices(doc):
        return sorted((k, ev["start_ns"], ev["end_ns"], ev["name"])
                      for k, evs in cpu_slices(doc).items() for ev in evs)

    def job_instants(doc):
        return sorted((ev["name"], ev["start_ns"])
                      for evs in by_thread(doc, "Tasks", "i").values()
                      for ev in evs if ev["cat"] in ("release", "deadline",
                                                     "done", "miss"))

    assert slices(docs[0]) == slices(docs[1])
    assert job_instants(docs[0]) == job_instants(docs[1])
    assert read_csv(kernel / "jobs.csv") == read_csv(sim / "jobs.csv")


# ---- the kernel's job rules under `at` events, by hand


def test_at_events_move_releases_and_drop_jobs_as_the_kernel_does():
    """One CPU, A e=2 p=4 and B e=1 p=4 d=2; A blocks at 3 and wakes at
    9, B leaves at 5 and joins at 7. The schedule is given; the jobs,
    worked out by hand from the kernel's rules (docs/trace-format.md):
    A0 runs slots 0-1 (done at 2). A blocked at 3 has no release at 4;
    its wake at 9 finds that release (4) before 9, so A's releases start
    again from 9: A1 is released at 9, runs 9-10 (done at 11), A2 at 13
    runs 13-14. B0 runs slot 2 (done at 3, after its deadline at 2: a
    miss), B1 released at 4 runs slot 4; B leaves at 5 and joins at 7,
    when its next release (8) is not yet past: B2 at 8, B3 at 12."""
    ts = simrun.TaskSet([simrun.TaskSpec("A", 2, 4, 4),
                         simrun.TaskSpec("B", 1, 4, 2)],
                        [(3, "block", "A"), (5, "leave", "B"),
                         (7, "join", "B"), (9, "wake", "A")])
    rows = ["A", "A", "B", None, "B", None, None, None, "B", "A", "A", None,
            "B", "A", "A", None]
    text = "".join(json.dumps({"t": t, "cpus": [x]}) + "\n"
                   for t, x in enumerate(rows))
    text += json.dumps({"summary": {"sched": "gedf", "cpus": 1,
                                    "slots": len(rows), "ticks": "aligned",
                                    "tasks": {"A": {"jobs": 3},
                                              "B": {"jobs": 4}}}}) + "\n"
    run = simrun.from_lines(text, ts)
    q = Q_US * 1000
    got = [(r.task, r.job, r.release, r.completion, r.misses, r.outcome)
           for r in run.jobs]
    assert got == [("A", 0, 0, 2 * q, 0, "budget"),
                   ("A", 1, 9 * q, 11 * q, 0, "budget"),
                   ("A", 2, 13 * q, 15 * q, 0, "budget"),
                   ("B", 0, 0, 3 * q, 1, "budget"),
                   ("B", 1, 4 * q, 5 * q, 0, "budget"),
                   ("B", 2, 8 * q, 9 * q, 0, "budget"),
                   ("B", 3, 12 * q, 13 * q, 0, "budget")]
    assert run.problems == []


def test_a_wake_after_the_deadline_drops_the_job():
    """A e=2 p=4 runs one quantum of A0 in slot 0, blocks at 1, wakes at 5
    (after A0's deadline at 4): A0 is dropped at 5 (a miss), A1 is
    released at 5 and runs 5-6."""
    ts = simrun.TaskSet([simrun.TaskSpec("A", 2, 4, 4)],
                        [(1, "block", "A"), (5, "wake", "A")])
    rows = ["A", None, None, None, None, "A", "A", None]
    text = "".join(json.dumps({"t": t, "cpus": [x]}) + "\n"
                   for t, x in enumerate(rows))
    text += json.dumps({"summary": {"sched": "gedf", "cpus": 1,
                                    "slots": len(rows)}}) + "\n"
    run = simrun.from_lines(text, ts)
    q = Q_US * 1000
    assert [(r.job, r.release, r.completion, r.misses, r.outcome)
            for r in run.jobs] == [(0, 0, 5 * q, 1, "dropped"),
                                   (1, 5 * q, 7 * q, 0, "budget")]
    assert [(s.start // q, s.stop // q, s.job) for s in run.view.slices] \
        == [(0, 1, 0), (5, 7, 1)]


def test_a_task_s_time_is_cut_at_its_completions():
    """derive.cut, by hand: completions at 10 (job 0) and 50 (job 1) cut
    [0, 100) in three; a task that did not go on to its next job after 50
    ran on after job 1; a switch naming job 5 (two jobs dropped without a
    record) begins job 5."""
    from rtktrace.derive import cut
    done = [(10, 0), (50, 1)]
    assert cut(0, 100, done) == [(0, 10, 0, False), (10, 50, 1, False),
                                 (50, 100, 2, False)]
    assert cut(0, 100, done, lambda when, j: when != 50) == [
        (0, 10, 0, False), (10, 50, 1, False), (50, 100, 1, True)]
    assert cut(10, 50, done) == [(10, 50, 1, False)]
    assert cut(60, 70, done, first=5) == [(60, 70, 5, False)]
    assert cut(60, 70, done, first=1) == [(60, 70, 2, False)]


# ---- bad input


GOOD = [{"t": 0, "cpus": ["A", None]}, {"t": 1, "cpus": ["B", "A"]},
        {"summary": {"sched": "gedf", "cpus": 2, "slots": 2,
                     "ticks": "aligned"}}]


def lines_of(objs):
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n"
                   for o in objs)


@pytest.mark.parametrize("lines,line,what", [
    (GOOD[:1] + ['{"t": 1, "cpus": ["B", "A"]'] + GOOD[2:], 2, "not JSON"),
    (GOOD[:1] + [{"t": 2, "cpus": ["B", "A"]}] + GOOD[2:], 2,
     "slot 2 where slot 1 belongs"),
    (GOOD[:1] + [{"t": 1, "cpus": ["Z", "A"]}] + GOOD[2:], 2,
     'task "Z" is not in'),
    (GOOD[:1] + [{"t": 1, "cpus": ["B"]}] + GOOD[2:], 2,
     "1 CPUs where slot 0 has 2"),
    (GOOD[:1] + [{"t": 1, "cpus": "B"}] + GOOD[2:], 2, '"cpus" is not'),
    (GOOD[:2], 0, "no summary line"),
    (GOOD + [GOOD[0]], 4, "after the summary"),
    (GOOD[:1] + [[1, 2]] + GOOD[2:], 2, "not a JSON object"),
    (GOOD[:1] + [{"x": 1}] + GOOD[2:], 2, "neither a slot"),
    (GOOD[:2] + [{"summary": dict(GOOD[2]["summary"], slots=3)}], 3,
     "slots=3, 2 slot lines"),
    (GOOD[:2] + [{"summary": dict(GOOD[2]["summary"], tasks=[1])}], 3,
     "the summary's \"tasks\" is not an object"),
    (GOOD[:2] + [{"summary": dict(GOOD[2]["summary"], cpus=0)}], 3,
     '"cpus": 0 is below 1'),
    (GOOD[:1] + [{"cpu": 0, "from_us": 5, "to_us": 9, "task": "A"}] +
     GOOD[1:], 2, "a segment or event among slot lines"),
    ([{"cpu": 0, "from_us": 0, "to_us": 900, "task": "A"},
      {"cpu": 0, "from_us": 800, "to_us": 1000, "task": "B"},
      {"summary": {"sched": "pfp", "cpus": 1, "time_us": 2000,
                   "quantum_us": 1000}}], 2, "before its previous one"),
    ([{"cpu": 0, "from_us": 0, "to_us": 900, "task": "A"},
      {"at_us": 5, "event": "done", "task": "A", "job": "0"},
      {"summary": {"sched": "pfp", "cpus": 1, "time_us": 2000,
                   "quantum_us": 1000}}], 2, '"job": "0" is not an integer'),
    ([{"cpu": 0, "from_us": 0, "to_us": 900, "task": "A"},
      {"at_us": 5, "event": "spawn", "task": "A"},
      {"summary": {"sched": "pfp", "cpus": 1, "time_us": 2000,
                   "quantum_us": 1000}}], 2, 'unknown event "spawn"'),
    ([{"cpu": 3, "from_us": 0, "to_us": 900, "task": "A"},
      {"summary": {"sched": "pfp", "cpus": 1, "time_us": 2000,
                   "quantum_us": 1000}}], 1, "cpu 3 of 1"),
    ([{"cpu": 0, "from_us": 9, "to_us": 9, "task": "A"},
      {"summary": {"sched": "pfp", "cpus": 1, "time_us": 2000,
                   "quantum_us": 1000}}], 1, "not after its start"),
])
def test_malformed_runs_are_named_by_line(tmp_path, lines, line, what):
    tasks = tmp_path / "set.tasks"
    tasks.write_text("task A e=1 p=2\ntask B e=1 p=2\n")
    run = tmp_path / "run.jsonl"
    run.write_text(lines_of(lines))
    proc = rtk_trace("decode", run, "--tasks", tasks, "--out",
                     tmp_path / "out")
    assert proc.returncode == 1, proc.stdout
    where = f"{run}:{line}: " if line else f"rtk-trace: {run}: "
    assert proc.stderr.startswith(where) and what in proc.stderr, \
        proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_command_draws_a_run(tmp_path):
    """tools/rtk-trace itself, as a user runs it on schedsim's output."""
    tasks, run, _ = schedsim(tmp_path, SERVERS, "pfp", 2, 20)
    out = tmp_path / "out"
    proc = subprocess.run([str(RTK_TRACE), "decode", str(run), "--tasks",
                           str(tasks), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("rtk-trace: schedsim pfp on 2 CPUs")
    assert " 0 problems" in proc.stdout
    for name in ("schedule.jsonl", "jobs.csv", "perfetto.json",
                 "gantt.png", "gantt.svg", "report.md"):
        assert (out / name).stat().st_size > 0, name
    assert "![gantt.png](gantt.png)" in (out / "report.md").read_text()


def test_a_run_needs_its_task_set(tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_text(lines_of(GOOD))
    proc = rtk_trace("decode", run, "--out", tmp_path / "out")
    assert proc.returncode == 2 and "--tasks FILE" in proc.stderr
    bad = tmp_path / "bad.tasks"
    bad.write_text("task A e=3 p=2\n")
    proc = rtk_trace("decode", run, "--tasks", bad, "--out", tmp_path / "o")
    assert proc.returncode == 2
    assert f"{bad}:1: task 'A': e=3 is greater than p=2" in proc.stderr
    other = tmp_path / "other.tasks"
    other.write_text("task A e=1 p=2\ntask B e=1 p=2\ntask C e=1 p=2\n")
    good = dict(GOOD[2]["summary"], tasks={"A": {}, "B": {}})
    run.write_text(lines_of(GOOD[:2] + [{"summary": good}]))
    proc = rtk_trace("decode", run, "--tasks", other, "--out", tmp_path / "o")
    assert proc.returncode == 1 and f"{run}:3: the summary's tasks (A, B) " \
        "are not those of" in proc.stderr


def test_the_export_of_an_empty_view_keeps_the_rules():
    """No slices, no instants: still a document the viewers open."""
    from rtktrace.view import View
    doc = chrome.trace_events(View("schedsim", "gedf", 2, [], 0, Q_US, 0,
                                   False))
    assert validate(doc) == [] and len(events_of(doc)) == 10


def test_overlapping_spans_of_a_kind_go_to_a_second_track():
    """Two IPIs in flight to one CPU at once overlap without nesting: the
    second goes to a track of its own, and the document keeps the
    rules."""
    from rtktrace.view import View
    v = View("kernel trace", "gedf", 1, ["A"], 10_000, Q_US, 1, False)
    for start, stop in ((100, 500), (300, 700), (600, 900), (650, 660)):
        v.add_span("ipi", 0, start, stop)
    doc = chrome.trace_events(v)
    assert validate(doc) == []
    spans = {name: [(ev["start_ns"], ev["end_ns"]) for ev in evs]
             for name, evs in by_thread(doc, "Overheads", "X").items()}
    assert spans == {"CPU 0 ipi": [(100, 500), (600, 900)],
                     "CPU 0 ipi #2": [(300, 700)],
                     "CPU 0 ipi #3": [(650, 660)]}
    # Without the second track the checker sees the overlap.
    for ev in events_of(doc):
        if ev.get("cat") == "overhead":
            ev["tid"] = 1
    assert any("without nesting" in e for e in validate(doc))
