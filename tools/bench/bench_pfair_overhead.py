"""Staggered Pfair, Sec. 5.3 (warm cache): average TSC cycles per slot of
master/slave PD2 (one call decides all M CPUs) against one staggered
Schedule(p) call, for N tasks and M CPUs; their ratio approaches M
(Fig. 11(a)); and the same with a cold cache, the scheduler's memory
flushed before each timed call (Fig. 11(b), `--cold 1`), written to
pfair_overhead_cold.csv. Also the simulator's own cost for N = 50, M = 8: the CPU
time of tools/schedsim-fast's slot loop per 1000 slots."""
import csv
import io
import random
from fractions import Fraction

import workitems
from benchlib import print_table, pyplot, write_csv

PLANS = {
    "smoke": dict(n=[10, 50], m=[2, 4], sets=2, slots=100, sim_slots=2000,
                  cold_sets=2, cold_slots=100),
    # Cold calls flush the scheduler's memory first and are timed one by
    # one: 10 sets of 500 slots took 614 s on the 2-core host, so quick
    # mode times 4 sets of 100.
    "quick": dict(n=[10, 50, 100, 200, 300, 500], m=[2, 4, 8, 16], sets=20,
                  slots=500, sim_slots=200000, cold_sets=4, cold_slots=100),
    "full": dict(n=list(range(10, 501, 10)), m=[2, 4, 8, 16], sets=1000,
                 slots=200, sim_slots=1000000, cold_sets=250,
                 cold_slots=200),
}


def random_set(n, m, rng):
    """n tasks, total weight exactly checked to be <= m."""
    while True:
        raw = [rng.random() + 1e-3 for _ in range(n)]
        target = min(m, n / 2)
        tasks = []
        for k, r in enumerate(raw):
            p = rng.randint(1000, 10000)
            e = min(p, max(1, int(r * target / sum(raw) * p)))
            tasks.append((f"T{k}", e, p))
        if sum(Fraction(e, p) for _, e, p in tasks) <= m:
            return tasks


def loop_item(sched, slots):
    """A work item: schedsim's slot loop alone (driver and plugin; not
    start-up, parsing or admission) over N = 50, M = 8, timed on the
    host (schedsim --timing)."""
    rng = random.Random(50 * 8)
    text = "".join(f"task {n} e={e} p={p}\n"
                   for n, e, p in random_set(50, 8, rng))
    return workitems.program_item(
        "schedsim-fast", ["--sched", sched, "--cpus", "8", "--slots", slots,
                          "--summary-only", "--timing", "{dir}/n50m8.tasks"],
        inputs={"n50m8.tasks": text}, timed=True,
        label=f"schedsim-fast --timing {sched}, {slots} slots")


def loop_time(out):
    """CPU nanoseconds per slot of a loop_item's result."""
    fields = dict(w.split("=") for w in out["stderr"].split() if "=" in w)
    return float(fields["ns_per_slot"])


HEADERS = ["n", "m", "sets", "pd2_cycles_per_slot", "spd2_cycles_per_call",
           "ratio"]


def measure_item(plan, sets, cold):
    """A work item: pfair_overhead-fast over the plan's grid, timed on the
    host."""
    argv = ["--n", ",".join(map(str, plan["n"])),
            "--m", ",".join(map(str, plan["m"])),
            "--sets", str(sets),
            "--slots", str(plan["cold_slots" if cold else "slots"])]
    if cold:
        argv += ["--cold", "1"]
    return workitems.program_item(
        "pfair_overhead-fast", argv, timed=True,
        label=f"pfair_overhead {'cold' if cold else 'warm'}, {sets} sets")


def measure(plan, out, cold, outdir, name):
    """Writes NAME.csv from a measure_item's result and returns the ratio
    by (N, M)."""
    rows = [dict(r) for r in csv.DictReader(io.StringIO(out["stdout"]))]
    write_csv(outdir / f"{name}.csv", HEADERS,
              [[r[h] for h in HEADERS] for r in rows])
    ratio = {(int(r["n"]), int(r["m"])): float(r["ratio"]) for r in rows}
    print_table(["N"] + [f"M={m}" for m in plan["m"]],
                [[n] + [ratio[n, m] for m in plan["m"]] for n in plan["n"]],
                title="master/slave PD2 cycles per slot / staggered "
                      "Schedule(p) cycles per call (Sec. 5.3, "
                      f"{'cold' if cold else 'warm'} cache)")
    return ratio


def run(mode, outdir):
    plan = PLANS[mode]
    got = workitems.run_items([measure_item(plan, plan["sets"], False),
                               measure_item(plan, plan["cold_sets"], True),
                               loop_item("pd2", plan["sim_slots"]),
                               loop_item("spd2", plan["sim_slots"])])
    if None in got:
        raise SystemExit("bench_pfair_overhead: a measurement failed twice "
                         "(above)")
    warm = measure(plan, got[0], False, outdir, "pfair_overhead")
    cold = measure(plan, got[1], True, outdir, "pfair_overhead_cold")

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, ratio, what, fig_no in ((axes[0], warm, "warm", "11(a)"),
                                    (axes[1], cold, "cold", "11(b)")):
        for m in plan["m"]:
            ax.plot(plan["n"], [ratio[n, m] for n in plan["n"]], marker=".",
                    label=f"M = {m}")
            ax.axhline(m, color="grey", linewidth=0.5, linestyle=":")
        ax.set_xlabel("number of tasks N")
        ax.set_title(f"{what} cache (cf. Fig. {fig_no})")
        ax.legend()
    axes[0].set_ylabel("overhead ratio (master/slave : staggered)")
    fig.tight_layout()
    fig.savefig(outdir / "pfair_overhead.png", dpi=120)
    plt.close(fig)

    sim = []
    for sched, out in zip(("pd2", "spd2"), got[2:]):
        ns = loop_time(out)
        sim.append([sched, round(ns / 1000, 3), round(1e9 / ns)])
    write_csv(outdir / "pfair_sim_throughput.csv",
              ["sched", "ms_per_1000_slots", "slots_per_second"], sim)
    print_table(["sched", "ms per 1000 slots", "slots/s"], sim,
                title="schedsim-fast slot loop in process (CPU time), "
                      "N = 50, M = 8")
