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


def test_the_kernels_way_in_and_out_is_read_with_the_marks():
    text = ("cpu 0 marks 1 executed 90\n10\ncpu 0 events 2\nin 5\nout 40\n"
            "cpu 1 marks 0 executed 5\ncpu 1 events 0\n")
    assert insns.read_file(text) == ({0: [10], 1: []},
                                     {0: [("in", 5), ("out", 40)], 1: []})
    assert insns.read_marks(text) == {0: [10], 1: []}


@pytest.mark.parametrize("text,says", [
    ("cpu 0 marks 0 executed 9\ncpu 0 events 2\nin 5\n",
     "1 events, 2 announced"),
    ("cpu 0 marks 0 executed 9\ncpu 0 events 1\nup 5\n", "line 3"),
    ("cpu 0 events 1\nin 5\n", "line 1"),     # before the CPU's marks
    ("cpu 0 marks 0 executed 9\ncpu 0 events 0\ncpu 0 events 0\n",
     "line 3"),
])
def test_events_not_the_plugins_are_refused_by_line(text, says):
    with pytest.raises(ValueError, match=says):
        insns.read_file(text)


def path_cpu(task=0, job=1, release_tsc=0, sched=True):
    """One CPU's records of a boundary that releases (task, job) and
    switches to it, with the counts of each record: the tick starts at
    1,000 (its entry's "in" at 900), decides from 1,300 to 1,800, ends at
    1,900; the switch runs from 2,000 to 2,250; "out" at 2,300."""
    recs = [rec(0, "tick_start"), rec(1, "release", task)]
    counts = [1000, 1100]
    if sched:
        recs += [rec(2, "sched_start"), rec(3, "sched_end", task)]
        counts += [1300, 1800]
    recs += [rec(len(recs), "tick_end"), rec(len(recs) + 1, "cxs_start",
                                               task),
             rec(len(recs) + 2, "cxs_end", task)]
    counts += [1900, 2000, 2250]
    recs[1].job = recs[-1].job = job
    recs[1].arg = release_tsc
    return recs, counts


def test_a_release_path_is_cut_at_its_records_and_the_way_in_and_out():
    recs, counts = path_cpu()
    events = {0: [("in", 100), ("out", 200), ("in", 900), ("out", 2300),
                  ("in", 2400)]}
    got = insns.release_paths(dump([recs]), {0: counts}, events)
    assert got == [(0, 0, 1, {"entry": 100, "boundary": 300,
                              "decision": 500, "after": 100,
                              "to_switch": 100, "switch": 250,
                              "exit": 50}, 1400)]
    assert sum(got[0][3].values()) == got[0][4]
    # Without a decision on this CPU (another one decided), the tick's
    # whole time is the boundary's.
    recs, counts = path_cpu(sched=False)
    got = insns.release_paths(dump([recs]), {0: counts}, events)
    assert got[0][3]["boundary"] == 900 and got[0][3]["decision"] == 0 \
        and got[0][3]["after"] == 0


def test_what_is_not_a_release_path_is_left_out():
    events = {0: [("in", 900), ("out", 2300)]}
    # Released after the tick began: another tick switched to it.
    recs, counts = path_cpu(release_tsc=10 ** 9)
    assert insns.release_paths(dump([recs]), {0: counts}, events) == []
    # No way out after the switch, or no way in before the tick.
    recs, counts = path_cpu()
    assert insns.release_paths(dump([recs]), {0: counts},
                               {0: [("in", 900)]}) == []
    assert insns.release_paths(dump([recs]), {0: counts},
                               {0: [("out", 2300)]}) == []
    # A job switched to without a release record (the set's first run).
    recs, counts = path_cpu()
    recs[1] = rec(1, "completion", 0)
    assert insns.release_paths(dump([recs]), {0: counts}, events) == []


def test_only_the_first_tick_after_the_release_makes_its_path():
    # The job was released before an earlier tick of its CPU, which ran
    # something else: the later tick that switches to it is not its
    # release's path.
    recs, counts = path_cpu(release_tsc=0)
    for r in recs:
        r.seq += 2
        r.tsc += 5000
    recs = [rec(0, "tick_start"), rec(1, "tick_end")] + recs
    counts = [10, 20] + counts
    events = {0: [("in", 5), ("in", 900), ("out", 2300)]}
    assert insns.release_paths(dump([recs]), {0: counts}, events) == []
    recs[0].tsc = recs[1].tsc = -1     # the earlier tick before the release
    assert len(insns.release_paths(dump([recs]), {0: counts}, events)) == 1
