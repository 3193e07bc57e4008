"""The experiments that boot the kernel (tools/experiments, registry.
KERNEL_EXPERIMENTS) run in tiny mode -- a few boots of a few seconds each
-- write the CSV columns their sections are built from, and REPORT.md gets
each section with its parts, numbers and no placeholder
(conftest.check_experiment_tiny). Beyond the columns, what each run must
show: the kernel's tardiness equals the simulator's for the same sets, the
EDF engine timed a push decision for every push and a pull scan for every
pull, every backtest task finished jobs, the overhead rows cover every
event asked for, the schedulability experiments inflate each plugin with
the kernel's own worst case from litmus_overheads' CSVs or their own
boots."""
import sys

import pytest

from conftest import ROOT, check_csv, check_experiment_tiny, run_schedsim

sys.path.insert(0, str(ROOT / "tools/experiments"))
from registry import KERNEL_EXPERIMENTS  # noqa: E402

OVERHEAD_COLS = {"plugin", "cpus", "tasks", "util", "timing", "event", "n",
                 "p50_ns", "p99_ns", "max_ns", "p50_cycles", "p99_cycles",
                 "max_cycles", "tsc_khz", "p50_insns", "p99_insns",
                 "max_insns"}
USED_COLS = {"plugin", "n", "sched_us", "cxs_us", "tick_us", "release_us"}
COLUMNS = {
    "pfair_overhead_kernel": (("pfair_overhead_kernel.csv",
                               {"n", "m", "cache", "timing",
                                "pd2_slot_cycles", "spd2_call_cycles",
                                "ratio", "pd2_samples", "spd2_samples",
                                "pd2_flush_lines", "spd2_flush_lines",
                                "boots", "pd2_boundary_missed",
                                "spd2_boundary_missed"}), []),
    "litmus_overheads": (("overheads.csv", OVERHEAD_COLS),
                         [("alignment.csv", {"plugin", "n", "ticks",
                                             "err_p50_us", "err_max_us"}),
                          ("reload.csv", {"timing", "cpus", "ws_bytes",
                                          "lines", "steady_cycles_per_line",
                                          "preempt_n", "preempt_cycles",
                                          "migrate_n", "migrate_cycles",
                                          "tsc_mhz"})]),
    "litmus_schedulability": (("nst.csv",
                               {"dist", "wss_kb", "rt", "plugin", "cap",
                                "sets", "fraction_schedulable"}),
                              [("overheads_used.csv", USED_COLS),
                               ("reload.csv", {"wss_kb", "reload_us"})]),
    "litmus_rnp": (("rnp.csv",
                    {"rt", "dist", "wss_kb", "algorithm", "sets",
                     "unschedulable", "rnp_mean", "rnp_min", "rnp_max"}),
                   [("rnp_sets.csv", {"rt", "dist", "wss_kb", "algorithm",
                                      "set", "tasks", "base_u", "rnp"}),
                    ("overheads_used.csv", USED_COLS),
                    ("reload.csv", {"wss_kb", "reload_us"})]),
    "locking_schedulability": (("locking.csv",
                                {"sweep", "x", "protocol", "plugin", "cpus",
                                 "k", "length_us", "sets",
                                 "fraction_schedulable"}),
                               [("verdicts.csv", {"sweep", "x", "protocol",
                                                  "set", "schedulable"}),
                                ("lock_cost.csv",
                                 {"task", "resource", "jobs", "lock_max_us",
                                  "lock_mean_us", "unlock_max_us",
                                  "unlock_mean_us"})]),
    "litmus_tardiness": (("tardiness.csv",
                          {"dist", "target_util", "util", "tasks", "plugin",
                           "kernel_mean_td", "kernel_max_td", "sim_mean_td",
                           "sim_max_td", "max_abs_diff"}), []),
    "litmus_backtest": (("backtest.csv",
                         {"set", "tasks", "util", "plugin", "array_bytes",
                          "jobs", "atc_ms", "std_ms", "misses"}), []),
    "gdq_kernel": (("gdq_kernel.csv", OVERHEAD_COLS), []),
    "edf_kernel": (("edf_kernel.csv",
                    {"load", "cpus", "structure", "push_find_n",
                     "push_find_cycles", "enqueue_n", "enqueue_cycles",
                     "pull_n", "pull_cycles", "push_find_mean_cycles",
                     "pull_mean_cycles", "pushes", "pulls"}), []),
    "release_latency": (("release_latency.csv",
                         {"system", "timing", "samples", "avg_ns",
                          "max_ns"}),
                        [("release_path.csv",
                          {"plugin", "cpu", "paths", "entry_p50",
                           "boundary_p50", "decision_p50", "after_p50",
                           "to_switch_p50", "switch_p50", "exit_p50",
                           "total_p50", "total_max"})]),
    # Run and checked by tests/boot/test_servers_qemu.py.
    "servers_qemu": (("servers_qemu.csv",
                      {"source", "timing", "policy", "rate_hz",
                       "response_mean_us", "server_share", "interference",
                       "cxs_us", "window_verdict"}), []),
    "bus_contention_kernel": (("bus_contention_kernel.csv",
                               {"sched", "ticks", "m", "writers", "ws_bytes",
                                "lines", "windows", "min_writer_windows",
                                "window_cycles_per_line",
                                "steady_cycles_per_line",
                                "reload_extra_cycles_per_line", "err_p50_us",
                                "err_max_us", "model_lost_bus_cycles",
                                "model_loaded", "tsc_mhz"}), []),
}


def test_every_kernel_experiment_is_tested():
    assert set(COLUMNS) == set(KERNEL_EXPERIMENTS)


def check_tardiness(rows, out):
    """Under -icount the executed schedule of spin tasks is the
    simulator's: every task's largest tardiness agrees to less than half a
    quantum (the microseconds between a boundary and the record)."""
    assert {r["plugin"] for r in rows} == {"gedf", "ngedf"}
    for r in rows:
        assert float(r["max_abs_diff"]) < 0.5, r
        assert abs(float(r["kernel_max_td"]) - float(r["sim_max_td"])) < 0.5


def check_edf(rows, out):
    """All three push structures ran; a push is preceded by a timed push
    decision and a pull is one timed scan (the engine counts both)."""
    assert {r["structure"] for r in rows} == {"heap", "fmask", "original"}
    for r in rows:
        assert int(r["push_find_n"]) >= int(r["pushes"]) > 0, r
        assert int(r["pull_n"]) >= int(r["pulls"]), r
        assert int(r["push_find_cycles"]) > 0 and int(r["pull_cycles"]) > 0


def check_backtest(rows, out):
    """The paper's three sets, every task of each, jobs finished."""
    assert [(r["set"], r["tasks"]) for r in rows] == \
        [("A", "84"), ("B", "38"), ("C", "34")]
    for r in rows:
        assert int(r["jobs"]) >= int(r["tasks"]) and float(r["atc_ms"]) > 0


def resumptions(slots):
    """{task: (same CPU, another CPU)} of a schedule: the slots where a task
    runs after a slot in which it did not, on the CPU it last ran on or on
    another, and the slots where it runs on another CPU than in the slot
    before (a dispatch with no slot between). Its first slot is neither."""
    last_cpu, before, out = {}, set(), {}
    for cpus in slots:
        now = {t: c for c, t in enumerate(cpus) if t is not None}
        for t, c in now.items():
            if t in last_cpu and (t not in before or last_cpu[t] != c):
                same, other = out.get(t, (0, 0))
                out[t] = (same + 1, other) if last_cpu[t] == c \
                    else (same, other + 1)
        last_cpu.update(now)
        before = set(now)
    return out


def check_overheads(rows, out):
    """Every event of the three plugins; and the writers' reload windows,
    under -icount, where a writer writes its 64 KB working set in about
    half a quantum (1024 lines at about 460 cycles of the 1 GHz -icount
    TSC): every dispatch after a writer's first times one window, so
    there are exactly as many preemption windows as the schedule has
    resumptions on the same CPU and as many migration windows as it has
    moves to another CPU -- the simulator's schedule for the same set,
    counted here (the kernel runs it under -icount)."""
    import registry
    lo = registry.load("litmus_overheads")
    plan = lo.PLANS["tiny"]
    events = {(r["plugin"], r["event"]) for r in rows}
    assert events == {(p, e) for p in ("pd2", "gedf", "cedf")
                      for e in ("sched", "cxs", "tick", "release")}, events
    # Every -icount row has the per-CPU instructions of its spans
    # (tools/qemu/insn_count.c), each span's at most its TSC cycles / 8
    # (which count every CPU's), so each percentile too; some span is
    # below, the other CPU having run meanwhile.
    below = 0
    for r in rows:
        assert r["timing"] == "icount", r
        for q in ("p50", "p99", "max"):
            ins = int(r[f"{q}_insns"])
            assert 0 < ins, r
            if r["event"] != "release":
                assert ins <= int(r[f"{q}_cycles"]) / 8 + 2, (r, q)
                below += ins < int(r[f"{q}_cycles"]) / 8 - 50
    assert below, "no span where another CPU ran"
    reload = check_csv(out / "litmus_overheads" / "reload.csv", set())
    assert [(r["timing"], r["ws_bytes"]) for r in reload] == \
        [("icount", "65536")]
    for r in reload:
        ws = int(r["ws_bytes"])
        slots, _ = run_schedsim(lo.writer_set(plan["cpus"], ws), "gedf",
                                plan["cpus"], plan["reload_slots"],
                                out / "litmus_overheads")
        want = resumptions(slots)
        assert want, "the writers never left a CPU"
        assert (int(r["preempt_n"]), int(r["migrate_n"])) == (
            sum(s for s, _ in want.values()),
            sum(o for _, o in want.values())), (r, want)
        assert float(r["steady_cycles_per_line"]) > 0, r


def check_inflation(name, out, kernel):
    """A schedulability experiment run after litmus_overheads' tiny run
    (pd2, gedf and cedf, the reload) in the same root: it read those and
    booted only pedf, ngedf and spd2 (its kernel_overheads.csv, no reload
    boots); each plugin of kernel ({test's name: kernel plugin}) has its
    own max_ns as costs, in us."""
    lo = out / "litmus_overheads"
    own = out / name
    booted = check_csv(own / "kernel_overheads.csv", set())
    assert {r["plugin"] for r in booted} == {"pedf", "ngedf", "spd2"}
    assert not (own / "kernel_reload.csv").exists()
    worst = {}
    for r in (check_csv(lo / "overheads.csv", set()) + booted):
        key = (r["plugin"], r["event"])
        worst[key] = max(worst.get(key, 0), int(r["max_ns"]))
    used = check_csv(own / "overheads_used.csv", set())
    assert {r["plugin"] for r in used} == set(kernel)
    for r in used:
        for e in ("sched", "cxs", "tick", "release"):
            # One N measured (tiny): the same at every N.
            assert float(r[f"{e}_us"]) == pytest.approx(
                worst[kernel[r["plugin"]], e] / 1000, abs=1e-3), (r, e)
    sec = (out / "REPORT.md").read_text()
    # Named as REPORT.md's links are, from the output root.
    assert "litmus_overheads/overheads.csv" in sec, sec
    assert "litmus_overheads/reload.csv" in sec, sec
    assert str(out) not in sec, "an absolute path in the report"
    assert "NOT THIS KERNEL" not in sec


# The schedulability tests' plugins; litmus_rnp has no C-EDF.
NST_PLUGINS = {"P-EDF": "pedf", "C-EDF": "cedf", "G-EDF": "gedf",
               "NG-EDF": "ngedf", "PD2": "pd2", "S-PD2": "spd2"}


def check_nst(rows, out):
    assert all(0 <= float(r["fraction_schedulable"]) <= 1 for r in rows)
    assert {r["plugin"] for r in rows} == set(NST_PLUGINS)
    check_inflation("litmus_schedulability", out, NST_PLUGINS)


def check_rnp(rows, out):
    import math
    for r in check_csv(out / "litmus_rnp" / "rnp_sets.csv", set()):
        if r["rnp"]:
            assert int(r["rnp"]) >= math.ceil(float(r["base_u"]) - 1e-9), r
    check_inflation("litmus_rnp", out, {k: v for k, v in NST_PLUGINS.items()
                                        if k != "C-EDF"})


def check_locking(rows, out):
    """Every protocol at every point; the lockcost boot timed calls on the
    local and the global resources and the costs charged are its worst;
    a set schedulable with longer sections is schedulable with shorter
    ones (the same sets and placements at every L, blocking growing with
    L); and the one-CPU srp verdicts of the sets kept in kept_sets.json,
    recomputed here from lock_bounds.srp and the EDF density test, agree."""
    import json
    sys.path.insert(0, str(ROOT / "tests" / "host"))
    from lock_bounds import srp
    from lock_ref import LTask
    protocols = {"srp", "msrp", "omlp", "pcp", "mpcp"}
    points = {(r["sweep"], r["x"]) for r in rows}
    assert {(r["sweep"], r["x"], r["protocol"]) for r in rows} == \
        {(s, x, p) for s, x in points for p in protocols}
    costs = check_csv(out / "locking_schedulability" / "lock_cost.csv", set())
    assert {r["resource"] for r in costs} == {"local (pcp)", "global"}
    for r in costs:
        assert int(r["jobs"]) > 0
        assert float(r["lock_max_us"]) >= float(r["lock_mean_us"]) > 0, r
        assert float(r["unlock_max_us"]) >= float(r["unlock_mean_us"]) > 0
    kept = json.loads((out / "locking_schedulability" /
                       "kept_sets.json").read_text())
    assert kept["per_lock_us"] == pytest.approx(
        max(float(r["lock_max_us"]) for r in costs)
        + max(float(r["unlock_max_us"]) for r in costs), abs=2e-3)
    verdicts = check_csv(out / "locking_schedulability" / "verdicts.csv",
                         set())
    by = {}
    for v in verdicts:
        if v["sweep"] == "length":
            by.setdefault((v["protocol"], v["set"]), []).append(
                (float(v["x"]), int(v["schedulable"])))
    for key, seq in by.items():
        seq.sort()
        assert all(a >= b for (_, a), (_, b) in zip(seq, seq[1:])), (key,
                                                                      seq)
    checked = 0
    for s in kept["sets"]:
        if s["protocol"] != "srp":
            continue
        ts = [LTask(f"T{i}", t["e"], t["p"], t["p"],
                    cs=[(r, 0, n) for r, n in t["cs"]])
              for i, t in enumerate(s["tasks"])]
        block = srp(ts, [0] * len(ts))
        acc, ok = 0.0, True
        for i in sorted(range(len(ts)), key=lambda i: ts[i].p):
            acc += ts[i].e / ts[i].p
            ok = ok and acc + block[i]["blocked"] / ts[i].p <= 1 + 1e-9
        assert s["verdict"] == int(ok), s
        checked += 1
    assert checked > 0


def check_gdq(rows, out):
    assert {(r["tasks"], r["event"]) for r in rows} == \
        {(n, e) for n in ("10", "50") for e in ("sched", "cxs", "tick")}


def check_latency(rows, out):
    """Our samples; and the release paths of pedf and gedf (tiny mode) on
    both CPUs, each a CPU's own instructions and so below the virtual
    latency, which counts both CPUs' (8 ns an instruction); on each, one
    CPU makes the boundary's decisions."""
    assert rows[0]["system"] == "rtk" and int(rows[0]["samples"]) > 0
    ic = [r for r in rows if r["system"] == "rtk" and r["timing"] == "icount"]
    paths = check_csv(out / "release_latency" / "release_path.csv", set())
    assert {(r["plugin"], r["cpu"]) for r in paths} == {
        (p, c) for p in ("pedf", "gedf") for c in ("0", "1")}, paths
    for r in paths:
        assert int(r["paths"]) >= 19, r
        for part in ("entry", "to_switch", "switch", "exit"):
            assert int(r[f"{part}_p50"]) > 0, (part, r)
        assert int(r["total_p50"]) <= int(r["total_max"]) < \
            int(ic[0]["avg_ns"]) / 8, (r, ic)
    for p in ("pedf", "gedf"):
        assert any(int(r["decision_p50"]) > 0 for r in paths
                   if r["plugin"] == p), paths
    # Boundaries taken ahead (ahead_us=150): the same samples, each run's
    # average and maximum under a tenth of the run without it.
    early = [r for r in rows if r["system"] == "rtk ahead_us=150"]
    assert [(r["timing"], r["samples"]) for r in early] == \
        [("icount", ic[0]["samples"])], rows
    assert int(early[0]["avg_ns"]) * 10 < int(ic[0]["avg_ns"]) and \
        int(early[0]["max_ns"]) * 10 < int(ic[0]["max_ns"]), (early, ic)
    # The 50 tasks on 4 CPUs: every release measured (tiny: 4 jobs a
    # task), with and without ahead_us, the latter a tenth or less;
    # pedf's first fit fills CPUs 0 and 1 and puts 10 on CPU 2; each
    # CPU's own path is shorter than the latency in instructions.
    many = check_csv(out / "release_latency" / "release_latency_many.csv",
                     set())
    assert {(r["system"], r["plugin"]): int(r["samples"]) for r in many} \
        == {(s, p): 200 for s in ("rtk", "rtk ahead_us=150")
            for p in ("gedf", "pedf")}, many
    for p in ("gedf", "pedf"):
        at, ahead = (next(r for r in many if r["plugin"] == p and
                          r["system"] == s)
                     for s in ("rtk", "rtk ahead_us=150"))
        for stat in ("avg_ns", "max_ns"):
            assert int(ahead[stat]) * 10 < int(at[stat]), (at, ahead)
    many = [r for r in many if r["system"] == "rtk"]
    mp = check_csv(out / "release_latency" / "release_path_many.csv", set())
    assert {r["cpu"] for r in mp if r["plugin"] == "pedf"} == \
        {"0", "1", "2"}, mp
    for r in mp:
        got = next(m for m in many if m["plugin"] == r["plugin"])
        assert 0 < int(r["total_p50"]) <= int(r["total_max"]) < \
            int(got["avg_ns"]) / 8, (r, got)


def check_bus(rows, out):
    """Both schedulers at each M, each on its own quantum clock, 2M
    writers every one of which was dispatched again and timed reload
    windows (the kernel's dispatches moved in its control page), most
    CPU-quanta began with a reload (the experiment's premise: weight-1/2
    writers switch at every boundary); the model beside them has
    staggering lose no more than aligned."""
    got = {(r["sched"], r["ticks"], r["m"]) for r in rows}
    ms = {r["m"] for r in rows}
    assert got == {(s, t, m) for s, t in (("pd2", "aligned"),
                                          ("spd2", "staggered"))
                   for m in ms}, got
    for r in rows:
        assert int(r["writers"]) == 2 * int(r["m"]), r
        assert int(r["min_writer_windows"]) > 0, r
        assert float(r["reload_share"]) > 0.8, r
        assert float(r["window_cycles_per_line"]) > 0, r
        assert float(r["steady_cycles_per_line"]) > 0, r
    by = {(r["sched"], r["m"], r["ws_bytes"]): r for r in rows}
    for (s, m, ws), r in by.items():
        if s == "spd2":
            assert float(r["model_lost_bus_cycles"]) <= \
                float(by["pd2", m, ws]["model_lost_bus_cycles"]), r


def check_pfair_overhead(rows, out):
    """N = 10 on 2 CPUs, warm and cold: one pd2 span per slot (the master's
    M decisions), one spd2 span per CPU and slot, the ratio their quotient;
    cold flushed lines before every span, warm none. Under -icount the
    flush is outside the spans and QEMU has no cache, so cold costs what
    warm does."""
    assert [(r["n"], r["m"], r["cache"]) for r in rows] == \
        [("10", "2", "warm"), ("10", "2", "cold")]
    for r in rows:
        assert int(r["spd2_samples"]) == 2 * int(r["pd2_samples"]) > 0, r
        pd2, spd2 = int(r["pd2_slot_cycles"]), int(r["spd2_call_cycles"])
        assert pd2 > spd2 > 0, r
        assert abs(float(r["ratio"]) - pd2 / spd2) < 1e-3, r
        flushed = int(r["pd2_flush_lines"]) > 0 and \
            int(r["spd2_flush_lines"]) > 0
        assert flushed == (r["cache"] == "cold"), r
    warm, cold = rows
    for col in ("pd2_slot_cycles", "spd2_call_cycles"):
        # 5 %: room for how QEMU interleaves the CPUs; a flush inside the
        # span would add its lines' instructions, 85 % here.
        assert abs(int(cold[col]) - int(warm[col])) <= 0.05 * int(warm[col])


CHECKS = {"pfair_overhead_kernel": check_pfair_overhead,
          "litmus_tardiness": check_tardiness, "edf_kernel": check_edf,
          "litmus_schedulability": check_nst, "litmus_rnp": check_rnp,
          "litmus_backtest": check_backtest,
          "litmus_overheads": check_overheads, "gdq_kernel": check_gdq,
          "release_latency": check_latency,
          "bus_contention_kernel": check_bus,
          "locking_schedulability": check_locking}


# Run in this order into one output root (test_litmus_chain_tiny).
CHAIN = ("litmus_overheads", "litmus_schedulability", "litmus_rnp")


@pytest.mark.parametrize("name", sorted(set(CHECKS) - set(CHAIN)))
def test_kernel_experiment_tiny(iso, name, tmp_path):
    main, extra = COLUMNS[name]
    rows, _ = check_experiment_tiny(name, tmp_path, main, extra)
    CHECKS[name](rows, tmp_path)


def test_litmus_chain_tiny(iso, tmp_path):
    """As make experiments runs them: litmus_overheads, then the two
    schedulability experiments inflating with its CSVs and booting only
    what its tiny run lacks (tools/experiments/kernel_overheads.py)."""
    for name in CHAIN:
        main, extra = COLUMNS[name]
        rows, _ = check_experiment_tiny(name, tmp_path, main, extra)
        CHECKS[name](rows, tmp_path)
