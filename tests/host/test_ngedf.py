"""The ngedf plugin (sched/edf/ngedf.c) through tools/schedsim, against the
independent reference of ngedf_ref.py: exact schedules CPU by CPU, the
per-task accounting, and non-preemption itself."""
import pytest
from hypothesis import given, settings, strategies as st

from conftest import run_schedsim
from edf_ref import Task, tasks_text
from ngedf_ref import run as run_reference
from test_edf import SETTINGS, task_sets


def check(tasks, cpus, slots, tmp_path):
    rows, summary = run_schedsim(tasks_text(tasks), "ngedf", cpus, slots,
                                 tmp_path)
    want, stats = run_reference(tasks, cpus, slots)
    names = [t.name for t in tasks]
    assert rows == [[None if i is None else names[i] for i in r]
                    for r in want]
    assert summary["tasks"] == {
        n: dict(s) for n, s in zip(names, stats)}
    return rows, summary


@settings(max_examples=80, **SETTINGS)
@given(task_sets())
def test_matches_reference(tmp_path, cs):
    cpus, tasks = cs
    check(tasks, cpus, 60, tmp_path)


@settings(max_examples=40, **SETTINGS)
@given(task_sets(implicit=True))
def test_a_started_job_is_never_preempted_or_moved(tmp_path, cs):
    """Sec. 2: "once a job commences execution on a processor, it will run
    to completion on that processor without preemption": a task's quanta
    come in runs of exactly e on one CPU (implicit deadlines, so a job
    starts only after its predecessor ended)."""
    cpus, tasks = cs
    rows, _ = check(tasks, cpus, 60, tmp_path)
    by = {t.name: t for t in tasks}
    for c in range(cpus):
        run, name = 0, None
        for t, row in enumerate(rows + [[None] * cpus]):
            if row[c] == name and run < (by[name].e if name else 0):
                run += 1
                continue
            if name is not None and t < len(rows):
                assert run == by[name].e, (c, t, name, run)
            name, run = row[c], 1


def test_refuses_over_utilised_sets(tmp_path):
    proc = run_schedsim("task A e=2 p=3\ntask B e=2 p=3\ntask C e=2 p=3\n",
                        "ngedf", 1, 5, tmp_path, check=False)
    assert proc.returncode == 1
    assert "task B (line 2): total utilisation exceeds M = 1" in proc.stderr


def test_refuses_events(tmp_path):
    proc = run_schedsim("task A e=1 p=3\nat 2 block A\n", "ngedf", 1, 5,
                        tmp_path, check=False)
    assert proc.returncode == 1
    assert ":2: ngedf does not support 'block' events" in proc.stderr
