"""Bad input to the host programs is refused, naming what was wrong
(issue 10, item 5): scheduler parameters out of range and task-set paths
that are not readable files."""
import subprocess

import pytest

from conftest import host_tool, run_schedsim

SET = "task A e=1 p=2\ntask B e=1 p=3\n"


@pytest.mark.parametrize("sched,param,lo,hi", [
    ("pd2", "pfair_er", 0, 1), ("spd2", "pfair_er", 0, 1),
    ("gdq", "gdq_err", 0, 1), ("gdq", "gdq_T", 1, 2**30),
    ("gdq", "gdq_delta", 0, 2**30)])
def test_parameter_outside_its_range_is_refused_naming_the_range(
        tmp_path, sched, param, lo, hi):
    for bad in ([lo - 1] if lo else []) + [hi + 1, hi + 6]:
        proc = run_schedsim(SET, sched, 2, 5, tmp_path, "--param",
                            f"{param}={bad}", check=False)
        assert proc.returncode != 0, (param, bad, proc.stdout[-300:])
        assert f"{param}={bad}: must be from {lo} to {hi}" in proc.stderr
    for good in (lo, hi):
        run_schedsim(SET, sched, 2, 5, tmp_path, "--param", f"{param}={good}")


@pytest.mark.parametrize("tool", ["schedsim", "taskset_check"])
@pytest.mark.parametrize("what,reason", [
    ("directory", "cannot read: Is a directory"),
    # Readable by open(), but a read at offset 0 fails (nothing is mapped
    # there).
    ("/proc/self/mem", "cannot read: Input/output error"),
    ("missing", "No such file or directory")])
def test_unreadable_task_set_path_is_named_as_such(tmp_path, tool, what,
                                                   reason):
    path = {"directory": tmp_path, "missing": tmp_path / "none.tasks"}.get(
        what, what)
    args = [str(host_tool(tool))]
    if tool == "schedsim":
        args += ["--sched", "gedf", "--cpus", "2", "--slots", "5"]
    proc = subprocess.run(args + [str(path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0
    assert proc.stderr.strip() == f"{path}: {reason}", proc.stderr
