"""rtk-trace's command line."""
import argparse
import json
import pathlib
import sys

from . import simrun
from .decode import check_console, runs_from, write_files, write_sim_files
from .window import check, servers_of

NOTHING_USABLE = 1
USAGE = 2
CONSOLE_DIFFERS = 3
WINDOW_OVER = 3


def parser():
    ap = argparse.ArgumentParser(
        prog="rtk-trace",
        description="Reads the kernel's trace dump (trace=events) from a "
                    "console log, or a schedsim run's JSON lines: "
                    "docs/trace-format.md.")
    sub = ap.add_subparsers(dest="command", required=True)
    dec = sub.add_parser(
        "decode", help="write schedule.jsonl, jobs.csv, perfetto.json (the "
                       "Trace Event Format), gantt.png/.svg, report.md and, "
                       "for a kernel dump, overheads.csv and overhead plots")
    dec.add_argument("log", type=pathlib.Path,
                     help="the serial console log, or schedsim's output "
                          "(a file whose first line is a JSON object)")
    dec.add_argument("--tasks", type=pathlib.Path,
                     help="the task set a schedsim run ran (needed for "
                          "one: releases and deadlines come from it)")
    dec.add_argument("--quantum-us", type=int,
                     default=simrun.QUANTUM_US_DEFAULT,
                     help="a quantum-driven schedsim run's quantum in "
                          "microseconds (default %(default)s, schedsim's)")
    dec.add_argument("--out", type=pathlib.Path, required=True,
                     help="where the files go (run1/, run2/, ... below it "
                          "when the log holds several dumps)")
    dec.add_argument("--no-pictures", action="store_true",
                     help="skip the PNG/SVG pictures (no matplotlib needed)")
    dec.add_argument("--check", action="store_true",
                     help="also compare with the schedule and RESULT lines "
                          f"the kernel printed; exit {CONSOLE_DIFFERS} when "
                          "they differ")
    win = sub.add_parser(
        "window", help="the sliding-window check of each server of an "
                       "event-driven run (pfp), from its trace; one JSON "
                       f"line per server, exit {WINDOW_OVER} when one ran "
                       "more than its budget in a period")
    win.add_argument("log", type=pathlib.Path, help="the serial console log")
    win.add_argument("--tasks", type=pathlib.Path, required=True,
                     help="the run's task set (its server lines give each "
                          "server's budget and period)")
    return ap


def window(args, runs):
    try:
        servers = servers_of(args.tasks.read_text(errors="replace"))
    except OSError as e:
        print(f"rtk-trace: {args.tasks}: {e.strerror}", file=sys.stderr)
        return USAGE
    if not servers:
        print(f"rtk-trace: {args.tasks}: no server line", file=sys.stderr)
        return USAGE
    status = 0
    for run in runs:
        for row in check(run, servers):
            print(json.dumps(row))
            if not row["ok"]:
                status = WINDOW_OVER
    return status


def is_schedsim(text):
    """schedsim's output begins with a JSON object; a console log with the
    kernel's banner."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.lstrip().startswith("{")


def decode_sim(args, text):
    """A schedsim run: InputErrors name the file and the line."""
    if args.command != "decode" or args.check:
        what = "window" if args.command == "window" else "decode --check"
        print(f"rtk-trace: {args.log} is a schedsim run: {what} reads a "
              "kernel console log", file=sys.stderr)
        return USAGE
    if args.tasks is None:
        print(f"rtk-trace: {args.log} is a schedsim run: give the task set "
              "it ran with --tasks FILE", file=sys.stderr)
        return USAGE
    if args.quantum_us < 1:
        print("rtk-trace: --quantum-us must be at least 1", file=sys.stderr)
        return USAGE
    try:
        ts = simrun.load_taskset(args.tasks)
    except simrun.TaskSetError as e:
        print(f"rtk-trace: {e}", file=sys.stderr)
        return USAGE
    try:
        run = simrun.from_lines(text, ts, args.tasks, args.quantum_us)
    except simrun.InputError as e:
        print(f"{args.log}:{e.line}: {e.what}" if e.line else
              f"rtk-trace: {args.log}: {e.what}", file=sys.stderr)
        return NOTHING_USABLE
    for _, what in run.problems:
        print(f"rtk-trace: {args.log}: {what}", file=sys.stderr)
    pictures = want_pictures(args)
    write_sim_files(run, args.out, pictures)
    v = run.view
    print(f"rtk-trace: schedsim {v.sched} on {v.cpus} CPUs, "
          f"{len(v.slices)} slices, {len(run.jobs)} jobs: "
          f"{len(run.problems)} problems; {args.out}/report.md, "
          f"{args.out}/perfetto.json"
          + (f", {args.out}/gantt.png" if pictures else ""))
    return 0


def want_pictures(args):
    if args.no_pictures:
        return False
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("rtk-trace: no matplotlib here: the pictures are skipped "
              "(`make host-deps` puts it into build/venv)", file=sys.stderr)
        return False
    return True


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        text = args.log.read_text(errors="replace")
    except OSError as e:
        print(f"rtk-trace: {args.log}: {e.strerror}", file=sys.stderr)
        return USAGE
    if is_schedsim(text):
        return decode_sim(args, text)
    runs, loose = runs_from(text)
    for line, what in loose:
        print(f"{args.log}:{line}: {what}", file=sys.stderr)
    if not runs:
        print(f"rtk-trace: {args.log}: no usable trace dump (no intact "
              "TRACE-BEGIN line; boot with trace=events)", file=sys.stderr)
        return NOTHING_USABLE
    if args.command == "window":
        return window(args, runs)
    pictures = want_pictures(args)
    status = 0
    for i, run in enumerate(runs, 1):
        for line, what in run.dump.problems:
            print(f"{args.log}:{line}: {what}", file=sys.stderr)
        outdir = args.out / f"run{i}" if len(runs) > 1 else args.out
        write_files(run, outdir, pictures)
        p = run.params
        print(f"rtk-trace: {run.dump.header['sched']} on {p.cpus} CPUs, "
              f"{p.slots} slots (line {run.dump.begin_line}): "
              f"{len(run.dump.problems)} problems; {outdir}/report.md"
              + (f", {outdir}/gantt.png" if pictures else ""))
        if args.check:
            for diff in check_console(text, run, runs):
                print(f"{args.log}: run at line {run.dump.begin_line}: "
                      f"{diff}", file=sys.stderr)
                status = CONSOLE_DIFFERS
    return status
