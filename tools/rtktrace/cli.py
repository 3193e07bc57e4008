"""rtk-trace's command line."""
import argparse
import json
import pathlib
import sys

from .decode import check_console, runs_from, write_files
from .window import check, servers_of

NOTHING_USABLE = 1
USAGE = 2
CONSOLE_DIFFERS = 3
WINDOW_OVER = 3


def parser():
    ap = argparse.ArgumentParser(
        prog="rtk-trace",
        description="Reads the kernel's trace dump (trace=events) from a "
                    "console log: docs/trace-format.md.")
    sub = ap.add_subparsers(dest="command", required=True)
    dec = sub.add_parser(
        "decode", help="write schedule.jsonl, jobs.csv, overheads.csv, "
                       "gantt.png/.svg, overhead plots and report.md")
    dec.add_argument("log", type=pathlib.Path, help="the serial console log")
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


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        text = args.log.read_text(errors="replace")
    except OSError as e:
        print(f"rtk-trace: {args.log}: {e.strerror}", file=sys.stderr)
        return USAGE
    runs, loose = runs_from(text)
    for line, what in loose:
        print(f"{args.log}:{line}: {what}", file=sys.stderr)
    if not runs:
        print(f"rtk-trace: {args.log}: no usable trace dump (no intact "
              "TRACE-BEGIN line; boot with trace=events)", file=sys.stderr)
        return NOTHING_USABLE
    if args.command == "window":
        return window(args, runs)
    pictures = not args.no_pictures
    if pictures:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("rtk-trace: no matplotlib here: the pictures are skipped "
                  "(`make host-deps` puts it into build/venv)",
                  file=sys.stderr)
            pictures = False
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
