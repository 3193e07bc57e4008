#!/usr/bin/env python3
"""Runs the benchmarks: every tools/bench/bench_*.py module.

Each module defines `run(mode, outdir)` where mode is "smoke" (seconds: the
tests use it to check the benchmark works), "quick" (the everyday default) or
"full" (the papers' sizes). It prints its tables and writes CSV and PNG files
under outdir (build/bench/NAME/).
"""
import argparse
import importlib.util
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


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
    args = ap.parse_args()
    names = benchmarks()
    if args.only:
        if args.only not in names:
            sys.exit(f"no benchmark '{args.only}'; have: {' '.join(names)}")
        names = [args.only]
    for name in names:
        outdir = pathlib.Path(args.out) / name
        outdir.mkdir(parents=True, exist_ok=True)
        print(f"== {name} ({args.mode}) ==", flush=True)
        start = time.monotonic()
        load(name).run(args.mode, outdir)
        print(f"== {name}: {time.monotonic() - start:.1f} s, results in "
              f"{outdir} ==\n", flush=True)


if __name__ == "__main__":
    main()
