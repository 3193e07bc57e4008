#!/usr/bin/env python3
"""Runs the fuzz targets (docs/testing.md, "Fuzzing").

    tests/fuzz/run.py [--seconds N | --runs N [--seed S]] [--only NAME]

A target is tests/fuzz/targets/NAME.c (built by `make fuzz-build` as
build/fuzz/NAME, libFuzzer with AddressSanitizer and
UndefinedBehaviorSanitizer) or tests/fuzz/targets/NAME.py (atheris, run by
build/venv's Python). Each run reads, in this order, build/fuzz/corpus/NAME
(what earlier runs found; new inputs go there), the committed seeds
tests/fuzz/corpus/NAME and the regression inputs tests/fuzz/regressions/
NAME, every one of which is run first; then it mutates them for N seconds
(`make fuzz`, FUZZ_SECONDS) or N runs with a fixed seed (the short run of
`make test`, tests/host/test_fuzz.py). A crash -- a sanitizer's report, a
broken FUZZ_CHECK, an uncaught Python exception, a hang past 10 seconds --
is written to build/fuzz/crashes/NAME/ and named with the command that
replays it. Exit status 1 when a target crashed.
"""
import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGETS_DIR = ROOT / "tests" / "fuzz" / "targets"
BUILD = ROOT / "build" / "fuzz"
PYTHON = ROOT / "build" / "venv" / "bin" / "python"
HANG_SECONDS = 10

# The short run of `make test`: about two seconds each on the project's
# shared two-core machine (the Python target and the packet layer, which
# answers every byte, run fewer inputs a second).
TEST_RUNS = {"trace": 200, "gdb_rsp": 800, "acpi": 6000}
TEST_RUNS_DEFAULT = 20000


def targets():
    """Every target's name, sorted."""
    return sorted(p.stem for p in TARGETS_DIR.glob("*")
                  if p.suffix in (".c", ".py"))


def program(name):
    """The command that runs target name, without libFuzzer's options."""
    if (TARGETS_DIR / f"{name}.py").exists():
        return [str(PYTHON), str(TARGETS_DIR / f"{name}.py")]
    return [str(BUILD / name)]


def missing(name):
    """Why target name cannot run, or None."""
    exe = pathlib.Path(program(name)[0])
    if not exe.exists():
        return f"{exe} is missing: run `make fuzz-build` (or `make host`)"
    return None


def corpus_dirs(name, work):
    """The corpus folders of a run: the work folder (it receives what the
    run finds), the seeds, the regression inputs."""
    dirs = [work]
    for kind in ("corpus", "regressions"):
        d = ROOT / "tests" / "fuzz" / kind / name
        if d.is_dir():
            dirs.append(d)
    return dirs


def command(name, work, crashes, seconds=None, runs=None, seed=None):
    cmd = program(name) + [f"-timeout={HANG_SECONDS}",
                           f"-artifact_prefix={crashes}/",
                           "-print_final_stats=1"]
    if seconds is not None:
        cmd.append(f"-max_total_time={seconds}")
    if runs is not None:
        # A bound for a much slower machine; the runs end it here.
        cmd += [f"-runs={runs}", "-max_total_time=120"]
    if seed is not None:
        cmd.append(f"-seed={seed}")
    return cmd + [str(d) for d in corpus_dirs(name, work)]


def run(name, work, crashes, **kw):
    """Runs target name; returns (exit status, output)."""
    pathlib.Path(work).mkdir(parents=True, exist_ok=True)
    pathlib.Path(crashes).mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(command(name, work, crashes, **kw),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", cwd=ROOT)
    return proc.returncode, proc.stdout


def crash_file(output):
    """The input libFuzzer wrote for a crash, from its output, or None."""
    m = re.search(r"Test unit written to (\S+)", output)
    return m.group(1) if m else None


def replay_command(name, path):
    return " ".join(program(name) + [str(path)])


def summary(output):
    """"N runs, corpus K" from libFuzzer's final statistics."""
    runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", output)
    corp = re.findall(r"corp: (\d+)/", output)
    return (f"{runs.group(1) if runs else '?'} runs, corpus "
            f"{corp[-1] if corp else '?'}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, help="per target")
    ap.add_argument("--runs", type=int, help="per target, with --seed")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--only", help="one target: " + ", ".join(targets()))
    args = ap.parse_args(argv)
    names = targets()
    if args.only:
        if args.only not in names:
            ap.error(f"no target '{args.only}'; there are {', '.join(names)}")
        names = [args.only]
    if args.seconds is None and args.runs is None:
        args.seconds = 60
    crashed = []
    for name in names:
        why = missing(name)
        if why:
            print(f"fuzz {name}: {why}")
            crashed.append(name)
            continue
        status, out = run(name, BUILD / "corpus" / name,
                          BUILD / "crashes" / name, seconds=args.seconds,
                          runs=args.runs, seed=args.seed)
        if status == 0:
            print(f"fuzz {name}: no crash ({summary(out)})")
            continue
        crashed.append(name)
        found = crash_file(out)
        tail = "\n".join(out.splitlines()[-40:])
        print(f"fuzz {name}: CRASH (exit status {status})\n{tail}")
        if found:
            print(f"fuzz {name}: replay with: {replay_command(name, found)}")
    print(f"fuzz: {len(names) - len(crashed)} passed, {len(crashed)} failed")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
