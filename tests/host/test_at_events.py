"""The EDF family and gfp at events (sched.h, next_event): schedsim
--at-events calls the plugin only at the slots its next_event names, as
the kernel's one-shot timers do. The schedule must be the one calls at
every boundary give (which test_edf.py, test_cedf.py, test_ngedf.py and
test_gfp.py hold against their references), and the slots it decides
must be exactly the events: the first slot, every completion, and every
periodic release that does not fall while the task's previous job still
runs -- counted here from the schedule itself."""
import subprocess

from hypothesis import assume, given, settings, strategies as st

from conftest import host_tool, parse_schedule
from cedf_ref import cluster_ffd, default_cluster
from edf_ref import ffd_partition, tasks_text
from test_edf import SETTINGS, event_lists, task_sets

SLOTS = 80


def schedsim(text, sched, cpus, tmp_path, *extra):
    f = tmp_path / "set.tasks"
    f.write_text(text)
    proc = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
         "--slots", str(SLOTS), *extra, str(f)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def both(text, sched, cpus, tmp_path):
    """(every boundary, at events, slots decided at events)."""
    full = schedsim(text, sched, cpus, tmp_path)
    ev = schedsim(text, sched, cpus, tmp_path, "--at-events")
    line = [l for l in ev.stderr.splitlines() if "at-events" in l]
    assert line, ev.stderr
    fields = dict(w.split("=") for w in line[0].split()[2:])
    assert int(fields["slots"]) == SLOTS
    return full.stdout, ev.stdout, int(fields["decided"])


def event_slots(tasks, rows):
    """The slots where a periodic set's schedule can change, from the
    schedule: 0, each job's completion (the boundary after its e-th
    quantum) and each release the task is waiting for."""
    events = {0}
    for task in tasks:
        ran, job, done_at = 0, 0, 0
        release = task.phase
        if release < SLOTS:
            events.add(release)
        for t, row in enumerate(rows):
            if task.name not in row:
                continue
            ran += 1
            if ran == task.e:
                ran, job, done_at = 0, job + 1, t + 1
                events.add(done_at)
                release = task.phase + job * task.p
                if release >= done_at:
                    events.add(release)
    return {t for t in events if t < SLOTS}


@settings(max_examples=60, **SETTINGS)
@given(task_sets(max_p=30), st.sampled_from(["gedf", "pedf", "cedf",
                                             "ngedf", "gfp"]))
def test_same_schedule_deciding_only_at_events(tmp_path, cs, sched):
    cpus, tasks = cs
    if sched == "pedf":
        assume(isinstance(ffd_partition(tasks, cpus), list))
    if sched == "cedf":
        k = default_cluster(cpus)
        assume(isinstance(cluster_ffd(tasks, cpus // k, k), list))
    full, ev, decided = both(tasks_text(tasks), sched, cpus, tmp_path)
    assert ev == full
    rows, _ = parse_schedule(full)
    assert decided == len(event_slots(tasks, rows))


@settings(max_examples=40, **SETTINGS)
@given(st.data())
def test_at_events_with_block_wake_leave_join(tmp_path, data):
    cpus, tasks = data.draw(task_sets(max_p=30))
    events = data.draw(event_lists(tasks, SLOTS))
    sched = data.draw(st.sampled_from(["gedf", "cedf"]))
    if sched == "cedf":
        k = default_cluster(cpus)
        assume(isinstance(cluster_ffd(tasks, cpus // k, k), list))
    full, ev, decided = both(tasks_text(tasks, events), sched, cpus,
                             tmp_path)
    assert ev == full
    assert decided <= SLOTS


def test_a_light_set_is_decided_at_few_slots(tmp_path):
    text = "task A e=2 p=20\ntask B e=3 p=40 phase=5\n"
    full, ev, decided = both(text, "gedf", 2, tmp_path)
    assert ev == full
    # A: releases 0, 20, 40, 60 and completions 2, 22, 42, 62; B: 5, 8,
    # 45, 48.
    assert decided == 12


def test_plugins_that_need_every_boundary_ignore_it(tmp_path):
    text = "task A e=2 p=5\ntask B e=3 p=7\n"
    for sched in ("pd2", "gdq"):
        extra = ("--param", "gdq_T=4") if sched == "gdq" else ()
        full = schedsim(text, sched, 2, tmp_path, *extra)
        ev = schedsim(text, sched, 2, tmp_path, *extra, "--at-events")
        assert ev.stdout == full.stdout
        assert "at-events" not in ev.stderr
