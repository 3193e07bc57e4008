"""Instructions per CPU (docs/trace-format.md): the QEMU plugin
tools/qemu/insn_count.c notes each CPU's instruction count at every trace
record, and tools/rtktrace/insns.py costs each span in the instructions of
the CPU that ran it.

Under -icount the TSC advances 8 cycles per instruction of the whole
machine. With one CPU that is that CPU's count, so the plugin's count of
every sched and cxs span must equal the span's TSC cycles / 8 (both
records stamp the TSC and pass the mark a fixed few instructions apart);
a tick's start is stamped on entry to the interrupt, before its record,
so its cycles are a hundred instructions or so more. With two CPUs a
span's cycles also count what the other CPU ran meanwhile: the plugin's
count is never above them, and is below them by the other CPU's work in
some spans."""
import sys

import pytest

from harness import ROOT, qemu

sys.path.insert(0, str(ROOT / "tools"))
from rtktrace import derive, dump as dumpmod, insns  # noqa: E402

ICOUNT = "shift=3,sleep=off"
TASKS = ("task A e=1 p=3 work=spin\n"
         "task B e=1 p=4 work=spin\n"
         "task C e=2 p=5 work=spin\n")
CYCLES_PER_INSN = 8           # -icount shift=3 with the TSC at 1 GHz
# The instructions between a record's TSC read and its mark differ by
# path (trace_emit, trace_emit_at) by at most this many.
SAME = 2
# A tick's start stamp is taken at the interrupt's entry.
TICK_ENTRY = 100


@pytest.fixture(scope="module")
def runs(iso, tmp_path_factory):
    from harness import make_iso
    tmp = tmp_path_factory.mktemp("insn")
    tasks = tmp / "spin.tasks"
    tasks.write_text(TASKS)
    iso = make_iso(tmp / "insn.iso", "sched=gedf slots=40 trace=events",
                   tasks=tasks)
    out = {}
    for smp in (1, 2):
        b = qemu(iso, smp=smp, icount=ICOUNT, insn_count=True)
        assert b.passed, b.tail()
        assert int(b.result("tsc")["khz"]) == 1000000, b.tail()
        d = dumpmod.read(b.serial)[0][-1]
        out[smp] = (d, insns.span_insns(d, insns.read_marks(b.marks)))
    return out


def tsc_spans(d):
    """{(kind, cpu, seq): TSC cycles} of the dump's paired spans."""
    out = {}
    for cpu, recs in enumerate(d.per_cpu()):
        samples, _ = derive.cpu_samples(d.params, cpu,
                                        sorted(recs, key=lambda r: r.seq))
        for s in samples:
            if s.kind in derive.PAIRS:
                out[s.kind, s.cpu, s.seq] = s.cycles
    return out


def test_on_one_cpu_the_counts_are_the_tscs(runs):
    d, spans = runs[1]
    tsc = tsc_spans(d)
    seen = {}
    for kind, cpu, seq, n in spans:
        if kind == "release":
            assert 0 < n < 5000, (kind, seq, n)
            continue
        cycles = tsc[kind, cpu, seq]
        gap = cycles / CYCLES_PER_INSN - n
        if kind == "tick":
            assert 0 <= gap <= TICK_ENTRY, (kind, seq, n, cycles)
        else:
            assert abs(gap) <= SAME, (kind, seq, n, cycles)
        seen[kind] = seen.get(kind, 0) + 1
    # Every paired span has its count.
    assert len([s for s in spans if s[0] != "release"]) == len(tsc)
    assert set(seen) == {"tick", "sched", "cxs"} and min(seen.values()) > 20


def test_on_two_cpus_each_counts_its_own(runs):
    d, spans = runs[2]
    tsc = tsc_spans(d)
    assert {cpu for _, cpu, _, _ in spans} == {0, 1}
    others = 0
    for kind, cpu, seq, n in spans:
        if kind == "release":
            continue
        cycles = tsc[kind, cpu, seq]
        assert n <= cycles / CYCLES_PER_INSN + SAME, (kind, cpu, seq, n)
        others += cycles / CYCLES_PER_INSN - n > TICK_ENTRY
    assert others > 5, "no span in which the other CPU ran"
