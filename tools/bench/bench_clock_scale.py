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

from benchlib import ensure_iso, print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import make_iso, qemu  # noqa: E402

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


def task_set(path, cpus):
    """Periodic tasks worth about half the CPUs, drawn with a fixed seed."""
    rng = random.Random(cpus)
    lines = []
    for i in range(cpus):
        p = rng.choice([2, 3, 4, 5, 6, 8, 10])
        lines.append(f"task T{i} e={rng.randint(1, p - 1)} p={p}")
    path.write_text("\n".join(lines) + "\n")
    return path


def iso_for(tmp, sched, cpus, slots):
    if sched is None:
        return make_iso(tmp / "clock.iso", cmdline=f"slots={slots}")
    return make_iso(tmp / f"{sched}-{cpus}.iso",
                    cmdline=f"sched={sched} slots={slots} "
                            f"quantum_us={SCHED_QUANTUM_US}",
                    tasks=task_set(tmp / f"{cpus}.tasks", cpus))


def boot_once(iso, accel, cpus):
    """The boot's RESULT ticks lines and the host's load when it began
    (plain TCG's numbers are host time)."""
    load1 = round(os.getloadavg()[0], 2)
    boot = qemu(iso, smp=cpus, machine="q35", memory="512M", timeout=1800,
                icount=ICOUNT if accel == "icount" else None)
    if not boot.passed:
        raise SystemExit(f"boot failed ({accel}, {cpus} CPUs):\n"
                         f"{boot.tail()}")
    return boot.results("ticks"), load1


def run(mode, outdir):
    plan = PLANS[mode]
    ensure_iso()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for sched in plan["scheds"]:
            for cpus in plan["cpus"]:
                iso = iso_for(tmp, sched, cpus, plan["slots"])
                for accel in plan["accels"]:
                    for k in range(plan["boots"]):
                        ticks, load1 = boot_once(iso, accel, cpus)
                        for t in ticks:
                            rows.append([
                                sched or "none", accel, cpus, k, t["mode"],
                                int(t["quantum_us"]), int(t["missed"]),
                                float(t["err_p50_us"]),
                                float(t["err_p99_us"]),
                                float(t["err_max_us"]), load1])
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
