"""LITMUS^RT Sec. 4.2, Figs. 6 and 7 (RNP): the average minimum number of
processors on which random task sets of total utilisation four are
schedulable, per plugin, hard (Fig. 6) and soft (Fig. 7) real time, task
utilisations L, M and H drawn uniformly and exponentially, and bimodal,
three working-set sizes.

The schedulability tests, the overhead inflation and the task-set generator
are litmus_schedulability's (exp_litmus_schedulability.py, whose docstring
gives the decisions behind them); what this adds:
- Task sets as Sec. 4.2 describes them, Baker's three distributions of
  per-task utilisation: uniform over L [0.001, 0.1], M [0.1, 0.4] or H
  [0.5, 0.9] (the ranges of Fig. 6's caption); exponential with mean 0.05,
  0.25 or 0.7 truncated to the same ranges (exp-L, exp-M, exp-H; a draw
  outside the range is drawn again, as litmus_schedulability's exp_medium
  does); bimodal, uniform over [0.001, 0.5) with probability 8/9 and over
  [0.5, 0.999] with probability 1/9. Figs. 6 and 7 plot only L, M and H;
  the text says every experiment used all three distributions, so the
  other four are drawn and plotted beside them. Tasks are drawn until the
  total reaches four or MAX_TASKS tasks were drawn, the last one cut so the
  total is exactly four (the shared generator drops a cut task below 0.001,
  leaving the total that much short of four, so a set may fit four CPUs when
  the overheads are smaller still). The paper names the task cap without its
  value and calls its experiments "100-task" while each "consisted of 100
  different task sets"; MAX_TASKS is 100 and full mode draws 100 sets per
  distribution.
- RNP of one set: the least M, searched upward from ceil(U) (U the base
  utilisation, which no inflation lowers), that the plugin's test passes
  with the overheads of the four-CPU measurement whatever M is (the paper
  does the same, Sec. 4.2). A set that fails at M_LIMIT fails at every M
  (each test is monotone in M): one of its tasks alone does not fit (its
  inflated utilisation above 1, or, under Pfair, more whole quanta than
  its period holds -- S-PD2 hard loses a quantum of period). Such sets are
  counted in the CSV's `unschedulable` and left out of the mean.
- The same sets serve every WSS and plugin, as the paper's per-experiment
  comparison implies.
- No C-EDF: litmus_schedulability's curve has clusters of 2 CPUs, which
  divide no odd M, while the search tries every M upward."""
import math
import random

import exp_litmus_schedulability as nst
import kernel_overheads
from benchlib import pyplot, write_csv
from common import Section

U_TOTAL = 4.0        # Sec. 4.2: "total utilization was exactly four"
MAX_TASKS = 100
M_LIMIT = 4096       # beyond any M a set with a task that fits could need
RANGES = {"L": (0.001, 0.1), "M": (0.1, 0.4), "H": (0.5, 0.9)}
EXP_MEAN = {"L": 0.05, "M": 0.25, "H": 0.7}   # Sec. 4.2 (ii)
# Sec. 4.2 (iii): light with probability 8/9, heavy with 1/9.
BIMODAL = (8 / 9, (0.001, 0.5), (0.5, 0.999))
# {name: (draw one utilisation from an rng, the range it lies in)}; L, M and
# H first so their sets stay those drawn before the others were added.
DISTS = {n: (lambda r, lo=lo, hi=hi: r.uniform(lo, hi), (lo, hi))
         for n, (lo, hi) in RANGES.items()}
DISTS.update({f"exp-{n}": (lambda r, m=EXP_MEAN[n], lo=lo, hi=hi:
                           nst.truncated_exp(r, m, lo, hi), (lo, hi))
              for n, (lo, hi) in RANGES.items()})
DISTS["bimodal"] = (lambda r: nst.bimodal(r, *BIMODAL),
                    (BIMODAL[1][0], BIMODAL[2][1]))
# litmus_schedulability's plugins but C-EDF: its clusters of nst.CLUSTER
# CPUs divide no odd M, and the search tries every M from ceil(U) up.
PLUGINS = tuple(p for p in nst.PLUGINS if p != "C-EDF")
RT = (("hard", True, tuple(p for p in nst.HARD if p in PLUGINS)),
      ("soft", False, PLUGINS))

PLANS = {
    "tiny": dict(sets=3, wss=[4, 256], reps=5),
    "quick": dict(sets=30, wss=[4, 128, 256], reps=40),
    "full": dict(sets=100, wss=[4, 128, 256], reps=200),
}


def base_utilisation(tasks):
    # Rounded so the float sum of a set cut to exactly four is four.
    return round(sum(e / p for e, p in tasks), 9)


def rnp(tasks, plugin, hard, c):
    """The least M the plugin's test passes with its Costs c, or None if
    none does."""
    if not nst.schedulable(tasks, plugin, hard, c, M_LIMIT):
        return None
    m = max(1, math.ceil(base_utilisation(tasks)))
    while not nst.schedulable(tasks, plugin, hard, c, m):
        m += 1
    return m


def draw_sets(n, rng):
    """{dist: [task set]}, n sets each."""
    return {d: [nst.task_set(draw, U_TOTAL, rng, MAX_TASKS)
                for _ in range(n)]
            for d, (draw, _) in DISTS.items()}


def per_set(sets, ov, wss):
    """One row per set, WSS and plugin: rt, dist, wss_kb, algorithm, set,
    tasks, base_u, rnp ('' when no M schedules it); each plugin inflated
    with its own costs (ov, kernel_overheads.Overheads) at the set's N."""
    rows = []
    for dist, group in sets.items():
        for w in wss:
            for rt, hard, plugins in RT:
                for alg in plugins:
                    for k, s in enumerate(group):
                        m = rnp(s, alg, hard, ov.costs(alg, len(s), w))
                        rows.append([rt, dist, w, alg, k, len(s),
                                     base_utilisation(s),
                                     "" if m is None else m])
    return rows


def summarise(rows):
    """rt, dist, wss_kb, algorithm, sets, unschedulable, rnp_mean, rnp_min,
    rnp_max ('' where no set was schedulable)."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[:4]), []).append(r[7])
    out = []
    for key, vals in groups.items():
        ok = [v for v in vals if v != ""]
        out.append(list(key) + [len(vals), len(vals) - len(ok)] + (
            [sum(ok) / len(ok), min(ok), max(ok)] if ok else ["", "", ""]))
    return out


def run(mode, outdir):
    plan = PLANS[mode]
    ov = nst.overheads(mode, outdir, plan["wss"], plan["reps"], PLUGINS)
    sets = draw_sets(plan["sets"], random.Random(2006))
    rows = per_set(sets, ov, plan["wss"])
    sizes = [len(s) for g in sets.values() for s in g]
    reload = {w: ov.reload_us(w) for w in plan["wss"]}
    summary = summarise(rows)
    write_csv(outdir / "rnp_sets.csv",
              ["rt", "dist", "wss_kb", "algorithm", "set", "tasks", "base_u",
               "rnp"], rows)
    write_csv(outdir / "rnp.csv",
              ["rt", "dist", "wss_kb", "algorithm", "sets", "unschedulable",
               "rnp_mean", "rnp_min", "rnp_max"], summary)
    nst.write_used(outdir, ov, PLUGINS, sizes, plan["wss"])
    plot(summary, plan, outdir / "rnp.png")
    return section(rows, summary, plan, reload, ov, sets, mode, outdir)


def plot(summary, plan, path):
    """Grouped bars as in Figs. 6 and 7: a panel per WSS, a group per
    distribution, a bar per plugin; hard above, soft below."""
    plt = pyplot()
    mean = {tuple(r[:4]): r[6] for r in summary}
    fig, axes = plt.subplots(2, len(plan["wss"]), squeeze=False,
                             figsize=(6.0 * len(plan["wss"]), 6.4))
    for i, (rt, _, plugins) in enumerate(RT):
        width = 0.8 / len(plugins)
        for j, w in enumerate(plan["wss"]):
            ax = axes[i][j]
            for k, alg in enumerate(plugins):
                xs = [d + (k - (len(plugins) - 1) / 2) * width
                      for d in range(len(DISTS))]
                ys = [mean[rt, d, w, alg] or 0 for d in DISTS]
                ax.bar(xs, ys, width, label=alg,
                       color=f"C{PLUGINS.index(alg)}")
            ax.set_xticks(range(len(DISTS)), list(DISTS), fontsize=7)
            ax.set_ylim(0, None)
            ax.set_title(f"{rt}, WSS {w} KB (Fig. {6 if i == 0 else 7})",
                         fontsize=9)
            ax.set_ylabel("RNP (mean)")
    # One legend for both rows: a plugin keeps its colour in each.
    fig.legend(*axes[1][0].get_legend_handles_labels(), loc="lower center",
               ncol=len(PLUGINS), fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def mean_u(group):
    """Mean per-task utilisation over a group of sets."""
    us = [e / p for s in group for e, p in s]
    return sum(us) / len(us)


def other_dists(m, f, w_lo, w_hi, sets):
    """The distributions Figs. 6-7 do not plot, against the uniform ones:
    m(rt, dist, wss, plugin) the mean RNP, f its format."""
    capped = {d: sum(1 for s in sets[d] if len(s) == MAX_TASKS
                     and base_utilisation(s) < U_TOTAL) for d in DISTS}
    hard = ("P-EDF", "G-EDF", "PD2")
    exp = "; ".join(
        f"{n} at {w_hi} KB " + ", ".join(
            f"{a} {f(m('hard', 'exp-' + n, w_hi, a))} (uniform "
            f"{f(m('hard', n, w_hi, a))})" for a in hard)
        for n in RANGES)
    bim = ", ".join(f"{rt} {a} at {w} KB {f(m(rt, 'bimodal', w, a))}"
                    for rt, w, a in (("hard", w_lo, "P-EDF"),
                                     ("hard", w_lo, "G-EDF"),
                                     ("hard", w_lo, "PD2"),
                                     ("hard", w_hi, "PD2"),
                                     ("soft", w_lo, "G-EDF")))
    return ("Exponential utilisations (not plotted by the paper), hard: "
            + exp + ". An exponential mean below the range's midpoint (L, "
            "M) draws lighter tasks than the uniform, so more of them: "
            "sets stopped by the cap of " f"{MAX_TASKS} tasks below a total "
            "of four: " + ", ".join(f"{d} {capped[d]}" for d in DISTS)
            + f" of {len(sets['L'])} (exp-L's tasks average "
            f"{mean_u(sets['exp-L']):.3f} here, so {MAX_TASKS} of them make "
            f"about {MAX_TASKS * mean_u(sets['exp-L']):.1f}). "
            "Bimodal (not plotted): " + bim + " (hard G-EDF: GFB needs "
            "(U - u_max) / (1 - u_max) CPUs, which one task near the "
            "bimodal's 0.999 makes huge).")


def section(rows, summary, plan, reload, ov, sets, mode, outdir):
    mean = {tuple(r[:4]): r[6] for r in summary}
    unsched = {tuple(r[:4]): r[5] for r in summary}
    wss = plan["wss"]
    w_lo, w_hi = min(wss), max(wss)
    algs = PLUGINS
    table = [[rt, d, w] + [mean.get((rt, d, w, a), "") or "-"
                           for a in algs]
             for rt, _, _ in RT for d in DISTS for w in wss]

    def m(rt, d, w, a):
        v = mean[rt, d, w, a]
        return float("inf") if v == "" else v

    def f(v):
        return "none" if v == float("inf") else f"{v:.2f}"

    panels = [(d, w) for d in DISTS for w in wss]
    sizes = [len(s) for g in sets.values() for s in g]
    n_mid = sorted(sizes)[len(sizes) // 2]

    def job(alg):
        """What the EDF inflation adds per job at the median N, in us."""
        return nst.edf_per_job(ov.costs(alg, n_mid, w_hi))
    # Soft: NG-EDF against the others.
    ng_low = sum(1 for d, w in panels if m("soft", d, w, "NG-EDF") <= min(
        m("soft", d, w, a) for a in algs))
    ng_tie = sum(1 for d, w in panels
                 if m("soft", d, w, "NG-EDF") == m("soft", d, w, "G-EDF"))
    # Hard: P-EDF against G-EDF, set by set.
    rnp_of = {tuple(r[:5]): r[7] for r in rows}
    pairs = [(rnp_of["hard", d, w, "P-EDF", k], rnp_of["hard", d, w, "G-EDF",
                                                        k])
             for d in DISTS for w in wss for k in range(len(sets[d]))]
    pairs = [(p, g) for p, g in pairs if p != "" and g != ""]
    p_below = sum(1 for p, g in pairs if p < g)
    p_le = sum(1 for p, g in pairs if p <= g)
    # G-EDF soft against hard.
    g_gain = [m("hard", d, w, "G-EDF") - m("soft", d, w, "G-EDF")
              for d, w in panels]
    diff = (
        f"Hard (Fig. 6): P-EDF needs fewer CPUs than G-EDF (GFB) for "
        f"{p_below} and no more for {p_le} of {len(pairs)} (set, WSS) pairs "
        "(paper: P-EDF better for every set). Light tasks (L) at WSS "
        f"{w_hi} KB: P-EDF {f(m('hard', 'L', w_hi, 'P-EDF'))}, G-EDF "
        f"{f(m('hard', 'L', w_hi, 'G-EDF'))}, PD2 "
        f"{f(m('hard', 'L', w_hi, 'PD2'))} (paper: P-EDF and G-EDF always "
        "below PD2 for light tasks, PD2 wasting the rest of its whole "
        f"quanta); heavy tasks (H) at WSS {w_lo} KB: PD2 "
        f"{f(m('hard', 'H', w_lo, 'PD2'))}, P-EDF "
        f"{f(m('hard', 'H', w_lo, 'P-EDF'))}, G-EDF "
        f"{f(m('hard', 'H', w_lo, 'G-EDF'))} (paper: PD2 below both). PD2 "
        f"from WSS {w_lo} KB to {w_hi} KB: "
        + ", ".join(f"{d} {f(m('hard', d, w_lo, 'PD2'))} to "
                    f"{f(m('hard', d, w_hi, 'PD2'))}" for d in DISTS)
        + " (paper: strongly related to WSS). S-PD2 against PD2 at "
        f"{w_hi} KB: " + ", ".join(
            f"{d} {f(m('hard', d, w_hi, 'S-PD2'))} vs "
            f"{f(m('hard', d, w_hi, 'PD2'))}" for d in DISTS)
        + f"; at {w_lo} KB: " + ", ".join(
            f"{d} {f(m('hard', d, w_lo, 'S-PD2'))} vs "
            f"{f(m('hard', d, w_lo, 'PD2'))}" for d in DISTS)
        + " (paper: S-PD2 below PD2 at large WSSs for its lower migration "
          "cost, slightly above at small ones for its period shortened by "
          "a quantum). Here both Pfair plugins pay the same reload per "
          "quantum -- the kernel's writers' in QEMU, "
        + ", ".join(f"{w} KB {reload[w]:.2f} us" for w in wss)
        + f" (the largest {max(reload.values()) / nst.Q_US:.2%} of a "
          "quantum), with nothing modelling S-PD2's staggered, "
          "contention-free reloads -- so S-PD2 gains on PD2 only through "
          f"its cheaper decision (at N = {n_mid}: S-PD2 "
          f"{ov.costs('S-PD2', n_mid, w_hi).sched:.1f} us, PD2 "
          f"{ov.costs('PD2', n_mid, w_hi).sched:.1f} us) and its shortened "
          "period costs. The paper measured its "
          "reloads with four CPUs writing at once at aligned quanta and "
          "its migrations dearer than its preemptions (Sec. 4.1); under "
          "QEMU no cache or bus stands behind the writers and the "
          "inflation charges the larger of a preemption's and a "
          "migration's mean for either, so every "
          "plugin's WSS penalty is the same per reload and the plugins "
          "differ by how many reloads their inflation charges (Pfair one "
          "per quantum, EDF one per job). Hard S-PD2 sets no M "
          "schedules: "
        + ", ".join(f"{d} {sum(unsched['hard', d, w, 'S-PD2'] for w in wss)}"
                    for d in DISTS)
        + f" of {len(sets['L']) * len(wss)} (a set fails at every M when "
          "one task needs more whole quanta than its shortened period "
          "holds; the paper does not say how it counted such sets). Soft "
          "(Fig. 7): "
          f"NG-EDF is lowest or tied lowest in {ng_low} of {len(panels)} "
          f"(distribution, WSS) panels, and equal to G-EDF in {ng_tie}: the "
          "inflation shared with litmus_schedulability charges a "
          "non-preemptive job the same one reload per job as a preemptive "
          "one and both pass U <= M, so the two differ here only by the "
          "kernel's costs for each (at N = "
          f"{n_mid}, per job: NG-EDF {job('NG-EDF'):.1f} us, G-EDF "
          f"{job('G-EDF'):.1f} us), where "
          "the paper's NG-EDF, free of intra-job preemption and migration "
          "costs, was lowest everywhere. G-EDF soft against hard, CPUs "
          f"saved on average: {sum(g_gain) / len(g_gain):.2f} (paper: "
          f"substantially better). " + other_dists(m, f, w_lo, w_hi, sets)
        + " " + nst.weigh(ov, algs, n_mid, wss)
        + f" Sources: {'; '.join(ov.sources)}. {plan['sets']} sets per "
          f"distribution ({mode} mode).")
    n_tasks = {d: sum(len(s) for s in sets[d]) / len(sets[d]) for d in DISTS}
    return Section(
        title="LITMUS^RT: processors needed (RNP)",
        paper="LITMUS^RT (Calandrino et al., 2006) Sec. 4.2",
        figure="Figs. 6 (hard) and 7 (soft), RNP",
        measured=f"mean over {plan['sets']} random task sets per "
                 f"distribution (total utilisation {U_TOTAL:g}, less by "
                 "under 0.001, or less when the cap of "
                 f"{MAX_TASKS} tasks stops a set first; mean tasks per set: "
                 + ", ".join(f"{d} {n:.1f}" for d, n in n_tasks.items())
                 + ") of the least M each plugin's test passes, searched "
                 "upward from ceil(U), with overheads inflated as in "
                 "litmus_schedulability, each plugin's own at the set's N; "
                 "overheads: "
                 + nst.source_text(ov, algs, sizes, wss)
                 + ". Table: mean RNP per plugin ('-': not applicable, "
                 "or no set schedulable); sets no M schedules are left out "
                 "of the mean and counted in rnp.csv",
        platform=nst.model_platform(ov),
        table=(["rt", "dist", "wss_kb"] + list(algs), table),
        published="Figs. 6 and 7 plot the uniform L, M and H sets only; "
                  "the exponential and bimodal ones are not shown. "
                  "Fig. 6 (hard): PD2 strongly dependent on WSS (M tasks at "
                  "4 KB: about P-EDF's RNP and well below G-EDF's; at 256 "
                  "KB well above both); P-EDF and G-EDF always below PD2 "
                  "for light tasks, PD2 below both for heavy tasks (about "
                  "G-EDF's at 256 KB); P-EDF below G-EDF for every task "
                  "set; S-PD2 below PD2 at larger WSSs, slightly above at "
                  "small ones. Fig. 7 (soft): P-EDF and PD2 about as in "
                  "Fig. 6, G-EDF substantially better than hard, NG-EDF "
                  "the lowest of all, S-PD2 below PD2 at large WSSs.",
        differences=diff,
        files=["rnp.csv", "rnp_sets.csv", "overheads_used.csv", "reload.csv"]
        + [f for f in (kernel_overheads.OWN_CSV, kernel_overheads.OWN_RELOAD)
           if ov.boots and (outdir / f).exists()]
        + ["rnp.png"])
