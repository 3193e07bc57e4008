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
from rtktrace.records import CODE  # noqa: E402

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


# The release path (insns.release_paths): work=latency's tasks, each of
# which measures its jobs' release latency (a `user` record per job).
LATENCY = "task L{} e=1 p=2 d=1 work=latency\n"
# On one CPU a sample's latency / 8 is its path's count and the few
# instructions outside it: from the release's ideal time to the
# interrupt's entry and from the return to ring 3 to the task's TSC read.
OUTSIDE = 40


@pytest.fixture(scope="module")
def latency_runs(iso, tmp_path_factory):
    from harness import make_iso
    tmp = tmp_path_factory.mktemp("insn_latency")
    out = {}
    for smp, sched in ((1, "pedf"), (2, "gedf")):
        tasks = tmp / f"latency{smp}.tasks"
        tasks.write_text("".join(LATENCY.format(k) for k in range(smp)))
        b = qemu(make_iso(tmp / f"latency{smp}.iso",
                          f"sched={sched} slots=40 trace=events",
                          tasks=tasks),
                 smp=smp, icount=ICOUNT, insn_count=True)
        assert b.passed, b.tail()
        d = dumpmod.read(b.serial)[0][-1]
        paths = insns.release_paths(d, *insns.read_file(b.marks))
        samples = {(r.task, r.job): r.arg for recs in d.per_cpu()
                   for r in recs if r.event == CODE["user"]}
        assert len(samples) == 19 * smp, b.tail()
        out[smp] = ({(p[1], p[2]): p for p in paths}, samples)
    return out


def test_on_one_cpu_a_release_path_is_the_measured_latency(latency_runs):
    paths, samples = latency_runs[1]
    gaps = []
    for job, ns in samples.items():
        assert job in paths, (job, sorted(paths))
        cpu, _, _, parts, total = paths[job]
        assert sum(parts.values()) == total and min(parts.values()) >= 0
        assert parts["decision"] > 0 and parts["switch"] > 0, parts
        gaps.append(ns / CYCLES_PER_INSN - total)
    assert 0 <= min(gaps) and max(gaps) <= OUTSIDE, gaps
    assert max(gaps) - min(gaps) <= SAME, gaps


def test_on_two_cpus_a_release_path_is_its_own_cpus_part(latency_runs):
    # Virtual time counts both CPUs' instructions: each path is below its
    # latency, on each CPU, and one CPU's waits for the other's decisions.
    paths, samples = latency_runs[2]
    for job, ns in samples.items():
        cpu, _, _, parts, total = paths[job]
        assert total < ns / CYCLES_PER_INSN, (job, total, ns)
    decided = {p[0] for p in paths.values() if p[3]["decision"] > 0}
    assert decided, paths
    # The same code costs the same on either CPU and with one CPU: the
    # interrupt's entry, the switch and the way out (the TSC's spans say
    # more on two CPUs).
    one, _ = latency_runs[1]
    for part in ("entry", "switch", "exit"):
        for cpu in (0, 1):
            mine = sorted(p[3][part] for p in paths.values() if p[0] == cpu)
            assert mine, (cpu, part)
            assert mine[len(mine) // 2] == sorted(
                p[3][part] for p in one.values())[len(one) // 2], (cpu, part)
