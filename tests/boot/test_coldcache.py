"""coldcache=on: before every timed call into a quantum-driven plugin (every
`sched` span of the trace) the kernel CLFLUSHes the plugin's memory -- its
allocations, the task table, the driver -- outside the span (kernel/
coldcache.c, Fig. 11(b) of the staggered Pfair paper). QEMU has no cache
to observe, so the tests hold the kernel to its counts: one flush per span,
and exactly the lines that cover the ranges it names, counted per CLFLUSH
executed against the tests' own arithmetic over the addresses; the flush
changes no decision (the simulator's schedule, line for line)."""
import pytest

from harness import qemu
from test_sched_in_kernel import kernel_schedule, simulator_schedule

ICOUNT = "shift=3,sleep=off"
SLOTS = 20
TASKS = "".join(f"task T{i} e={1 + i % 3} p={8 + i}\n" for i in range(12))
RANGES = ("arena", "tasks", "driver")


def lines_covering(start, size, line):
    """The cache lines holding a byte of [start, start + size)."""
    if size == 0:
        return 0
    return (start + size - 1) // line - start // line + 1


def boot(iso_with, tmp_path, sched, cpus, word):
    path = tmp_path / "cold.tasks"
    path.write_text(TASKS)
    iso = iso_with(f"sched={sched} slots={SLOTS} {word}", tasks=path)
    b = qemu(iso, smp=cpus, icount=ICOUNT, timeout=300)
    assert b.passed, b.tail()
    return b, path


@pytest.mark.parametrize("sched,cpus,spans", [("pd2", 2, SLOTS),
                                              ("spd2", 2, 2 * SLOTS)])
def test_every_decision_is_preceded_by_a_flush_of_the_plugins_memory(
        iso_with, tmp_path, sched, cpus, spans):
    b, path = boot(iso_with, tmp_path, sched, cpus, "coldcache=on")
    span = [r for r in b.results("overhead") if r["event"] == "sched"][0]
    # pd2: one span per slot (the first CPU decides all M); spd2: one per
    # CPU and slot.
    assert int(span["n"]) == spans
    cc = b.result("coldcache")
    assert int(cc["flushes"]) == spans, cc
    line = int(cc["line_bytes"])
    assert line == 64, cc          # QEMU's CPUID.01H:EBX[15:8] x 8
    per_flush = {r: lines_covering(int(cc[r], 16), int(cc[f"{r}_bytes"]),
                                   line) for r in RANGES}
    # The plugin allocated something; the task table is the 12 specs; the
    # plugin allocated nothing after it was created (all of it is flushed).
    assert per_flush["arena"] > 0 and per_flush["driver"] > 0, cc
    assert int(cc["tasks_bytes"]) % 12 == 0 and int(cc["tasks_bytes"]) > 0
    assert cc["late_allocs"] == "0", cc
    assert int(cc["lines"]) == spans * sum(per_flush.values()), \
        (cc, per_flush)
    assert kernel_schedule(b.serial) == \
        simulator_schedule(sched, cpus, SLOTS, path)


def test_coldcache_is_off_by_default_and_a_bad_value_is_named(iso_with,
                                                              tmp_path):
    b, _ = boot(iso_with, tmp_path, "pd2", 2, "coldcache=maybe")
    assert "cmdline: bad value 'coldcache=maybe' (on or off); using " \
        "default off" in b.serial
    assert not b.results("coldcache")
