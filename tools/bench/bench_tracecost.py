"""What tracing costs (issue 11 item 5): the same run with record=on and
record=off, and the kernel's own price of one record (RESULT trace
cycles_per_record: the median over rounds of writing records in a tight
loop, kernel/trace/trace.c trace_cost_cycles).

What the runs are compared by is what needs no record: the time the tasks
saw themselves run (RESULT task self_us, their hourglass on the control
page), the time the idle CPUs' hourglass loops got (RESULT hourglass
got_us) and the gaps they saw (gaps, gap_max_ns: the boundaries' overhead
as an idle CPU feels it). Recording costs whatever of that the off run has
more. ran_us and the tick overhead exist only with records; they are shown
for the on run.

The set: global EDF, 2 CPUs, 6 spin tasks of total utilisation 1, so each
CPU is idle about half the time and its hourglass measures. Under -icount
(virtual time: the difference is the records' instructions, nothing else)
and, outside smoke mode, plain TCG (the host's noise on top; the host's
load is in the CSV)."""
import os
import pathlib
import sys
import tempfile

from benchlib import print_table, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import make_iso, qemu  # noqa: E402
from workitems import ItemFailed, call_item, run_items  # noqa: E402

NEEDS_ISO = True
ICOUNT = "shift=3,sleep=off"
PLUGIN, CPUS = "gedf", 2
TASKS = "".join(f"task S{i} e=1 p=6\n" for i in range(6))

PLANS = {
    "smoke": dict(slots=40, timings=["icount"]),
    "quick": dict(slots=600, timings=["icount", "tcg"]),
    "full": dict(slots=5000, timings=["icount", "tcg"]),
}

HEADERS = ["record", "plugin", "cpus", "tasks", "slots", "timing", "self_us",
           "ran_us", "got_us", "gaps", "gap_max_ns", "tick_p50_ns",
           "cycles_per_record", "host_load"]


def boot_once(record, slots, timing):
    """One boot's row (a work item)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "tracecost.tasks"
        path.write_text(TASKS)
        iso = make_iso(pathlib.Path(tmp) / "tracecost.iso",
                       cmdline=f"sched={PLUGIN} slots={slots} "
                               f"record={record}", tasks=path)
        load = os.getloadavg()[0]
        boot = qemu(iso, smp=CPUS,
                    icount=ICOUNT if timing == "icount" else None,
                    timeout=600 + slots // 5)
    if not boot.finished:  # a late run still measured
        raise ItemFailed(f"bench_tracecost: record={record} ({timing}) "
                         f"failed:\n{boot.tail()}")
    tasks = boot.results("task")
    hg = boot.results("hourglass")
    ov = {r["event"]: r for r in boot.results("overhead")}
    ran = sum(int(t["ran_us"]) for t in tasks) if record == "on" else ""
    tick = int(ov["tick"]["p50_ns"]) if record == "on" else ""
    return [record, PLUGIN, CPUS, len(tasks), slots, timing,
            sum(int(t["self_us"]) for t in tasks), ran,
            sum(int(h["got_us"]) for h in hg),
            sum(int(h["gaps"]) for h in hg),
            max(int(h["gap_max_ns"]) for h in hg), tick,
            int(boot.result("trace")["cycles_per_record"]), round(load, 2)]


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(timing, record) for timing in plan["timings"]
              for record in ("on", "off")]
    got = run_items(
        call_item("tools/bench/bench_tracecost.py", "boot_once",
                  dict(record=record, slots=plan["slots"], timing=timing),
                  boots=True, timed=timing == "tcg",
                  label=f"tracecost record={record} {timing}")
        for timing, record in points)
    if None in got:
        raise SystemExit("bench_tracecost: a boot failed twice (above)")
    rows, diff = [], []
    for k, timing in enumerate(plan["timings"]):
        on, off = got[2 * k], got[2 * k + 1]
        rows += [on, off]
        # What the off run's tasks and idle loops got more, per slot and
        # CPU, in microseconds.
        per = plan["slots"] * CPUS
        diff.append([timing, (off[6] - on[6]) / per,
                     (off[8] - on[8]) / per, on[12]])
    write_csv(outdir / "tracecost.csv", HEADERS, rows)
    print_table(HEADERS, rows, "a run with and without trace records")
    print_table(["timing", "tasks_gain_us_per_slot", "idle_gain_us_per_slot",
                 "cycles_per_record"], diff,
                "what the run without records gave more, per quantum and CPU "
                "(the quantum is 1000 us)")
    write_csv(outdir / "tracecost_diff.csv",
              ["timing", "tasks_gain_us_per_slot_cpu",
               "idle_gain_us_per_slot_cpu", "cycles_per_record"], diff)
