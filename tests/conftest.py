"""Shared fixtures: where the build puts things, and helpers to run them."""
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
HOST = BUILD / "host"


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
    """Splits schedule JSON lines (FORMATS.md section 2) into the list of
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

    def build(cmdline=None, tasks=None, entry=0, omit_program=None):
        return make_iso(tmp_path / "custom.iso", cmdline=cmdline, tasks=tasks,
                        entry=entry, omit_program=omit_program)
    return build
