"""Global EDF push decision, enqueue, dequeue and pull cycles (issue 5), the
experiment of the global EDF paper's Figs. 8-11: M from 2 to 64 CPUs,
average loads 0.6 and 0.8 per CPU, three tasks per CPU, for the three push
structures heap (CPU deadline max-heap), fmask (free-CPU mask + scan) and
original (scan). Runs tools/edf_bench (optimised build) on the host, where
the plugin's own code is timed with the TSC; single-threaded, so it shows
the structures' algorithmic cost without the paper's lock contention.

Expected shape (paper, Sec. 6.3): the scan's push cost grows with M, the
heap's stays flat; fmask is flat while CPUs are often idle; the heap pays
for that with dearer enqueues and dequeues. Pulls scan every queue under
all three structures and grow with M alike (Sec. 6.3)."""
import json
import pathlib
import statistics
import subprocess

import workitems
from benchlib import print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
TOOL = ROOT / "build" / "host" / "edf_bench-fast"
MODES = ["heap", "fmask", "original"]

PLANS = {
    "smoke": dict(cpus=[2, 8], loads=[60, 80], slots=300, seeds=1),
    "quick": dict(cpus=[2, 4, 8, 16, 24, 32, 40, 48, 64], loads=[60, 80],
                  slots=5000, seeds=5),
    "full": dict(cpus=[2, 4, 8, 16, 24, 32, 40, 48, 64], loads=[60, 80],
                 slots=10000, seeds=20),
}
OPS = ["push_find", "enqueue", "dequeue", "pull"]


def measure(cpus, load, mode, slots, seeds):
    """edf_bench's runs of one point, one per seed (a work item)."""
    return [json.loads(subprocess.run(
        [str(TOOL), "--cpus", str(cpus), "--load", str(load), "--mode",
         str(mode), "--slots", str(slots), "--seed", str(seed)],
        capture_output=True, text=True, check=True, timeout=600).stdout)
        for seed in range(1, seeds + 1)]


def run(mode, outdir):
    plan = PLANS[mode]
    headers = ["load", "cpus", "structure", "utilisation", "idle_fraction",
               "push_find_count"] + [f"{op}_cycles" for op in OPS]
    points = [(load, cpus, m, name) for load in plan["loads"]
              for cpus in plan["cpus"] for m, name in enumerate(MODES)]
    # Timed on the host's TSC: each point has its worker to itself.
    got = workitems.run_items(
        workitems.call_item("tools/bench/bench_edf_push.py", "measure",
                            dict(cpus=cpus, load=load, mode=m,
                                 slots=plan["slots"], seeds=plan["seeds"]),
                            timed=True, files=["build/host/edf_bench-fast"],
                            label=f"edf_bench {name} M={cpus} load {load}")
        for load, cpus, m, name in points)
    if None in got:
        raise SystemExit("bench_edf_push: a point failed twice (above)")
    rows = []
    for (load, cpus, m, name), runs in zip(points, got):
        rows.append([load / 100, cpus, name,
                     statistics.mean(r["utilisation"] for r in runs),
                     statistics.mean(r["idle_fraction"] for r in runs),
                     sum(r["push_find_count"] for r in runs)]
                    # The median drops runs hit by preemption.
                    + [statistics.median(r[f"{op}_cycles"] for r in runs)
                       for op in OPS])
    print_table(headers, rows, "mean cycles per operation (TSC overhead "
                "removed), median over the seeds")
    write_csv(outdir / "edf_push.csv", headers, rows)

    def series(load, name, col):
        pts = [(r[1], r[col]) for r in rows if r[0] == load / 100
               and r[2] == name]
        return [p[0] for p in pts], [p[1] for p in pts]

    push_col = headers.index("push_find_cycles")
    for load in plan["loads"]:
        lo_m, hi_m = plan["cpus"][0], plan["cpus"][-1]
        for name in MODES:
            xs, ys = series(load, name, push_col)
            print(f"load {load / 100:.1f}: {name:8s} push decision "
                  f"{ys[0]:7.1f} cycles at M={lo_m}, {ys[-1]:7.1f} at "
                  f"M={hi_m}")
    plt = pyplot()
    fig, axes = plt.subplots(len(OPS), len(plan["loads"]),
                             figsize=(5 * len(plan["loads"]), 3.2 * len(OPS)),
                             squeeze=False)
    for j, load in enumerate(plan["loads"]):
        for i, op in enumerate(OPS):
            ax = axes[i][j]
            for name in MODES:
                xs, ys = series(load, name, headers.index(f"{op}_cycles"))
                ax.plot(xs, ys, marker="o", label=name)
            ax.set_title(f"{op}, load {load / 100:.1f}")
            ax.set_xlabel("CPUs (M)")
            ax.set_ylabel("cycles")
            ax.legend()
    fig.tight_layout()
    fig.savefig(pathlib.Path(outdir) / "edf_push.png", dpi=100)
    plt.close(fig)
