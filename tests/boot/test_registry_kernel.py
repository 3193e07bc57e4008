"""Every plugin of the registry in the kernel, found through `schedsim
--list` and named nowhere here (docs/writing-a-scheduler.md says what a
new plugin gets from this file): one boot per plugin under virtual time
(-icount shift=3,sleep=off) on a generated set, whose executed schedule
is the simulator's, with a parameter of another plugin on the command
line, named and ignored; and its trace dump (trace=events) decoded by
tools/rtk-trace into the same schedule, with a valid Perfetto export.
One more boot shows a parameter out of range refused in the kernel, as
the simulator refuses every plugin's (tests/host/test_registry.py).

A quantum-driven plugin's schedule is compared slot by slot, with every
field of the kernel's summary (the simulator may add accounting the
kernel leaves out, sched_config.simulation), and the decoder's
schedule.jsonl row by row (its --check also holds the RESULT task,
overhead and hourglass lines to the records). An event-driven one
(microseconds) is held to the simulator's segments within the lag of
tests/boot/test_events_pfp.py, and the decoder's rows -- who ran longest
in each quantum -- to the simulator's segments seen the same way."""
import json
import subprocess
import sys

import pytest

from conftest import parse_schedule
from harness import ROOT, parse_event_schedule, qemu
from test_events_pfp import assert_same_run
from test_tasks import exported_jobs, schedule_lines, simulate

sys.path.insert(0, str(ROOT / "tests" / "host"))
from registry_sets import (foreign_param, generated_set, listed,  # noqa: E402
                           need, plugin_params, slot_rows)
from trace_event_ref import validate  # noqa: E402

ICOUNT = "shift=3,sleep=off"
CPUS = 4
SLOTS = 24
QUANTUM_US = 1000
PLUGINS = plugin_params()


def hazards(text, sim):
    """Instants where a job of the simulator's run ends on a CPU just as a
    job of higher priority (the set's prio=) released at that instant
    starts there: the kernel's lag may turn that completion into a
    preemption a few microseconds earlier, an equally right but different
    schedule (test_events_pfp.py)."""
    spec = {}
    for line in text.splitlines():
        w = line.split()
        kv = dict(x.split("=") for x in w[2:])
        spec[w[1]] = (int(kv["p"]) * QUANTUM_US,
                      int(kv.get("phase", 0)) * QUANTUM_US, int(kv["prio"]))
    segs, done, _, _ = sim
    out = []
    for d in done:
        ended = [s for s in segs if s["task"] == d["task"] and
                 s["to_us"] == d["at_us"]]
        for s in segs:
            if not ended or s["cpu"] != ended[0]["cpu"] or \
                    s["from_us"] != d["at_us"]:
                continue
            p, phase, prio = spec[s["task"]]
            if prio < spec[d["task"]][2] and s["from_us"] >= phase and \
                    (s["from_us"] - phase) % p == 0:
                out.append((d["at_us"], d["task"], s["task"]))
    return out


def boot_set(plugin, tmp_path):
    """The set a plugin's boot runs, and the simulator's output for it:
    the generated set of seed 0 and 3M tasks; for an event-driven plugin
    the first (fewest cut first, then seed) whose simulated run has no
    hazard."""
    f = tmp_path / "gen.tasks"
    for ntasks in (3 * CPUS, 2 * CPUS, CPUS):
        for seed in range(100):
            text = generated_set(seed, CPUS, ntasks)
            f.write_text(text)
            sim = simulate(plugin["name"], CPUS, SLOTS, f)
            if plugin["driven"] != "microseconds" or \
                    not hazards(text, parse_event_schedule(sim)):
                return f, sim
    pytest.fail(f"no generated set without a hazard for {plugin['name']}")


def decode(tmp_path, serial, check):
    """tools/rtk-trace decode of the console: its exit status and the rows
    of its schedule.jsonl."""
    log = tmp_path / "console.log"
    log.write_text(serial)
    out = tmp_path / "decoded"
    proc = subprocess.run(
        [str(ROOT / "tools" / "rtk-trace"), "decode", str(log), "--out",
         str(out), "--no-pictures", *(["--check"] if check else [])],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 problems" in proc.stdout, proc.stdout
    assert validate(json.loads((out / "perfetto.json").read_text())) == []
    lines = (out / "schedule.jsonl").read_text().splitlines()
    return [json.loads(l)["cpus"] for l in lines if l.startswith('{"t"')]


@pytest.mark.parametrize("plugin", PLUGINS)
def test_kernel_runs_the_simulators_schedule(iso_with, tmp_path, plugin):
    plugin = need(plugin)
    name = plugin["name"]
    tasks, sim = boot_set(plugin, tmp_path)
    words = [f"sched={name}", f"slots={SLOTS}", "trace=events"]
    other = foreign_param(plugin, listed())
    if other:
        words.append(f"{other}=1")
    boot = qemu(iso_with(" ".join(words), tasks=tasks), smp=CPUS,
                icount=ICOUNT)
    assert boot.passed, boot.tail()
    if other:
        assert f"sched: {other} is not a parameter of {name}; ignored" in \
            boot.serial, boot.tail()
    if plugin["driven"] == "microseconds":
        kernel = parse_event_schedule(boot.serial.splitlines())
        want = parse_event_schedule(sim)
        assert_same_run(kernel, want)
        rows = slot_rows(want[0], CPUS, SLOTS, QUANTUM_US)
        assert slot_rows(kernel[0], CPUS, SLOTS, QUANTUM_US) == rows
        assert decode(tmp_path, boot.serial, check=False) == rows
    else:
        rows, summary = parse_schedule("\n".join(sim))
        got, kernel = parse_schedule("\n".join(schedule_lines(boot.serial)))
        assert got == rows
        # The kernel may leave out accounting the simulator does
        # (sched_config.simulation: gdq's service errors); what it
        # prints is the simulator's.
        assert {k: summary.get(k) for k in kernel} == kernel
        assert kernel["tasks"] == summary["tasks"]
        assert decode(tmp_path, boot.serial, check=True) == rows
        # The Perfetto export of the kernel's run has the jobs of the
        # simulator's (test_tasks.py, exported_jobs).
        (tmp_path / "sim.jsonl").write_text("\n".join(sim) + "\n")
        assert exported_jobs(tmp_path / "k", tmp_path / "console.log") == \
            exported_jobs(tmp_path / "s", tmp_path / "sim.jsonl", "--tasks",
                          tasks)


def first_with_parameters():
    """The registry's first plugin that takes a parameter (the refusal is
    the same code for every plugin: the simulator's test holds each one
    to it, tests/host/test_registry.py)."""
    for p in PLUGINS:
        plugin = p.values[0]
        if plugin is None or plugin["params"]:
            return p
    return pytest.param(None, id="none-with-parameters")


@pytest.mark.parametrize("plugin", [first_with_parameters()])
def test_kernel_refuses_a_parameter_out_of_range(iso_with, tmp_path, plugin):
    """4294967295, the largest value the command line carries, is outside
    every parameter's range: the plugin refuses the set, the kernel says
    why, naming the parameter, and fails the boot with reason=admission."""
    plugin = need(plugin)
    name, param = plugin["name"], plugin["params"][0]
    tasks = tmp_path / "gen.tasks"
    tasks.write_text(generated_set(0, 2, 5))
    boot = qemu(iso_with(f"sched={name} slots=10 {param}=4294967295",
                         tasks=tasks), smp=2)
    lines = [l for l in boot.serial.splitlines() if l.startswith("sched: ")]
    assert any(f"{param}=4294967295" in l for l in lines), boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=admission"
