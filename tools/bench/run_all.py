#!/usr/bin/env python3
"""Runs the benchmarks: every tools/bench/bench_*.py module.

Each module defines `run(mode, outdir)` where mode is "smoke" (seconds: the
tests use it to check the benchmark works), "quick" (the everyday default) or
"full" (the papers' sizes). It prints its tables and writes CSV and PNG files
under outdir (build/bench/NAME/). The work items of those that boot (and
of the simulations) run on Dask and come from the result cache when
nothing they depend on changed (tools/bench/workitems.py; the options are
tools/experiments/run.py's).
"""
import argparse
import importlib.util
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import workitems  # noqa: E402


def benchmarks():
    return sorted(p.stem[len("bench_"):] for p in HERE.glob("bench_*.py"))


def load(name):
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", HERE / f"bench_{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(HERE))
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["smoke", "quick", "full"],
                    default="quick")
    ap.add_argument("--only", help="run only this benchmark")
    ap.add_argument("--out", default=str(ROOT / "build" / "bench"))
    workitems.add_options(ap)
    args = ap.parse_args()
    names = benchmarks()
    if args.only:
        if args.only not in names:
            sys.exit(f"no benchmark '{args.only}'; have: {' '.join(names)}")
        names = [args.only]
    started = time.monotonic()
    with workitems.session_of(args) as session:
        for name in names:
            outdir = pathlib.Path(args.out) / name
            outdir.mkdir(parents=True, exist_ok=True)
            with workitems.named(name, session):
                print(f"== {name} ({args.mode}) ==", flush=True)
                start = time.monotonic()
                load(name).run(args.mode, outdir)
                print(f"== {name}: {time.monotonic() - start:.1f} s, results "
                      f"in {outdir} ==\n", flush=True)
        session.report_totals(started)
    bad = sorted(session.failures)
    if bad:
        sys.exit(f"items failed in: {' '.join(bad)} (above); their points "
                 "are missing from the CSVs")


if __name__ == "__main__":
    main()
