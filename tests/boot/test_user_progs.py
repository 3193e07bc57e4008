"""A user's own program and the fuller ring-3 interface, booted: a program
from a directory of the user's (make USER_PROGS_DIR=) runs with its
arguments under every plugin of the registry; tasks that wait for the
synchronous release and end their jobs early (user/rtspin.c, exec=) run
the simulator's schedule; a release that times out says which task kept
it waiting. Virtual time (-icount) throughout, so each run is the same
every time."""
import re
import subprocess

import pytest

from conftest import host_tool
from harness import BUILD, ROOT, drop_user_progs_build, qemu

ICOUNT = "shift=3,sleep=off"
SCHEDSIM = BUILD / "host" / "schedsim"


def registry():
    """The plugins, as the simulator (sched/registry.c) lists them."""
    if not SCHEDSIM.exists():
        return ["(build/host/schedsim is missing: run make host)"]
    usage = subprocess.run([str(SCHEDSIM)], capture_output=True, text=True,
                           timeout=60).stderr
    line = next(l for l in usage.splitlines() if l.startswith("schedulers:"))
    return line.split()[1:]


# The user's program: it writes its arguments, then spins (with PAUSE
# under the emulator, as busy loops should; lib/rt_abi.h).
MINE = r"""
#include "lib/cpu.h"
#include "lib/msg.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	struct msg m;
	msg_begin(&m, "mine:");
	for (int i = 0; i < argc; i++) {
		msg_str(&m, " <");
		msg_str(&m, argv[i]);
		msg_str(&m, ">");
	}
	msg_send(&m);
	for (;;)
		if (ctl->flags & RT_CONTROL_PAUSE)
			cpu_pause();
}
"""

# prio= is for pfp; the other plugins take the line as it is.
# S has slack after M's quantum (p=3): pfp's verdict holds a run to the
# simulated machine's misses, which pay nothing for a switch, so a job
# with no slack at all would miss on the kernel's own costs.
MINE_TASKS = """\
task M e=1 p=4 prio=1 work=mine args="hello 'two words' \\"q\\" ''"
task S e=1 p=3 prio=2
"""


def make_run_iso(tmp_path, sched, tasks, cmdline, progs=None):
    """The ISO `make run` boots, built by make itself (the build directory
    of progs, make's own, is removed again)."""
    iso = tmp_path / f"run-{sched}.iso"
    more = [f"USER_PROGS_DIR={progs}"] if progs else []
    proc = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT),
         f"RUN_ISO_FILE={iso}", f"SCHED={sched}", f"TASKS={tasks}",
         f"CMDLINE={cmdline}", *more, str(iso)],
        capture_output=True, text=True, timeout=600)
    if progs:
        drop_user_progs_build(progs)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return iso


@pytest.mark.parametrize("sched", registry())
def test_your_own_program_runs_under_every_plugin(tmp_path, sched):
    """Nothing of the tree is touched: a file in a directory of one's own,
    a task line naming it with its arguments, and make."""
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "mine.c").write_text(MINE)
    tasks = tmp_path / "mine.tasks"
    tasks.write_text(MINE_TASKS)
    iso = make_run_iso(tmp_path, sched, tasks, "slots=12", progs)
    boot = qemu(iso, smp=2, icount=ICOUNT)
    assert boot.passed, boot.tail()
    assert re.search(r"^M\| mine: <mine> <hello> <two words> <\"q\"> <>\r?$",
                     boot.serial, re.M), boot.tail()
    m = {r["name"]: r for r in boot.results("task")}["M"]
    assert (m["state"], m["work"]) == ("ok", "mine"), m
    assert int(m["ran_us"]) > 0, m


# Jobs that end early (exec=, rtspin) beside tasks that run their budget;
# every rtspin task waits for the synchronous release, E after touching
# 256 KiB of its working set. Checked against the simulator on each kind
# of plugin: global EDF at events (a job's end hands the rest of its slot
# to the next task), Pfair on aligned and on staggered quanta (the CPU
# idles the rest of a slot whose job ended).
EARLY = """\
task A e=3 p=6 work=rtspin exec=1
task B e=2 p=4
task C e=2 p=6 work=rtspin exec=1
task D e=1 p=4
task E e=2 p=8 ws=262144 work=rtspin exec=1 args="-q -w 262144"
"""
SLOTS = 30


def simulate(sched, cpus, slots, tasks):
    out = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
         "--slots", str(slots), str(tasks)],
        capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.splitlines()


def schedule_lines(serial):
    return [l.strip() for l in serial.splitlines()
            if l.strip().startswith("{")]


@pytest.mark.parametrize("sched", ["gedf", "pd2", "spd2"])
def test_jobs_that_end_early_run_the_simulators_schedule(iso_with, tmp_path,
                                                         sched):
    tasks = tmp_path / "early.tasks"
    tasks.write_text(EARLY)
    boot = qemu(iso_with(f"sched={sched} slots={SLOTS}", tasks=tasks), smp=2,
                icount=ICOUNT)
    assert boot.passed, boot.tail()
    want = simulate(sched, 2, SLOTS, tasks)
    assert schedule_lines(boot.serial) == want
    rel = boot.result("release")
    assert (rel["tasks"], rel["reached"], rel["timeout"]) == ("3", "3", "0")
    assert int(rel["waited_us"]) > 0
    for r in boot.results("task"):
        assert r["state"] == "ok", r
        if r["work"] == "rtspin":
            # Every job but the last (under way at the end) measured.
            assert int(r["resp_n"]) in (int(r["jobs"]), int(r["jobs"]) + 1), r


# L declares that it waits for the release but never does: the release
# comes at the timeout, and L runs from T0 as a plain spinning task.
LATE = r"""
#include "lib/cpu.h"
#include "lib/start.h"

RT_PROGRAM(RT_PROG_SYNC_RELEASE);

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	for (;;)
		if (ctl->flags & RT_CONTROL_PAUSE)
			cpu_pause();
}
"""


def test_a_release_that_times_out_names_who_kept_it(tmp_path):
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "late.c").write_text(LATE)
    tasks = tmp_path / "late.tasks"
    tasks.write_text("task R e=2 p=4 work=rtspin exec=1\n"
                     "task L e=1 p=3 work=late\n")
    iso = make_run_iso(tmp_path, "gedf", tasks,
                       "slots=20 release_timeout_ms=30", progs)
    boot = qemu(iso, smp=1, icount=ICOUNT)
    assert boot.passed, boot.tail()
    assert "release: after 30 ms, 1 of 2 tasks at the barrier; released " \
        "without: L" in boot.serial, boot.tail()
    rel = boot.result("release")
    assert (rel["tasks"], rel["reached"], rel["timeout"], rel["waited_us"]) \
        == ("2", "1", "1", "30000")
    # From T0 on, the run is the simulator's.
    assert schedule_lines(boot.serial) == simulate("gedf", 1, 20, tasks)


def test_exec_needs_a_program_that_ends_its_jobs(iso_with, tmp_path):
    tasks = tmp_path / "spin.tasks"
    tasks.write_text("task A e=2 p=4 exec=1\n")
    boot = qemu(iso_with("sched=gedf slots=10", tasks=tasks), smp=1)
    assert "taskset: spin.tasks:1: task A: exec=1 says its jobs end early, " \
        "but work=spin does not end its jobs" in boot.serial, boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=work"
