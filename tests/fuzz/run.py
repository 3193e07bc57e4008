#!/usr/bin/env python3
"""Runs the fuzz targets (docs/testing.md, "Fuzzing").

    tests/fuzz/run.py [--seconds N | --runs N [--seed S]] [--only NAME]

A target is tests/fuzz/targets/NAME.c (built by `make fuzz-build` as
build/fuzz/NAME, libFuzzer with AddressSanitizer and
UndefinedBehaviorSanitizer) or tests/fuzz/targets/NAME.py (atheris, run by
build/venv's Python). A run works in a folder of its own (`make fuzz`:
build/fuzz/work/NAME): it reads what earlier runs found there (found/), the
committed seeds tests/fuzz/corpus/NAME and the regression inputs
tests/fuzz/regressions/NAME, every one of which is run first; then it
mutates them for N seconds (`make fuzz`, FUZZ_SECONDS) or N runs with a
fixed seed (the short run of `make test`, tests/host/test_fuzz.py). A
crash -- a sanitizer's report, a broken FUZZ_CHECK, an uncaught Python
exception, a hang past 10 seconds -- is written to the folder's crashes/
and named with the command that replays it. Exit status 1 when a target
crashed.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGETS_DIR = ROOT / "tests" / "fuzz" / "targets"
BUILD = ROOT / "build" / "fuzz"
PYTHON = ROOT / "build" / "venv" / "bin" / "python"
HANG_SECONDS = 10
# A target runs in a small, fixed environment (see run); Python's hashes
# are fixed for the same reason.
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONHASHSEED": "0"}

# The short run of `make test`: about two seconds each on the project's
# shared two-core machine (the Python target and the packet layer, which
# answers every byte, run fewer inputs a second).
TEST_RUNS = {"trace": 200, "gdb_rsp": 800, "acpi": 6000}
TEST_RUNS_DEFAULT = 20000
# Inputs no longer than the largest seed, except where the limits lie
# beyond: a GDB packet longer than GDB_RSP_PACKET_MAX (4096).
MAX_LEN = {"gdb_rsp": 12000}


def targets():
    """Every target's name, sorted."""
    return sorted(p.stem for p in TARGETS_DIR.glob("*")
                  if p.suffix in (".c", ".py"))


def is_python(name):
    return (TARGETS_DIR / f"{name}.py").exists()


def program(name):
    """The command that runs target name, without libFuzzer's options."""
    if is_python(name):
        return [str(PYTHON), str(TARGETS_DIR / f"{name}.py")]
    return [str(BUILD / name)]


def missing(name):
    """Why target name cannot run, or None."""
    exe = pathlib.Path(program(name)[0])
    if not exe.exists():
        return f"{exe} is missing: run `make fuzz-build` (or `make host`)"
    return None


def command(name, seconds=None, runs=None, seed=None):
    """The command line of a run in its work folder (see run)."""
    # Python must be started by its own path to find its virtualenv.
    cmd = [str(PYTHON), "./target.py"] if is_python(name) else ["./target"]
    cmd += [f"-timeout={HANG_SECONDS}", "-artifact_prefix=crashes/",
            "-print_final_stats=1"]
    if seconds is not None:
        cmd.append(f"-max_total_time={seconds}")
    if runs is not None:
        # A bound for a much slower machine; the runs end it here.
        cmd += [f"-runs={runs}", "-max_total_time=120"]
    if seed is not None:
        cmd.append(f"-seed={seed}")
    if name in MAX_LEN:
        cmd.append(f"-max_len={MAX_LEN[name]}")
    return cmd + ["found"] + [d.parent.name for d in seed_dirs(name)]


def seed_dirs(name):
    """The committed inputs of target name: its seeds and regressions."""
    return [d for d in (ROOT / "tests" / "fuzz" / kind / name
                        for kind in ("corpus", "regressions"))
            if d.is_dir()]


def link(path, target):
    if path.is_symlink() or path.exists():
        path.unlink()
    path.symlink_to(target)


def run(name, work, **kw):
    """Runs target name in the folder work; returns (exit status, output).

    The run's command line is the same wherever the repository and work
    are (symbolic links in work: ./target, corpus, regressions; new inputs
    go to work/found, crashes to work/crashes): libFuzzer's comparison
    tracing sees addresses, and the length of the command line and the
    environment moves them, so only then does a fixed seed take the same
    path on every machine."""
    work = pathlib.Path(work)
    (work / "found").mkdir(parents=True, exist_ok=True)
    (work / "crashes").mkdir(parents=True, exist_ok=True)
    if is_python(name):
        link(work / "target.py", program(name)[1])
    else:
        link(work / "target", program(name)[0])
    for d in seed_dirs(name):
        link(work / d.parent.name, d)
    proc = subprocess.run(command(name, **kw), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          errors="replace", cwd=work, env=ENV)
    return proc.returncode, proc.stdout


def crash_file(output, work):
    """The input libFuzzer wrote for a crash, from its output, or None."""
    m = re.search(r"Test unit written to (\S+)", output)
    return pathlib.Path(work) / m.group(1) if m else None


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
        work = BUILD / "work" / name
        status, out = run(name, work, seconds=args.seconds, runs=args.runs,
                          seed=args.seed)
        if status == 0:
            print(f"fuzz {name}: no crash ({summary(out)})")
            continue
        crashed.append(name)
        found = crash_file(out, work)
        tail = "\n".join(out.splitlines()[-40:])
        print(f"fuzz {name}: CRASH (exit status {status})\n{tail}")
        if found:
            print(f"fuzz {name}: replay with: {replay_command(name, found)}")
    print(f"fuzz: {len(names) - len(crashed)} passed, {len(crashed)} failed")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
