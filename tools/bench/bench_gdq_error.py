"""GDQ, Sec. 4.1 of the paper: random mixes of N processes with total weight
W on P processors, for each inter-group interval T (delta = 4): the worst
positive and negative service error seen at any quantum by any process, as
in Fig. 2, next to the bounds of Theorem 3.6,
-2(2 delta + 2) - T <= e <= 2(2 delta + 2) + g T (g: number of groups).
Runs tools/schedsim-fast; the plugin tracks the errors (gdq_err=1)."""
import json
import random
import re

import workitems
from benchlib import print_table, pyplot, write_csv

DELTA = 4

PLANS = {
    "smoke": dict(n=[64], w=[4096], p=[2, 4], t=[20], slots=400),
    "quick": dict(n=[512, 2048], w=[32768], p=[1, 2, 4, 8, 16, 32, 64, 128],
                  t=[20, 80, 320, 640], slots=3000),
    "full": dict(n=[512, 2048, 8192, 16384], w=[32768, 131072, 262144],
                 p=[1, 2, 4, 8, 16, 32, 64, 128],
                 t=[20, 40, 80, 160, 320, 640], slots=20000),
}


def random_mix(n, total, rng):
    """n positive integer weights summing to total: the gaps between n - 1
    distinct random cut points of [1, total - 1]."""
    cuts = sorted(rng.sample(range(1, total), n - 1))
    edges = [0] + cuts + [total]
    return [b - a for a, b in zip(edges, edges[1:])]


def simulate_item(text, p, t, slots, label):
    """A work item: the simulator's GDQ run over a mix (its summary)."""
    return workitems.program_item(
        "schedsim-fast", ["--sched", "gdq", "--cpus", p, "--slots", slots,
                          "--summary-only", "--param", f"gdq_T={t}",
                          "--param", f"gdq_delta={DELTA}", "{dir}/mix.tasks"],
        inputs={"mix.tasks": text}, label=label)


def groups(summary):
    """g of Theorem 3.6: the plugin reports groupK_weight per group."""
    return sum(1 for k in summary
               if re.fullmatch(r"group\d+_weight", k))


def run(mode, outdir):
    plan = PLANS[mode]
    rng = random.Random(41)
    points, items = [], []
    for n in plan["n"]:
        for w in plan["w"]:
            text = "".join(f"task P{i} weight={x}\n" for i, x in
                           enumerate(random_mix(n, w, rng)))
            for p in plan["p"]:
                for t in plan["t"]:
                    points.append((n, w, p, t))
                    items.append(simulate_item(
                        text, p, t, plan["slots"],
                        f"gdq N={n} W={w} P={p} T={t}"))
    rows = []
    for (n, w, p, t), out in zip(points, workitems.run_items(items)):
        if out is None:
            raise SystemExit("bench_gdq_error: a simulation failed twice "
                             "(above)")
        s = json.loads(out["stdout"].splitlines()[-1])["summary"]
        g = groups(s)
        rows.append([n, w, p, t, g, s["max_error"], s["min_error"],
                     2 * (2 * DELTA + 2) + g * t,
                     -2 * (2 * DELTA + 2) - t])
    headers = ["procs", "weight", "cpus", "T", "groups", "max_error",
               "min_error", "bound_pos", "bound_neg"]
    write_csv(outdir / "gdq_error.csv", headers, rows)
    # Fig. 2: per (P, T), the worst errors over the mixes.
    summary = []
    for p in plan["p"]:
        for t in plan["t"]:
            sel = [r for r in rows if r[2] == p and r[3] == t]
            summary.append([p, t, max(r[5] for r in sel),
                            min(r[6] for r in sel), max(r[7] for r in sel),
                            min(r[8] for r in sel)])
    sh = ["P", "T", "worst_pos", "worst_neg", "bound_pos", "bound_neg"]
    print_table(sh, summary, f"GDQ service error (delta = {DELTA}), worst "
                "over the mixes, with Theorem 3.6's bounds")
    write_csv(outdir / "gdq_error_summary.csv", sh, summary)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for t in plan["t"]:
        sel = [s for s in summary if s[1] == t]
        ax.plot([s[0] for s in sel], [s[2] for s in sel], "o-", label=f"T={t} +")
        ax.plot([s[0] for s in sel], [s[3] for s in sel], "x--",
                label=f"T={t} -")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("processors P")
    ax.set_ylabel("service error (quanta)")
    ax.set_title("GDQ worst service errors (cf. Fig. 2)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(outdir / "gdq_error.png", dpi=100)
