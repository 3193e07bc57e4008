"""Bring-up benchmark (issue 15): how long the kernel takes to bring every
CPU online (RESULT smp bringup_us: from the first AP's start-up to the last
one's TSC handshake), for 1 to 128 CPUs on q35.

Under plain TCG the guest's TSC runs at the host's rate, so bringup_us is
host time, and it depends on what else the host runs: each row records the
host's load average when its boot started. Goals: 64 CPUs online in under
3 s and 128 in under 6 s, and time linear in the CPU count -- the table
gives the least-squares line through the medians and how far each count
lies from it. Under -icount (full mode) the time is virtual: it counts the
guest's instructions, not the host's load."""
import os
import pathlib
import statistics
import sys
import tempfile
import time

from benchlib import print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import make_iso, qemu  # noqa: E402
from workitems import ItemFailed, call_item, run_items  # noqa: E402

NEEDS_ISO = True
ICOUNT = "shift=3,sleep=off"
# The measurement after bring-up is not what is measured: a short one.
CMDLINE = "ticks=aligned slots=10"
GOALS_US = {64: 3_000_000, 128: 6_000_000}

COUNTS = [1, 2, 4, 8, 16, 32, 64, 96, 128]
PLANS = {
    "smoke": dict(cpus=[1, 4], boots=1, accels=["tcg"]),
    "quick": dict(cpus=COUNTS, boots=1, accels=["tcg"]),
    "full": dict(cpus=COUNTS, boots=3, accels=["tcg", "icount"]),
}


def boot_once(accel, cpus, k=0):
    """One boot's row tail (a work item): bring-up, skew, the host's load
    and the boot's wall time."""
    load1 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        iso = make_iso(pathlib.Path(tmp) / "bench.iso", cmdline=CMDLINE)
        start = time.monotonic()
        boot = qemu(iso, smp=cpus, machine="q35", memory="512M",
                    timeout=900, icount=ICOUNT if accel == "icount" else None)
        wall = time.monotonic() - start
    if not boot.passed:
        raise ItemFailed(f"boot failed ({accel}, {cpus} CPUs):\n"
                         f"{boot.tail()}")
    smp, tsc = boot.result("smp"), boot.result("tsc")
    if int(smp["cpus_online"]) != cpus:
        raise ItemFailed(f"{smp['cpus_online']} of {cpus} CPUs online:\n"
                         f"{boot.tail()}")
    return [int(smp["bringup_us"]), int(tsc["max_skew_cycles"]),
            round(load1, 2), round(wall, 2)]


def linear_fit(xs, ys):
    """Least squares y = a + b*x; returns a, b and R^2."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return a, b, 1 - ss_res / ss_tot if ss_tot else 1.0


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(a, c, k) for a in plan["accels"] for c in plan["cpus"]
              for k in range(plan["boots"])]
    got = run_items(
        call_item("tools/bench/bench_bringup.py", "boot_once",
                  dict(accel=a, cpus=c, k=k), boots=True, timed=a == "tcg",
                  label=f"bring-up {a} {c} CPUs #{k}")
        for a, c, k in points)
    rows = [[a, c, k, *g] for (a, c, k), g in zip(points, got)
            if g is not None]
    write_csv(outdir / "bringup.csv",
              ["accel", "cpus", "boot", "bringup_us", "skew_cycles",
               "host_load1", "wall_s"], rows)

    summary, fits = [], {}
    for accel in plan["accels"]:
        counts = sorted({r[1] for r in rows if r[0] == accel})
        med = {c: statistics.median(r[3] for r in rows
                                    if r[0] == accel and r[1] == c)
               for c in counts}
        fit = linear_fit(counts, [med[c] for c in counts]) \
            if len(counts) > 1 else None
        fits[accel] = fit
        for c in counts:
            sel = [r for r in rows if r[0] == accel and r[1] == c]
            line = fit[0] + fit[1] * c if fit else med[c]
            goal = GOALS_US.get(c)
            summary.append([
                accel, c, len(sel), round(med[c] / 1000, 1),
                round(max(r[3] for r in sel) / 1000, 1),
                round(med[c] / c / 1000, 2), round(line / 1000, 1),
                max(r[4] for r in sel), max(r[5] for r in sel),
                "" if goal is None or accel != "tcg" else
                ("met" if med[c] < goal else "missed")])
    sh = ["accel", "cpus", "boots", "median_ms", "max_ms", "ms_per_cpu",
          "fit_ms", "skew_cycles", "host_load1", "goal"]
    print_table(sh, summary, "bring-up: medians over boots (fit_ms: the "
                "least-squares line through the medians)")
    for accel, fit in fits.items():
        if fit:
            print(f"{accel}: bring-up = {fit[0] / 1000:.1f} ms + "
                  f"{fit[1] / 1000:.2f} ms per CPU, R^2 = {fit[2]:.3f}")
    print()
    write_csv(outdir / "bringup_summary.csv", sh, summary)

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for accel in plan["accels"]:
        sel = [r for r in rows if r[0] == accel]
        ax.plot([r[1] for r in sel], [r[3] / 1e6 for r in sel], "o",
                alpha=0.5, label=f"{accel} boots")
        fit = fits[accel]
        if fit:
            xs = [0, max(r[1] for r in sel)]
            ax.plot(xs, [(fit[0] + fit[1] * x) / 1e6 for x in xs], "--",
                    label=f"{accel} fit: {fit[1] / 1000:.1f} ms/CPU, "
                          f"R^2 {fit[2]:.2f}")
    for c, goal in GOALS_US.items():
        ax.plot([c], [goal / 1e6], "r_", markersize=20)
    ax.set_xlabel("CPUs (q35)")
    ax.set_ylabel("bring-up (s)")
    ax.set_title("AP bring-up time (red: the goals)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(outdir / "bringup.png", dpi=100)
