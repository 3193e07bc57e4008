"""Boot benchmark (issue 2): over several boots each, AP bring-up time for
2, 4 and 8 CPUs; TSC calibration -- how long it took, the disagreement
between methods, and its error against the rate QEMU gives the guest's TSC
(the host's own under plain TCG, measured around each boot; 1 GHz of
virtual time under -icount, issue 10 item 3) --; the aligned spread and
staggered deviation percentiles, under plain TCG and under -icount."""
import pathlib
import statistics
import sys
import tempfile

from benchlib import print_table, pyplot, write_csv
from workitems import ItemFailed, call_item, run_items

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import (host_tsc_mhz, icount_tsc_mhz, make_iso,  # noqa: E402
                     qemu, tsc_error_ppm)

NEEDS_ISO = True
ICOUNT_SHIFT = 3
ICOUNT = f"shift={ICOUNT_SHIFT},sleep=off"

PLANS = {
    "smoke": dict(cpus=[2], boots=1, slots=100, accels=["tcg"]),
    "quick": dict(cpus=[2, 4, 8], boots=3, slots=1000,
                  accels=["tcg", "icount"]),
    "full": dict(cpus=[2, 4, 8], boots=10, slots=5000,
                 accels=["tcg", "icount"]),
}


def point(accel, cpus, k, slots):
    """One boot's rows (a work item): plain TCG reads the host's TSC rate
    around the boot, the reference of the kernel's calibration."""
    icount = accel == "icount"
    ref = icount_tsc_mhz(ICOUNT_SHIFT) if icount else host_tsc_mhz()
    with tempfile.TemporaryDirectory() as tmp:
        iso = make_iso(pathlib.Path(tmp) / "bench.iso",
                       cmdline=f"slots={slots}")
        boot = qemu(iso, smp=cpus, icount=ICOUNT if icount else None,
                    timeout=600)
    if not icount:
        ref = (ref + host_tsc_mhz()) / 2
    if not boot.passed:
        raise ItemFailed(f"boot failed ({accel}, {cpus} CPUs):\n"
                         f"{boot.tail()}")
    smp, tsc = boot.result("smp"), boot.result("tsc")
    return [[accel, cpus, k, int(smp["bringup_us"]),
             float(tsc["freq_mhz"]), tsc["method"],
             int(tsc["disagree_ppm"]), int(tsc.get("calib_us", -1)),
             int(tsc["max_skew_cycles"]), t["mode"], int(t["missed"]),
             float(t["err_p50_us"]), float(t["err_p99_us"]),
             float(t["err_max_us"]), round(ref, 3),
             round(tsc_error_ppm(tsc, ref), 2)]
            for t in boot.results("ticks")]


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(a, c, k) for a in plan["accels"] for c in plan["cpus"]
              for k in range(plan["boots"])]
    got = run_items(
        call_item("tools/bench/bench_boot.py", "point",
                  dict(accel=a, cpus=c, k=k, slots=plan["slots"]),
                  boots=True, timed=a == "tcg",
                  files=["build/host/host_tsc_mhz-fast"],
                  label=f"boot {a} {c} CPUs #{k}")
        for a, c, k in points)
    rows = [r for g in got if g is not None for r in g]
    headers = ["accel", "cpus", "boot", "bringup_us", "tsc_mhz", "method",
               "disagree_ppm", "calib_us", "skew_cycles", "mode", "missed",
               "err_p50_us", "err_p99_us", "err_max_us", "tsc_ref_mhz",
               "tsc_err_ppm"]
    write_csv(outdir / "boot.csv", headers, rows)

    # One line per (accel, cpus, mode): medians over the boots.
    summary = []
    keys = sorted({(r[0], r[1], r[9]) for r in rows})
    for accel, cpus, tmode in keys:
        sel = [r for r in rows if (r[0], r[1], r[9]) == (accel, cpus, tmode)]
        med = lambda i: statistics.median(r[i] for r in sel)  # noqa: E731
        summary.append([accel, cpus, tmode, len(sel), med(3), med(6), med(7),
                        max(r[7] for r in sel), max(abs(r[15]) for r in sel),
                        med(8), sum(r[10] for r in sel), med(11), med(12),
                        max(r[13] for r in sel)])
    sh = ["accel", "cpus", "ticks", "boots", "bringup_us", "disagree_ppm",
          "calib_us", "calib_max_us", "tsc_err_max_ppm", "skew_cycles",
          "missed", "p50_us", "p99_us", "max_us"]
    print_table(sh, summary, "medians over boots (calib_max_us, "
                "tsc_err_max_ppm -- the TSC against QEMU's rate -- and "
                "max_us: the worst boot)")
    write_csv(outdir / "boot_summary.csv", sh, summary)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, tmode in zip(axes, ["aligned", "staggered"]):
        for accel in plan["accels"]:
            sel = [s for s in summary if s[0] == accel and s[2] == tmode]
            ax.plot([s[1] for s in sel], [s[12] for s in sel], "o-",
                    label=f"{accel} p99")
            ax.plot([s[1] for s in sel], [s[11] for s in sel], "x--",
                    label=f"{accel} p50")
        ax.set_title(f"{tmode}: boundary error")
        ax.set_xlabel("CPUs")
        ax.set_ylabel("us")
        ax.legend()
    fig.tight_layout()
    fig.savefig(outdir / "boot_ticks.png", dpi=100)
