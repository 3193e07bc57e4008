"""The quantum clock at scale (issue 15 item 4): the boundary error at 16,
64 and 128 CPUs on q35 -- the aligned clock's spread of one boundary across
the CPUs and the staggered clock's deviation from each CPU's ideal time
T0 + i*Q + k*Q/M --, and the boundaries missed, from the self-measurement
(RESULT ticks), under plain TCG and -icount; with `sched=gedf` (full mode)
the same while a global scheduler decides every slot for all M CPUs.

Under -icount the virtual clock advances with the instructions of every
CPU, which QEMU runs one at a time, so the error grows with M as each CPU
waits its turn in QEMU's round robin: that is the emulator, and the TCG
rows (host time) say what the kernel costs."""
import os
import pathlib
import random
import statistics
import sys
import tempfile

from benchlib import print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import make_iso, qemu  # noqa: E402
from workitems import ItemFailed, call_item, run_items  # noqa: E402

NEEDS_ISO = True
ICOUNT = "shift=3,sleep=off"

PLANS = {
    "smoke": dict(cpus=[4], boots=1, slots=50, accels=["tcg"],
                  scheds=[None]),
    "quick": dict(cpus=[16, 64, 128], boots=1, slots=200,
                  accels=["tcg", "icount"], scheds=[None]),
    "full": dict(cpus=[16, 64, 128], boots=3, slots=1000,
                 accels=["tcg", "icount"], scheds=[None, "gedf"]),
}
# Under sched=: a quantum every CPU's share of QEMU's round robin can
# handle at 128 CPUs under -icount (see tests/boot/test_sched_scale.py).
SCHED_QUANTUM_US = 10000


def task_set(cpus):
    """Periodic tasks worth about half the CPUs, drawn with a fixed seed."""
    rng = random.Random(cpus)
    lines = []
    for i in range(cpus):
        p = rng.choice([2, 3, 4, 5, 6, 8, 10])
        lines.append(f"task T{i} e={rng.randint(1, p - 1)} p={p}")
    return "\n".join(lines) + "\n"


def boot_once(sched, accel, cpus, k, slots):
    """One boot's rows (a work item): its RESULT ticks lines and the host's
    load when it began (plain TCG's numbers are host time)."""
    load1 = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        if sched is None:
            iso = make_iso(tmp / "clock.iso", cmdline=f"slots={slots}")
        else:
            (tmp / f"{cpus}.tasks").write_text(task_set(cpus))
            iso = make_iso(tmp / f"{sched}-{cpus}.iso",
                           cmdline=f"sched={sched} slots={slots} "
                                   f"quantum_us={SCHED_QUANTUM_US}",
                           tasks=tmp / f"{cpus}.tasks")
        boot = qemu(iso, smp=cpus, machine="q35", memory="512M",
                    timeout=1800,
                    icount=ICOUNT if accel == "icount" else None)
    if not boot.passed:
        raise ItemFailed(f"boot failed ({accel}, {cpus} CPUs):\n"
                         f"{boot.tail()}")
    return [[sched or "none", accel, cpus, k, t["mode"],
             int(t["quantum_us"]), int(t["missed"]), float(t["err_p50_us"]),
             float(t["err_p99_us"]), float(t["err_max_us"]), load1]
            for t in boot.results("ticks")]


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(sched, accel, cpus, k) for sched in plan["scheds"]
              for cpus in plan["cpus"] for accel in plan["accels"]
              for k in range(plan["boots"])]
    got = run_items(
        call_item("tools/bench/bench_clock_scale.py", "boot_once",
                  dict(sched=sched, accel=accel, cpus=cpus, k=k,
                       slots=plan["slots"]),
                  boots=True, timed=accel == "tcg",
                  label=f"clock {sched or 'none'} {accel} {cpus} CPUs #{k}")
        for sched, accel, cpus, k in points)
    rows = [r for g in got if g is not None for r in g]
    headers = ["sched", "accel", "cpus", "boot", "ticks", "quantum_us",
               "missed", "err_p50_us", "err_p99_us", "err_max_us",
               "host_load1"]
    write_csv(outdir / "clock_scale.csv", headers, rows)

    summary = []
    for key in sorted({(r[0], r[1], r[4], r[2]) for r in rows}):
        sel = [r for r in rows if (r[0], r[1], r[4], r[2]) == key]
        summary.append([*key, len(sel), sum(r[6] for r in sel),
                        statistics.median(r[7] for r in sel),
                        statistics.median(r[8] for r in sel),
                        max(r[9] for r in sel), max(r[10] for r in sel)])
    sh = ["sched", "accel", "ticks", "cpus", "boots", "missed", "p50_us",
          "p99_us", "max_us", "host_load1"]
    print_table(sh, summary, "boundary error (aligned: spread across the "
                "CPUs; staggered: deviation from the ideal), medians over "
                "boots; max_us the worst boot")
    write_csv(outdir / "clock_scale_summary.csv", sh, summary)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, tmode in zip(axes, ["aligned", "staggered"]):
        for sched in plan["scheds"]:
            for accel in plan["accels"]:
                sel = [s for s in summary if s[0] == (sched or "none")
                       and s[1] == accel and s[2] == tmode]
                label = f"{accel}" + (f", sched={sched}" if sched else "")
                ax.plot([s[3] for s in sel], [s[7] for s in sel], "o-",
                        label=f"{label} p99")
                ax.plot([s[3] for s in sel], [s[6] for s in sel], "x--",
                        label=f"{label} p50")
        ax.set_title("aligned: spread across CPUs" if tmode == "aligned"
                     else "staggered: deviation from ideal")
        ax.set_xlabel("CPUs (q35)")
        ax.set_ylabel("us")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(outdir / "clock_scale.png", dpi=100)
