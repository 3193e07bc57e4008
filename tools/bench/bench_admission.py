"""Admission time against the number of tasks (tools/admit_bench): parsing
the task-set text, and each scheduler's create() -- Pfair's and G-EDF's
exact sum of e/p <= M, P-EDF's first-fit bins, GDQ's grouping -- in CPU
milliseconds, the best of a few runs, on M = 8. Two kinds of set: random
periods (lib/ratsum's bounds decide) and a sum of exactly M over tens of
thousands of different periods (an exact sum decides)."""
import csv
import io

import workitems
from benchlib import print_table, pyplot, write_csv

PLANS = {
    "smoke": dict(n=[100, 1000], reps=1),
    "quick": dict(n=[1000, 5000, 20000, 50000, 100000], reps=3),
    "full": dict(n=[1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000,
                    500000, 1000000], reps=5),
}
SCHEDS = ["pd2", "spd2", "gedf", "pedf", "gdq"]
HEADERS = ["kind", "n", "tasks", "sched", "admitted", "parse_ms",
           "admit_ms"]


def run(mode, outdir):
    plan = PLANS[mode]
    kinds = ("random", "exact")
    # Timed on the host: each run has its worker to itself.
    got = workitems.run_items(
        workitems.program_item(
            "admit_bench-fast", ["--kind", kind, "--m", "8", "--reps",
                                 plan["reps"], "--n",
                                 ",".join(map(str, plan["n"]))],
            timed=True, label=f"admit_bench {kind} sets")
        for kind in kinds)
    if None in got:
        raise SystemExit("bench_admission: a run failed twice (above)")
    rows = [r for out in got
            for r in csv.DictReader(io.StringIO(out["stdout"]))]
    write_csv(outdir / "admission.csv", HEADERS,
              [[r[h] for h in HEADERS] for r in rows])

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, kind in zip(axes, ("random", "exact")):
        mine = [r for r in rows if r["kind"] == kind]
        table = {}
        for r in mine:
            table.setdefault(int(r["n"]), {})[r["sched"]] = r
        print_table(["N", "parse ms"] + [f"{s} ms" for s in SCHEDS],
                    [[n, float(by[SCHEDS[0]]["parse_ms"])] +
                     [float(by[s]["admit_ms"]) if by[s]["admitted"] == "1"
                      else f"{float(by[s]['admit_ms']):.3f} (refused)"
                      for s in SCHEDS]
                     for n, by in sorted(table.items())],
                    title=f"admission CPU time, {kind} sets, M = 8")
        ns = sorted(table)
        ax.plot(ns, [float(table[n][SCHEDS[0]]["parse_ms"]) for n in ns],
                marker=".", linestyle="--", label="parse")
        for s in SCHEDS:
            ax.plot(ns, [float(table[n][s]["admit_ms"]) for n in ns],
                    marker=".", label=s)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of tasks N")
        ax.set_title(f"{kind} sets")
    axes[0].set_ylabel("CPU milliseconds (best of runs)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(outdir / "admission.png", dpi=120)
    plt.close(fig)
