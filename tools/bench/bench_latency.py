"""Release latency (issue 9's "Benchmarks"): from a job's release to its
task's first instruction, in our kernel and, for comparison, Linux
PREEMPT_RT's cyclictest, both in QEMU TCG with -smp 2.

Ours: partitioned EDF on 2 CPUs, one work=latency task per CPU (e=1 p=2
d=1: a 2 ms period, each job due a quantum after its release -- density
1, so first fit puts the two on different CPUs; with d=p both fitted on
CPU 0 and the second waited behind the first), plain TCG like Linux. Each task measures itself (user/
latency.c): the TSC its first instruction after sleep_next_period reads,
minus the new job's release -- the ideal quantum boundary, so a late timer
interrupt counts -- and the kernel prints RESULT task lat_n, lat_avg_ns,
lat_max_ns from its control page.

Linux: Debian's linux-image-rt-amd64 kernel, busybox-static and rt-tests
(cyclictest, with the shared libraries it needs taken from their Debian
packages), fetched with apt-get download and booted from an initramfs built
here (cached under build/bench/linux-rt/). cyclictest -m -p 99 -i 2000
-S (a SCHED_FIFO thread per CPU, each pinned, clock_nanosleep to absolute
times): the time from the programmed wake-up to the thread running -- the
same start (a timer's intended expiry) and the same end (the measuring
thread's first instruction) as ours, the same period and about the same
number of samples per thread. Like cyclictest's threads ours do no
work between samples. What differs: Linux's timer is a one-shot hrtimer at
the exact wake-up time, ours the quantum boundary, where the scheduler also
decides; cyclictest's thread reads the clock with clock_gettime, ours with
RDTSC.

Ours also runs, in each timing and as many times, with ahead_us=AHEAD_US:
each
boundary's interrupt that long before the boundary, its work (the release,
the decision, the switch) done by then and the return to ring 3 held until
the boundary (docs/platform.md, "Boundaries taken ahead"). The path is as
long as without it; only where it lies against the release moves.

Both sides also run under -icount (virtual time, free of the host's
load). Linux gets through its SMP bring-up there only when the machine is
stopped and continued now and then (NUDGE_S, below), and its numbers then
vary from run to run; ours are the same every run. Under plain TCG each
side runs `reps` times, in turn, with the host's load average in the CSV:
every comparison is given as its spread over the runs, never one draw
(latency_spread.csv, latency_ratio.csv).

Without the packages (no network, no apt) the benchmark says why and
reports our side only; smoke mode never fetches them (the parsing of
cyclictest's output is tested on a recorded sample)."""
import hashlib
import os
import pathlib
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import print_table, write_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "boot"))

import workitems  # noqa: E402

NEEDS_ISO = True
CACHE = ROOT / "build" / "bench" / "linux-rt"
PERIOD_US = 2000
# The Debian packages the Linux side boots from; the kernel image is the
# meta-package's dependency.
PACKAGES = ["linux-image-rt-amd64", "busybox-static", "rt-tests"]
CMDLINE = "console=ttyS0 panic=-1 rdinit=/init"

ICOUNT = "shift=3,sleep=off"
# ahead_us= for the runs that take their boundaries early: more than the
# longest path measured without it (42 us here, 93 us for the 50 tasks on
# 4 CPUs of the release_latency experiment, both under -icount), a sixth
# of the 1 ms quantum.
AHEAD_US = 150

# reps: plain TCG follows the host's clock and load, so each side runs
# that many times there, one of ours and one of Linux's in turn, and the
# spread is reported (never one draw); -icount is the same every time.
PLANS = {
    "smoke": dict(samples=50, linux=False, timings=["icount"], reps=1),
    "quick": dict(samples=1000, linux=True, timings=["icount", "tcg"],
                  reps=3),
    "full": dict(samples=10000, linux=True, timings=["icount", "tcg"],
                 reps=5),
}

HEADERS = ["system", "timing", "threads", "period_us", "samples", "min_ns",
           "avg_ns", "max_ns", "host_load", "rep"]
SPREAD_HEADERS = ["system", "timing", "runs", "avg_min_ns", "avg_median_ns",
                  "avg_max_ns", "max_min_ns", "max_median_ns", "max_max_ns"]


def spread(runs):
    """runs [(system, timing, avg_ns, max_ns)], one per boot: per system
    and timing (in the order first seen) the number of runs and the
    least, median (nearest rank below) and largest of their averages and
    of their maxima, as SPREAD_HEADERS."""
    groups = {}
    for system, timing, avg, mx in runs:
        groups.setdefault((system, timing), []).append((avg, mx))
    out = []
    for (system, timing), v in groups.items():
        avgs, maxes = [a for a, _ in v], [m for _, m in v]
        out.append([system, timing, len(v),
                    min(avgs), statistics.median_low(avgs), max(avgs),
                    min(maxes), statistics.median_low(maxes), max(maxes)])
    return out


def ratios_by_rep(ours, theirs):
    """Linux's over ours, run by run: ours and theirs {rep: (avg_ns,
    max_ns)}; [[rep, "avg" or "max", ratio]] for each rep both have, and
    the spread of each statistic's ratios as [["min" / "median" / "max",
    statistic, ratio]]."""
    per = []
    for rep in sorted(set(ours) & set(theirs)):
        for k, stat in enumerate(("avg", "max")):
            per.append([rep, stat, theirs[rep][k] / max(ours[rep][k], 1)])
    summary = []
    for stat in ("avg", "max"):
        v = [r[2] for r in per if r[1] == stat]
        if v:
            summary += [["min", stat, min(v)],
                        ["median", stat, statistics.median_low(v)],
                        ["max", stat, max(v)]]
    return per, summary


def ratios_by_timing(ours, theirs):
    """ratios_by_rep for each timing of ours and theirs ({timing: {rep:
    (avg_ns, max_ns)}}): ([[timing, rep, statistic, ratio]], {timing: its
    spread}). Ours under -icount is the same every run: its one run is set
    against each of Linux's."""
    rows, spreads = [], {}
    for timing in ("icount", "tcg"):
        mine, other = ours.get(timing, {}), theirs.get(timing, {})
        if timing == "icount" and 0 in mine:
            mine = {rep: mine[0] for rep in other}
        per, summary = ratios_by_rep(mine, other)
        rows += [[timing, rep, stat, round(x, 3)] for rep, stat, x in per]
        if summary:
            spreads[timing] = summary
    return rows, spreads


def in_turn(*sides):
    """One run of each side, and so on: every side's runs under plain TCG
    meet the same host."""
    return [x for turn in zip(*sides) for x in turn]

CYCLIC_LINE = re.compile(
    r"T:\s*(\d+)\s*\(\s*\d+\)\s*P:\s*(\d+)\s*I:\s*(\d+)\s*C:\s*(\d+)\s*"
    r"Min:\s*(\d+)\s*Act:\s*(\d+)\s*Avg:\s*(\d+)\s*Max:\s*(\d+)")


def parse_cyclictest(text):
    """cyclictest's per-thread summary lines (microseconds) as dicts; the
    console may prefix them with other output."""
    out = []
    for m in CYCLIC_LINE.finditer(text):
        t, prio, interval, count, lo, _, avg, hi = (int(g) for g in m.groups())
        out.append(dict(thread=t, prio=prio, interval_us=interval,
                        count=count, min_us=lo, avg_us=avg, max_us=hi))
    return out


def combine_cyclictest(threads):
    """One row over the threads: the average weighted by samples."""
    n = sum(t["count"] for t in threads)
    if not threads or n == 0:
        raise ValueError("cyclictest printed no thread with samples")
    avg = sum(t["avg_us"] * t["count"] for t in threads) / n
    return dict(samples=n, min_ns=1000 * min(t["min_us"] for t in threads),
                avg_ns=round(1000 * avg),
                max_ns=1000 * max(t["max_us"] for t in threads))


def combine_ours(tasks):
    """RESULT task lat_* of the measuring tasks as one row."""
    tasks = [t for t in tasks if int(t["lat_n"])]
    n = sum(int(t["lat_n"]) for t in tasks)
    if n == 0:
        raise ValueError("no task measured a release latency")
    total = sum(int(t["lat_avg_ns"]) * int(t["lat_n"]) for t in tasks)
    return dict(samples=n, min_ns="", avg_ns=round(total / n),
                max_ns=max(int(t["lat_max_ns"]) for t in tasks))


def system_name(ahead_us):
    """The system column of our rows."""
    return f"rtk ahead_us={ahead_us}" if ahead_us else "rtk"


def ours_item(samples, timing, hourglass="off", rep=0, ahead_us=0):
    """The work item of one boot of our measuring tasks (the experiments
    read its platform too). Idle CPUs halt (hourglass=off), as Linux's do:
    an idle vCPU that spins in the hourglass keeps its host thread busy,
    and on a host with fewer free cores than busy threads QEMU's own
    thread, which fires the guest's timers, waits behind it -- measured
    here under plain TCG at a load average of 2.5 on 2 cores: 186 ms
    average latency and 831 missed boundaries with the hourglass, 3 ms and
    8 halting. ahead_us: boundaries taken that early (0: at their time)."""
    slots = (samples + 1) * PERIOD_US // 1000
    return workitems.boot_item(
        tasks=(f"task L0 e=1 p={PERIOD_US // 1000} d=1 work=latency\n"
               f"task L1 e=1 p={PERIOD_US // 1000} d=1 work=latency\n"),
        tasks_name="latency.tasks",
        cmdline=f"sched=pedf slots={slots} hourglass={hourglass}"
                + (f" ahead_us={ahead_us}" if ahead_us else ""), smp=2,
        timeout=600 + slots // 10,
        icount=ICOUNT if timing == "icount" else None, rep=rep,
        label=f"latency {timing} hourglass={hourglass}, {samples} samples"
              + (f", ahead_us={ahead_us}" if ahead_us else "")
              + (f", run {rep + 1}" if rep else ""))


def run_quiet(cmd, cwd=None):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: "
                           f"{(proc.stderr or proc.stdout).strip()[-400:]}")
    return proc.stdout


def download(names, into):
    """Debian packages by name into `into` (cached); returns their paths."""
    into.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        have = sorted(into.glob(f"{name}_*.deb"))
        if not have:
            run_quiet(["apt-get", "download", name], cwd=into)
            have = sorted(into.glob(f"{name}_*.deb"))
        if not have:
            raise RuntimeError(f"apt-get download {name} left no .deb")
        out.append(have[-1])
    return out


def depends(deb):
    """Package names from a .deb's Depends field (alternatives: the
    first)."""
    field = run_quiet(["dpkg-deb", "-f", str(deb), "Depends"])
    return [d.split("|")[0].split("(")[0].strip()
            for d in field.split(",") if d.strip()]


def needed(elf):
    out = run_quiet(["readelf", "-d", str(elf)])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def interpreter(elf):
    out = run_quiet(["readelf", "-l", str(elf)])
    m = re.search(r"Requesting program interpreter: ([^\]]+)\]", out)
    return m.group(1) if m else None


def find_lib(stage, name):
    for d in ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64",
              "usr/lib", "lib"):
        p = stage / d / name
        if p.exists():
            return p
    raise RuntimeError(f"no {name} in the extracted packages")


INIT = f"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo CYCLICTEST-BEGIN
cyclictest @ARGS@
echo CYCLICTEST-END rc=$?
poweroff -f
"""


def cpio_newc(root, out):
    """The initramfs: every file under root as a newc cpio archive."""
    def entry(f, name, mode, data, ino):
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0))
        f.write(hdr.encode() + name.encode() + b"\0")
        f.write(b"\0" * ((4 - (110 + len(name) + 1) % 4) % 4))
        f.write(data)
        f.write(b"\0" * ((4 - len(data) % 4) % 4))
    with open(out, "wb") as f:
        ino = 1
        for p in sorted(root.rglob("*")):
            rel = str(p.relative_to(root))
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(p).encode()
            elif stat.S_ISDIR(st.st_mode):
                data = b""
            else:
                data = p.read_bytes()
            entry(f, rel, st.st_mode, data, ino)
            ino += 1
        entry(f, "TRAILER!!!", 0, b"", 0)


def cyclic_args(loops, threads=None, interval_us=PERIOD_US):
    """cyclictest's arguments: `loops` samples a thread, every
    `interval_us`, all threads at SCHED_FIFO 99 and the same interval
    (-d 0); one thread per CPU bound to it (-S), or `threads` threads
    left to the scheduler to place."""
    per = "-S" if threads is None else f"-t {threads}"
    return f"-m -p 99 -i {interval_us} -d 0 -l {loops} -q {per}"


def initrd_path(args):
    """The cached initramfs running cyclictest with `args`: its name
    changes with INIT and the arguments, so an older one is never taken
    for it."""
    tag = hashlib.sha256((INIT + args).encode()).hexdigest()[:10]
    return CACHE / f"initramfs-{tag}.cpio"


def build_linux(args):
    """(vmlinuz, initramfs) for cyclictest with `args`, cached."""
    initrd = initrd_path(args)
    vmlinuz = CACHE / "vmlinuz"
    if initrd.exists() and vmlinuz.exists():
        return vmlinuz, initrd
    debs_dir = CACHE / "debs"
    debs = download(PACKAGES, debs_dir)
    image = download([d for d in depends(debs[0])
                      if d.startswith("linux-image-")], debs_dir)
    libs = download([d for d in depends(debs[2]) if d.startswith("lib")],
                    debs_dir)
    stage = CACHE / "stage"
    shutil.rmtree(stage, ignore_errors=True)
    for deb in [*debs[1:], *image, *libs]:
        run_quiet(["dpkg-deb", "-x", str(deb), str(stage)])
    kernels = sorted((stage / "boot").glob("vmlinuz-*"))
    if not kernels:
        raise RuntimeError(f"no /boot/vmlinuz-* in {image[0].name}")
    shutil.copy(kernels[-1], vmlinuz)

    root = CACHE / "root"
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev", "usr/bin", "lib64",
              "lib/x86_64-linux-gnu"):
        (root / d).mkdir(parents=True)
    shutil.copy(stage / "bin/busybox", root / "bin/busybox")
    cyclic = stage / "usr/bin/cyclictest"
    shutil.copy(cyclic, root / "usr/bin/cyclictest")
    todo, seen = needed(cyclic), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        lib = find_lib(stage, name)
        shutil.copy(lib.resolve(), root / "lib/x86_64-linux-gnu" / name)
        todo += needed(lib)
    interp = interpreter(cyclic)
    shutil.copy((stage / interp.lstrip("/")).resolve(),
                root / interp.lstrip("/"))
    init = root / "init"
    init.write_text(INIT.replace("@ARGS@", args))
    init.chmod(0o755)
    cpio_newc(root, initrd)
    # The kernel's modules alone are hundreds of MiB extracted.
    shutil.rmtree(stage)
    shutil.rmtree(root)
    return vmlinuz, initrd


def linux_items(samples, reps, timing="tcg", cpus=2, threads=None,
                interval_us=PERIOD_US):
    """The work items of `reps` runs of cyclictest (timing "tcg": plain
    TCG; "icount": virtual time) on `cpus` CPUs, `samples` loops of a
    thread per CPU, or with `threads` threads at least `samples` in all;
    or a string saying why there are none."""
    loops = samples if threads is None else -(-samples // threads)
    args = cyclic_args(loops, threads, interval_us)
    try:
        vmlinuz, initrd = build_linux(args)
    except (RuntimeError, OSError) as e:
        return f"cyclictest skipped: the Linux side could not be built ({e})"
    shape = "" if threads is None else \
        f", {threads} threads on {cpus} CPUs every {interval_us} us"
    return [workitems.call_item(
        "tools/bench/bench_latency.py", "linux_boot",
        dict(args=args, rep=rep, timing=timing, cpus=cpus,
             virtual_us=loops * interval_us), timed=timing == "tcg",
        label=f"linux-rt cyclictest {timing}, {loops} loops{shape}"
              + (f", run {rep + 1}" if rep else ""),
        files=[str(p.relative_to(ROOT)) for p in (vmlinuz, initrd)],
        versions=["qemu-system-x86_64"]) for rep in range(reps)]


# Linux under -icount (docs/benchmarks.md, the latency bullet): QEMU 7.2
# runs the vCPUs in turn on one host thread, and during Linux's SMP
# bring-up its round robin stays with one vCPU while the other waits for
# it; stopping and continuing the machine (QMP `stop`, `cont`) starts the
# round robin again. So the boot is nudged that way every NUDGE_S of host
# time, from start to power-off. Virtual time stands still while the
# machine is stopped; where the nudges fall (host time) changes the
# interleaving, so unlike ours Linux's numbers under -icount differ from
# run to run, and the spread is reported. lpj: the loops per jiffy of the
# 1 GHz virtual TSC at Debian's HZ=250, which spares the second CPU the
# calibration of its delay loop against the first one's timer.
NUDGE_S = 0.1
ICOUNT_LINUX_WORDS = "lpj=4000000"


def nudge(proc, sock, deadline):
    """QMP stop and cont every NUDGE_S until QEMU ends or the deadline."""
    from qemu.qmp.legacy import QEMUMonitorProtocol
    while not sock.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            return
        try:
            proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    qmp = QEMUMonitorProtocol(str(sock))
    try:
        qmp.connect()
        while time.monotonic() < deadline:
            try:
                proc.wait(timeout=NUDGE_S)
                return
            except subprocess.TimeoutExpired:
                pass
            qmp.cmd("stop")
            qmp.cmd("cont")
    except (OSError, EOFError, ConnectionError):
        return      # QEMU went away between two nudges
    finally:
        qmp.close()


def linux_boot(args, rep=0, timing="tcg", cpus=2, virtual_us=0):
    """One boot of Linux running cyclictest with `args` on `cpus` CPUs (a
    work item): its combined row. rep tells repeated runs apart (each its
    own draw); timing "tcg" (plain TCG) or "icount" (virtual time, the
    boot nudged); virtual_us how long cyclictest's loops last."""
    del rep
    vmlinuz, initrd = CACHE / "vmlinuz", initrd_path(args)
    with tempfile.TemporaryDirectory() as tmp:
        serial = pathlib.Path(tmp) / "serial.log"
        sock = pathlib.Path(tmp) / "qmp.sock"
        append = CMDLINE
        cmd = ["qemu-system-x86_64", "-machine", "pc", "-smp", str(cpus),
               "-m", "512M", "-display", "none", "-no-reboot",
               "-monitor", "none",
               "-serial", f"file:{serial}", "-kernel", str(vmlinuz),
               "-initrd", str(initrd)]
        if timing == "icount":
            cmd += ["-icount", ICOUNT, "-qmp",
                    f"unix:{sock},server=on,wait=off"]
            append += " " + ICOUNT_LINUX_WORDS
        proc = subprocess.Popen(cmd + ["-append", append],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 900 + virtual_us // 100000
        try:
            if timing == "icount":
                nudge(proc, sock, deadline)
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        text = serial.read_text(errors="replace") if serial.exists() else ""
    if "CYCLICTEST-END rc=0" not in text:
        raise workitems.ItemFailed(
            f"bench_latency: cyclictest ({timing}) did not finish; the end "
            "of Linux's console:\n" + "\n".join(text.splitlines()[-30:]))
    threads = parse_cyclictest(text.split("CYCLICTEST-BEGIN")[-1])
    return combine_cyclictest(threads)


def run(mode, outdir):
    plan = PLANS[mode]
    reps = plan["reps"]
    runs = [(t, "off", rep, ahead) for ahead in (0, AHEAD_US)
            for t in plan["timings"]
            for rep in range(reps if t == "tcg" else 1)]
    items = [ours_item(plan["samples"], *r) for r in runs]
    theirs = {}
    if not plan["linux"]:
        print("cyclictest skipped: smoke mode does not fetch Linux")
    else:
        for timing in plan["timings"]:
            got = linux_items(plan["samples"], reps, timing)
            if isinstance(got, str):
                print(got)
                theirs = {}
                break
            theirs[timing] = got
    # Under plain TCG ours (each variant) and Linux's in turn, so that
    # all meet the same host.
    tcg = theirs.get("tcg", [])
    if tcg:
        plain = [it for it, r in zip(items, runs) if r[0] == "tcg" and
                 not r[3]]
        early = [it for it, r in zip(items, runs) if r[0] == "tcg" and r[3]]
        items = [it for it, r in zip(items, runs) if r[0] != "tcg"] + \
            in_turn(plain, early, tcg)
    items += theirs.get("icount", [])
    load = round(os.getloadavg()[0], 2)
    results = workitems.run_items(items)
    rows, ours, linux_ = [], {}, {}
    for item, r in zip(items, results):
        if r is None:
            raise SystemExit(f"bench_latency: {item.label} failed twice "
                             "(above)")
        if item.kind == "boot":
            rep = item.args["rep"]
            mine = combine_ours(workitems.as_boot(r).results("task"))
            timing = "icount" if item.args["icount"] else "tcg"
            system = system_name(AHEAD_US if "ahead_us=" in
                                 item.args["cmdline"] else 0)
            rows.append([system, timing, 2, PERIOD_US, mine["samples"],
                         mine["min_ns"], mine["avg_ns"], mine["max_ns"],
                         load, rep])
            ours.setdefault(system, {}).setdefault(timing, {})[rep] = (
                mine["avg_ns"], mine["max_ns"])
        else:
            rep, timing = (item.args["kwargs"][k] for k in ("rep", "timing"))
            rows.append(["linux-rt cyclictest", timing, 2, PERIOD_US,
                         r["samples"], r["min_ns"], r["avg_ns"], r["max_ns"],
                         load, rep])
            linux_.setdefault(timing, {})[rep] = (r["avg_ns"], r["max_ns"])
    ratios, summary = [], []
    for system, by_timing in ours.items():
        per, spreads = ratios_by_timing(by_timing, linux_)
        ratios += [[system] + row for row in per]
        summary += [[system, t] + row for t, rows_ in spreads.items()
                    for row in rows_]
    spread_rows = spread([(r[0], r[1], r[6], r[7]) for r in rows])
    write_csv(outdir / "latency.csv", HEADERS, rows)
    print_table(HEADERS, rows, "release latency: release to the measuring "
                "thread's first instruction, QEMU TCG -smp 2 (icount: "
                f"-icount {ICOUNT}, virtual time; tcg: real time, with the "
                "host's 1-minute load average when the run began)")
    write_csv(outdir / "latency_spread.csv", SPREAD_HEADERS, spread_rows)
    print_table(SPREAD_HEADERS, spread_rows, "the spread over the runs "
                "(plain TCG: each run its own draw of the host's time)")
    if ratios:
        print_table(["system", "timing", "rep", "statistic", "linux / rtk"],
                    ratios, "ratio, run by run (the issue asks for at "
                    "least 10)")
        write_csv(outdir / "latency_ratio.csv",
                  ["system", "timing", "rep", "statistic", "linux_over_rtk"],
                  ratios)
        print_table(["system", "timing", "of the runs", "statistic",
                     "linux / rtk"],
                    [[s_, t, a, b, round(x, 3)] for s_, t, a, b, x in summary],
                    "the ratios' spread")
