"""Each experiment of tools/experiments runs in its tiny mode, writes the
CSV columns its report section is built from, and REPORT.md gets its section
with numbers in it and no placeholder text."""
import math
import random
import subprocess
import sys

import pytest

from conftest import (ROOT, check_experiment_tiny, run_experiment,
                      section_of)

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
}

# Further CSVs an experiment writes beside its main one.
EXTRA = {
    "pfair_overhead": [("pfair_overhead_cold.csv",
                        {"n", "m", "sets", "pd2_cycles_per_slot",
                         "spd2_cycles_per_call", "ratio"})],
    "bus_contention": [("bus_sim_delay.csv",
                        {"sched", "ticks", "m", "wss_bytes", "lines", "jobs",
                         "bursts", "cut", "delay_mean_cycles",
                         "delay_max_cycles", "wait_per_burst_cycles",
                         "fluid_lost_cycles"})],
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


@pytest.mark.parametrize("m,lines", [(4, 8192), (16, 2048), (2, 30000)])
def test_bus_model_loss_within_quantum(m, lines):
    """A burst ends by its CPU's next boundary, the last quantum's too: no
    burst waits more than a quantum, aligned or staggered."""
    from exp_bus_contention import Q_BUS, simulate
    for staggered in (False, True):
        lost, _ = simulate(m, lines, staggered)
        assert 0 < lost <= Q_BUS


def test_bus_sim_delay_against_fluid():
    """The simulator's delay on pd2's schedule of 2M weight-1/2 tasks (all
    CPUs reload together at every boundary) is the fluid model's aligned
    loss while the bursts fit, (M - 1) x lines; spd2's is 0 for bursts
    below Q / M."""
    from exp_bus_contention import Q_BUS, sim_delay
    for m, lines in [(2, 512), (4, 1024)]:
        a = sim_delay("pd2", "aligned", m, lines * 32, 10)
        assert a["delay_mean_cycles"] == (m - 1) * lines
        assert a["bursts"] == a["jobs"] == 10 * m
        s = sim_delay("spd2", "staggered", m, lines * 32, 10)
        assert lines < Q_BUS / m and s["delay_max_cycles"] == 0


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


# ---------------------------------------------------------------- RNP

def _rnp_module():
    # common puts tools/bench, where benchlib lives, on the path.
    import common  # noqa: F401
    import exp_litmus_rnp
    return exp_litmus_rnp


def _ov(sched_ns, reload_us):
    """One plugin's kernel_overheads.Costs (us)."""
    import kernel_overheads
    return kernel_overheads.Costs(sched_ns / 1000, 0, 0, 0, reload_us)


def test_rnp_without_overheads_matches_closed_forms():
    """With no overheads each plugin's RNP has a closed form worked out
    here from the tests' definitions (LITMUS^RT Sec. 4.2), not from the
    experiment's search: U <= M for soft G-EDF and NG-EDF; GFB's
    U <= M - (M - 1) u_max for hard G-EDF; the whole-quantum utilisation
    for PD2 and S-PD2 (S-PD2 hard a quantum shorter); one CPU per task
    under P-EDF for each task heavier than a half."""
    from fractions import Fraction
    rnp = _rnp_module()
    ov = _ov(0, 0.0)
    q = rnp.nst.Q_US
    sets = rnp.draw_sets(4, random.Random(7))
    for dist, group in sets.items():
        for s in group:
            us = [e / p for e, p in s]
            u, umax = sum(us), max(us)
            lo = math.ceil(round(u, 9))
            assert rnp.rnp(s, "G-EDF", False, ov) == lo
            assert rnp.rnp(s, "NG-EDF", False, ov) == lo
            assert rnp.rnp(s, "G-EDF", True, ov) == max(
                lo, math.ceil((u - umax) / (1 - umax)))
            for alg, hard, short in (("PD2", True, 0), ("S-PD2", True, 1),
                                     ("S-PD2", False, 0)):
                whole = sum(Fraction(math.ceil(e / q), int(p // q) - short)
                            for e, p in s)
                assert rnp.rnp(s, alg, hard, ov) == math.ceil(whole), \
                    (dist, alg, hard)
            if dist in ("H", "exp-H"):
                # Only the last task, cut to make the total four, may be
                # light: it shares a CPU with a heavy one if one has room.
                heavy = [x for x in us if x > 0.5]
                light = [x for x in us if x <= 0.5]
                assert len(light) <= 1
                alone = bool(light) and all(x + light[0] > 1 for x in heavy)
                assert rnp.rnp(s, "P-EDF", True, ov) == len(heavy) + alone


def test_rnp_invariants_with_overheads():
    """Whatever the overheads: RNP >= ceil(U); the set passes at its RNP
    and, above ceil(U), fails one CPU lower; soft never needs more CPUs
    than hard (G-EDF, S-PD2) and P-EDF and PD2 use one test for both; a
    larger reload (a larger WSS) never needs fewer CPUs."""
    rnp = _rnp_module()
    sets = rnp.draw_sets(3, random.Random(11))
    reloads = (0.0, 40.0, 250.0)
    seen_above = False
    for group in sets.values():
        for s in group:
            lo = math.ceil(rnp.base_utilisation(s))
            last = {}
            for r in reloads:
                ov = _ov(3000, r)
                got = {(a, h): rnp.rnp(s, a, h, ov) for rt, h, algs in rnp.RT
                       for a in algs}
                for (a, h), m in got.items():
                    if m is None:
                        continue
                    assert m >= lo
                    assert rnp.nst.schedulable(s, a, h, ov, m)
                    if m > lo:
                        seen_above = True
                        assert not rnp.nst.schedulable(s, a, h, ov, m - 1)
                    if (a, h) in last and last[a, h] is not None:
                        assert m >= last[a, h], (a, h, r)
                for a in ("G-EDF", "S-PD2"):
                    if got[a, True] is not None:
                        assert got[a, False] <= got[a, True]
                for a in ("P-EDF", "PD2"):
                    assert got[a, False] == got[a, True]
                last = got
    assert seen_above  # the minimality check was exercised


def test_rnp_unschedulable_at_any_m():
    """A task that alone does not fit is no matter of CPUs: S-PD2 hard with
    e = 9 ms in 10 ms needs 10 quanta of a period cut to 9; any EDF plugin
    with its inflated utilisation above 1."""
    rnp = _rnp_module()
    ov = _ov(3000, 10.0)
    assert rnp.rnp([(9000.0, 10000.0)], "S-PD2", True, ov) is None
    assert rnp.rnp([(9000.0, 10000.0)], "S-PD2", False, ov) == 1
    assert rnp.rnp([(9995.0, 10000.0)], "G-EDF", False, ov) is None


def _truncated_exp_mean(mean, lo, hi):
    """E[X | lo <= X <= hi] for X exponential with that mean, integrated in
    closed form: lo + mean - w e^(-w/mean) / (1 - e^(-w/mean)), w = hi - lo
    (the memoryless shift to lo)."""
    w = hi - lo
    t = math.exp(-w / mean)
    return lo + mean - w * t / (1 - t)


def test_rnp_distributions_match_the_paper():
    """Sec. 4.2's exponential and bimodal utilisations, drawn by the
    experiment's generators: every draw in its range, the exponential's
    sample mean at the truncated exponential's closed-form mean, the
    bimodal's heavy share at 1/9 and its mean at 8/9 * 0.2505 + 1/9 *
    0.7495 (the two uniform ranges' midpoints)."""
    rnp = _rnp_module()
    rng = random.Random(5)
    n = 20000
    want = {f"exp-{k}": _truncated_exp_mean(mean, *bounds)
            for k, (mean, bounds) in {"L": (0.05, (0.001, 0.1)),
                                    "M": (0.25, (0.1, 0.4)),
                                    "H": (0.7, (0.5, 0.9))}.items()}
    want["bimodal"] = 8 / 9 * (0.001 + 0.5) / 2 + 1 / 9 * (0.5 + 0.999) / 2
    assert set(want) < set(rnp.DISTS)
    for d, mean in want.items():
        draw, (lo, hi) = rnp.DISTS[d]
        us = [draw(rng) for _ in range(n)]
        assert all(lo <= u <= hi for u in us), d
        # Standard error below 0.3 / sqrt(n) for all four; 4 of them.
        assert abs(sum(us) / n - mean) < 4 * 0.3 / math.sqrt(n), d
        if d == "bimodal":
            heavy = sum(u >= 0.5 for u in us) / n
            assert abs(heavy - 1 / 9) < 4 * math.sqrt(1 / 9 * 8 / 9 / n)
