"""The sporadic-server paper's experiment (Sec. 3), in the simulator: one
CPU; an aperiodic server of budget 1 ms every 10 ms at the top priority
(max_repl 100) serving small jobs that arrive as a Poisson stream; below it
an hourglass task that takes every microsecond it can get; a context
switch costs CXS_US microseconds, charged to the thread switched to. For
each policy and arrival rate: the jobs' mean response time (Figs. 2, 6, 9,
10), the server's CPU share (Fig. 3) and the time the hourglass lost,
its interference (Fig. 5), next to the 10 % the server's budget allows.

The policies: SCHED_FIFO (a server whose budget is its whole period, so it
never runs out), polling, sporadic without and with a toll per preemption
(Sec. 3.1), and the hybrids that coalesce replenishments under overload
immediately or gradually (Sec. 3.3). Runs build/host/schedsim-fast."""
import json
import pathlib

import workitems
from benchlib import print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SIM = ROOT / "build" / "host" / "schedsim-fast"

BUDGET_US, PERIOD_US = 1000, 10000
COST_US = 8          # the paper's packets take 2-10 us each
CXS_US = 5           # lat_ctx measured 5-6 us on the paper's machine
TOLL_US = 10         # the toll the paper charged (Sec. 3.1)

def policy_words(toll_us=TOLL_US):
    """Each policy's server words; toll_us: the toll per preemption of the
    tolled sporadic server and the hybrids."""
    return {
        "fifo": f"kind=sporadic budget={PERIOD_US} period={PERIOD_US} "
                "max_repl=4096",
        "polling": f"kind=polling budget={BUDGET_US} period={PERIOD_US}",
        "sporadic": f"kind=sporadic budget={BUDGET_US} period={PERIOD_US} "
                    "max_repl=100",
        "sporadic_toll": f"kind=sporadic budget={BUDGET_US} "
                         f"period={PERIOD_US} max_repl=100 toll_us={toll_us}",
        "hybrid_immediate": f"kind=hybrid budget={BUDGET_US} "
                            f"period={PERIOD_US} max_repl=100 "
                            f"toll_us={toll_us} coalesce=immediate",
        "hybrid_gradual": f"kind=hybrid budget={BUDGET_US} period={PERIOD_US} "
                          f"max_repl=100 toll_us={toll_us} coalesce=gradual",
    }


POLICIES = policy_words()

PLANS = {
    "smoke": dict(rates=[1000, 6000], ms=200, seeds=[1]),
    "quick": dict(rates=[250, 500, 1000, 2000, 3000, 4000, 5000, 6000,
                         7000, 8000, 10000, 12000], ms=2000, seeds=[1]),
    "full": dict(rates=[250, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000,
                        4500, 5000, 5500, 6000, 7000, 8000, 9000, 10000,
                        11000, 12000], ms=10000, seeds=[1, 2, 3]),
}


def task_set(policy, rate, seed, toll_us=TOLL_US):
    # The hourglass: one job as long as the run, always ready.
    return (f"task H e=1000000 p=1000000 prio=9 work=hourglass\n"
            f"server S {policy_words(toll_us)[policy]} prio=0\n"
            f"arrivals S rate_hz={rate} cost_us={COST_US} seed={seed}\n")


def sim_item(text, ms, cxs_us=CXS_US, label=None):
    """A work item: the simulator over a set's text (exit 3: a window
    over its bound, which the summary reports)."""
    return workitems.program_item(
        "schedsim-fast", ["--sched", "pfp", "--cpus", "1", "--slots", ms,
                          "--quantum-us", "1000", "--cxs-us", cxs_us,
                          "--summary-only", "{dir}/set.tasks"],
        inputs={"set.tasks": text}, check=False,
        label=label or f"schedsim pfp {ms} ms, cxs {cxs_us} us")


def sim_result(out):
    """(summary, window ok) of a sim_item's result."""
    if out["returncode"] not in (0, 3):
        raise RuntimeError(out["stderr"])
    return json.loads(out["stdout"].splitlines()[-1])["summary"], \
        out["returncode"] == 0


def simulate(path, ms, cxs_us=CXS_US):
    out = workitems.run_items([sim_item(pathlib.Path(path).read_text(), ms,
                                        cxs_us)])[0]
    if out is None:
        raise SystemExit("bench_servers: the simulation failed twice")
    return sim_result(out)


def measure(summaries):
    """A point's row: the mean over its seeds' (summary, window ok)."""
    rows = []
    for summ, window_ok in summaries:
        s, h, t = summ["servers"]["S"], summ["tasks"]["H"], summ["time_us"]
        rows.append(dict(
            arrivals=s["arrivals"], completed=s["jobs"], queued=s["queued"],
            response=s["response_mean_us"] or 0.0,
            p99=s.get("response_p99_us", 0), share=s["run_us"] / t,
            hourglass=h["self_us"] / t, tolls=s["tolls"],
            exhaustions=s["exhaustions"], coalesces=s["coalesces"],
            window=s["window_max_us"], window_ok=window_ok))
    avg = {k: sum(r[k] for r in rows) / len(rows)
           for k in rows[0] if k != "window_ok"}
    avg["window"] = max(r["window"] for r in rows)
    avg["window_ok"] = all(r["window_ok"] for r in rows)
    return avg


def run(mode, outdir):
    plan = PLANS[mode]
    headers = ["policy", "rate_hz", "cxs_us", "arrivals", "completed", "queued",
               "response_mean_us", "response_p99_us", "server_share",
               "hourglass_share", "interference", "tolls", "exhaustions",
               "coalesces", "window_max_us", "window_ok"]
    points = [(policy, rate, seed) for policy in POLICIES
              for rate in plan["rates"] for seed in plan["seeds"]]
    out = workitems.run_items(
        [sim_item(task_set(policy, rate, seed), plan["ms"],
                  label=f"{policy} {rate}/s seed {seed}")
         for policy, rate, seed in points])
    got = {}
    for (policy, rate, _), o in zip(points, out):
        if o is not None:
            got.setdefault((policy, rate), []).append(sim_result(o))
    rows = []
    for policy in POLICIES:
        for rate in plan["rates"]:
            if (policy, rate) not in got:
                continue
            m = measure(got[policy, rate])
            rows.append([policy, rate, CXS_US, m["arrivals"],
                         m["completed"],
                         m["queued"], m["response"], m["p99"],
                         m["share"], m["hourglass"], 1 - m["hourglass"],
                         m["tolls"], m["exhaustions"], m["coalesces"],
                         m["window"], int(m["window_ok"])])
    write_csv(outdir / "servers.csv", headers, rows)
    print_table(["policy", "rate_hz", "response_mean_us", "server_share",
                 "interference", "queued"],
                [[r[0], r[1], r[6], r[8], r[10], r[5]] for r in rows],
                f"Aperiodic server, budget {BUDGET_US} us every {PERIOD_US} "
                f"us, jobs of {COST_US} us, {CXS_US} us per context switch "
                f"(sporadic-server paper, Figs. 2, 3, 5, 6, 9, 10); the "
                f"budget allows {BUDGET_US / PERIOD_US:.0%}")
    plot(rows, outdir)


def plot(rows, outdir):
    plt = pyplot()
    figures = [
        ("servers_response.png", 6, "mean response time (us)",
         "Response time (cf. Figs. 2, 6, 9, 10)", True),
        ("servers_share.png", 8, "server CPU share",
         "Server CPU utilisation (cf. Fig. 3)", False),
        ("servers_interference.png", 10, "time lost by the hourglass task",
         "Interference below the server (cf. Figs. 3, 5)", False),
    ]
    for name, col, ylabel, title, log in figures:
        fig, ax = plt.subplots(figsize=(7, 4))
        for policy in POLICIES:
            sel = [r for r in rows if r[0] == policy]
            ax.plot([r[1] for r in sel], [r[col] for r in sel], "o-",
                    label=policy, markersize=3)
        if not log:
            ax.axhline(BUDGET_US / PERIOD_US, color="grey", linestyle=":",
                       label="budget / period")
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("arrival rate (jobs/s)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(outdir / name, dpi=100)
        plt.close(fig)
