"""The task-layer benchmarks' pieces that need no boot: the overhead
benchmark's generated sets are admitted by every plugin (the simulator
runs the kernel's admission code), and the latency benchmark reads
cyclictest's output and our RESULT task lines as it should."""
import sys

import pytest

from conftest import ROOT, run_schedsim

sys.path.insert(0, str(ROOT / "tools" / "bench"))

import bench_latency  # noqa: E402
import bench_overheads  # noqa: E402

FULL_GRID = bench_overheads.PLANS["full"]["grid"]
PLUGINS = bench_overheads.PLANS["full"]["plugins"]


@pytest.mark.parametrize("plugin", PLUGINS)
def test_overhead_sets_are_admitted_everywhere(plugin, tmp_path):
    for n, m in FULL_GRID:
        text, util = bench_overheads.task_set(n, m, seed=1000 * m + n)
        lines = text.splitlines()
        assert len(lines) == n
        weights = [1 / int(l.split("p=")[1]) for l in lines]
        assert max(weights) <= 0.5 and sum(weights) <= m / 2
        assert util == pytest.approx(sum(weights))
        proc = run_schedsim(text, plugin, m, 4, tmp_path, check=False)
        assert proc.returncode == 0, (plugin, n, m, proc.stderr)


def test_overhead_sets_refuse_more_tasks_than_the_kernel_takes():
    with pytest.raises(SystemExit, match="at most 256"):
        bench_overheads.task_set(257, 4, seed=1)


# Written for this test in the layout of rt-tests 2.4's cyclictest -q
# summary, with the console's other output around it.
CYCLICTEST_SAMPLE = """\
[    9.120000] random: crng init done
CYCLICTEST-BEGIN
# /dev/cpu_dma_latency set to 0us
policy: fifo: loadavg: 0.52 0.14 0.05 1/61 97

T: 0 (   95) P:99 I:2000 C:   1000 Min:     41 Act:  187 Avg:  250 Max:   21840
T: 1 (   96) P:99 I:2000 C:    600 Min:     35 Act:   91 Avg:  410 Max:    9012
CYCLICTEST-END rc=0
"""


def test_cyclictest_output_is_read():
    threads = bench_latency.parse_cyclictest(CYCLICTEST_SAMPLE)
    assert threads == [
        dict(thread=0, prio=99, interval_us=2000, count=1000, min_us=41,
             avg_us=250, max_us=21840),
        dict(thread=1, prio=99, interval_us=2000, count=600, min_us=35,
             avg_us=410, max_us=9012),
    ]
    # (250 * 1000 + 410 * 600) / 1600 = 310 us.
    assert bench_latency.combine_cyclictest(threads) == dict(
        samples=1600, min_ns=35000, avg_ns=310000, max_ns=21840000)


def test_cyclictest_without_samples_is_an_error():
    with pytest.raises(ValueError, match="no thread"):
        bench_latency.combine_cyclictest(
            bench_latency.parse_cyclictest("CYCLICTEST-END rc=0\n"))


def test_our_latency_combines_the_measuring_tasks():
    tasks = [dict(name="L0", lat_n="3", lat_avg_ns="100", lat_max_ns="150"),
             dict(name="L1", lat_n="1", lat_avg_ns="500", lat_max_ns="500"),
             dict(name="S", lat_n="0", lat_avg_ns="0", lat_max_ns="0")]
    assert bench_latency.combine_ours(tasks) == dict(
        samples=4, min_ns="", avg_ns=200, max_ns=500)
    with pytest.raises(ValueError, match="no task measured"):
        bench_latency.combine_ours(tasks[2:])


def test_latency_spread_and_ratios_run_by_run():
    """Plain TCG runs are draws: each side's runs give their least,
    median (nearest rank below) and largest average and maximum, and the
    ratio is taken run by run (ours and Linux's of the same turn), its
    spread beside it -- never one draw."""
    runs = [("rtk", "icount", 40, 50),
            ("rtk", "tcg", 300, 900), ("linux", "tcg", 100, 4000),
            ("rtk", "tcg", 100, 700), ("linux", "tcg", 200, 3000),
            ("rtk", "tcg", 200, 800)]
    assert bench_latency.spread(runs) == [
        ["rtk", "icount", 1, 40, 40, 40, 50, 50, 50],
        ["rtk", "tcg", 3, 100, 200, 300, 700, 800, 900],
        ["linux", "tcg", 2, 100, 100, 200, 3000, 3000, 4000]]
    per, summary = bench_latency.ratios_by_rep(
        {0: (300, 900), 1: (100, 700), 2: (200, 800)},
        {0: (150, 4500), 1: (200, 1400)})
    assert per == [[0, "avg", 0.5], [0, "max", 5.0],
                   [1, "avg", 2.0], [1, "max", 2.0]]
    assert summary == [["min", "avg", 0.5], ["median", "avg", 0.5],
                       ["max", "avg", 2.0], ["min", "max", 2.0],
                       ["median", "max", 2.0], ["max", "max", 5.0]]
    assert bench_latency.ratios_by_rep({0: (1, 1)}, {}) == ([], [])


def test_latency_ratios_per_timing_and_runs_in_turn():
    """Ours under -icount is one run, the same every time: it is set
    against each of Linux's runs there; under plain TCG run by run."""
    rows, spreads = bench_latency.ratios_by_timing(
        {"icount": {0: (40, 50)}, "tcg": {0: (100, 1000), 1: (200, 500)}},
        {"icount": {0: (80, 100), 1: (20, 5000)},
         "tcg": {0: (300, 2000), 1: (100, 1000)}})
    assert rows == [["icount", 0, "avg", 2.0], ["icount", 0, "max", 2.0],
                    ["icount", 1, "avg", 0.5], ["icount", 1, "max", 100.0],
                    ["tcg", 0, "avg", 3.0], ["tcg", 0, "max", 2.0],
                    ["tcg", 1, "avg", 0.5], ["tcg", 1, "max", 2.0]]
    assert spreads["icount"][:3] == [["min", "avg", 0.5],
                                     ["median", "avg", 0.5],
                                     ["max", "avg", 2.0]]
    assert bench_latency.in_turn(["a", "b"], ["x", "y"]) == \
        ["a", "x", "b", "y"]
    # Ours at the boundary, ours with boundaries ahead, Linux's.
    assert bench_latency.in_turn(["a", "b"], ["A", "B"], ["x", "y"]) == \
        ["a", "A", "x", "b", "B", "y"]
    assert bench_latency.system_name(0) == "rtk"
    assert bench_latency.system_name(150) == "rtk ahead_us=150"


def test_cyclictest_shapes_and_their_initramfs():
    """The 2-CPU comparison runs a thread per CPU bound to it (-S); the
    50-task one 50 threads every 20 ms left to Linux to place. Each set
    of arguments has an initramfs of its own, so a cached one is never
    taken for another shape (the name hashes the init script with
    them)."""
    two = bench_latency.cyclic_args(500)
    many = bench_latency.cyclic_args(210, 50, 20000)
    assert two.split() == ["-m", "-p", "99", "-i", "2000", "-d", "0", "-l",
                           "500", "-q", "-S"]
    assert many.split() == ["-m", "-p", "99", "-i", "20000", "-d", "0",
                            "-l", "210", "-q", "-t", "50"]
    paths = {bench_latency.initrd_path(a) for a in
             (two, many, bench_latency.cyclic_args(501))}
    assert len(paths) == 3
    assert bench_latency.initrd_path(two) == bench_latency.initrd_path(
        bench_latency.cyclic_args(500))
    assert "@ARGS@" in bench_latency.INIT
