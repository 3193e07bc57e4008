"""The sporadic-server paper's Sec. 3 experiment in the kernel (issue 13):
the set of bench_servers.py -- one CPU, a server of budget 1 ms every
10 ms at the top priority over an hourglass task (work=hourglass, which
measures the CPU time it gets itself, as the paper's did), jobs of 8 us
arriving as a seeded Poisson stream -- booted under `sched=pfp` for each
policy and arrival rate, and the same sweep in the simulator with a
per-switch cost equal to the one the kernel showed.

One boot per (policy, rate), each on one CPU (-smp 1): the paper's machine
served the packets on the CPU they interrupted, and here CPU 0's timer
delivers the arrivals, so the server, the hourglass and the arrivals'
handling share one CPU as there. Servers of several policies on separate
CPUs of one boot would need fewer boots but not fewer host seconds
(QEMU runs the CPUs on 2 host cores under TCG, one after another under
-icount) and would put every server's arrival handling on CPU 0.

The kernel's cost per switch. With the server under SCHED_FIFO (budget
= period), every arrival preempts the hourglass: the arrival's interrupt,
the switch to the server, its completion's timer and the switch back.
The run's time that was neither the hourglass's (its own measurement) nor
the jobs' work (jobs x 8 us), `overhead_us`, is that cost; divided by the
run's segments (one switch each; RESULT sched segments=, the boots run
with `schedule=off`: a line per event over the serial port took most of
a boot's time at high rates) it is the cost per switch, `cxs_us`,
from the FIFO boots (ratio of their sums) -- the simulator's model, where
a switch does no work and everything else is work. The simulator's --cxs-us is that, rounded, and the toll of
the tolled policies is two of them (a preemption is two switches; the
paper's 10 us toll against 5-6 us lat_ctx), in the kernel and in the
simulator alike, so the FIFO boots come first.

Timing: plain TCG by default (the host's time and load: the numbers move
from run to run), -icount shift=3 (deterministic virtual time, 8 ns per
instruction) with SERVERS_TIMING=icount or --timing icount; smoke mode
runs under -icount unless told otherwise (the tests use it). The CSV's
`timing` column and the table's title say which."""
import argparse
import math
import os
import pathlib
import sys

from benchlib import print_table, pyplot, write_csv

import bench_servers as sim
import workitems

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

from harness import parse_event_schedule  # noqa: E402

NEEDS_ISO = True
ICOUNT = "shift=3,sleep=off"
SEED = 1
# The toll of the tolled policies, in kernel switches (see above).
TOLL_SWITCHES = 2

PLANS = {
    "smoke": dict(rates=[4000], ms=150, timing="icount",
                  policies=["fifo", "sporadic_toll", "hybrid_gradual"]),
    # What `make experiments` runs in its quick mode, whose budget of 15
    # minutes is shared with eleven other experiments: four rates across
    # the sweep's range, half a second each (24 boots, about 3 minutes).
    "lite": dict(rates=[500, 2000, 6000, 12000], ms=500, timing="tcg",
                 policies=list(sim.POLICIES)),
    "quick": dict(rates=[500, 1000, 2000, 4000, 6000, 8000, 12000], ms=1000,
                  timing="tcg", policies=list(sim.POLICIES)),
    "full": dict(rates=[250, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000,
                        4500, 5000, 5500, 6000, 7000, 8000, 9000, 10000,
                        11000, 12000], ms=10000, timing="tcg",
                 policies=list(sim.POLICIES)),
}

HEADERS = ["source", "timing", "policy", "rate_hz", "ms", "cxs_us",
           "toll_us", "arrivals", "jobs", "queued", "dropped",
           "response_mean_us", "response_max_us", "server_share",
           "hourglass_share", "interference", "switches", "overhead_us",
           "tolls", "exhaustions", "coalesces", "window_max_us",
           "window_bound_us", "window_verdict", "timer_late_max_ns", "tsc_mhz"]


def timing_of(mode, asked=None):
    timing = asked or os.environ.get("SERVERS_TIMING") or \
        PLANS[mode]["timing"]
    if timing not in ("tcg", "icount"):
        raise SystemExit(f"bench_servers_qemu: SERVERS_TIMING={timing!r}: "
                         "want tcg or icount")
    return timing


def parse_boot(boot):
    """One boot's numbers (the kernel's RESULT lines and its schedule's
    segments, docs/schedulers-event-driven.md, "The schedule format
    (microseconds)")."""
    _, _, _, summary = parse_event_schedule(boot.serial.splitlines())
    if "did not fit the" in boot.serial:
        raise SystemExit("bench_servers_qemu: the kernel's schedule was "
                         "cut short; its switches are not all counted")
    run = boot.result("sched")
    segments = int(run["segments"])
    task = boot.result("task")
    server = boot.result("server")
    window = boot.result("window")
    time_us = int(run["time_us"])
    got_h = int(task["self_us"])          # what the hourglass measured
    got_s = summary["servers"]["S"]["self_us"]   # the server thread's time
    # The work the jobs did: each completed one its cost (the head job's
    # part at the end is left out, at most one job's cost).
    overhead = time_us - got_h - int(server["jobs"]) * sim.COST_US
    mean = server["response_mean_us"]
    return dict(
        arrivals=int(server["arrivals"]), jobs=int(server["jobs"]),
        queued=int(server["queued"]), dropped=int(server["dropped"]),
        response_mean_us=float(mean) if mean != "none" else "",
        response_max_us=int(server["response_max_us"]),
        server_share=got_s / time_us, hourglass_share=got_h / time_us,
        interference=1 - got_h / time_us, switches=segments,
        overhead_us=overhead,
        tolls=int(server["tolls"]), exhaustions=int(server["exhaustions"]),
        coalesces=int(server["coalesces"]),
        window_max_us=int(window["max_us"]),
        window_bound_us=int(window["bound_us"]),
        window_verdict=window["verdict"],
        timer_late_max_ns=int(run["timer_late_max_ns"]),
        tsc_mhz=float(boot.result("tsc")["freq_mhz"]),
        machine=machine_line(boot))


def machine_line(boot):
    """The kernel's `boot:` line (firmware, and the hypervisor's
    signature: QEMU's TCG says TCGTCGTCGTCG)."""
    for line in boot.serial.splitlines():
        if line.startswith("boot: "):
            return line[len("boot: "):].strip()
    return "unknown"


def boot_item(policy, rate, ms, toll_us, timing):
    """The work item of the kernel's boot of one point's set."""
    # -icount runs about 40 host seconds a virtual one on a loaded host.
    return workitems.boot_item(
        tasks=sim.task_set(policy, rate, SEED, toll_us),
        tasks_name=f"{policy}_{rate}.tasks",
        cmdline=f"sched=pfp slots={ms} schedule=off", smp=1,
        icount=ICOUNT if timing == "icount" else None,
        timeout=180 + ms // 10, label=f"{policy} {rate}/s {timing}")


def boot_points(points, ms, toll_us, timing):
    """parse_boot of each (policy, rate) point's boot; a failed one ends
    the benchmark (the session has reported it)."""
    got = workitems.boots([boot_item(p, r, ms, toll_us, timing)
                           for p, r in points])
    for (policy, rate), b in zip(points, got):
        if b is None:
            raise SystemExit(f"bench_servers_qemu: the {policy} boot at "
                             f"{rate} arrivals/s ({timing}) failed twice "
                             "(above)")
    return {pt: parse_boot(b) for pt, b in zip(points, got)}


def sim_point(summ, window_ok):
    """The simulator's run of the set the kernel booted, with its switch
    cost (the same seed draws the same arrivals, lib/arrival.c), as a
    row's measures."""
    s, h, t = summ["servers"]["S"], summ["tasks"]["H"], summ["time_us"]
    return dict(
        arrivals=s["arrivals"], jobs=s["jobs"], queued=s["queued"],
        dropped=0, response_mean_us=s["response_mean_us"] or "",
        response_max_us=s["response_max_us"],
        server_share=s["run_us"] / t, hourglass_share=h["self_us"] / t,
        interference=1 - h["self_us"] / t, switches="",
        overhead_us=t - h["self_us"] - s["self_us"], tolls=s["tolls"],
        exhaustions=s["exhaustions"], coalesces=s["coalesces"],
        window_max_us=s["window_max_us"],
        window_bound_us=s["window_bound_us"],
        window_verdict="ok" if window_ok else "over", timer_late_max_ns="",
        tsc_mhz="")


def switch_cost(fifo_rows):
    """Microseconds per switch from the FIFO boots: the time that was
    neither the hourglass's nor the jobs' work, over the switches (ratio
    of sums)."""
    lost = sum(r["overhead_us"] for r in fifo_rows)
    switches = sum(r["switches"] for r in fifo_rows)
    if switches == 0:
        raise SystemExit("bench_servers_qemu: the FIFO boots made no "
                         "switch; no cost per switch to measure")
    return lost / switches


def row(source, timing, policy, rate, ms, cxs_us, toll_us, m):
    return [source, timing, policy, rate, ms, cxs_us, toll_us] + \
        [m[h] for h in HEADERS[7:]]


def run(mode, outdir, timing=None):
    plan = PLANS[mode]
    timing = timing_of(mode, timing)
    ms, rates = plan["ms"], plan["rates"]
    policies = ["fifo"] + [p for p in plan["policies"] if p != "fifo"]
    # The FIFO boots first: the tolled policies' toll is their cost per
    # switch.
    kernel = boot_points([("fifo", r) for r in rates], ms, 0, timing)
    cxs = switch_cost([kernel["fifo", r] for r in rates])
    cxs_int = max(1, round(cxs))
    toll = math.ceil(TOLL_SWITCHES * cxs)
    # The other policies' boots and every simulation in one batch.
    later = [(p, r) for p in policies[1:] for r in rates]
    sims = [(p, r) for p in policies for r in rates]
    items = ([boot_item(p, r, ms, toll, timing) for p, r in later]
             + [sim.sim_item(sim.task_set(p, r, SEED, toll), ms, cxs_int,
                             label=f"schedsim {p} {r}/s") for p, r in sims])
    out = workitems.run_items(items)
    for (policy, rate), r in zip(later, out):
        if r is None:
            raise SystemExit(f"bench_servers_qemu: the {policy} boot at "
                             f"{rate} arrivals/s ({timing}) failed twice "
                             "(above)")
        kernel[policy, rate] = parse_boot(workitems.as_boot(r))
    simulated = {}
    for pt, r in zip(sims, out[len(later):]):
        if r is None:
            raise SystemExit(f"bench_servers_qemu: the simulation of {pt} "
                             "failed twice (above)")
        simulated[pt] = sim_point(*sim.sim_result(r))
    rows = []
    for policy in policies:
        t = toll if "toll_us=" in sim.policy_words()[policy] else 0
        for rate in rates:
            rows.append(row("kernel", timing, policy, rate, ms,
                            round(cxs, 2), t, kernel[policy, rate]))
            rows.append(row("sim", "sim", policy, rate, ms, cxs_int, t,
                            simulated[policy, rate]))
    write_csv(outdir / "servers_qemu.csv", HEADERS, rows)
    show = ["source", "policy", "rate_hz", "response_mean_us",
            "server_share", "interference", "queued", "window_verdict"]
    idx = [HEADERS.index(h) for h in show]
    where = (f"-icount {ICOUNT}, virtual time" if timing == "icount" else
             "plain TCG, the host's time and load "
             f"(load average {os.getloadavg()[0]:.2f})")
    print_table(show, [[r[i] for i in idx] for r in rows],
                f"Aperiodic server in the kernel (QEMU {where}) and in the "
                f"simulator: budget {sim.BUDGET_US} us every {sim.PERIOD_US}"
                f" us over an hourglass, jobs of {sim.COST_US} us, {ms} ms a "
                f"point; the kernel's cost per switch {cxs:.1f} us "
                f"(simulated as {cxs_int} us), toll {toll} us")
    plot(rows, outdir, policies, timing)
    fifo = kernel["fifo", rates[0]]
    return dict(timing=timing, cxs_us=cxs, toll_us=toll, ms=ms,
                cost_us=sim.COST_US,
                machine=fifo["machine"], tsc_mhz=fifo["tsc_mhz"])


def plot(rows, outdir, policies, timing):
    plt = pyplot()
    col = {h: i for i, h in enumerate(HEADERS)}
    figures = [
        ("servers_qemu_response.png", "response_mean_us",
         "mean response (us)", "Response time (cf. Figs. 2, 6, 9, 10)", True),
        ("servers_qemu_share.png", "server_share", "server CPU share",
         "Server CPU share (cf. Fig. 3)", False),
        ("servers_qemu_interference.png", "interference",
         "time the hourglass lost", "Interference (cf. Figs. 3, 5)", False),
    ]
    cols = 3
    lines = math.ceil(len(policies) / cols)
    for name, key, ylabel, title, log in figures:
        fig, axes = plt.subplots(lines, cols, figsize=(11, 3.2 * lines),
                                 squeeze=False, sharey=True)
        for ax, policy in zip(axes.flat, policies):
            for source, style in (("kernel", "o-"), ("sim", "s--")):
                sel = [r for r in rows if r[col["source"]] == source
                       and r[col["policy"]] == policy
                       and r[col[key]] != ""]
                label = f"kernel ({timing})" if source == "kernel" else \
                    f"simulator (cxs {sel[0][col['cxs_us']]} us)" if sel \
                    else "simulator"
                ax.plot([r[col["rate_hz"]] for r in sel],
                        [r[col[key]] for r in sel], style, markersize=3,
                        label=label)
            if not log:
                ax.axhline(sim.BUDGET_US / sim.PERIOD_US, color="grey",
                           linestyle=":", label="budget / period")
            else:
                ax.set_yscale("log")
            ax.set_title(policy, fontsize=9)
            ax.set_xlabel("arrival rate (jobs/s)", fontsize=8)
            ax.set_ylabel(ylabel, fontsize=8)
            ax.legend(fontsize=6)
        for ax in list(axes.flat)[len(policies):]:
            ax.set_visible(False)
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(outdir / name, dpi=100)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=list(PLANS), default="quick")
    ap.add_argument("--timing", choices=["tcg", "icount"])
    ap.add_argument("--out", default=str(ROOT / "build" / "bench" /
                                         "servers_qemu"))
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    run(args.mode, out, args.timing)


if __name__ == "__main__":
    main()
