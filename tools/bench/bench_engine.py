"""What the work-item engine gains (issue 26): `make experiments`' run of
every experiment, timed side by side in one run of this benchmark --

- sequential: the items in the driver's process one after another, the
  experiments one after another, nothing cached (how it ran before Dask);
- the local Dask cluster with 1 .. every core, each from a cold (empty)
  cache: the speed-up against the number of workers;
- the same with every core again over the cache the cold run filled (a
  rerun with nothing changed).

Each configuration is a run of tools/experiments/run.py into its own
directory; the CSV has its wall time, its items (from the cache, computed,
failed) and the speed-up over the sequential run. Smoke mode times the
tiny mode of one host experiment (seconds: the tests check the
benchmark works), quick and full the experiments' quick mode (about ten
minutes a configuration on an unloaded 2-core machine, so forty or more
in all), or their tiny mode with ENGINE_EXP_MODE=tiny."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

from benchlib import print_table, pyplot, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

PLANS = {
    "smoke": dict(mode="tiny", exp="gdq_error"),
    "quick": dict(mode="quick", exp=None),
    "full": dict(mode="quick", exp=None),
}
HEADERS = ["config", "workers", "cache", "wall_s", "items", "cached",
           "computed", "failed", "item_s", "speedup", "host_load1", "cpus"]
TOTALS = re.compile(r"work items: (\d+) in all, (\d+) from the cache, "
                    r"(\d+) computed, (\d+) failed")
# A computed item's progress line: "  exp: label: 12.3 s | ..."
ITEM = re.compile(r"^  \S+: .*: ([\d.]+) s(?: on \S+)? \| ", re.M)


def configs(cores):
    """(name, workers, cache): sequential, every core cold and then warm,
    then 1 .. cores - 1 cold (the first three are the comparison that
    matters; a run stopped early has them)."""
    return ([("sequential", 0, "off"), (f"dask {cores} cold", cores, "cold"),
             (f"dask {cores} warm", cores, "warm")]
            + [(f"dask {w} cold", w, "cold") for w in range(1, cores)])


def one(plan, workers, cache, tmp, log):
    """A run of tools/experiments/run.py: (wall seconds, its item totals,
    the sum of its computed items' own times -- which grows when items
    running side by side slow each other down, as on a machine whose
    cores are busy with other work)."""
    cmd = [sys.executable, str(ROOT / "tools/experiments/run.py"),
           "--mode", plan["mode"],
           "--out", str(tmp / f"out-{workers}-{cache}"),
           "--workers", str(workers)]
    cmd += (["--no-cache"] if cache == "off" else
            ["--cache", str(tmp / ("cache-warm" if cache == "warm"
                                   else f"cache-{workers}"))])
    if plan["exp"]:
        cmd += ["--exp", plan["exp"]]
    start = time.monotonic()
    with open(log, "w") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    text = pathlib.Path(log).read_text()
    m = TOTALS.search(text)
    if proc.returncode or not m:
        raise SystemExit(f"bench_engine: {' '.join(cmd)} failed; the end "
                         "of its output:\n" + text[-3000:])
    return wall, [int(g) for g in m.groups()], sum(
        float(x) for x in ITEM.findall(text))


def run(mode, outdir):
    plan = dict(PLANS[mode])
    # ENGINE_EXP_MODE=tiny times the experiments' tiny mode instead (a
    # machine too loaded for hours of quick mode).
    plan["mode"] = os.environ.get("ENGINE_EXP_MODE") or plan["mode"]
    if plan["mode"] not in ("tiny", "quick", "full"):
        raise SystemExit(f"bench_engine: ENGINE_EXP_MODE={plan['mode']!r}: "
                         "want tiny, quick or full")
    cores = os.cpu_count()
    if plan["mode"] != "tiny":
        # release_latency's Linux, fetched once before anything is timed.
        import bench_latency
        try:
            bench_latency.build_linux(bench_latency.cyclic_args(500))
        except (RuntimeError, OSError) as e:
            print(f"bench_engine: no Linux for release_latency ({e})")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for name, workers, cache in configs(cores):
            if cache == "warm":
                # The cold run's cache with every core, copied: the warm
                # run reads it.
                subprocess.run(["cp", "-a", str(tmp / f"cache-{workers}"),
                                str(tmp / "cache-warm")], check=True)
            load1 = round(os.getloadavg()[0], 2)
            log = outdir / f"{name.replace(' ', '_')}.log"
            print(f"bench_engine: {name} ...", flush=True)
            wall, (items, cached, computed, failed), item_s = one(
                plan, workers, cache, tmp, log)
            rows.append([name, workers, cache, round(wall, 1), items, cached,
                         computed, failed, round(item_s, 1),
                         round(rows[0][3] / wall, 2) if rows else 1.0, load1,
                         cores])
            print(f"bench_engine: {name}: {wall:.1f} s, {items} items "
                  f"({cached} from the cache)", flush=True)
            # After each: a run stopped early keeps what it measured.
            write_csv(outdir / "engine.csv", HEADERS, rows)
    print_table(HEADERS, rows, f"make experiments ({plan['mode']} mode"
                + (f", {plan['exp']} only" if plan["exp"] else "")
                + f") on this host's {cores} CPUs; host_load1: the load "
                  "average when the configuration began")
    plot(rows, outdir, plan)


def plot(rows, outdir, plan):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].bar(range(len(rows)), [r[3] for r in rows])
    axes[0].set_xticks(range(len(rows)))
    axes[0].set_xticklabels([r[0] for r in rows], fontsize=8, rotation=20)
    axes[0].set_ylabel("wall time (s)")
    axes[0].set_title(f"make experiments, {plan['mode']} mode")
    cold = sorted((r for r in rows if r[2] == "cold"), key=lambda r: r[1])
    axes[1].plot([r[1] for r in cold], [r[9] for r in cold], "o-",
                 label="measured (cold cache)")
    axes[1].plot([r[1] for r in cold], [r[1] for r in cold], ":",
                 color="grey", label="linear")
    axes[1].set_xticks([r[1] for r in cold])
    axes[1].set_xlabel("workers (cores of the local cluster)")
    axes[1].set_ylabel("speed-up over sequential")
    axes[1].set_title("speed-up against workers")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(outdir / "engine.png", dpi=100)
    plt.close(fig)
