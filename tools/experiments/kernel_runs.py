"""What the experiments that boot the kernel share: one boot of a task set
under a plugin in QEMU (-icount or plain TCG), the platform as the boot
reported it, the scheduler's summary line, and the simulator's answer for
the same set."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

from common import ROOT

sys.path.insert(0, str(ROOT / "tests" / "boot"))

from benchlib import ensure_iso, host_tool  # noqa: E402
from harness import make_iso, qemu  # noqa: E402

# Virtual time: every instruction takes 2^3 ns and the TSC counts them
# (tests/boot/harness.py, icount_tsc_mhz): deterministic, free of the host's
# load, but no hardware's timing.
ICOUNT = "shift=3,sleep=off"


def boot(tasks_text, words, cpus, icount=True, memory="512M", timeout=900,
         what="experiment"):
    """Boots the kernel over tasks_text with the command-line words on
    `cpus` CPUs; a failed boot ends the experiment naming what failed."""
    ensure_iso()
    with tempfile.TemporaryDirectory() as tmp:
        tasks = pathlib.Path(tmp) / "set.tasks"
        tasks.write_text(tasks_text)
        iso = make_iso(pathlib.Path(tmp) / "run.iso", cmdline=words,
                       tasks=tasks)
        b = qemu(iso, smp=cpus, icount=ICOUNT if icount else None,
                 memory=memory, timeout=timeout)
    if not b.finished:  # pass or late: the run measured everything
        why = "timed out" if b.timed_out else "did not finish"
        raise SystemExit(f"{what}: the boot with '{words}' on {cpus} CPUs "
                         f"{why}:\n{b.tail()}")
    b.icount = icount
    return b


def summary(b):
    """The scheduler's summary object (FORMATS.md section 2), the last one
    the boot printed."""
    lines = [l for l in b.serial.splitlines() if l.startswith('{"summary"')]
    if not lines:
        raise SystemExit(f"no summary line in the boot:\n{b.tail()}")
    return json.loads(lines[-1])["summary"]


def tsc_mhz(b):
    return int(b.result("tsc")["khz"]) / 1000


def boots_n(boots):
    return f"{len(boots)} boot" + ("" if len(boots) == 1 else "s")


def platform(boots):
    """The platform of a list of boots, as they reported it: QEMU's
    accelerator (the hypervisor signature the kernel read), the timing,
    the CPU counts and the TSC rate."""
    hv = sorted({m.group(1) for b in boots for m in
                 re.finditer(r"hypervisor '([^']*)'", b.serial)})
    cpus = sorted({int(b.result("smp")["cpus_online"]) for b in boots})
    modes = []
    for icount in (True, False):
        sel = [b for b in boots if b.icount == icount]
        if not sel:
            continue
        mhz = sorted({round(tsc_mhz(b), 1) for b in sel})
        mhz_text = (f"{mhz[0]}" if len(mhz) == 1
                    else f"{mhz[0]}-{mhz[-1]}")
        if icount:
            modes.append(f"-icount {ICOUNT} ({boots_n(sel)}; virtual "
                         f"time, TSC {mhz_text} MHz: 8 cycles per "
                         "instruction, no cache or memory timing)")
        else:
            modes.append(f"plain TCG ({boots_n(sel)}; TSC {mhz_text} "
                         "MHz, the host's clock: QEMU's own work and the "
                         "host's load are in every number)")
    sig = ", ".join(f"'{h}'" for h in hv) or "none read"
    return (f"the kernel in QEMU (hypervisor signature {sig}), "
            + "; ".join(modes)
            + f"; {', '.join(map(str, cpus))} CPUs online; read from the "
              "boots' RESULT smp and tsc lines")


def schedsim(tasks_text, sched, cpus, slots):
    """The simulator's schedule for the same set (FORMATS.md sections 2 and
    3): (the slots' CPU lists, the summary)."""
    with tempfile.TemporaryDirectory() as tmp:
        f = pathlib.Path(tmp) / "set.tasks"
        f.write_text(tasks_text)
        proc = subprocess.run(
            [str(host_tool("schedsim")), "--sched", sched, "--cpus",
             str(cpus), "--slots", str(slots), str(f)],
            capture_output=True, text=True, timeout=600)
    if proc.returncode:
        raise SystemExit(f"schedsim --sched {sched}: {proc.stderr.strip()}")
    objs = [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]
    return ([o["cpus"] for o in objs if "t" in o],
            [o for o in objs if "summary" in o][-1]["summary"])


def task_results(b):
    """RESULT task lines by task name."""
    return {r["name"]: r for r in b.results("task")}


def overhead_boot(plugin, n, m, slots, events, what):
    """One boot of tools/bench/bench_overheads.py's set of N tasks on M CPUs
    under plugin, -icount: (the boot, its overhead rows of the events, in
    bench_overheads.HEADERS)."""
    import common
    ov = common.bench_module("overheads")
    text, util = ov.task_set(n, m, seed=1000 * m + n)
    b = boot(text, f"sched={plugin} slots={slots}", m, memory=ov.MEMORY,
             what=what)
    mode = "events" if plugin in ov.EDF_PLUGINS else "quantum"
    return b, ov.rows_of(b, plugin, n, m, util, slots, "icount", mode,
                         events=events)
