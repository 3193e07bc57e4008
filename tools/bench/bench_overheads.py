"""Kernel overheads against the task count N and the CPU count M (issue 9's
"Benchmarks"): one boot per (plugin, N, M) over a generated set of N spin
tasks, reading the kernel's RESULT overhead lines -- the context switch
(cxs), the boundary's interrupt (tick) and the plugin's decision (sched)
-- in nanoseconds and, through RESULT tsc khz, in cycles.

The sets: N tasks of e=1 quantum with periods drawn from a seeded generator
and stretched until the total utilisation is at most M/2 and no task's
above 1/2. That is admissible for every plugin: Pfair needs U <= M, GDQ
takes the same weights, global EDF's density test passes with U <= M/2 and
u_max <= 1/2 (U <= M - (M - 1) u_max), and first-fit decreasing always
partitions items of at most 1/2 totalling at most M/2 (every bin but the
last is more than half full before a new one opens), so pedf admits it,
and cedf in clusters of K CPUs too (each full cluster holds more than
K - 1/2); gfp admits U <= M.

Most runs are under -icount shift=3 (virtual time: the TSC runs at 1 GHz
and every instruction takes 8 ns, so a "cycle" there is an eighth of an
instruction -- deterministic for a build, free of host noise, but no
hardware's cycles); a few grid points also run under plain TCG, where the
TSC is the host's and the numbers include QEMU's own cost and the load of
the machine. The CSV's `timing` column says which. Under -icount the
TSC follows one instruction counter for the whole machine, so with several
CPUs a span's cycles also count what the other CPUs ran meanwhile (an
upper bound); the -icount boots also load the QEMU plugin
tools/qemu/insn_count.c and dump their trace, and `p50_insns`, `p99_insns`
and `max_insns` are the instructions of the CPU that ran each span alone
(tools/rtktrace/insns.py: tick, sched, cxs, and release from the start of
its tick; none for ipi, which spans two CPUs, nor under plain TCG). Global EDF plugins get `events=on` and `events=off` once the kernel
has that word (events: a boundary only at releases and completions; off: a
boundary every quantum); a kernel without it says `unknown word` and the
row says `quantum`, a boundary every quantum."""
import pathlib
import random
import sys

import workitems
from benchlib import print_table, pyplot, write_csv

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from rtktrace import dump as dumpmod, insns  # noqa: E402

NEEDS_ISO = True
ICOUNT = "shift=3,sleep=off"
# kernel/run/sched_run.c: MAX_TASKS.
MAX_TASKS = 256
EVENTS = ("tick", "sched", "cxs")
# The plugins that name their next event (events=on by default).
EDF_PLUGINS = ("gedf", "pedf", "ngedf", "cedf", "gfp")
# Room for 250 tasks (about 190 KiB each) and the trace.
MEMORY = "1G"

PLANS = {
    "smoke": dict(plugins=["gedf"], grid=[(10, 2)], tcg_grid=[], slots=30),
    "quick": dict(plugins=["spd2", "gdq", "gedf", "pedf", "ngedf"],
                  grid=[(10, 2), (50, 4)], tcg_grid=[], slots=40),
    "full": dict(plugins=["pd2", "spd2", "gdq", "gedf", "pedf", "ngedf"],
                 grid=[(n, m) for m in (2, 4, 8, 16)
                       for n in (10, 25, 50, 100, 150, 200, 250)],
                 tcg_grid=[(10, 2), (100, 4), (250, 8)], slots=200),
}

HEADERS = ["plugin", "cpus", "tasks", "util", "slots", "timing",
           "boundaries", "event", "n", "p50_ns", "p99_ns", "max_ns",
           "p50_cycles", "p99_cycles", "max_cycles", "tsc_khz",
           "boundary_missed", "p50_insns", "p99_insns", "max_insns"]
# The -icount boots' words beside the plugin: the trace's records, whose
# seqs the plugin's counts follow.
INSN_WORDS = "trace=events"


def insn_summary(boot):
    """{kind: (n, p50, p99, max)} of the per-CPU instructions of the boot's
    spans (tools/rtktrace/insns.py), or {} for a boot without the plugin's
    counts."""
    if not boot.marks:
        return {}
    runs = dumpmod.read(boot.serial)[0]
    if not runs:
        raise ValueError("a boot with the plugin's counts has no trace dump")
    return insns.summary(insns.span_insns(runs[-1],
                                          insns.read_marks(boot.marks)))


def task_set(n, m, seed):
    """N tasks of e=1 with total utilisation at most M/2, none above 1/2
    (see the module's docstring); returns (text, utilisation)."""
    if n > MAX_TASKS:
        raise SystemExit(f"bench_overheads: {n} tasks; the kernel takes at "
                         f"most {MAX_TASKS} (kernel/run/sched_run.c MAX_TASKS)")
    rng = random.Random(seed)
    base = max(2, -(-2 * n // m))
    periods = [max(2, rng.randint(base, 2 * base)) for _ in range(n)]
    while sum(1 / p for p in periods) > m / 2:
        periods = [p + 1 for p in periods]
    text = "".join(f"task T{i} e=1 p={p}\n" for i, p in enumerate(periods))
    return text, sum(1 / p for p in periods)


def boot_words(plugin):
    """The kernel words to try for a plugin: EDF in both modes."""
    if plugin in EDF_PLUGINS:
        return ["events=on", "events=off"]
    return [""]


def boundaries_of(serial, word):
    if word and f"unknown word '{word}'" in serial:
        return "quantum"
    if word == "events=on":
        return "events"
    return "quantum"


def cycles(ns, khz):
    return ns * khz // 1_000_000


def boot_item(plugin, n, m, slots, word, timing):
    """The work item of one boot of the set of N tasks on M CPUs."""
    text, _ = task_set(n, m, seed=1000 * m + n)
    words = " ".join(w for w in (f"sched={plugin}", f"slots={slots}", word)
                     if w)
    icount = timing == "icount"
    return workitems.boot_item(
        tasks=text, tasks_name=f"{plugin}-{n}-{m}.tasks",
        cmdline=words + (f" {INSN_WORDS}" if icount else ""),
        smp=m, icount=ICOUNT if icount else None, memory=MEMORY,
        timeout=600 + 6 * n + 20 * slots * m,
        label=f"{plugin} N={n} M={m} {timing}" + (f" {word}" if word
                                                    else ""),
        insn_count=icount)


def rows_of(boot, plugin, n, m, util, slots, timing, mode, events=EVENTS):
    """The boot's RESULT overhead lines of the given events as HEADERS
    rows (the experiments that boot the kernel read them the same way)."""
    khz = int(boot.result("tsc")["khz"])
    missed = int(boot.result("sched")["boundary_missed"])
    per_cpu = insn_summary(boot)
    rows = []
    for r in boot.results("overhead"):
        if r["event"] not in events:
            continue
        ns = [int(r[k]) for k in ("p50_ns", "p99_ns", "max_ns")]
        ins = per_cpu.get(r["event"])
        rows.append([plugin, m, n, round(util, 4), slots, timing, mode,
                     r["event"], int(r["n"]), *ns,
                     *(cycles(v, khz) for v in ns), khz, missed,
                     *(ins[1:] if ins else ("", "", ""))])
    return rows


def collect(plan):
    points = [(n, m, "icount") for n, m in plan["grid"]] + \
        [(n, m, "tcg") for n, m in plan["tcg_grid"]]
    runs = [(plugin, n, m, timing, word) for plugin in plan["plugins"]
            for n, m, timing in points for word in boot_words(plugin)]
    got = workitems.boots(boot_item(p, n, m, plan["slots"], w, t)
                          for p, n, m, t, w in runs)
    rows, no_events = [], set()
    for (plugin, n, m, timing, word), boot in zip(runs, got):
        if boot is None:
            continue
        mode = boundaries_of(boot.serial, word)
        # A kernel without events= ran every quantum both times: keep one.
        if word == "events=on" and mode == "quantum":
            no_events.add((plugin, n, m, timing))
        if word == "events=off" and (plugin, n, m, timing) in no_events:
            continue
        _, util = task_set(n, m, seed=1000 * m + n)
        rows += rows_of(boot, plugin, n, m, util, plan["slots"], timing,
                        mode)
    return rows


def curve(ax, pts, label):
    """p50 and max (cycles) of (x, p50, max) points."""
    pts = sorted(pts)
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
            label=f"{label} p50")
    ax.plot([p[0] for p in pts], [p[2] for p in pts], "x--",
            label=f"{label} max")


def plot(rows, outdir):
    plt = pyplot()
    rows = [r for r in rows if r[5] == "icount"]
    plugins = sorted({r[0] for r in rows})
    for event in EVENTS:
        fig, axes = plt.subplots(2, len(plugins),
                                 figsize=(4 * len(plugins), 7), squeeze=False)
        for j, plugin in enumerate(plugins):
            sel = [r for r in rows if r[0] == plugin and r[7] == event]
            for mode in sorted({r[6] for r in sel}):
                for m in sorted({r[1] for r in sel}):
                    curve(axes[0][j], [(r[2], r[12], r[14]) for r in sel
                                       if r[1] == m and r[6] == mode],
                          f"M={m} {mode}")
                ns = sorted({r[2] for r in sel if r[6] == mode})
                fixed = ns[len(ns) // 2] if ns else None
                curve(axes[1][j], [(r[1], r[12], r[14]) for r in sel
                                   if r[2] == fixed and r[6] == mode],
                      f"N={fixed} {mode}")
            axes[0][j].set_title(f"{plugin}: {event}")
            axes[0][j].set_xlabel("tasks N")
            axes[1][j].set_xlabel("CPUs M")
            for ax in axes[:, j]:
                ax.set_ylabel("cycles")
                ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(outdir / f"overheads_{event}.png", dpi=100)
        plt.close(fig)


def run(mode, outdir):
    plan = PLANS[mode]
    rows = collect(plan)
    write_csv(outdir / "overheads.csv", HEADERS, rows)
    table = [[r[0], r[5], r[6], r[1], r[2], r[7], r[8], r[12], r[13], r[14]]
             for r in rows]
    print_table(["plugin", "timing", "boundaries", "M", "N", "event", "n",
                 "p50_cyc", "p99_cyc", "max_cyc"], table,
                f"kernel overheads in TSC cycles (icount: -icount {ICOUNT}, "
                "a virtual 1 GHz TSC; tcg: the host's TSC)")
    plot(rows, outdir)
