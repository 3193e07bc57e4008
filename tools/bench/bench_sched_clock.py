"""The quantum clock while a scheduler runs in the kernel (`sched=`): how
many boundaries were missed and how far the serviced ones were from their
ideal time, per scheduler and CPU count, under plain TCG and -icount. Every
CPU takes its turn in boundary order, so this is the cost of that
serialisation on top of the bare clock of the boot benchmark."""
import statistics

from benchlib import print_table, pyplot, write_csv

import bench_boot
import workitems

ROOT = bench_boot.ROOT
NEEDS_ISO = True

PLANS = {
    "smoke": dict(scheds=["spd2"], cpus=[2], boots=1, slots=100,
                  accels=["tcg"]),
    "quick": dict(scheds=["spd2", "pd2", "gedf", "gdq"], cpus=[2, 4],
                  boots=1, slots=1000, accels=["tcg", "icount"]),
    "full": dict(scheds=["spd2", "pd2", "gedf", "pedf", "gdq"],
                 cpus=[2, 4, 8], boots=3, slots=5000,
                 accels=["tcg", "icount"]),
}


def boot_item(sched, accel, cpus, k, slots):
    """The work item of one boot over tasks/default.tasks."""
    return workitems.boot_item(
        tasks=(ROOT / "tasks" / "default.tasks").read_text(),
        tasks_name="default.tasks",
        cmdline=f"sched={sched} slots={slots}", smp=cpus, timeout=600,
        icount=bench_boot.ICOUNT if accel == "icount" else None, rep=k,
        label=f"{sched} {accel} {cpus} CPUs #{k}")


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(sched, accel, cpus, k) for sched in plan["scheds"]
              for accel in plan["accels"] for cpus in plan["cpus"]
              for k in range(plan["boots"])]
    got = workitems.boots(boot_item(*p, plan["slots"]) for p in points)
    rows = []
    for (sched, accel, cpus, k), boot in zip(points, got):
        if boot is None:
            continue
        t = boot.result("ticks")
        rows.append([sched, accel, cpus, k, t["mode"],
                     int(t["quanta"]) * cpus, int(t["missed"]),
                     float(t["err_p50_us"]), float(t["err_p99_us"]),
                     float(t["err_max_us"])])
    headers = ["sched", "accel", "cpus", "boot", "ticks", "boundaries",
               "missed", "err_p50_us", "err_p99_us", "err_max_us"]
    write_csv(outdir / "sched_clock.csv", headers, rows)
    summary = []
    for key in sorted({tuple(r[:3]) for r in rows}):
        sel = [r for r in rows if tuple(r[:3]) == key]
        summary.append([*key, sel[0][4], len(sel),
                        sum(r[6] for r in sel), sum(r[5] for r in sel),
                        statistics.median(r[7] for r in sel),
                        statistics.median(r[8] for r in sel),
                        max(r[9] for r in sel)])
    print_table(["sched", "accel", "cpus", "ticks", "boots", "missed",
                 "of", "p50_us", "p99_us", "max_us"], summary,
                "the quantum clock under each scheduler (medians over boots)")
    write_csv(outdir / "sched_clock_summary.csv",
              ["sched", "accel", "cpus", "ticks", "boots", "missed",
               "boundaries", "p50_us", "p99_us", "max_us"], summary)

    plt = pyplot()
    fig, axes = plt.subplots(1, len(plan["accels"]), figsize=(10, 4),
                             squeeze=False)
    for ax, accel in zip(axes[0], plan["accels"]):
        for sched in plan["scheds"]:
            sel = [x for x in summary if x[0] == sched and x[1] == accel]
            ax.plot([x[2] for x in sel], [x[8] for x in sel], "o-",
                    label=f"{sched} p99")
        ax.set_title(f"{accel}: boundary error under sched=")
        ax.set_xlabel("CPUs")
        ax.set_ylabel("us")
        ax.legend()
    fig.tight_layout()
    fig.savefig(outdir / "sched_clock.png", dpi=100)
