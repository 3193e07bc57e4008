"""A decoded run and the files it becomes: schedule.jsonl (docs/formats.md,
"Schedules as JSON lines"), jobs.csv, overheads.csv, the pictures and report.md."""
import csv
import dataclasses
import json
import pathlib
import re

from . import chrome
from . import dump as dumpmod
from . import locks as locksmod
from . import view as viewmod
from .derive import (OVERHEAD_KINDS, derive, event_driven, job_slices, ns,
                     result_lines, task_keys, us, went_on)
from .jobs import HEADER as JOB_HEADER
from .jobs import jobs, rows as job_rows


@dataclasses.dataclass
class Run:
    dump: object
    derived: object
    jobs: list
    slices: list        # derive.JobSlice: what each CPU ran, job by job

    @property
    def params(self):
        return self.dump.params

    def name(self, i):
        return self.dump.task_name(i)

    def d_of(self, i):
        """Task i's relative deadline in quanta; None when unknown or for
        a server (d=0: its jobs have none)."""
        t = self.dump.tasks.get(i)
        return t.d if t and t.d else None

    def view(self):
        """What the Gantt chart and the trace-event export draw."""
        return viewmod.from_dump(self)

    def schedule_rows(self):
        return [{"t": t, "cpus": [None if w is None else self.name(w)
                                  for w in row]}
                for t, row in enumerate(self.derived.schedule)]

    def summary_line(self):
        """The kernel's summary, verbatim; else one made from the trace."""
        text = self.dump.summary_text()
        if text is not None:
            return text
        p, d = self.params, self.derived
        tasks = {self.name(i): {"jobs": t.jobs, "misses": t.misses}
                 for i, t in enumerate(d.tasks)}
        return json.dumps({"summary": {
            "sched": self.dump.header["sched"], "cpus": p.cpus,
            "slots": p.slots,
            "ticks": "staggered" if p.staggered else "aligned",
            "misses": sum(t.misses for t in d.tasks), "tasks": tasks,
            "source": "trace"}})

    def lock_events(self):
        """The run's lock events as `schedsim --locks` prints them
        (locks.py); [] for a set without resources."""
        return locksmod.events(self.dump,
                               event_driven(self.dump.per_cpu()))

    def result_lines(self):
        """The RESULT lines the kernel prints from the same records: the
        overhead and hourglass lines whole, the task lines' trace keys, and
        for a set with resources the lock lines' keys the records give."""
        p = self.params
        out = result_lines(p, self.derived) + [
            f"RESULT task name={self.name(i)} {task_keys(p, t)}"
            for i, t in enumerate(self.derived.tasks)]
        if self.dump.resources:
            names = [self.name(i) for i in range(p.ntasks)]
            for name, t in locksmod.totals(self.lock_events(),
                                           names).items():
                out.append(f"RESULT lock name={name} " + " ".join(
                    f"{k}={v}" for k, v in t.items()))
        return out


def runs_from(text):
    """(runs, problems outside any dump) of a console log's text."""
    dumps, loose = dumpmod.read(text)
    out = []
    for d in dumps:
        per_cpu = d.per_cpu()
        derived = derive(d.params, per_cpu)
        # A task given only weight= has no jobs.
        jobless = {i for i, t in d.tasks.items() if t.weight and not t.p}
        slices = job_slices(d.params, per_cpu, went_on(
            d.params, per_cpu, derived.schedule, d.tasks), jobless)
        out.append(Run(d, derived, jobs(d.params, per_cpu, slices, d.tasks),
                       slices))
    return out, loose


class Outputs:
    """A folder to write into: calling it with a file's name gives that
    file's path there and notes it in `written`."""

    def __init__(self, outdir):
        self.dir = pathlib.Path(outdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.written = []

    def __call__(self, name):
        self.written.append(self.dir / name)
        return self.dir / name

    def common(self, view, job_rows, pictures):
        """jobs.csv, the trace-event export and the Gantt chart (when
        pictures): what every kind of run gets. Returns the pictures."""
        with open(self("jobs.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(JOB_HEADER)
            w.writerows(job_rows)
        chrome.write(view, self(chrome.FILE))
        if not pictures:
            return []
        from . import plots
        plots.chart(view, self("gantt.png"), self("gantt.svg"))
        return ["gantt.png", "gantt.svg"]


def write_files(run, outdir, pictures=True):
    """Writes every output into outdir; returns the paths written."""
    path = Outputs(outdir)
    outdir, written = path.dir, path.written
    p, d = run.params, run.derived
    with open(path("schedule.jsonl"), "w") as f:
        for row in run.schedule_rows():
            f.write(json.dumps(row) + "\n")
        f.write(run.summary_line() + "\n")
    if run.dump.resources:
        with open(path("locks.jsonl"), "w") as f:
            for ev in run.lock_events():
                f.write(json.dumps(ev) + "\n")
    pics = path.common(run.view(), job_rows(p, run.jobs, run.name, run.d_of),
                       pictures)
    order = {k: i for i, k in enumerate(OVERHEAD_KINDS)}
    with open(path("overheads.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["event", "cpu", "seq", "cycles", "ns"])
        for s in sorted(d.samples, key=lambda s: (order[s.kind], s.cpu,
                                                  s.seq)):
            w.writerow([s.kind, s.cpu, s.seq, s.cycles,
                        ns(s.cycles, p.tsc_khz)])
    if pictures:
        from . import plots
        if plots.overhead_plots(d.samples, p.tsc_khz,
                                outdir / "overhead_hist.png",
                                outdir / "overhead_cdf.png"):
            written += [outdir / "overhead_hist.png",
                        outdir / "overhead_cdf.png"]
            pics += ["overhead_hist.png", "overhead_cdf.png"]
    path("report.md").write_text(report(run, pics))
    return written


def write_sim_files(run, outdir, pictures=True):
    """A schedsim run (simrun.SimRun): schedule.jsonl (its lines as they
    came), jobs.csv, the trace-event export, the Gantt chart and
    report.md; returns the paths written."""
    path = Outputs(outdir)
    text = run.lines.text
    path("schedule.jsonl").write_text(text if text.endswith("\n")
                                      else text + "\n")
    pics = path.common(run.view, run.job_rows(), pictures)
    path("report.md").write_text(sim_report(run, pics))
    return path.written


def sim_report(run, pictures):
    v = run.view
    if v.event_driven:
        what = (f"{v.cpus} CPUs, {v.end // 1000} us in quanta of "
                f"{v.quantum_us} us, event-driven")
    else:
        what = (f"{v.cpus} CPUs, {v.slots} slots of {v.quantum_us} us, "
                f"{'staggered' if v.staggered else 'aligned'} quanta")
    lines = [f"# A schedsim run of {v.sched}", "",
             f"{what}, {len(v.tasks)} tasks; {len(v.slices)} slices.", ""]
    if run.problems:
        lines += ["## Where the jobs here and the summary differ", ""]
        lines += [f"- {text}" for _, text in run.problems]
        lines.append("")
    # Per task: jobs done, misses, largest tardiness, time run (ns).
    per = {name: [0, 0, 0, 0] for name in v.tasks}
    for j in run.jobs:
        t = per[j.task]
        t[0] += j.outcome == "budget"
        t[1] += j.misses
        t[2] = max(t[2], j.tardiness)
    for x in v.slices:
        per[x.task][3] += x.stop - x.start
    lines += ["## Tasks", "", table(
        ["task", "jobs", "misses", "max tardiness (us)", "ran (us)"],
        [[name, jobs, misses, late // 1000, ran // 1000]
         for name, (jobs, misses, late, ran) in per.items()]), ""]
    if pictures:
        lines += ["## Pictures", "", "![gantt.png](gantt.png)", ""]
    lines += ["Files: `schedule.jsonl` (the run's lines), `jobs.csv` (one "
              "row per job, times in ns from time 0), "
              f"`{chrome.FILE}` (the run in the Trace Event Format: open it "
              "in ui.perfetto.dev or chrome://tracing)."]
    return "\n".join(lines) + "\n"


def table(headers, body):
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join(" --- " for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in body]
    return "\n".join(out)


def report(run, pictures):
    p, d, h = run.params, run.derived, run.dump.header
    khz = p.tsc_khz
    lines = [f"# Trace of a {h['sched']} run", "",
             f"{p.cpus} CPUs, {p.slots} slots of {p.quantum_us} us, "
             f"{'staggered' if p.staggered else 'aligned'} quanta, "
             f"{p.ntasks} tasks; TSC {khz} kHz; "
             f"{sum(len(c) for c in run.dump.per_cpu())} records.", ""]
    if run.dump.problems:
        lines += ["## Problems in the dump", ""]
        lines += [f"- line {n}: {text}" for n, text in run.dump.problems]
        lines.append("")
    lines += ["## Tasks", "", table(
        ["task", "jobs", "misses", "max tardiness (us)", "ran (us)",
         "self (us)", "faults"],
        [[run.name(i), t.jobs, t.misses, us(t.max_tardiness, khz),
          us(t.ran, khz), us(t.self_cycles, khz), t.faults]
         for i, t in enumerate(d.tasks)]), ""]
    lines += ["## Overheads", "", table(
        ["event", "n", "p50 (ns)", "p99 (ns)", "max (ns)", "max on CPU"],
        [[k, s.n, s.p50_ns, s.p99_ns, s.max_ns, s.max_cpu]
         for k, s in d.overheads.items()]), ""]
    lines += ["## Hourglass", "", table(
        ["CPU", "gaps", "gap p50 (ns)", "gap max (ns)", "got (us)"],
        [[k, s.n, s.p50_ns, s.max_ns, us(got, khz)]
         for k, (s, got) in enumerate(d.hourglass)]), ""]
    lines += ["## RESULT lines from the trace", "",
              "The kernel computes its lines from the same records "
              "(lib/trace_stats); they must match the console's.", "",
              "```"] + run.result_lines() + ["```", ""]
    if pictures:
        lines += ["## Pictures", ""]
        lines += [f"![{name}]({name})" for name in pictures
                  if name.endswith(".png")]
        lines.append("")
    lines += ["Files: `schedule.jsonl` (the schedule's JSON lines), `jobs.csv` "
              "(one row per job, times in ns from T0), `overheads.csv` (one "
              f"row per sample), `{chrome.FILE}` (the run in the Trace Event "
              "Format: open it in ui.perfetto.dev or chrome://tracing)" +
              ("; `locks.jsonl` (the lock events, as `schedsim --locks` "
               "prints them)." if run.dump.resources else ".")]
    return "\n".join(lines) + "\n"


SLOT = re.compile(r'^\{"t": \d+, "cpus": ')
RESULT = re.compile(r"RESULT (overhead|hourglass|task|lock) (.*)$")


def console_segment(text, run, runs):
    """The console lines the kernel printed for this run: those after the
    previous dump and before this one, TRACE- lines left out."""
    lines = text.splitlines()
    i = runs.index(run)
    lo = 0
    if i > 0:
        prev = runs[i - 1].dump
        lo = prev.end["line"] if prev.end else prev.begin_line
    hi = run.dump.begin_line - 1
    return [(n, l.strip()) for n, l in enumerate(lines[lo:hi], lo + 1)
            if dumpmod.MARK not in l]


def check_console(text, run, runs):
    """Differences between the decoded run and what the kernel printed for
    it: the schedule JSON lines and the RESULT overhead, hourglass and task
    lines. An empty list when they agree."""
    seg = console_segment(text, run, runs)
    out = []
    printed = []
    for n, l in seg:
        if not SLOT.match(l):
            continue
        try:
            printed.append(json.loads(l))
        except ValueError:      # a line the serial port damaged
            out.append(f"console line {n}: a damaged schedule line")
            printed.append(None)
    mine = run.schedule_rows()
    if not printed:
        out.append("the console has no schedule lines for this run")
    elif printed != mine:
        bad = next((t for t, (a, b) in enumerate(zip(printed, mine))
                    if a != b), min(len(printed), len(mine)))
        out.append(f"schedule differs from slot {bad}: console "
                   f"{printed[bad] if bad < len(printed) else 'ends'}, "
                   f"trace {mine[bad] if bad < len(mine) else 'ends'}")
    kernel = {}
    for _, l in seg:
        parsed = parse_result(l)
        if parsed:
            kernel[parsed[0]] = parsed[1]
    for line in run.result_lines():
        (topic, key), fields = parse_result(line)
        theirs = kernel.get((topic, key))
        if theirs is None:
            out.append(f"the console has no 'RESULT {topic}' line for {key}")
            continue
        out += [f"RESULT {topic} {key}: {k}={theirs.get(k)} on the console, "
                f"{v} from the trace"
                for k, v in fields.items() if theirs.get(k) != v]
    return out


def check_log(text):
    """Everything wrong with a console log that should hold one run and its
    dump -- the dump's problems and the differences from what the kernel
    printed -- as messages; [] when all agree. For boot tests."""
    runs, loose = runs_from(text)
    out = [f"line {n}: {what}" for n, what in loose]
    if len(runs) != 1:
        out.append(f"{len(runs)} trace dumps in the log, not 1")
    for run in runs:
        out += [f"line {n}: {what}" for n, what in run.dump.problems]
        out += check_console(text, run, runs)
    return out


def parse_result(line):
    """((topic, what it is about), fields) of a RESULT overhead, hourglass,
    task or lock line; None for other lines."""
    m = RESULT.match(line)
    if m is None:
        return None
    fields = dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
    about = {"overhead": "event", "hourglass": "cpu", "task": "name",
             "lock": "name"}
    return (m.group(1), fields.get(about[m.group(1)])), fields
