"""LITMUS^RT Sec. 4.2, Figs. 9 and 10 (NST): the fraction of random task
sets schedulable on M = 4 CPUs against their total base utilisation, per
plugin, hard and soft real time, with this kernel's overheads inflated into
the execution costs.

Decisions where the paper leaves room (LITMUS^RT, Sec. 4.2):
- G-EDF hard: the paper cites [4, 12]; [12] is Goossens, Funk and Baruah,
  U <= M - (M - 1) u_max, used here (as tests/host/edf_ref.py's gfb_ok);
  Baker's test [4] is not applied.
- C-EDF, which the paper does not have (the kernel's cedf, clusters of
  K = kernel_overheads.CEDF_CLUSTER CPUs, two clusters of 2 on M = 4): the
  tasks are placed on the M/K clusters as the plugin admits them
  (sched/edf/partition.c), first-fit decreasing by utilisation, each
  cluster's total at most K -- here the inflated utilisations, as P-EDF
  packs them --, and each cluster must then pass G-EDF's test on K CPUs:
  soft U <= K, which the placement already ensures, so soft C-EDF is the
  plugin's admission; hard GFB. K = 1 is P-EDF's test, K = M G-EDF's.
  Hard, the plugin's placement leaves GFB nothing past one cluster: first
  fit opens a second cluster only for a task that does not fit in the
  first, so the first holds more than K less that task's utilisation,
  more than K - u_max, and GFB wants at most K - (K - 1) u_max. A set
  passes only when all of it fits in the first cluster within GFB, U <=
  K - (K - 1) u_max < K: with K = 2, at no cap of Figs. 9-10 (2.0 and
  up). A placement taking GFB as each cluster's capacity would pass more
  sets, but it is not how the kernel places them, and a set it passed
  would run under another placement in the kernel.
- Inflation ("standard techniques", Devi's thesis [9]): an EDF job pays two
  scheduler invocations and two context switches (release and completion)
  and one cache reload of its working set (one preemption per job), plus
  its release's lateness (the kernel's `release` overhead: how late after
  its ideal time the release was accounted); a non-preemptive NG-EDF job
  pays the same. Pfair quanta lose the decision, the switch, the
  boundary's interrupt (`tick`) and, since any quantum may follow a
  preemption or migration, the reload: a job needs ceil(e / (Q -
  overhead)) quanta; S-PD2 hard periods are one quantum shorter (the
  paper's compensation for its deadline slip).
- The costs are each plugin's own, at the set's N, as this kernel measured
  them (kernel_overheads.py says where from and which statistic).
- Migrations cost as much as preemptions: both are the measured reload
  (the larger of the two).
- Task sets: tasks drawn until the next would pass the cap; the remainder,
  when at least 0.001, becomes a last task, so each set's base utilisation
  equals its cap. Periods are whole milliseconds in [10, 100]."""
import csv
import io
import json
import math
import os
import pathlib
import random
import subprocess
import time

import kernel_overheads
import kernel_runs
from benchlib import pyplot, write_csv
from common import Section, host_platform

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
HOST = ROOT / "build" / "host"
M = 4
Q_US = 1000.0                      # LITMUS^RT's 1 ms quantum (Sec. 4.1)
PLUGINS = ("P-EDF", "C-EDF", "G-EDF", "NG-EDF", "PD2", "S-PD2")
HARD = ("P-EDF", "C-EDF", "G-EDF", "PD2", "S-PD2")  # no hard test for NG-EDF
CLUSTER = kernel_overheads.CEDF_CLUSTER

# Per-task utilisation distributions: Figs. 9 and 10's three (uniform
# light, uniform heavy, bimodal 0.2/0.8) and Baker's exponential of
# Sec. 4.2 (mean 0.25 truncated to [0.1, 0.4]).
DISTS = {
    "uni_light": lambda r: r.uniform(0.1, 0.5),
    "uni_heavy": lambda r: r.uniform(0.5, 0.9),
    "bimodal": lambda r: bimodal(r, 0.2, (0.1, 0.5), (0.5, 0.9)),
    "exp_medium": lambda r: truncated_exp(r, 0.25, 0.1, 0.4),
}

PLANS = {
    "tiny": dict(sets=4, caps=[2.0, 3.0, 3.8], wss=[4, 128], reps=5),
    "quick": dict(sets=200, caps=[round(2 + 0.1 * k, 1) for k in range(20)],
                  wss=[4, 128], reps=40),
    "full": dict(sets=1000, caps=[round(2 + 0.1 * k, 1) for k in range(20)],
                 wss=[4, 32, 64, 128, 256], reps=200),
}


def truncated_exp(rng, mean, lo, hi):
    while True:
        u = rng.expovariate(1 / mean)
        if lo <= u <= hi:
            return u


def bimodal(rng, p_light, light, heavy):
    """Uniform over the light range with probability p_light, else over
    the heavy one (Baker's bimodal; Figs. 6-7 and 9-10 differ in the
    ranges and the probability)."""
    return rng.uniform(*light) if rng.random() < p_light \
        else rng.uniform(*heavy)


def task_set(dist, cap, rng, max_tasks=None):
    """[(e_us, p_us)] with base utilisation exactly cap, or less when
    max_tasks tasks are drawn first (LITMUS^RT Sec. 4.2's cap on the number
    of tasks). dist: a name in DISTS or a function drawing one utilisation
    from rng."""
    draw = DISTS[dist] if isinstance(dist, str) else dist
    tasks, total = [], 0.0
    while max_tasks is None or len(tasks) < max_tasks:
        u = draw(rng)
        if total + u > cap:
            u = cap - total
            if u >= 0.001:
                tasks.append(u)
            break
        tasks.append(u)
        total += u
    out = []
    for u in tasks:
        p = 1000.0 * rng.randint(10, 100)
        out.append((u * p, p))
    return out


# ---------------------------------------------------------------- overheads
# Only behind RTK_OVERHEADS=host: the decision costs and the reload timed on
# the host, no kernel involved.

def host_sched_ns():
    """Each plugin's decision cost, this repository's sched/ code timed on
    the host (optimised tools), in ns: PD2 the master's per-slot cost for
    all M CPUs, S-PD2 one Schedule(p), G-EDF push decision + enqueue +
    dequeue (heap) -- C-EDF the same, a bound on one cluster's --, P-EDF
    enqueue + dequeue."""
    mhz = float(subprocess.run([str(HOST / "host_tsc_mhz-fast"), "200"],
                               capture_output=True, text=True,
                               check=True).stdout)
    pf = next(csv.DictReader(io.StringIO(subprocess.run(
        [str(HOST / "pfair_overhead-fast"), "--n", "50", "--m", str(M),
         "--sets", "4", "--slots", "200"], capture_output=True, text=True,
        check=True).stdout)))
    ed = json.loads(subprocess.run(
        [str(HOST / "edf_bench-fast"), "--cpus", str(M), "--load", "80",
         "--mode", "0", "--slots", "2000", "--seed", "1"],
        capture_output=True, text=True, check=True).stdout)
    ns = lambda c: c * 1000.0 / mhz  # noqa: E731
    gedf = ns(ed["push_find_cycles"] + ed["enqueue_cycles"]
              + ed["dequeue_cycles"])
    return {"PD2": ns(float(pf["pd2_cycles_per_slot"])),
            "S-PD2": ns(float(pf["spd2_cycles_per_call"])),
            "G-EDF": gedf, "NG-EDF": gedf, "C-EDF": gedf,
            "P-EDF": ns(ed["enqueue_cycles"] + ed["dequeue_cycles"])}, mhz


def reload_us(wss_kb, reps):
    """Cache-related preemption cost as LITMUS^RT Sec. 4.1 measures it: the
    time to write the working set after the cache was flushed, minus the
    time to write it again while it is cached (median over reps). The
    flush writes a buffer far larger than any last-level cache."""
    import numpy as np
    ws = np.zeros(wss_kb * 1024, dtype=np.uint8)
    flush = np.zeros(64 << 20, dtype=np.uint8)
    diffs = []
    for k in range(reps):
        flush[:] = k
        t0 = time.perf_counter_ns()
        ws[:] = k
        t1 = time.perf_counter_ns()
        ws[:] = k + 1
        t2 = time.perf_counter_ns()
        diffs.append(max(0, (t1 - t0) - (t2 - t1)))
    diffs.sort()
    return diffs[len(diffs) // 2] / 1000.0


# ---------------------------------------------------------------- tests

def ffd(us, nbins, capacity=1.0):
    """First-fit decreasing of the utilisations us into nbins bins whose
    sums stay <= capacity: each bin's list of utilisations, or None when
    one fits in no bin."""
    bins, sums = [], []
    for u in sorted(us, reverse=True):
        for k, b in enumerate(sums):
            if b + u <= capacity:
                sums[k] += u
                bins[k].append(u)
                break
        else:
            if len(bins) == nbins or u > capacity:
                return None
            bins.append([u])
            sums.append(u)
    return bins


def ffd_fits(us, m):
    return ffd(us, m) is not None


def gfb(us, m):
    """Goossens, Funk and Baruah's test for G-EDF on m CPUs."""
    return sum(us) <= m - (m - 1) * max(us)


def cedf_ok(us, m, hard, k):
    """C-EDF with clusters of k CPUs on m (module docstring)."""
    if m % k:
        raise ValueError(f"C-EDF: clusters of {k} CPUs do not divide "
                         f"M = {m}")
    clusters = ffd(us, m // k, k)
    return clusters is not None and (
        not hard or all(gfb(c, k) for c in clusters))


def edf_per_job(c):
    """What the EDF inflation adds to each job (module docstring): two
    decisions and two switches, one reload, the release's lateness."""
    return 2 * (c.sched + c.cxs) + c.reload + c.release


def schedulable(tasks, plugin, hard, c, m=M):
    """On m CPUs; c: the plugin's kernel_overheads.Costs (us) at this
    set's N and WSS (a 4-CPU testbed's, whatever m is: LITMUS^RT Sec. 4.2
    does the same). Every test here is monotone in m (more CPUs never fail
    a set fewer CPUs pass), which exp_litmus_rnp's search relies on;
    C-EDF's only over the m that CLUSTER divides (first fit fills the same
    clusters in the same way, and opens another only when they are full),
    and it refuses any other m, so exp_litmus_rnp leaves it out."""
    if plugin in ("PD2", "S-PD2"):
        usable = Q_US - c.sched - c.cxs - c.tick - c.reload
        if usable <= 0:
            return False
        total = 0.0
        for e, p in tasks:
            pq = int(p // Q_US) - (1 if plugin == "S-PD2" and hard else 0)
            eq = math.ceil(e / usable)
            if eq > pq:
                return False
            total += eq / pq
        return total <= m
    per_job = edf_per_job(c)
    us = [(e + per_job) / p for e, p in tasks]
    if max(us) > 1:
        return False
    if plugin == "P-EDF":
        return ffd_fits(us, m)
    if plugin == "C-EDF":
        return cedf_ok(us, m, hard, CLUSTER)
    if hard:
        return gfb(us, m)
    return sum(us) <= m


# ---------------------------------------------------------------- run

HOST_WARNING = (
    "**NOT THIS KERNEL'S OVERHEADS (RTK_OVERHEADS=host)**: the plugins' "
    "sched/ code timed on the host and the host's cache reload; context "
    "switch, tick and release taken as 0")


def overheads(mode, outdir, wss, reps, plugins=PLUGINS):
    """kernel_overheads.load's for plugins (the kernel's measurements), or
    the host-timed ones when RTK_OVERHEADS=host asks for them."""
    ov = kernel_overheads.load(mode, outdir, plugins)
    if ov is not None:
        return ov
    sched_ns, mhz = host_sched_ns()
    events = {(kernel_overheads.PLUGIN_OF[p], "sched"): [(1, v)]
              for p, v in sched_ns.items()}
    reload = [(w, reload_us(w, reps)) for w in wss]
    return kernel_overheads.Overheads(
        events, reload, [f"{HOST_WARNING} (host TSC {mhz:.0f} MHz)"],
        host=True)


def model_platform(ov):
    """Where the model ran and where its overheads were measured."""
    if ov.host:
        return host_platform("Python model of the tests with host-measured "
                             "overheads (RTK_OVERHEADS=host)")
    log = os.environ.get("RTK_OVERHEADS_LOG")
    return (host_platform("Python model of the tests") + "; the overheads "
            "it inflates with are the kernel's, measured in QEMU: sched, "
            "cxs, tick and release "
            + (f"from the log {log}" if log else
               "under " + kernel_overheads.timing_text("icount"))
            + (", the reload too" if ov.reload_timing == "icount" else
               ", the reload under "
               + kernel_overheads.timing_text(ov.reload_timing))
            + (f" ({kernel_runs.platform(ov.boots)}, booted here)"
               if ov.boots else " (the CSVs named under Measured here)"))


def source_text(ov, plugins, sizes, wss):
    """The sources and the numbers used, for the section."""
    ns = sorted({min(sizes), sorted(sizes)[len(sizes) // 2], max(sizes)})
    return ("; ".join(ov.sources) + ". Used (worst case, max_ns): "
            + ov.describe(plugins, ns, wss))


def run(mode, outdir):
    plan = PLANS[mode]
    ov = overheads(mode, outdir, plan["wss"], plan["reps"])
    rng = random.Random(2006)
    rows, sizes = [], []
    for dist in DISTS:
        for cap in plan["caps"]:
            sets = [task_set(dist, cap, rng) for _ in range(plan["sets"])]
            sizes += [len(s) for s in sets]
            for w in plan["wss"]:
                for hard in (True, False):
                    for plugin in (HARD if hard else PLUGINS):
                        ok = sum(schedulable(
                            s, plugin, hard, ov.costs(plugin, len(s), w))
                            for s in sets)
                        rows.append([dist, w, "hard" if hard else "soft",
                                     plugin, cap, plan["sets"],
                                     ok / plan["sets"]])
    headers = ["dist", "wss_kb", "rt", "plugin", "cap", "sets",
               "fraction_schedulable"]
    write_csv(outdir / "nst.csv", headers, rows)
    write_used(outdir, ov, PLUGINS, sizes, plan["wss"])
    plot(rows, plan, outdir)
    return section(rows, plan, ov, sizes, mode, outdir)


def write_used(outdir, ov, plugins, sizes, wss):
    """overheads_used.csv (per plugin and set size N, the costs in us) and
    reload.csv (per WSS)."""
    write_csv(outdir / "overheads_used.csv",
              ["plugin", "n", "sched_us", "cxs_us", "tick_us",
               "release_us"],
              [[p, n] + [round(v, 3) for v in ov.costs(p, n, wss[0])[:4]]
               for p in plugins for n in sorted(set(sizes))])
    write_csv(outdir / "reload.csv", ["wss_kb", "reload_us"],
              [[w, round(ov.reload_us(w), 3)] for w in wss])


def plot(rows, plan, outdir):
    plt = pyplot()
    for rt in ("hard", "soft"):
        fig, axes = plt.subplots(len(plan["wss"]), len(DISTS),
                                 figsize=(3.2 * len(DISTS),
                                          2.8 * len(plan["wss"])),
                                 squeeze=False, sharey=True)
        for i, w in enumerate(plan["wss"]):
            for j, dist in enumerate(DISTS):
                ax = axes[i][j]
                for plugin in (HARD if rt == "hard" else PLUGINS):
                    pts = [(r[4], r[6]) for r in rows if r[0] == dist
                           and r[1] == w and r[2] == rt and r[3] == plugin]
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            marker=".", label=plugin)
                ax.set_title(f"{dist}, WSS {w}K", fontsize=8)
                ax.set_xlabel("total base utilisation")
        axes[0][0].set_ylabel("fraction schedulable")
        axes[0][-1].legend(fontsize=7)
        fig.suptitle(f"NST, {rt} real time, M = {M} (cf. LITMUS^RT Fig. "
                     f"{9 if rt == 'hard' else 10})")
        fig.tight_layout()
        fig.savefig(outdir / f"nst_{rt}.png", dpi=90)
        plt.close(fig)


def weigh(ov, plugins, n, wss):
    """A sentence on the overheads inflated, against the paper's: each
    plugin's decision and switch at N = n, the reload at each WSS, and
    what a PD2 quantum loses."""
    c = {p: ov.costs(p, n, max(wss)) for p in plugins}
    pd2 = c["PD2"]
    lost = pd2.sched + pd2.cxs + pd2.tick + pd2.reload   # as schedulable
    what = (HOST_WARNING + ". " if ov.host else
            "These are the kernel's own worst cases; under -icount a "
            "cost is 8 ns per instruction, tens of times what a modern CPU "
            "takes for the same instructions, so they weigh more against "
            "the 1 ms quantum than the same code would on hardware; and "
            "QEMU advances that one instruction counter for all virtual "
            "CPUs, running them in turn, so a span on one CPU also counts "
            "what the others executed meanwhile (up to M times its own "
            "instructions when all M are busy: bus_contention_kernel's "
            "cost per line doubles from M = 2 to M = 4). ")
    return (what + f"At N = {n} the decision costs "
            + ", ".join(f"{p} {c[p].sched:.1f} us" for p in plugins)
            + " (paper: about 3 us, G-EDF above), the context switch "
            + ", ".join(sorted({f"{c[p].cxs:.1f}" for p in plugins}))
            + " us (paper: orders of magnitude below the rest); the reload "
            + ", ".join(f"{w} KB {ov.reload_us(w):.2f} us" for w in wss)
            + " (paper: up to hundreds of us at 256 KB, linear in WSS; "
              "there is no cache under QEMU, so what is charged here is "
              "QEMU's page-table refill and noise); a PD2 quantum of 1000 "
              f"us loses {lost:.1f} us at {max(wss)} KB.")


def section(rows, plan, ov, sizes, mode, outdir):
    reload = {w: ov.reload_us(w) for w in plan["wss"]}
    source = source_text(ov, PLUGINS, sizes, plan["wss"])
    n_mid = sorted(sizes)[len(sizes) // 2]
    frac = {(r[0], r[1], r[2], r[3], r[4]): r[6] for r in rows}
    # The paper quotes its Fig. 10 numbers at 3.8.
    hi = min(plan["caps"], key=lambda c: abs(c - 3.8))
    mid = min(plan["caps"], key=lambda c: abs(c - 3.0))
    w_big, w_small = max(plan["wss"]), min(plan["wss"])
    table = [[d, w, rt, p, frac[d, w, rt, p, mid], frac[d, w, rt, p, hi]]
             for d in DISTS for w in (w_small, w_big)
             for rt in ("hard", "soft")
             for p in (HARD if rt == "hard" else PLUGINS)]
    panels = [(d, w) for d in DISTS for w in plan["wss"]]
    gedf_worst = sum(
        1 for d, w in panels
        if frac[d, w, "hard", "G-EDF", hi] <= min(
            frac[d, w, "hard", p, hi] for p in HARD))
    pedf_heavy = frac["uni_heavy", w_big, "soft", "P-EDF", hi]
    light = {p: frac["uni_light", w_big, "soft", p, hi] for p in PLUGINS}
    pf_gain = {d: frac[d, w_small, "hard", "PD2", mid]
               - frac[d, w_big, "hard", "PD2", mid] for d in DISTS}

    def ends(rt, cap):
        """P-EDF/C-EDF/G-EDF per distribution at WSS w_big."""
        return ", ".join(d + " " + "/".join(
            f"{frac[d, w_big, rt, p, cap]:.0%}"
            for p in ("P-EDF", "C-EDF", "G-EDF")) for d in DISTS)
    wide = [k for k in frac if k[2] == "hard" and k[3] == "C-EDF"
            and k[4] >= CLUSTER]
    cedf = (
        f"C-EDF (clusters of {CLUSTER}, {M // CLUSTER} of them; no curve in "
        f"the paper) against its two ends, P-EDF/C-EDF/G-EDF at WSS "
        f"{w_big}K: hard at cap {mid} {ends('hard', mid)}; soft at cap "
        f"{hi} {ends('soft', hi)}. Hard C-EDF schedules sets at "
        f"{sum(frac[k] > 0 for k in wide)} of the {len(wide)} points with "
        f"a cap of {CLUSTER} or more: the kernel's placement fills the "
        "first cluster past GFB's bound before it opens the second, so "
        "only a set within GFB on one cluster, U <= K - (K - 1) u_max "
        f"with K = {CLUSTER}, passes. ")
    diff = (
        f"Hard real time at cap {hi}: G-EDF (GFB) is the lowest or tied "
        f"lowest in {gedf_worst} of {len(panels)} panels; the paper found "
        "it poor everywhere. Soft, all heavy tasks, WSS "
        f"{w_big}K: P-EDF schedules {pedf_heavy:.0%} at cap {hi} (paper: "
        "close to 0 %, at most one heavy task fits a CPU). Soft, light "
        f"tasks, WSS {w_big}K, cap {hi}: G-EDF {light['G-EDF']:.0%}, "
        f"NG-EDF {light['NG-EDF']:.0%}, P-EDF {light['P-EDF']:.0%}, PD2 "
        f"{light['PD2']:.0%} (paper at 3.8: G-EDF and NG-EDF about 60 and 90 "
        "points above P-EDF). PD2 hard at cap "
        f"{mid} gains " + ", ".join(f"{pf_gain[d]:+.0%} ({d})" for d in DISTS)
        + f" from WSS {w_big}K to {w_small}K. " + cedf
        + weigh(ov, PLUGINS, n_mid, plan["wss"])
        + " LITMUS^RT measured a 4-CPU machine of 2006 with all CPUs "
          "writing at once. Each plugin is inflated with its own costs at "
          "each set's N; the differences between plugins come from those "
          "and from the tests themselves (GFB, bin packing, Pfair's whole "
          f"quanta). Sources: {'; '.join(ov.sources)}. {plan['sets']} sets "
          f"per point ({mode} mode).")
    return Section(
        title="LITMUS^RT: schedulable task sets against utilisation",
        paper="LITMUS^RT (Calandrino et al., 2006) Sec. 4.2",
        figure="Figs. 9 and 10 (NST), distributions of Figs. 6-8",
        measured=f"fraction of {plan['sets']} random task sets per point "
                 f"schedulable on M = {M} with overheads inflated into the "
                 f"execution costs, quantum {Q_US / 1000:.0f} ms; overheads: "
                 f"{source}. Table: the fraction at caps {mid} and {hi}",
        platform=model_platform(ov),
        table=(["dist", "wss_kb", "rt", "plugin", f"at_{mid}", f"at_{hi}"],
               table),
        published="Fig. 9 (hard, M = 4, WSS 128K and 4K, caps 2.0-3.9): "
                  "G-EDF poor for light and heavy tasks at both WSSs; P-EDF "
                  "remarkably good when all tasks are light, the Pfair "
                  "algorithms significantly better than P-EDF otherwise; "
                  "Pfair gains more from a small WSS with light tasks. Fig. "
                  "10 (soft): P-EDF and PD2 as in Fig. 9; with light tasks "
                  "at 3.8 and WSS 128K, G-EDF and NG-EDF about 60 % and 90 % "
                  "above P-EDF; all heavy: P-EDF close to 0 %, the EDF "
                  "schemes above the Pfair ones. No C-EDF: the paper's "
                  "plugins are P-EDF, G-EDF, NG-EDF, PD2 and S-PD2.",
        differences=diff,
        files=["nst.csv", "overheads_used.csv", "reload.csv"]
        + [f for f in (kernel_overheads.OWN_CSV, kernel_overheads.OWN_RELOAD)
           if ov.boots and (outdir / f).exists()]
        + ["nst_hard.png", "nst_soft.png"])
