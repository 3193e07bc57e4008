"""Staggered Pfair Sec. 5.3, Figs. 11(a) and 11(b): per-slot scheduling
cost of master/slave PD2 against one staggered Schedule(p) call, warm cache
and cold (the scheduler's memory flushed before each timed call). The
measurement is tools/bench/bench_pfair_overhead.py; this adds the paper's
result and the comparison."""
from common import BENCH_MODE, Section, bench_module, host_platform, read_csv


def run(mode, outdir):
    bench_module("pfair_overhead").run(BENCH_MODE[mode], outdir)
    rows = read_csv(outdir / "pfair_overhead.csv")
    ms = sorted({int(r["m"]) for r in rows})
    ns = sorted({int(r["n"]) for r in rows})
    ratio = {(int(r["n"]), int(r["m"])): float(r["ratio"]) for r in rows}
    cold = {(int(r["n"]), int(r["m"])): float(r["ratio"])
            for r in read_csv(outdir / "pfair_overhead_cold.csv")}
    table = [[n, "warm"] + [ratio[n, m] for m in ms] for n in ns] + \
        [[n, "cold"] + [cold[n, m] for m in ms] for n in ns]
    cold_reach = {m: cold[ns[-1], m] / m for m in ms}
    # How close the largest N comes to the factor M the paper's complexity
    # argument predicts, per M.
    reach = {m: ratio[ns[-1], m] / m for m in ms}
    best = {m: max(ratio[n, m] for n in ns) / m for m in ms}
    sets = rows[0]["sets"]
    diff = (
        f"At N = {ns[-1]} the ratio reaches "
        + ", ".join(f"{reach[m]:.0%} of M = {m}" for m in ms)
        + " (best over N: "
        + ", ".join(f"{best[m]:.0%}" for m in ms)
        + "). "
        + ("The ratio rises with N as in the paper, because the master/slave "
           "cost grows with the M decisions per slot while one Schedule(p) "
           "call makes one. "
           if all(ratio[ns[-1], m] >= ratio[ns[0], m] for m in ms) else
           "Unlike the paper the ratio does not rise with N at every M "
           "here. ")
        + "Cold cache (every timed call after a flush of the scheduler's "
          f"memory): at N = {ns[-1]} the ratio reaches "
        + ", ".join(f"{cold_reach[m]:.0%} of M = {m}" for m in ms)
        + (" -- a smaller gap than warm, as in Fig. 11(b), since each "
           "staggered call pays its own misses while the master/slave slot "
           "pays them once for M decisions. "
           if all(cold[ns[-1], m] < ratio[ns[-1], m] for m in ms) else
           " -- not below the warm ratio at every M, unlike Fig. 11(b). ")
        + "The flush reaches only this host's caches (one socket), not the "
          "paper's 32-CPU SGI's remote memory. "
        + f"{sets} task sets per point here against the paper's 1000, so "
          "small runs carry more noise; and a modern out-of-order CPU "
          "against a 700 MHz PC; in the warm runs the memory system hardly "
          "enters either measurement.")
    return Section(
        title="Staggered Pfair: scheduling overhead, warm and cold cache",
        paper="staggered Pfair (Holman and Anderson, 2004) Sec. 5.3",
        figure="Figs. 11(a) and 11(b)",
        measured="average TSC cycles per slot of master/slave PD2 divided by "
                 "cycles per staggered Schedule(p) call, this repository's "
                 "sched/ code in tools/pfair_overhead.c (optimised build), "
                 f"{sets} random task sets per (N, M) warm, "
                 f"{rows and read_csv(outdir / 'pfair_overhead_cold.csv')[0]['sets']}"
                 " cold (`--cold 1`: CLFLUSH of every block the "
                 "scheduler allocated and of the task set before each timed "
                 "call); table: the ratio",
        platform=host_platform("build/host/pfair_overhead-fast, warm and "
                               "cold cache"),
        table=(["N", "cache"] + [f"M={m}" for m in ms], table),
        published="1000 random task sets for each N in 10..500 (step 10) and "
                  "M in {2, 4, 8, 16} on a 700 MHz PC (Linux 2.4): \"the "
                  "staggered algorithm approaches, and often matches, the "
                  "factor-of-M improvement suggested by its time "
                  "complexity\" (Fig. 11(a) plots the ratio, near M at large "
                  "N). Fig. 11(b), cold cache on a 32-CPU SGI, shows a "
                  "smaller but still significant gap.",
        differences=diff,
        files=["pfair_overhead.csv", "pfair_overhead_cold.csv",
               "pfair_overhead.png",
               "pfair_sim_throughput.csv"])
