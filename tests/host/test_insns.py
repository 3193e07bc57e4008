"""tools/rtktrace/insns.py without a boot: the plugin's file read or refused
by line, its counts joined to records by seq only when each CPU has one
mark per record taken, and spans costed as differences of the counts at
their records (tests/boot/test_insn_count.py checks the counts themselves
against the TSC)."""
from types import SimpleNamespace
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
from rtktrace import insns  # noqa: E402
from rtktrace.records import CODE, NO_TASK  # noqa: E402


def rec(seq, name, task=NO_TASK):
    return SimpleNamespace(seq=seq, event=CODE[name], name=name, task=task,
                           tsc=1000 * seq, cpu=0, job=0, flags=0, arg=0)


def dump(per_cpu, dropped=None):
    dropped = dropped or [0] * len(per_cpu)
    return SimpleNamespace(
        params=SimpleNamespace(ntasks=1, cpus=len(per_cpu)),
        per_cpu=lambda: per_cpu,
        cpu_lines={k: {"records": len(r), "dropped": d}
                   for k, (r, d) in enumerate(zip(per_cpu, dropped))})


def test_the_plugins_file_is_read():
    text = "cpu 0 marks 2 executed 90\n10\n20\ncpu 1 marks 0 executed 5\n"
    assert insns.read_marks(text) == {0: [10, 20], 1: []}


@pytest.mark.parametrize("text,says", [
    ("cpu 0 marks 2 executed 9\n10\n", "1 counts, 2 announced"),
    ("cpu 0 marks 1 executed 9\n10\ncpu 1 marks 2 executed 4\n", "CPU 1"),
    ("cpu 0 marks 1 executed 9\nten\n", "line 2"),
    ("cpu zero marks 1 executed 9\n", "line 1"),
    ("10\n", "line 1"),
    ("error a CPU index past 255\n", "past 255"),
])
def test_a_file_not_the_plugins_is_refused_by_line(text, says):
    with pytest.raises(ValueError, match=says):
        insns.read_marks(text)


def test_spans_are_differences_of_the_counts_at_their_records():
    cpu0 = [rec(0, "tick_start"), rec(1, "release", 0),
            rec(2, "sched_start"), rec(3, "sched_end"), rec(4, "tick_end"),
            rec(5, "cxs_start"), rec(6, "cxs_end")]
    marks = {0: [100, 130, 170, 470, 480, 500, 777]}
    got = insns.span_insns(dump([cpu0]), marks)
    assert sorted(got) == sorted([("release", 0, 1, 30),
                                  ("sched", 0, 3, 300), ("tick", 0, 4, 380),
                                  ("cxs", 0, 6, 277)])
    assert insns.summary(got)["sched"] == (1, 300, 300, 300)


def test_a_gap_in_seq_leaves_the_open_spans_out():
    # Seq 2 dropped: the start before it may have been closed there.
    cpu0 = [rec(0, "tick_start"), rec(1, "sched_start"), rec(3, "sched_end"),
            rec(4, "tick_end")]
    got = insns.span_insns(dump([cpu0], dropped=[1]),
                           {0: [0, 10, 20, 30, 40]})
    assert got == []


def test_counts_must_be_one_per_record_taken_and_never_fall():
    cpu0 = [rec(0, "sched_start"), rec(1, "sched_end")]
    with pytest.raises(ValueError, match="3 marks for 2 records"):
        insns.counts_of(dump([cpu0]), {0: [1, 2, 3]})
    with pytest.raises(ValueError, match="CPU 1: 0 marks for 1"):
        insns.counts_of(dump([cpu0, [rec(0, "cxs_start")]]), {0: [1, 2]})
    with pytest.raises(ValueError, match="fall"):
        insns.counts_of(dump([cpu0]), {0: [5, 4]})


def test_an_end_pairs_with_one_start_only():
    cpu0 = [rec(0, "sched_start"), rec(1, "sched_end"), rec(2, "sched_end")]
    assert insns.span_insns(dump([cpu0]), {0: [0, 10, 25]}) == [
        ("sched", 0, 1, 10)]
