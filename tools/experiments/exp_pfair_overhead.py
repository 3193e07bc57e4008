"""Staggered Pfair Sec. 5.3, Fig. 11(a): per-slot scheduling cost of
master/slave PD2 against one staggered Schedule(p) call, warm cache. The
measurement is tools/bench/bench_pfair_overhead.py; this adds the paper's
result and the comparison."""
from common import BENCH_MODE, Section, bench_module, host_platform, read_csv


def run(mode, outdir):
    bench_module("pfair_overhead").run(BENCH_MODE[mode], outdir)
    rows = read_csv(outdir / "pfair_overhead.csv")
    ms = sorted({int(r["m"]) for r in rows})
    ns = sorted({int(r["n"]) for r in rows})
    ratio = {(int(r["n"]), int(r["m"])): float(r["ratio"]) for r in rows}
    table = [[n] + [ratio[n, m] for m in ms] for n in ns]
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
        + f"{sets} task sets per point here against the paper's 1000, so "
          "small runs carry more noise; and a modern out-of-order CPU "
          "against a 700 MHz PC, both warm-cache loops, so the memory "
          "system hardly enters either measurement.")
    return Section(
        title="Staggered Pfair: scheduling overhead, warm cache",
        paper="staggered Pfair (Holman & Anderson, 000) Sec. 5.3",
        figure="Fig. 11(a)",
        measured="average TSC cycles per slot of master/slave PD2 divided by "
                 "cycles per staggered Schedule(p) call, this repository's "
                 "sched/ code in tools/pfair_overhead.c (optimised build), "
                 f"{sets} random task sets per (N, M); table: the ratio",
        platform=host_platform("build/host/pfair_overhead-fast, warm cache"),
        table=(["N"] + [f"M={m}" for m in ms], table),
        published="1000 random task sets for each N in 10..500 (step 10) and "
                  "M in {2, 4, 8, 16} on a 700 MHz PC (Linux 2.4): \"the "
                  "staggered algorithm approaches, and often matches, the "
                  "factor-of-M improvement suggested by its time "
                  "complexity\" (Fig. 11(a) plots the ratio, near M at large "
                  "N). Fig. 11(b), cold cache on a 32-CPU SGI, shows a "
                  "smaller but still significant gap.",
        differences=diff,
        files=["pfair_overhead.csv", "pfair_overhead.png",
               "pfair_sim_throughput.csv"])
