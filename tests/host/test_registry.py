"""Every plugin of the registry (sched/registry.c), found through
`schedsim --list` and named nowhere here: each runs a generated set in the
simulator and gives a well-formed schedule, the same at events as at
every boundary when it names its next event; each refuses a parameter it
does not take and every parameter of its own out of range, naming it; one
without servers refuses a set with one. A new plugin gets these without
being listed (docs/writing-a-scheduler.md); tests/boot/
test_registry_kernel.py holds the kernel to the same runs."""
import pathlib
import subprocess
import tempfile

import pytest
from hypothesis import given, settings, strategies as st

from conftest import host_tool, parse_schedule
from harness import parse_event_schedule
from registry_sets import (generated_set, listed, need, plugin_params,
                           registry_entries)

PLUGINS = plugin_params()
SLOTS = 30


def schedsim(plugin, text, cpus, tmp_path, *extra, slots=SLOTS):
    f = tmp_path / "set.tasks"
    f.write_text(text)
    return subprocess.run(
        [str(host_tool("schedsim")), "--sched", plugin["name"], "--cpus",
         str(cpus), "--slots", str(slots), *map(str, extra), str(f)],
        capture_output=True, text=True, timeout=120)


def test_list_is_the_registry():
    """--list has every entry of the table once, and each name is one
    schedsim runs (its usage line lists the same)."""
    plugins = listed()
    names = [p["name"] for p in plugins]
    assert len(names) == registry_entries() == len(set(names))
    usage = subprocess.run([str(host_tool("schedsim"))], capture_output=True,
                           text=True, timeout=60).stderr
    assert usage.split("schedulers:")[1].split() == names
    for p in plugins:
        assert p["ticks"] in ("aligned", "staggered")
        assert p["driven"] in ("boundaries", "events", "microseconds")
        assert set(p["at"]) <= {"join", "leave", "block", "wake"}


def well_formed(plugin, out, text, cpus, slots):
    """The schedule names only the set's tasks, never one on two CPUs at
    once, one row per slot (quantum-driven) or non-overlapping segments
    within the run (event-driven); the summary covers every task."""
    names = {l.split()[1] for l in text.splitlines()}
    if plugin["driven"] == "microseconds":
        segs, _, _, summary = parse_event_schedule(out.splitlines())
        assert summary is not None
        for a, b in zip(segs, segs[1:]):
            if a["cpu"] == b["cpu"]:
                assert a["to_us"] <= b["from_us"], (a, b)
        assert all(s["task"] in names and 0 <= s["cpu"] < cpus and
                   0 <= s["from_us"] < s["to_us"] <= slots * 1000
                   for s in segs), segs
        for n in names:
            mine = sorted((s["from_us"], s["to_us"]) for s in segs
                          if s["task"] == n)
            assert all(a[1] <= b[0] for a, b in zip(mine, mine[1:])), mine
    else:
        rows, summary = parse_schedule(out)
        assert len(rows) == slots and all(len(r) == cpus for r in rows)
        for row in rows:
            ran = [n for n in row if n is not None]
            assert set(ran) <= names and len(ran) == len(set(ran)), row
    assert summary["sched"] == plugin["name"]
    assert set(summary["tasks"]) == names


@pytest.mark.parametrize("plugin", PLUGINS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), cpus=st.integers(1, 4))
def test_every_plugin_runs_a_generated_set(plugin, seed, cpus):
    plugin = need(plugin)
    text = generated_set(seed, cpus, 3 * cpus)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        proc = schedsim(plugin, text, cpus, tmp)
        assert proc.returncode == 0, proc.stderr
        well_formed(plugin, proc.stdout, text, cpus, SLOTS)
        if plugin["driven"] == "events":
            ev = schedsim(plugin, text, cpus, tmp, "--at-events")
            assert ev.returncode == 0, ev.stderr
            assert ev.stdout == proc.stdout
            decided = int(ev.stderr.split("decided=")[1].split()[0])
            assert 1 <= decided <= SLOTS


@pytest.mark.parametrize("plugin", PLUGINS)
def test_a_parameter_it_does_not_take_is_refused(plugin, tmp_path):
    plugin = need(plugin)
    proc = schedsim(plugin, generated_set(1, 2, 3), 2, tmp_path, "--param",
                    "no_such_param=1")
    takes = " ".join(plugin["params"]) or "none"
    assert proc.returncode == 2
    assert (f"--param no_such_param: not a parameter of {plugin['name']} "
            f"(takes: {takes})") in proc.stderr, proc.stderr


@pytest.mark.parametrize("plugin", PLUGINS)
def test_every_parameter_out_of_range_is_refused(plugin, tmp_path):
    """2^32 - 1, the largest value the kernel's command line passes: no
    parameter takes it, and the message names the parameter and value."""
    plugin = need(plugin)
    for name in plugin["params"]:
        proc = schedsim(plugin, generated_set(1, 2, 3), 2, tmp_path,
                        "--param", f"{name}=4294967295")
        assert proc.returncode == 1 and proc.stdout == ""
        assert f"{name}=4294967295" in proc.stderr, proc.stderr


@pytest.mark.parametrize("plugin", PLUGINS)
def test_a_server_needs_a_plugin_that_takes_servers(plugin, tmp_path):
    plugin = need(plugin)
    text = (generated_set(1, 2, 3) + "server S kind=polling budget=500 "
            "period=5000 prio=1\n")
    proc = schedsim(plugin, text, 2, tmp_path)
    if plugin["servers"]:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == 1
        assert f"server S (line {len(text.splitlines())}): " \
            f"{plugin['name']} schedules no servers" in proc.stderr
