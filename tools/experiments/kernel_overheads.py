"""The overheads the schedulability experiments (litmus_schedulability,
litmus_rnp) inflate execution costs with, as this kernel measured them: per
plugin, the scheduling decision (sched), the context switch (cxs), the
boundary's interrupt (tick) and a release (release) in ns as a function of
the task count N, and the reload cost of one preemption or migration in us
as a function of the working-set size.

The statistic is the worst case: each event's `max_ns` (LITMUS^RT Sec. 4.1
estimates worst-case costs -- "our method accounts for the worst-case costs
that could be incurred during any quantum" -- and a hard-real-time test
needs the largest cost a job can pay). The paper's Figs. 4(b) and 4(c) give
the costs against the task-set size, so they are looked up at each set's
N; its costs are those of a four-CPU machine whatever M the test asks
about (Sec. 4.2), so rows measured on 4 CPUs are used when there are any.
The reload: RESULT reload keeps totals only, so per WSS it is a window's
mean cost, the larger of preemption and migration (the paper found
migrations dearer; the tests charge one reload for either).

Between measured points the value is interpolated linearly; beyond them it
is extrapolated along the line through the two nearest points (one point:
that value everywhere), and never below 0 (the paper: costs scale linearly
with WSS; the decision grows with N).

Where each number comes from, first that has it:
 (a) RTK_OVERHEADS_LOG=console.log: the maxima of that boot's RESULT
     overhead lines, the same for every plugin and N;
 (b) the litmus_overheads experiment's overheads.csv and reload.csv in the
     same output root (run.py runs it first);
 (c) boots made here for what (a) and (b) lack (kernel_runs.overhead_boot
     per missing plugin, writer boots for a missing reload), written to the
     experiment's own directory as kernel_overheads.csv and
     kernel_reload.csv.
RTK_OVERHEADS=host (an explicit opt-in) uses the old host-timed decision
costs and the host's cache reload instead; the sections say so loudly.

Units: overheads.csv's `*_ns` are the kernel's own conversion of TSC
cycles with the boot's RESULT tsc khz; reload.csv has TSC cycles and the
boot's `tsc_mhz`, so us = cycles / tsc_mhz."""
import bisect
import collections
import os
import pathlib

import common
from benchlib import write_csv

# The schedulability tests' names of the kernel's plugins. gfp is not
# among them: LITMUS^RT has no fixed-priority plugin and no test for one,
# so its figures have no curve to set a G-FP one beside (litmus_overheads
# measures its overheads all the same).
PLUGIN_OF = {"P-EDF": "pedf", "C-EDF": "cedf", "G-EDF": "gedf",
             "NG-EDF": "ngedf", "PD2": "pd2", "S-PD2": "spd2"}
# CPUs per cluster of the C-EDF curve (on M = 4: two clusters of 2), and
# the kernel words every overhead boot of a plugin adds, so that cedf's
# costs are those of the clusters the test assumes.
CEDF_CLUSTER = 2
WORDS = {"cedf": f"cluster={CEDF_CLUSTER}"}
EVENTS = ("sched", "cxs", "tick", "release")
STAT = "max_ns"
PAPER_M = 4          # LITMUS^RT's testbed: four CPUs
OWN_CSV = "kernel_overheads.csv"
OWN_RELOAD = "kernel_reload.csv"

# What inflating one set with one plugin's test needs, all in us.
Costs = collections.namedtuple("Costs", "sched cxs tick release reload")


def interp(points, x):
    """y at x of [(x, y)] points: linear between the two neighbours, along
    the nearest segment beyond the ends, constant for one point; never
    below 0."""
    pts = sorted(points)
    if not pts:
        raise ValueError("no points to interpolate")
    if len(pts) == 1:
        return max(0.0, float(pts[0][1]))
    xs = [p[0] for p in pts]
    k = min(max(bisect.bisect_left(xs, x), 1), len(pts) - 1)
    (x0, y0), (x1, y1) = pts[k - 1], pts[k]
    return max(0.0, y0 + (y1 - y0) * (x - x0) / (x1 - x0))


class Overheads:
    """events: {(kernel plugin, event): [(N, ns)]} ('*' as the plugin: the
    same for every plugin); reload: [(WSS KB, us)]; sources: what each part
    came from, for the report."""

    def __init__(self, events, reload, sources, host=False):
        self.events = events
        self.sources = sources
        self.host = host
        self.boots = []
        self.set_reload(None, reload)

    def set_reload(self, timing, points):
        """points: [(WSS KB, us)] as measured; a negative one (the window
        cheaper than the steady lines: noise, no cost) counts as 0.
        timing: icount or tcg, for the report."""
        self.reload_timing = timing
        self.reload = [(w, max(0.0, us)) for w, us in points]
        self.negative = sum(1 for _, us in points if us < 0)

    def points(self, plugin, event):
        return self.events.get((plugin, event), self.events.get(("*", event)))

    def ns(self, plugin, event, n):
        """plugin: a kernel plugin name (pd2, ...); 0 for an event the
        kernel does not trace under it (describe says which)."""
        pts = self.points(plugin, event)
        return 0.0 if pts is None else interp(pts, n)

    def reload_us(self, wss_kb):
        return interp(self.reload, wss_kb)

    def costs(self, plugin, n, wss_kb):
        """The Costs of a set of n tasks under a schedulability plugin name
        (P-EDF, ...) at a working-set size in KB."""
        k = PLUGIN_OF[plugin]
        return Costs(*(self.ns(k, e, n) / 1000 for e in EVENTS),
                     self.reload_us(wss_kb))

    def describe(self, plugins, ns, wss):
        """The numbers used, for the report: per plugin and event the ns at
        each N of ns, the reload at each WSS."""
        parts = []
        for p in plugins:
            k = PLUGIN_OF[p]
            ev = "; ".join(
                f"{e} " + ("/".join(f"{self.ns(k, e, n):.0f}" for n in ns)
                           if self.points(k, e) else "none traced, 0")
                for e in EVENTS)
            parts.append(f"{p} ({ev})")
        return (f"ns at the sets' smallest/median/largest N = "
                f"{'/'.join(map(str, ns))}: " + ", ".join(parts)
                + "; reload per preemption or migration "
                + ", ".join(f"{w} KB {self.reload_us(w):.2f} us"
                            for w in wss)
                + (f" ({self.negative} of the {len(self.reload)} measured "
                   "WSSs came out negative, a window cheaper than the "
                   "steady lines, and count as 0)" if self.negative else ""))


# ---------------------------------------------------------------- sources

def from_log(path):
    """{('*', event): [(1, max_ns)]} from a console log's RESULT overhead
    lines: no N or plugin is known, so the same everywhere."""
    import kernel_runs  # noqa: F401 (puts tests/boot on the path)
    from harness import Boot
    try:
        text = pathlib.Path(path).read_text(errors="replace")
    except OSError as e:
        raise SystemExit(f"RTK_OVERHEADS_LOG={path}: {e.strerror}")
    out = {("*", r["event"]): [(1, int(r[STAT]))]
           for r in Boot(0, text, False).results("overhead")
           if r.get("event") in EVENTS}
    if not {("*", "sched"), ("*", "cxs")} <= set(out):
        raise SystemExit(f"RTK_OVERHEADS_LOG={path}: no 'RESULT overhead "
                         "event=sched' and 'event=cxs' lines (boot with "
                         "trace=events)")
    return out


def need(rows, cols, path):
    """A CSV without rows or without the columns read is named, not a
    KeyError."""
    if not rows:
        raise SystemExit(f"{path}: no rows")
    missing = set(cols) - set(rows[0])
    if missing:
        raise SystemExit(f"{path}: no column {', '.join(sorted(missing))}")


def events_of_rows(rows, path):
    """{(plugin, event): [(N, worst max_ns)]} from overheads.csv rows
    (bench_overheads.HEADERS as strings), only the -icount ones and, where
    a plugin has them, only those on PAPER_M CPUs; and {plugin: (cpus,
    tsc_khz set)} saying what was used."""
    need(rows, ("plugin", "cpus", "tasks", "timing", "event", STAT,
                "tsc_khz"), path)
    rows = [r for r in rows if r["timing"] == "icount"]
    used = {}
    for plugin in sorted({r["plugin"] for r in rows}):
        mine = [r for r in rows if r["plugin"] == plugin]
        cpus = {int(r["cpus"]) for r in mine}
        m = PAPER_M if PAPER_M in cpus else max(cpus)
        used[plugin] = (m, sorted({int(r["tsc_khz"]) for r in mine
                                   if int(r["cpus"]) == m}))
    worst = {}
    for r in rows:
        if int(r["cpus"]) != used[r["plugin"]][0] or r["event"] not in EVENTS:
            continue
        try:
            key = (r["plugin"], r["event"], int(r["tasks"]))
            worst[key] = max(worst.get(key, 0), int(r[STAT]))
        except (KeyError, ValueError):
            raise SystemExit(f"{path}: a row without an integer tasks or "
                             f"{STAT}: {r}")
    events = {}
    for (p, e, n), v in sorted(worst.items()):
        events.setdefault((p, e), []).append((n, v))
    return events, used


def reload_of_rows(rows, path):
    """(timing, [(WSS KB, us)]) from reload.csv rows: the -icount rows if
    any (the clock of the overheads), else the plain TCG ones; per WSS the
    larger of a preemption's and a migration's mean cost."""
    need(rows, ("timing", "ws_bytes", "preempt_cycles", "migrate_cycles",
                "tsc_mhz"), path)
    timings = {r["timing"] for r in rows}
    timing = "icount" if "icount" in timings else "tcg"
    pts = []
    for r in rows:
        if r["timing"] != timing:
            continue
        cyc = [float(r[k]) for k in ("preempt_cycles", "migrate_cycles")
               if r[k] != ""]
        if not cyc:
            continue
        mhz = float(r["tsc_mhz"])
        if mhz <= 0:
            raise SystemExit(f"{path}: tsc_mhz {r['tsc_mhz']} in {r}")
        pts.append((int(r["ws_bytes"]) / 1024, max(cyc) / mhz))
    return timing, pts


def rows_used(used, plugins, events):
    """What rows of an overheads.csv were read, for the report."""
    by = {}
    for p in sorted(plugins):
        m, khz = used[p]
        by.setdefault((m, tuple(khz)), []).append(p)
    ns = sorted({n for (p, _), pts in events.items() if p in plugins
                 for n, _ in pts})
    return (f"{STAT} of the -icount rows, N = {'/'.join(map(str, ns))}, "
            + "; ".join(f"{', '.join(ps)} on {m} CPUs, TSC "
                        f"{'/'.join(str(k) for k in khz)} kHz"
                        for (m, khz), ps in by.items()))


def timing_text(timing):
    """What a number of this timing means."""
    if timing == "icount":
        return ("-icount (virtual time: 8 ns per instruction, so these are "
                "instruction counts, free of the host's load, no cache)")
    return ("plain TCG (the host's TSC: QEMU's software TLB refill and its "
            "own work, no cache)")


def shown(path, lo):
    """path as the report names it: relative to the output root (where
    REPORT.md's links start), not this machine's absolute path."""
    return path.relative_to(lo.parent).as_posix()


def load(mode, outdir, plugins):
    """The Overheads for plugins (schedulability names) of an experiment
    run in mode writing to outdir (outdir.parent is the output root)."""
    choice = os.environ.get("RTK_OVERHEADS", "kernel")
    if choice == "host":
        return None
    if choice != "kernel":
        raise SystemExit(f"RTK_OVERHEADS={choice}: expected 'kernel' (the "
                         "default) or 'host'")
    want = {PLUGIN_OF[p] for p in plugins}
    events, sources, reload = {}, [], None
    log = os.environ.get("RTK_OVERHEADS_LOG")
    if log:
        events = from_log(log)
        sources.append(f"sched, cxs, tick and release: the maxima of {log}'s "
                       "RESULT overhead lines, for every plugin and N")
        want = set()
    lo = outdir.parent / "litmus_overheads"
    if want and (lo / "overheads.csv").exists():
        path = lo / "overheads.csv"
        got, used = events_of_rows(common.read_csv(path), path)
        have = {p for p, _ in got} & want
        events.update({k: v for k, v in got.items() if k[0] in have})
        if have:
            sources.append(f"sched, cxs, tick and release of "
                           f"{', '.join(sorted(have))}: {shown(path, lo)} ("
                           + rows_used(used, have, got) + ")")
        want -= have
    if (lo / "reload.csv").exists():
        path = lo / "reload.csv"
        timing, pts = reload_of_rows(common.read_csv(path), path)
        if pts:
            reload = pts
            sources.append(f"reload: {shown(path, lo)}, "
                           f"{timing_text(timing)}")
    ov = Overheads(events, [], sources)
    if reload:
        ov.set_reload(timing, reload)
    if want or reload is None:
        boot_missing(ov, mode, outdir, sorted(want), reload is None)
    return ov


def boot_missing(ov, mode, outdir, plugins, need_reload):
    """(c): the litmus_overheads experiment's boots, for the plugins and
    the reload missing, on its plan for the mode."""
    import registry
    from kernel_runs import boot_item, boots, overhead_item, overhead_rows
    lo = registry.load("litmus_overheads")
    plan = lo.PLANS[mode]
    m = plan["cpus"]
    points = [(plugin, n) for plugin in plugins for n in plan["n"]]
    timing = "icount" if "icount" in plan["reload_timings"] else "tcg"
    wss = plan["wss"] if need_reload else []
    # One batch: the same items as litmus_overheads' (the cache has them
    # when it ran with the same kernel).
    done = boots([overhead_item(p, n, m, plan["slots"], WORDS.get(p, ""))
                  for p, n in points]
                 + [boot_item(lo.writer_set(m, ws),
                              f"sched=gedf slots={plan['reload_slots']}", m,
                              icount=timing == "icount",
                              label=f"writers {ws // 1024} KB M={m} {timing}")
                    for ws in wss])
    rows = []
    for (plugin, n), b in zip(points, done):
        if b is not None:
            ov.boots.append(b)
            rows += overhead_rows(b, plugin, n, m, plan["slots"], EVENTS)
    if plugins:
        path = outdir / OWN_CSV
        write_csv(path, lo.overheads.HEADERS, rows)
        got, used = events_of_rows(common.read_csv(path), path)
        ov.events.update(got)
        ov.sources.append(
            f"sched, cxs, tick and release of {', '.join(plugins)}: booted "
            f"here ({len(plugins) * len(plan['n'])} boots; {OWN_CSV}; "
            + rows_used(used, set(plugins), got) + ")")
    if need_reload:
        rrows = []
        for ws, b in zip(wss, done[len(points):]):
            if b is not None:
                ov.boots.append(b)
                rrows.append(lo.reload_row(b, timing, m, ws))
        path = outdir / OWN_RELOAD
        write_csv(path, lo.RELOAD_HEADERS, rrows)
        ov.set_reload(*reload_of_rows(common.read_csv(path), path))
        if not ov.reload:
            raise SystemExit(f"{path}: no writer was dispatched again, so "
                             "no reload was timed")
        ov.sources.append(f"reload: booted here ({len(plan['wss'])} boots, "
                          f"{timing_text(timing)}; {OWN_RELOAD})")
