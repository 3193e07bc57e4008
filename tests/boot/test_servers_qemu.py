"""The sporadic-server experiment in the kernel (tools/bench/
bench_servers_qemu.py, tools/experiments/exp_servers_qemu.py) in its tiny
mode: three boots under -icount (FIFO, the tolled sporadic server and the
gradual hybrid, 4000 arrivals/s, 150 ms each, about 30 s in all) and the
simulator beside them. What must hold whatever the timing:

- every server's sliding-window verdict is ok (each is alone at the top
  priority of its CPU, so the check applies), in the kernel and in the
  simulator;
- every arrival is either served or still queued, none dropped; the
  kernel drew the same arrivals as the simulator (lib/arrival.c, one
  seed);
- the shares are in [0, 1], and on the one CPU the hourglass's share (its
  own measurement) plus the server thread's is at most 1 plus a slack:
  the hourglass counts a step shorter than its gap threshold as its own
  even when an interrupt took part of it, so it can over-count by up to
  one threshold (1.5 us under -icount, printed at boot) per interruption;
  a 150 ms boot here has under a thousand (arrivals, completions,
  replenishments), at most 1.5 ms, 1 % of the run;
- the simulator ran with the kernel's cost per switch, and the toll is
  two of them.

The CSV's columns and the section of REPORT.md are checked as every
experiment's are (conftest.check_experiment_tiny, with the columns listed
in tests/boot/test_experiments_kernel.py)."""
import math

import pytest

from conftest import check_experiment_tiny
from test_experiments_kernel import COLUMNS

NAME = "servers_qemu"
SLACK = 0.01


@pytest.fixture(scope="module")
def experiment(iso, tmp_path_factory):
    out = tmp_path_factory.mktemp("servers_qemu")
    main, extra = COLUMNS[NAME]
    rows, section = check_experiment_tiny(NAME, out, main, extra)
    return rows, section


def test_section_names_the_platform(experiment):
    _, section = experiment
    assert "-icount" in section and "TCGTCGTCGTCG" in section


def test_invariants(experiment):
    rows, _ = experiment
    kernel = [r for r in rows if r["source"] == "kernel"]
    sim = {r["policy"]: r for r in rows if r["source"] == "sim"}
    assert {r["policy"] for r in kernel} == set(sim) == \
        {"fifo", "sporadic_toll", "hybrid_gradual"}
    for r in rows:
        assert r["window_verdict"] == "ok", r
        assert int(r["window_max_us"]) <= int(r["window_bound_us"]), r
        assert int(r["jobs"]) + int(r["queued"]) == int(r["arrivals"]), r
        assert int(r["dropped"]) == 0, r
        for share in ("server_share", "hourglass_share", "interference"):
            assert 0 <= float(r[share]) <= 1, (share, r)
    for r in kernel:
        assert r["timing"] == "icount", r
        assert float(r["hourglass_share"]) + float(r["server_share"]) <= \
            1 + SLACK, r
        assert int(r["arrivals"]) == int(sim[r["policy"]]["arrivals"]) > 0
        assert int(r["switches"]) > 0
        s = sim[r["policy"]]
        assert int(s["cxs_us"]) == max(1, round(float(r["cxs_us"])))
        want_toll = math.ceil(2 * float(r["cxs_us"])) \
            if r["policy"] != "fifo" else 0
        # cxs_us is written rounded to 0.01 us.
        assert abs(int(r["toll_us"]) - want_toll) <= 1, r
        assert r["toll_us"] == s["toll_us"]
