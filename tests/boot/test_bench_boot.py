"""The benchmarks that boot the ISO run end to end in smoke mode: the boot
benchmark (one boot: an aligned and a staggered row), the clock under a
scheduler (one spd2 boot on 2 CPUs), bring-up against the CPU count (one
boot each on 1 and 4 CPUs), the clock at scale (one boot on 4 CPUs: an
aligned and a staggered row), the kernel's overheads (two gedf boots of 10
tasks on 2 CPUs, at events and at every quantum: a row per event each) and release latency (our side only: one
boot of 50 samples per task; smoke mode fetches no Linux) and tracing's
cost (a boot with records and one without) and the arrival interrupts'
delay (one q35 boot under -icount, whose 96 arrivals in 50 ms are the
generator's)."""
import subprocess
import sys

import pytest

from conftest import HERE_UNCACHED
from harness import ROOT


@pytest.mark.parametrize("name,csv,first_cells", [
    ("boot", "boot.csv", ["tcg,2,0,", "tcg,2,0,"]),
    ("sched_clock", "sched_clock.csv", ["spd2,tcg,2,0,staggered,"]),
    ("bringup", "bringup.csv", ["tcg,1,0,", "tcg,4,0,"]),
    ("overheads", "overheads.csv", ["gedf,2,10,"] * 6),
    ("latency", "latency.csv", ["rtk,icount,2,2000,",
                                "rtk ahead_us=150,icount,2,2000,"]),
    ("tracecost", "tracecost.csv", ["on,gedf,2,6,40,icount,",
                                    "off,gedf,2,6,40,icount,"]),
    ("clock_scale", "clock_scale.csv", ["none,tcg,4,0,aligned,",
                                        "none,tcg,4,0,staggered,"]),
    ("irq", "irq.csv", ["q35,gsi23,icount,0,96,"]),
])
def test_booting_benchmark_smoke(iso, tmp_path, name, csv, first_cells):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/bench/run_all.py"), "--mode",
         "smoke", "--only", name, "--out", str(tmp_path), *HERE_UNCACHED],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = (tmp_path / name / csv).read_text().splitlines()[1:]
    assert len(rows) == len(first_cells), rows
    for row, start in zip(rows, first_cells):
        assert row.startswith(start), (row, start)
    if name in COLUMNS:
        check_columns(tmp_path, name)


# The columns the README and the plots rely on, written out here rather
# than taken from the benchmarks.
COLUMNS = {
    "overheads": ("overheads.csv",
                  "plugin,cpus,tasks,util,slots,timing,boundaries,event,n,"
                  "p50_ns,p99_ns,max_ns,p50_cycles,p99_cycles,max_cycles,"
                  "tsc_khz,boundary_missed,p50_insns,p99_insns,max_insns"),
    "latency": ("latency.csv",
                "system,timing,threads,period_us,samples,min_ns,avg_ns,"
                "max_ns,host_load,rep"),
    "tracecost": ("tracecost.csv",
                  "record,plugin,cpus,tasks,slots,timing,self_us,ran_us,"
                  "got_us,gaps,gap_max_ns,tick_p50_ns,cycles_per_record,"
                  "host_load"),
}


def check_columns(out, name):
    """The task-layer benchmarks' CSV columns and values (of the smoke
    run above, in out): overheads one row per event kind, each n > 0 and
    p50 <= p99 <= max (ns and cycles); latency a positive average under
    its maximum, and with ahead_us a tenth of it."""
    csv, header = COLUMNS[name]
    lines = (out / name / csv).read_text().splitlines()
    assert lines[0] == header
    rows = [dict(zip(header.split(","), l.split(","))) for l in lines[1:]]
    assert rows
    for r in rows:
        if name == "overheads":
            assert r["timing"] in ("icount", "tcg") and int(r["n"]) > 0, r
            for unit in ("ns", "cycles", "insns"):
                assert int(r[f"p50_{unit}"]) <= int(r[f"p99_{unit}"]) <= \
                    int(r[f"max_{unit}"]), r
            # Each CPU's own instructions, at most the TSC's count of all
            # CPUs' (8 cycles an instruction under -icount).
            assert 0 < int(r["max_insns"]) <= int(r["max_cycles"]) / 8 + 2
        if name == "latency":
            assert 0 < int(r["avg_ns"]) <= int(r["max_ns"]), r
    if name == "latency":
        # Boundaries taken ahead: the same samples, a tenth of the wait.
        at, ahead = (next(r for r in rows if r["system"] == s)
                     for s in ("rtk", "rtk ahead_us=150"))
        assert at["samples"] == ahead["samples"], rows
        assert int(ahead["avg_ns"]) * 10 < int(at["avg_ns"]), rows
    if name == "overheads":
        assert sorted((r["boundaries"], r["event"]) for r in rows) == [
            (b, e) for b in ("events", "quantum")
            for e in ("cxs", "sched", "tick")]
        # At events the timers fire at releases and completions only.
        ticks = {r["boundaries"]: int(r["n"]) for r in rows
                 if r["event"] == "tick"}
        assert ticks["events"] < ticks["quantum"], ticks
    if name == "tracecost":
        assert sorted(r["record"] for r in rows) == ["off", "on"]
        for r in rows:
            assert int(r["self_us"]) > 0 and int(r["got_us"]) > 0, r
            assert int(r["cycles_per_record"]) > 0, r
            # ran_us and the tick's overhead exist only with records.
            assert (r["ran_us"] != "") == (r["record"] == "on"), r
            assert (r["tick_p50_ns"] != "") == (r["record"] == "on"), r
