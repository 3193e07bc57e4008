"""What the experiments that boot the kernel share: one boot of a task set
under a plugin in QEMU (-icount or plain TCG), the platform as the boot
reported it, the scheduler's summary line, and the simulator's answer for
the same set."""
import json
import re
import sys

from common import ROOT

sys.path.insert(0, str(ROOT / "tests" / "boot"))

import workitems  # noqa: E402 (tools/bench, on the path through common)

# Virtual time: every instruction takes 2^3 ns and the TSC counts them
# (tests/boot/harness.py, icount_tsc_mhz): deterministic, free of the host's
# load, but no hardware's timing.
ICOUNT = "shift=3,sleep=off"


def boot_item(tasks_text, words, cpus, icount=True, memory="512M",
              timeout=900, label=None, insn_count=False):
    """A work item (tools/bench/workitems.py): one boot of the kernel over
    tasks_text with the command-line words on `cpus` CPUs; insn_count:
    with the plugin that counts each CPU's instructions."""
    return workitems.boot_item(
        tasks=tasks_text, cmdline=words, smp=cpus,
        icount=ICOUNT if icount else None, memory=memory, timeout=timeout,
        label=label or f"{words} on {cpus} CPUs"
                       + ("" if icount else " (plain TCG)"),
        insn_count=insn_count)


def boots(items, results=None):
    """The boots of boot items, run where the session puts them (in
    parallel, from the cache) unless their results are given (a batch
    that mixed them with other items); None for one that failed twice
    (the session reports it and the section lists it as missing)."""
    if results is None:
        results = workitems.run_items(items)
    out = []
    for item, r in zip(items, results):
        b = None if r is None else workitems.as_boot(r)
        if b is not None:
            b.icount = item.args["icount"] is not None
        out.append(b)
    return out


def boot(tasks_text, words, cpus, icount=True, memory="512M", timeout=900,
         what="experiment"):
    """One boot on its own; a failed boot ends the experiment naming what
    failed."""
    item = boot_item(tasks_text, words, cpus, icount, memory, timeout)
    b = boots([item])[0]
    if b is None:
        raise SystemExit(f"{what}: the boot with '{words}' on {cpus} CPUs "
                         "failed twice (above)")
    return b


def summary(b):
    """The scheduler's summary object (docs/formats.md, "Schedules as JSON lines"), the last one
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


def schedsim_item(tasks_text, sched, cpus, slots):
    """A work item: the simulator's schedule for the same set
    (docs/formats.md)."""
    return workitems.program_item(
        "schedsim", ["--sched", sched, "--cpus", cpus, "--slots", slots,
                     "{dir}/set.tasks"], inputs={"set.tasks": tasks_text},
        timeout=600, label=f"schedsim {sched} on {cpus} CPUs, {slots} slots")


def schedsim_result(out):
    """(the slots' CPU lists, the summary) of a schedsim item's result."""
    objs = [json.loads(l) for l in out["stdout"].splitlines() if l.strip()]
    return ([o["cpus"] for o in objs if "t" in o],
            [o for o in objs if "summary" in o][-1]["summary"])


def schedsim(tasks_text, sched, cpus, slots):
    """The simulator's schedule for the same set: (the slots' CPU lists,
    the summary)."""
    out = workitems.run_items([schedsim_item(tasks_text, sched, cpus,
                                             slots)])[0]
    if out is None:
        raise SystemExit(f"schedsim --sched {sched} failed (above)")
    return schedsim_result(out)


def task_results(b):
    """RESULT task lines by task name."""
    return {r["name"]: r for r in b.results("task")}


def overhead_item(plugin, n, m, slots, words=""):
    """A work item: a boot of tools/bench/bench_overheads.py's set of N
    tasks on M CPUs under plugin, -icount; words: the plugin's parameters
    (cluster=2), if any."""
    import common
    ov = common.bench_module("overheads")
    text, _ = ov.task_set(n, m, seed=1000 * m + n)
    return boot_item(text, " ".join(w for w in (f"sched={plugin}",
                                                f"slots={slots}", words,
                                                ov.INSN_WORDS) if w),
                     m, memory=ov.MEMORY,
                     label=" ".join(w for w in (plugin, words, f"N={n}",
                                                f"M={m}") if w),
                     insn_count=True)


def overhead_rows(b, plugin, n, m, slots, events):
    """An overhead boot's rows of the events, in bench_overheads.HEADERS."""
    import common
    ov = common.bench_module("overheads")
    _, util = ov.task_set(n, m, seed=1000 * m + n)
    mode = "events" if plugin in ov.EDF_PLUGINS else "quantum"
    return ov.rows_of(b, plugin, n, m, util, slots, "icount", mode,
                      events=events)
