"""GDQ: TSC cycles per scheduling decision as N grows from 10 to 10,000 and
P from 1 to 64 (tools/gdq_bench). The GDQ paper's claim: the cost of a
decision does not grow with the number of processes."""
import json
import pathlib
import subprocess

import workitems
from benchlib import print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
TOOL = ROOT / "build" / "host" / "gdq_bench-fast"

PLANS = {
    "smoke": dict(n=[10, 100], p=[1, 4], slots=200, seeds=1),
    "quick": dict(n=[10, 30, 100, 300, 1000, 3000, 10000],
                  p=[1, 2, 4, 8, 16, 32, 64], slots=2000, seeds=3),
    "full": dict(n=[10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
                 p=[1, 2, 4, 8, 16, 32, 64], slots=20000, seeds=10),
}


def measure(n, p, slots, seeds):
    """gdq_bench's runs of one point, one per seed (a work item)."""
    return [json.loads(subprocess.run(
        [str(TOOL), "--procs", str(n), "--cpus", str(p), "--slots",
         str(slots), "--seed", str(seed)], capture_output=True, text=True,
        check=True, timeout=600).stdout) for seed in range(1, seeds + 1)]


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(p, n) for p in plan["p"] for n in plan["n"]]
    # Timed on the host's TSC: each point has its worker to itself.
    got = workitems.run_items(
        workitems.call_item("tools/bench/bench_gdq_decision.py", "measure",
                            dict(n=n, p=p, slots=plan["slots"],
                                 seeds=plan["seeds"]),
                            timed=True, files=["build/host/gdq_bench-fast"],
                            label=f"gdq_bench N={n} P={p}")
        for p, n in points)
    if None in got:
        raise SystemExit("bench_gdq_decision: a point failed twice (above)")
    rows = []
    for (p, n), res in zip(points, got):
        mean = sum(r["mean_cycles"] for r in res) / len(res)
        median = sorted(r["median_cycles"] for r in res)[len(res) // 2]
        p99 = max(r["p99_cycles"] for r in res)
        rows.append([p, n, round(mean, 1), median, p99])
    headers = ["cpus", "procs", "mean_cycles", "median_cycles", "p99_cycles"]
    write_csv(outdir / "gdq_decision.csv", headers, rows)
    # The table: mean cycles, one row per N, one column per P.
    table = [[n] + [next(r[2] for r in rows if r[0] == p and r[1] == n)
                    for p in plan["p"]] for n in plan["n"]]
    print_table(["N \\ P"] + plan["p"], table,
                "GDQ: mean TSC cycles per decision (error tracking off)")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for p in plan["p"]:
        sel = [r for r in rows if r[0] == p]
        ax.plot([r[1] for r in sel], [r[2] for r in sel], "o-", label=f"P={p}")
    ax.set_xscale("log")
    ax.set_xlabel("processes N")
    ax.set_ylabel("cycles per decision (mean)")
    ax.set_title("GDQ decision cost")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(outdir / "gdq_decision.png", dpi=100)
