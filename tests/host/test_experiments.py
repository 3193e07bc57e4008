"""Each experiment of tools/experiments runs in its tiny mode, writes the
CSV columns its report section is built from, and REPORT.md gets its section
with numbers in it and no placeholder text."""
import subprocess
import sys

import pytest

from conftest import ROOT, check_experiment_tiny, run_experiment, section_of

sys.path.insert(0, str(ROOT / "tools/experiments"))
from registry import EXPERIMENTS, KERNEL_EXPERIMENTS  # noqa: E402

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
    "litmus_schedulability": ("nst.csv",
                              {"dist", "wss_kb", "rt", "plugin", "cap",
                               "sets", "fraction_schedulable"}),
}

# Further CSVs an experiment writes beside its main one.
EXTRA = {
    "pfair_overhead": [("pfair_overhead_cold.csv",
                        {"n", "m", "sets", "pd2_cycles_per_slot",
                         "spd2_cycles_per_call", "ratio"})],
}


def test_every_experiment_has_columns_listed():
    """The host-side ones here; those that boot the kernel in
    tests/boot/test_experiments_kernel.py."""
    assert set(COLUMNS) == set(EXPERIMENTS) - set(KERNEL_EXPERIMENTS)


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_experiment_tiny(name, tmp_path):
    check_experiment_tiny(name, tmp_path, COLUMNS[name],
                          EXTRA.get(name, ()))


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


def test_schedule_tardiness_counts_the_last_boundary():
    """litmus_tardiness's reference: from a schedule, job k of a task ends
    at the boundary after its (k + 1) e-th quantum; a job ending at the
    run's last boundary counts (the kernel's trace counts it)."""
    from exp_litmus_tardiness import schedule_tardiness
    # A (e=2, p=3): quanta in slots 0 and 3, so job 0 ends at 4 against
    # deadline 3; B (e=2, p=2): job 0 in slots 1 and 4, ends at 5 = the
    # run's end, deadline 2.
    slots = [["A"], ["B"], [None], ["A"], ["B"]]
    assert schedule_tardiness([("A", 2, 3), ("B", 2, 2)], slots) == \
        {"A": 1, "B": 3}
    # Nothing ends: no tardiness.
    assert schedule_tardiness([("A", 2, 3)], [["A"], [None]]) == {"A": 0}
