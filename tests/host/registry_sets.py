"""What the registry-driven tests (tests/host/test_registry.py,
tests/boot/test_registry_kernel.py) share: the plugins as `schedsim
--list` gives them, the task sets they generate for every plugin, and the
view of an event-driven run slot by slot."""
import json
import random
import re
import subprocess
from fractions import Fraction

import pytest

from conftest import HOST, ROOT


def listed():
    """The registry, one dict per plugin (tools/schedsim.c, --list)."""
    out = subprocess.run([str(HOST / "schedsim"), "--list"],
                         capture_output=True, text=True, check=True,
                         timeout=60)
    return [json.loads(line) for line in out.stdout.splitlines()]


def plugin_params():
    """pytest parameters: one per plugin of the registry, by name. Without
    a host build, one that fails saying so (never an empty set, which
    pytest would skip)."""
    if not (HOST / "schedsim").exists():
        return [pytest.param(None, id="schedsim-missing")]
    return [pytest.param(p, id=p["name"]) for p in listed()]


def need(plugin):
    if plugin is None:
        pytest.fail(f"{HOST / 'schedsim'} is missing: run `make host` first")
    return plugin


def registry_entries():
    """How many plugins sched/registry.c's table holds, read from the
    source (&name, lines between the braces)."""
    text = (ROOT / "sched" / "registry.c").read_text()
    table = re.search(r"sched_plugins\[\] = \{(.*?)\};", text, re.S).group(1)
    return len(re.findall(r"&\w+,", table))


def generated_set(seed, cpus, ntasks):
    """A task set every plugin must take on `cpus` CPUs: up to ntasks e/p
    tasks with d = p, p from 4 to 12, each utilisation at most 1/4,
    phases 0 to 2, and -- for partitioned fixed priority, which reads
    them -- rate-monotonic prio= and cpu= placed first fit with at most
    3/4 on each CPU (a task that fits on none is left out), so the total
    is at most 3M/4. First fit of such tasks, in any order, cannot fail
    on CPUs of capacity 1 nor on clusters of K with capacity K: a task
    finds no room only when every CPU holds more than 3/4."""
    rnd = random.Random(seed)
    tasks, per_cpu = [], [Fraction(0)] * cpus
    for i in range(ntasks):
        p = rnd.randint(4, 12)
        e = rnd.randint(1, p // 4)
        u = Fraction(e, p)
        c = next((c for c in range(cpus) if per_cpu[c] + u <= Fraction(3, 4)),
                 None)
        if c is None:
            continue
        per_cpu[c] += u
        tasks.append((f"T{i}", e, p, rnd.randint(0, 2), c))
    rank = sorted(range(len(tasks)), key=lambda j: (tasks[j][2], j))
    return "".join(f"task {n} e={e} p={p} phase={ph} prio={rank.index(j) + 1}"
                   f" cpu={c}\n"
                   for j, (n, e, p, ph, c) in enumerate(tasks))


def foreign_param(plugin, plugins):
    """A parameter another plugin takes and this one does not, or None."""
    return next((q for p in plugins for q in p["params"]
                 if q not in plugin["params"]), None)


def slot_rows(segments, cpus, slots, quantum_us):
    """An event-driven run's segments as one row per quantum: on each CPU
    the task that ran longest in it (ties: the later), None if idle did --
    the view tools/rtk-trace's schedule.jsonl gives of such a run."""
    rows = [[None] * cpus for _ in range(slots)]
    for k in range(cpus):
        mine = [s for s in segments if s["cpu"] == k]
        for t in range(slots):
            lo, hi = t * quantum_us, (t + 1) * quantum_us
            ran = {}
            for j, s in enumerate(mine):
                inside = min(s["to_us"], hi) - max(s["from_us"], lo)
                if inside > 0:
                    ran[s["task"]] = (ran.get(s["task"], (0, 0))[0] + inside,
                                      j)
            idle = quantum_us - sum(v[0] for v in ran.values())
            if ran and max(v[0] for v in ran.values()) >= idle:
                rows[t][k] = max(ran, key=lambda n: ran[n])
    return rows
