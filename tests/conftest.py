"""Shared fixtures: where the build puts things, and helpers to run them."""
import csv
import json
import pathlib
import re
import subprocess
import sys

import os

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis.database import DirectoryBasedExampleDatabase

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
HOST = BUILD / "host"

# Property tests run under one of two Hypothesis profiles (docs/testing.md):
#   ci       (the default, `make test`): derandomized, so every run draws the
#            same examples and a failure happens every time or never; the
#            failing example's reproduce blob is printed.
#   explore  (`make fuzz-props`): a fresh random seed per run, which the make
#            target prints; failures are kept in build/hypothesis so that the
#            next run tries them first.
hypothesis_settings.register_profile(
    "ci", derandomize=True, print_blob=True, database=None)
hypothesis_settings.register_profile(
    "explore", derandomize=False, print_blob=True,
    database=DirectoryBasedExampleDatabase(str(BUILD / "hypothesis")))
hypothesis_settings.load_profile(os.environ.get("RTK_HYPOTHESIS", "ci"))


def host_tool(name):
    """Path of a sanitized host program built by `make host`."""
    path = HOST / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make host` first")
    return path


def run_schedsim(tasks_text, sched, cpus, slots, tmp_path, *extra, check=True):
    """Runs tools/schedsim on a task set; returns (slots, summary) or the
    CompletedProcess when check is False."""
    f = tmp_path / "set.tasks"
    f.write_text(tasks_text)
    cmd = [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
           "--slots", str(slots), *map(str, extra), str(f)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if not check:
        return proc
    assert proc.returncode == 0, proc.stderr
    return parse_schedule(proc.stdout)


def parse_schedule(text):
    """Splits schedule JSON lines (docs/formats.md) into the list of
    per-slot CPU assignments and the summary object."""
    rows, summary = [], None
    for line in text.splitlines():
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        else:
            assert obj["t"] == len(rows)
            rows.append(obj["cpus"])
    assert summary is not None, "no summary line"
    return rows, summary


# ---- boot tests (tests/boot): the ISO must have been built (`make test`
# builds it first).
sys.path.insert(0, str(ROOT / "tests" / "boot"))


@pytest.fixture(scope="session")
def iso():
    from harness import ISO
    if not ISO.exists():
        pytest.fail(f"{ISO} is missing: run `make iso` first")
    return ISO


@pytest.fixture
def iso_with(iso, tmp_path):
    """iso_with("words") -> an ISO whose kernel command line has the words."""
    from harness import make_iso

    def build(cmdline=None, tasks=None, entry=0, omit_program=None,
              acpi_tables=()):
        return make_iso(tmp_path / "custom.iso", cmdline=cmdline, tasks=tasks,
                        entry=entry, omit_program=omit_program,
                        acpi_tables=acpi_tables)
    return build


# ---- make experiments (tests/host/test_experiments.py for the host-side
# ones, tests/boot/test_experiments_kernel.py for those that boot).
# The experiments' and benchmarks' tests run their items in the test's
# process, uncached: what they test is the kernel and the analysis, which
# must not come from an earlier run's results (the engine and the cache
# have tests/host/test_workitems.py).
HERE_UNCACHED = ["--workers", "0", "--no-cache"]


def run_experiment(name, out, timeout=300):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/experiments/run.py"), "--exp",
         name, "--mode", "tiny", "--out", str(out), *HERE_UNCACHED],
        capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def section_of(report, name):
    m = re.search(rf'<a id="{name}"></a>\n(.*?)(?=<a id=|\Z)', report,
                  re.S)
    assert m, f"REPORT.md has no section for {name}"
    return m.group(1)


def check_csv(path, cols):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows, f"{path.name} has no rows"
    assert cols <= set(rows[0]), f"{path.name} lacks {cols - set(rows[0])}"
    return rows


def check_experiment_tiny(name, out, main, extra=()):
    """Runs experiment NAME in tiny mode into out: its CSVs ((file,
    columns) pairs) have rows and those columns, and REPORT.md has its
    section with every part, a table of numbers, differences that quote
    numbers, no placeholder, and every file it links. Returns the main
    CSV's rows and the section."""
    sys.path.insert(0, str(ROOT / "tools/experiments"))
    from common import PLACEHOLDERS
    run_experiment(name, out)
    path, cols = main
    rows = check_csv(out / name / path, cols)
    for path, cols in extra:
        check_csv(out / name / path, cols)
    sec = section_of((out / "REPORT.md").read_text(), name)
    for word in PLACEHOLDERS:
        assert word.lower() not in sec.lower(), f"'{word}' in {name}'s section"
    for part in ("- Paper:", "- Platform:", "**Published.**",
                 "**Differences and why.**"):
        assert part in sec, f"{name}'s section lacks {part}"
    table = [l for l in sec.splitlines() if l.startswith("| ")][2:]
    assert table and all(re.search(r"\d", l) for l in table), \
        f"{name}'s table has rows without numbers"
    diff = sec.split("**Differences and why.**", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"\d", diff), f"{name}'s differences quote no numbers"
    for link in re.findall(r"\]\((" + name + r"/[^)]+)\)", sec):
        assert (out / link).exists(), f"{link} linked but not written"
    return rows, sec
