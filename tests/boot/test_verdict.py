"""The status a scheduler run ends with (kernel/run/verdict.c,
docs/running.md "Statuses and exit codes"), each provoked on purpose under
virtual time (-icount), so that every run is the same: a pass, a run made
late by late_boundary=, a refusal, and a run that kept its time but missed
deadlines its plan does not have. Each boots through scripts/run-qemu.sh,
as `make run` does, for its exit status."""
import json
import os
import re
import subprocess

from conftest import host_tool
from harness import ROOT

ICOUNT = "shift=3,sleep=off"
DEFAULT = ROOT / "tasks" / "default.tasks"


def run_qemu(iso, cpus, tmp_path):
    """(exit status, console) of scripts/run-qemu.sh on iso."""
    env = dict(os.environ, SMP=str(cpus), ICOUNT=ICOUNT,
               RUN_DIR=str(tmp_path / "run"))
    proc = subprocess.run([str(ROOT / "scripts" / "run-qemu.sh"), str(iso)],
                          env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout + proc.stderr


def result(console, topic):
    lines = [l for l in console.splitlines() if l.startswith(f"RESULT {topic} ")]
    assert len(lines) == 1, (topic, console[-3000:])
    return dict(kv.split("=", 1) for kv in lines[0].split()[2:])


def exit_line(console):
    return [l for l in console.splitlines() if l.startswith("RESULT exit")][-1]


def schedule(console):
    return [json.loads(l)["cpus"] for l in console.splitlines()
            if l.startswith('{"t": ')]


def simulated(sched, cpus, slots, tasks):
    out = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
         "--slots", str(slots), str(tasks)],
        capture_output=True, text=True, check=True, timeout=120)
    return schedule(out.stdout)


def test_a_run_that_kept_its_plan_passes_and_exits_0(iso_with, tmp_path):
    iso = iso_with("sched=spd2 slots=30 timing=virtual", tasks=DEFAULT)
    status, out = run_qemu(iso, 3, tmp_path)
    assert status == 0, out[-3000:]
    assert exit_line(out) == "RESULT exit status=pass"
    v = result(out, "verdict")
    assert (v["status"], v["time"], v["schedule"], v["misses"]) == \
        ("pass", "ok", "ok", "ok"), v
    assert (v["clock_events"], v["slots"]) == ("90", "90"), v
    assert schedule(out) == simulated("spd2", 3, 30, DEFAULT)
    assert "timing: virtual" in out


def test_a_late_boundary_makes_the_run_late_and_exit_3(iso_with, tmp_path):
    """CPU 0 takes its boundary 5 2.5 quanta late (pd2, aligned: nothing
    else waits for it), so its boundaries 6 and 7 pass unhandled; the later
    of the two it takes at 7.5 quanta, 1.5 quanta after boundary 6's time,
    plus the handler's few microseconds."""
    iso = iso_with("sched=pd2 slots=20 timing=real late_boundary=0:5:2500",
                   tasks=DEFAULT)
    status, out = run_qemu(iso, 2, tmp_path)
    assert status == 3, out[-3000:]
    m = re.fullmatch(r"RESULT exit status=late reason=boundaries "
                     r"late_max_us=(\d+)", exit_line(out))
    assert m, exit_line(out)
    assert 1500 <= int(m.group(1)) < 1600, m.group(0)
    v = result(out, "verdict")
    assert (v["status"], v["time"], v["clock_missed"]) == ("late", "failed",
                                                           "2"), v
    # The slots the verdict counts as run against the plugin's decision are
    # those of the executed schedule that hold another task than the
    # simulator's.
    got, want = schedule(out), simulated("pd2", 2, 20, DEFAULT)
    differ = sum(g is not None and g != w
                 for grow, wrow in zip(got, want) for g, w in zip(grow, wrow))
    assert differ > 0 and v["slots_differ"] == str(differ), v
    assert "late_boundary= held CPU 0's boundary 5 for 2500 us on purpose" \
        in out
    assert "run-qemu: the run was late" in out


def test_a_refused_task_set_fails_and_exits_1(iso_with, tmp_path):
    bad = tmp_path / "bad.tasks"
    bad.write_text("task A e=3 p=2\n")
    status, out = run_qemu(iso_with("sched=gedf slots=20", tasks=bad), 2,
                           tmp_path)
    assert status == 1, out[-3000:]
    assert exit_line(out) == "RESULT exit status=fail reason=taskset"
    assert "RESULT verdict" not in out, "a refused set never ran"


def test_misses_its_plan_does_not_have_fail_the_run(iso_with, tmp_path):
    """A task that needs all of its CPU (e = p) meets every deadline in
    the plan, which costs nothing to switch or take a timer; in the kernel
    those costs end each job a few microseconds late. The timers kept
    their time, so the verdict is the kernel's own: fail, naming the
    misses."""
    tight = tmp_path / "tight.tasks"
    tight.write_text("task A e=2 p=2 prio=1 cpu=0\n")
    status, out = run_qemu(iso_with("sched=pfp slots=20 timing=virtual",
                                    tasks=tight), 1, tmp_path)
    assert status == 1, out[-3000:]
    assert exit_line(out) == "RESULT exit status=fail reason=misses"
    v = result(out, "verdict")
    task = result(out, "task")
    assert (v["status"], v["time"], v["misses"], v["misses_planned"]) == \
        ("fail", "ok", "failed", "0"), v
    assert int(task["misses"]) > 0 and v["misses_unplanned"] == \
        task["misses"], (v, task)
    assert "a job with no slack misses on the kernel's own costs" in out


def booted(iso_with, tmp_path, words, text, cpus):
    from harness import qemu
    tasks = tmp_path / "set.tasks"
    tasks.write_text(text)
    b = qemu(iso_with(words, tasks=tasks), smp=cpus, icount=ICOUNT,
             memory="512M")
    summary = json.loads(re.search(r'^(\{"summary".*)$', b.serial,
                                   re.M).group(1))["summary"]
    return b, summary


def test_a_miss_ending_with_the_last_slot_is_not_held_against_the_plan(
        iso_with, tmp_path):
    """Non-preemptive EDF on a heavy set: T4's seventh job is due at 294
    and ends with the run's last slot, at 300. The kernel charges that slot
    and counts the miss; the plugin decided slots 0-299 and would see the
    job end at boundary 300, which the run never reaches. The verdict
    compares only what both saw: it passes, while the task's own line
    keeps the miss (2 against the plugin's 1)."""
    b, summary = booted(iso_with, tmp_path, "sched=ngedf slots=300",
                        "task T0 e=43 p=54\ntask T1 e=69 p=78\n"
                        "task T2 e=20 p=36\ntask T3 e=16 p=23\n"
                        "task T4 e=30 p=42\ntask T5 e=8 p=24\n", 4)
    v = b.result("verdict")
    tasks = {r["name"]: r for r in b.results("task")}
    assert (v["status"], v["schedule"], v["misses"]) == \
        ("pass", "ok", "ok"), b.tail()
    assert (tasks["T4"]["misses"], summary["tasks"]["T4"]["misses"]) == \
        ("2", 1)
    assert int(v["misses_run"]) == int(v["misses_planned"]) == sum(
        t["misses"] for t in summary["tasks"].values()) == 5


def test_a_proportional_share_plugin_has_no_deadlines_to_check(iso_with,
                                                               tmp_path):
    """GDQ shares the CPUs by weight and keeps no jobs: its own count of
    misses is always 0. Ten tasks of weight 1/5 to 1/10 on 4 CPUs miss 5
    deadlines within GDQ's service error; the verdict reports them and
    does not hold them against the plugin."""
    text = "".join(f"task T{i} e=1 p={p}\n"
                   for i, p in enumerate((10, 6, 7, 9, 7, 10, 10, 5, 8, 8)))
    b, summary = booted(iso_with, tmp_path, "sched=gdq slots=40", text, 4)
    v = b.result("verdict")
    assert (v["status"], v["schedule"], v["misses"]) == \
        ("pass", "ok", "unchecked"), b.tail()
    assert int(v["misses_run"]) == sum(
        int(r["misses"]) for r in b.results("task")) > 0
    assert "a proportional-share plugin keeps no deadlines" in b.serial


def test_a_late_timer_makes_an_event_run_late(iso_with, tmp_path):
    """At events the time check is the timers': CPU 1's first, at time 0,
    is held 2.5 ms, so the plugin's first call there comes 2.5 ms late --
    more than the 100 us tolerated -- and the run is late, naming how
    late, though its plan's misses and windows held."""
    iso = iso_with("sched=pfp slots=40 timing=virtual "
                   "late_boundary=1:0:2500",
                   tasks=ROOT / "tasks" / "servers.tasks")
    status, out = run_qemu(iso, 2, tmp_path)
    assert status == 3, out[-3000:]
    m = re.fullmatch(r"RESULT exit status=late reason=timers "
                     r"late_max_us=(\d+)", exit_line(out))
    assert m and 2500 <= int(m.group(1)) < 2600, exit_line(out)
    v = result(out, "verdict")
    assert (v["time"], v["clock_late"], v["misses"], v["windows"]) == \
        ("failed", "1", "ok", "2"), v
    assert result(out, "sched")["timer_late_max_ns"] == v["late_max_ns"]
