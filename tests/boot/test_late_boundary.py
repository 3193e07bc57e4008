"""late_boundary=CPU:SLOT:US with late_count= and late_mode= (docs/
formats.md): the boundaries the words name, and only those, come US late,
on one CPU or on all, held in the timer's handler or stalled before it.
The quantum clock's self-measurement prints each boundary's lateness
(trace=on's TRACE tick lines); under -icount the clock is virtual, so every
other boundary is on time to within a few microseconds of handling."""
import re

import pytest

from harness import qemu

ICOUNT = "shift=3,sleep=off"
SLOTS = 12
QUANTUM_US = 1000
# A quantum and a half: the boundary after a late one passes meanwhile.
LATE_US = 1500


def lateness(serial):
    """{(cpu, slot): late_ns, or None for a boundary that passed} from the
    aligned clock's TRACE tick lines."""
    out = {}
    for m in re.finditer(r"^TRACE tick mode=aligned cpu=(\d+) slot=(\d+) "
                         r"(?:at_ns=\S+ )?late_ns=(\d+|missed)$", serial, re.M):
        ns = None if m.group(3) == "missed" else int(m.group(3))
        out[int(m.group(1)), int(m.group(2))] = ns
    return out


def expected(late_slots, stall):
    """(late, passed): the slots of one CPU whose boundary comes LATE_US
    late and those that pass unhandled, from the clock's arithmetic alone.
    Boundary i is due at i quanta; one that comes while an earlier one is
    still being handled passes. A late one is held LATE_US in the handler
    (its entry on time), or stalled LATE_US before it (its entry late);
    either way the CPU is busy until LATE_US after its due time."""
    late, passed, free = set(), set(), 0
    for i in range(SLOTS):
        due = i * QUANTUM_US
        if due < free:
            passed.add(i)
            continue
        if i in late_slots:
            free = due + LATE_US
            if stall:
                late.add(i)
    return late, passed


@pytest.mark.parametrize("cpu,count,mode", [
    ("all", 3, "hold"), ("all", 3, "stall"), ("1", 2, "stall"),
    ("0", 1, "hold")])
def test_the_named_boundaries_and_only_they_are_late(iso_with, cpu, count,
                                                     mode):
    slot, cpus = 5, 2
    words = (f"ticks=aligned slots={SLOTS} quantum_us={QUANTUM_US} trace=on "
             f"late_boundary={cpu}:{slot}:{LATE_US} late_count={count} "
             f"late_mode={mode}")
    b = qemu(iso_with(words), smp=cpus, icount=ICOUNT)
    assert b.passed, b.tail()
    got = lateness(b.serial)
    assert sorted(got) == [(k, i) for k in range(cpus)
                           for i in range(SLOTS)]
    for k in range(cpus):
        named = set(range(slot, slot + count)) \
            if cpu == "all" or k == int(cpu) else set()
        late, passed = expected(named, mode == "stall")
        mine = {i: got[k, i] for i in range(SLOTS)}
        assert {i for i, ns in mine.items() if ns is None} == passed, mine
        assert {i for i, ns in mine.items()
                if ns is not None and ns >= LATE_US * 1000} == late, mine
        # Every other boundary on time, to within its handling.
        assert all(ns < QUANTUM_US * 100 for i, ns in mine.items()
                   if ns is not None and i not in late), mine
    total = sum(len(expected(set(range(slot, slot + count))
                             if cpu == "all" or k == int(cpu) else set(),
                             mode == "stall")[1]) for k in range(cpus))
    assert int(b.results("ticks")[0]["missed"]) == total, b.tail()


def test_a_bad_value_is_named(iso_with):
    b = qemu(iso_with("ticks=aligned slots=5 late_boundary=any:5:300 "
                      "late_mode=sometimes late_count=0"), smp=1,
             icount=ICOUNT)
    assert b.passed, b.tail()
    for word, why in [
            ("late_boundary=any:5:300", "CPU:SLOT:US: a CPU or all, a "
             "slot, at most 1000000 us"),
            ("late_mode=sometimes", "hold, stall or syscall"),
            ("late_count=0", "too small")]:
        assert f"cmdline: bad value '{word}' ({why})" in b.serial, b.tail()
