"""GDQ (Caprita, Nieh and Stein, 2006) Sec. 4, Fig. 3: the scheduling
decision's cost against the number of tasks, in the kernel -- and the
context switch's -- from its trace (RESULT overhead sched and cxs), under
-icount.

The sets are tools/bench/bench_overheads.py's task_set (N tasks of one
quantum, U <= M/2; GDQ takes w = e/p); the paper's processes all had the
same weight, these do not, which only changes which group a task falls
into. The kernel takes at most 256 tasks (kernel/run/sched_run.c MAX_TASKS),
the paper went to 1000 processes."""
from common import Section, panel, save_figure
from benchlib import pyplot, write_csv  # noqa: E402 (common puts it on the path)
from kernel_runs import boots, overhead_item, overhead_rows, platform
import common

overheads = common.bench_module("overheads")

EVENTS = ("sched", "cxs", "tick")
PLANS = {
    "tiny": dict(n=[10, 50], cpus=[2], slots=30),
    "quick": dict(n=[10, 50, 100, 200], cpus=[2, 4], slots=40),
    "full": dict(n=[10, 25, 50, 100, 150, 200, 250], cpus=[2, 4, 8],
                 slots=200),
}


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(m, n) for m in plan["cpus"] for n in plan["n"]]
    done = boots([overhead_item("gdq", n, m, plan["slots"])
                  for m, n in points])
    rows, ran = [], []
    for (m, n), b in zip(points, done):
        if b is not None:
            ran.append(b)
            rows += overhead_rows(b, "gdq", n, m, plan["slots"], EVENTS)
    write_csv(outdir / "gdq_kernel.csv", overheads.HEADERS, rows)
    plot(rows, outdir)

    def get(m, n, event, col):
        return [r[col] for r in rows if r[1] == m and r[2] == n
                and r[7] == event][0]
    # The points whose boot ran (a failed one is listed as missing).
    have = {(r[1], r[2]) for r in rows}
    cpus = [m for m in plan["cpus"] if any(x[0] == m for x in have)]
    ns = [n for n in plan["n"] if all((m, n) in have for m in cpus)]
    table = [[m, n] + [get(m, n, e, c) for e in ("sched", "cxs")
                       for c in (12, 13, 14)]
             for m, n in points if (m, n) in have]
    lo, hi = ns[0], ns[-1]
    growth = {m: get(m, hi, "sched", 12) / max(1, get(m, lo, "sched", 12))
              for m in cpus}
    by_m = {n: [get(m, n, "sched", 12) for m in cpus] for n in ns}
    diff = (
        f"From N = {lo} to {hi} the median decision changes "
        + ", ".join(f"{growth[m]:.2f}x on M = {m}" for m in cpus)
        + (" -- roughly constant, as Fig. 3 shows for GDQ (O(1) per "
           "decision, Theorem 3.7). " if all(0.5 < g < 2 for g in
                                             growth.values())
           else " -- not constant, unlike Fig. 3's flat GDQ curve. ")
        + (f"Against M at N = {hi}: "
           + ", ".join(f"{c} cycles (M = {m})" for m, c in
                       zip(cpus, by_m[hi])) + ". "
           if len(cpus) > 1 else "")
        + "The cycles are the -icount TSC's, 8 per instruction, so they "
          "count instructions of this kernel's GDQ plus its decision "
          "path (the decide lock and the per-CPU answers), where the paper "
          "timed Linux 2.6's scheduler hook with rdtsc on an 8-CPU "
          "machine, cache misses and lock contention included. The "
          "decision here is made by the first CPU at a boundary for all M "
          "CPUs, so its cost includes M answers.")
    return Section(
        title="GDQ: decision and context-switch cost in the kernel",
        paper="GDQ (Caprita, Nieh and Stein, 2006) Sec. 4.2",
        figure="Fig. 3",
        measured="the kernel's trace under sched=gdq: p50, p99 and max of "
                 "the decision (sched) and the context switch (cxs), in TSC "
                 f"cycles, for N tasks on M CPUs ({plan['slots']} quanta "
                 "per boot)",
        platform=platform(ran),
        table=(["M", "N", "sched p50", "sched p99", "sched max", "cxs p50",
                "cxs p99", "cxs max"], table),
        published="Fig. 3 (2 and 8 CPUs, up to 1000 processes of equal "
                  "weight, T = 20): GDQ's average scheduling overhead in "
                  "cycles is roughly constant in the number of processes, "
                  "about 10% above Linux 2.6's O(1) scheduler and below "
                  "GR3's (a single queue), and scales well from 2 to 8 "
                  "processors.",
        differences=diff,
        files=["gdq_kernel.csv", "gdq_kernel.png"])


def plot(rows, outdir):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, event in zip(axes, ("sched", "cxs")):
        series = []
        for m in sorted({r[1] for r in rows}):
            sel = sorted((r[2], r[12], r[14]) for r in rows
                         if r[1] == m and r[7] == event)
            series += [([(x[0], x[1]) for x in sel], "o-", f"M={m} p50"),
                       ([(x[0], x[2]) for x in sel], "x--", f"M={m} max")]
        panel(ax, series, "tasks N", "cycles (-icount TSC)",
              f"GDQ in the kernel: {event} (cf. Fig. 3)")
    save_figure(plt, fig, outdir / "gdq_kernel.png")
