"""Each experiment of tools/experiments runs in its tiny mode, writes the
CSV columns its report section is built from, and REPORT.md gets its section
with numbers in it and no placeholder text."""
import csv
import re
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools/experiments"))
from common import PLACEHOLDERS  # noqa: E402
from registry import EXPERIMENTS  # noqa: E402

# The CSV each experiment must write and the columns it must have.
COLUMNS = {
    "pfair_overhead": ("pfair_overhead.csv",
                       {"n", "m", "sets", "pd2_cycles_per_slot",
                        "spd2_cycles_per_call", "ratio"}),
    "gdq_error": ("gdq_error_summary.csv",
                  {"P", "T", "worst_pos", "worst_neg", "bound_pos",
                   "bound_neg"}),
    "edf_push": ("edf_push.csv",
                 {"load", "cpus", "structure", "push_find_cycles",
                  "enqueue_cycles"}),
    "servers": ("servers.csv",
                {"policy", "rate_hz", "response_mean_us", "server_share",
                 "interference", "queued"}),
    "bus_contention": ("bus_contention.csv",
                       {"m", "wss_kb", "lines", "aligned_lost",
                        "staggered_lost", "aligned_loaded",
                        "staggered_loaded"}),
    "servers_qemu": ("servers_qemu.csv",
                     {"source", "timing", "policy", "rate_hz",
                      "response_mean_us", "server_share", "interference",
                      "cxs_us", "window_verdict"}),
    "litmus_schedulability": ("nst.csv",
                              {"dist", "wss_kb", "rt", "plugin", "cap",
                               "sets", "fraction_schedulable"}),
}


# Experiments that boot the kernel: tests/boot/test_servers_qemu.py runs
# them (with the ISO built), checking them with check_experiment below.
BOOTING = {"servers_qemu"}


def run_experiment(name, out):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/experiments/run.py"), "--exp",
         name, "--mode", "tiny", "--out", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def section_of(report, name):
    m = re.search(rf'<a id="{name}"></a>\n(.*?)(?=<a id=|\Z)', report,
                  re.S)
    assert m, f"REPORT.md has no section for {name}"
    return m.group(1)


def test_every_experiment_has_columns_listed():
    assert set(COLUMNS) == set(EXPERIMENTS)


@pytest.mark.parametrize("name", sorted(set(COLUMNS) - BOOTING))
def test_experiment_tiny(name, tmp_path):
    run_experiment(name, tmp_path)
    check_experiment(name, tmp_path)


def check_experiment(name, tmp_path):
    """The CSV's columns and the section's parts, numbers and links."""
    path, cols = COLUMNS[name]
    with open(tmp_path / name / path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows, f"{path} has no rows"
    assert cols <= set(rows[0]), f"{path} lacks {cols - set(rows[0])}"
    sec = section_of((tmp_path / "REPORT.md").read_text(), name)
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
        assert (tmp_path / link).exists(), f"{link} linked but not written"


@pytest.mark.parametrize("m,lines", [(1, 500), (2, 512), (4, 1000),
                                     (8, 2500), (3, 6000)])
def test_bus_model_below_saturation(m, lines):
    """While M bursts fit one quantum, M aligned CPUs sharing the bus round
    robin finish together after M W cycles, each losing (M - 1) W; staggered
    bursts of at most Q / M lines never overlap and lose nothing."""
    from exp_bus_contention import Q_BUS, simulate
    assert m * lines <= Q_BUS
    lost, loaded = simulate(m, lines, staggered=False)
    assert lost == pytest.approx((m - 1) * lines) and loaded == 1
    lost, loaded = simulate(m, lines, staggered=True)
    assert lost == pytest.approx(0) and loaded == 1


def test_bus_model_saturated():
    """Past saturation the bus serves Q lines per quantum in all: each of M
    aligned CPUs loads Q / M lines, and staggering cannot do better."""
    from exp_bus_contention import Q_BUS, simulate
    m, lines = 4, Q_BUS
    for staggered in (False, True):
        _, loaded = simulate(m, lines, staggered)
        assert loaded == pytest.approx(Q_BUS / m / lines, rel=1e-6)


def test_report_keeps_other_sections(tmp_path):
    first, second = sorted(COLUMNS)[:2] if len(COLUMNS) > 1 else (
        sorted(COLUMNS)[0], None)
    run_experiment(first, tmp_path)
    if second:
        run_experiment(second, tmp_path)
    report = (tmp_path / "REPORT.md").read_text()
    section_of(report, first)
    if second:
        section_of(report, second)


def test_unknown_experiment_is_named(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/experiments/run.py"), "--exp",
         "no_such", "--mode", "tiny", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "no experiment 'no_such'" in proc.stderr
