"""Arrival interrupt delay (issue 13 item 4, docs/interrupts.md): how long
after an aperiodic arrival's time its HPET comparator interrupt reaches the
handler, measured by the kernel's self-check `irqcheck=hpet` in main-counter
ticks (from the comparator's count to the handler's read of the counter).

One Poisson stream of 2000 arrivals a second, on q35 (comparator 0 on I/O
APIC input 23) and pc (the legacy replacement route, input 2), with the
interrupt routed to CPU 0 and to CPU 1 of two; under plain TCG (the host's
time and load: the HPET is QEMU's virtual clock, which follows the host)
and under -icount (virtual time: the delay is instructions, free of the
host's load). The table gives percentiles of the delay; `lat_cdf.png` the
distributions."""
import os
import pathlib
import sys
import tempfile

from benchlib import print_table, pyplot, save_plot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import make_iso, qemu  # noqa: E402
from workitems import ItemFailed, call_item, run_items  # noqa: E402

NEEDS_ISO = True
RATE_HZ = 2000
ICOUNT = "shift=3,sleep=off"

PLANS = {
    "smoke": dict(ms=50, machines=["q35"], timings=["icount"], cpus=[0]),
    "quick": dict(ms=1000, machines=["q35", "pc"], timings=["icount", "tcg"],
                  cpus=[0, 1]),
    "full": dict(ms=10000, machines=["q35", "pc"],
                 timings=["icount", "tcg"], cpus=[0, 1]),
}

HEADERS = ["machine", "route", "timing", "cpu", "arrivals", "p50_ns",
           "p99_ns", "max_ns", "host_load"]

TASKS = ("server S kind=sporadic budget=100 period=1000 prio=0\n"
         f"arrivals S rate_hz={RATE_HZ} cost_us=1 seed=1\n")


def percentile(sorted_values, q):
    """The nearest-rank percentile of an ascending list."""
    k = max(0, -(-len(sorted_values) * q // 100) - 1)
    return sorted_values[min(k, len(sorted_values) - 1)]


def one(machine, timing, cpu, ms):
    """One boot (a work item): its row and the sorted delays."""
    with tempfile.TemporaryDirectory() as tmp:
        tasks = pathlib.Path(tmp) / "irq.tasks"
        tasks.write_text(TASKS)
        iso = make_iso(pathlib.Path(tmp) / "irq.iso", tasks=tasks,
                       cmdline=f"irqcheck=hpet slots={ms} irq_cpu={cpu}")
        boot = qemu(iso, smp=2, machine=machine, timeout=300 + ms // 20,
                    icount=ICOUNT if timing == "icount" else None)
    if not boot.passed:
        raise ItemFailed(f"bench_irq: the {machine} {timing} boot failed:\n"
                         f"{boot.tail()}")
    delays = sorted(int(a["delay_ns"]) for a in boot.results("irqarrival"))
    summary = boot.result("irqcheck")
    row = [machine, summary["route"], timing, cpu, len(delays),
           percentile(delays, 50), percentile(delays, 99), delays[-1],
           round(os.getloadavg()[0], 2)]
    return row, delays


def run(mode, outdir):
    plan = PLANS[mode]
    points = [(machine, timing, cpu) for machine in plan["machines"]
              for timing in plan["timings"] for cpu in plan["cpus"]]
    got = run_items(
        call_item("tools/bench/bench_irq.py", "one",
                  dict(machine=machine, timing=timing, cpu=cpu,
                       ms=plan["ms"]),
                  boots=True, timed=timing == "tcg",
                  label=f"irq {machine} {timing} cpu{cpu}")
        for machine, timing, cpu in points)
    rows, curves = [], []
    for (machine, timing, cpu), g in zip(points, got):
        if g is not None:
            rows.append(g[0])
            curves.append((f"{machine} {timing} cpu{cpu}", g[1]))
    print_table(HEADERS, rows, title=f"HPET arrival interrupt delay "
                f"({RATE_HZ} arrivals/s, {plan['ms']} ms per boot)")
    write_csv(outdir / "irq.csv", HEADERS, rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, delays in curves:
        n = len(delays)
        ax.step([d / 1000 for d in delays], [(i + 1) / n for i in range(n)],
                where="post", label=label)
    save_plot(plt, fig, ax, outdir / "lat_cdf.png", "interrupt delay (us)",
              "fraction of arrivals", logx=True)
