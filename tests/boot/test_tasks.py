"""Tasks run (issue: threads, context switches, ring 3): every plugin's
executed schedule -- who really ran in each slot, from the context
switches -- equals the simulator's, misbehaving programs are killed and
named while the others keep their deadlines, and the kernel's accounting,
the tasks' own hourglass and the in-kernel hourglass agree."""
import csv
import json
import re
import subprocess
import sys

import pytest

from conftest import host_tool, parse_schedule
from harness import ROOT, qemu

sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests" / "host"))
from rtktrace.decode import check_log  # noqa: E402
from trace_event_ref import validate  # noqa: E402

# Virtual time: the TSC and the timers follow the instruction count, so the
# run is the same every time. Busy loops execute PAUSE under TCG
# (lib/rt_abi.h, RT_CONTROL_PAUSE), which keeps QEMU's round robin fair.
ICOUNT = "shift=3,sleep=off"
SLOTS = 40

DYNAMIC = """\
task A e=1 p=2
task B e=2 p=5
task C e=1 p=3
task D e=3 p=7
at 6 block C
at 11 wake C
at 15 leave B
at 30 join B
"""

# DYNAMIC and two heavier tasks (U = 3.08): on 4 CPUs in clusters of 2,
# first fit by utilisation puts E, F and A in cluster 0, D, B and C (the
# events' tasks) in cluster 1.
CLUSTERED = DYNAMIC.replace("at 6", "task E e=3 p=4\ntask F e=2 p=3\nat 6")

SHARES = """\
task A weight=3
task B weight=1
task C weight=2
task D weight=5
task E weight=1
at 20 block C
at 33 wake C
"""


def periodic_specs(path):
    """{name: (e, p, d, phase)} of the e/p tasks of a task-set file."""
    out = {}
    for line in path.read_text().splitlines():
        words = line.split("#")[0].split()
        if len(words) < 2 or words[0] != "task":
            continue
        kv = dict(w.split("=", 1) for w in words[2:])
        if "e" in kv:
            e, p = int(kv["e"]), int(kv["p"])
            out[words[1]] = (e, p, int(kv.get("d", p)),
                             int(kv.get("phase", 0)))
    return out


def jobs_of_schedule(rows, specs, staggered):
    """Each task's (jobs, misses) as the executed schedule has them, for a
    set without events whose tasks run through their budgets: job j is
    released at phase + j*p, done when its e-th slot ends -- at t + 1 on
    CPU k, plus k/M of a quantum when staggered -- and late after its
    deadline release + d."""
    m = len(rows[0])
    out = {}
    for name, (e, p, d, phase) in specs.items():
        ran = jobs = misses = 0
        for t, row in enumerate(rows):
            for k, who in enumerate(row):
                if who != name:
                    continue
                ran += 1
                if ran % e == 0:
                    done = t + 1 + (k / m if staggered else 0)
                    if done > phase + jobs * p + d:
                        misses += 1
                    jobs += 1
        out[name] = (jobs, misses)
    return out


def write_set(tmp_path, name, text):
    path = tmp_path / f"{name}.tasks"
    path.write_text(text)
    return path


def task_file(tmp_path, which):
    if which == "default":
        return ROOT / "tasks" / "default.tasks"
    return write_set(tmp_path, which, {"dynamic": DYNAMIC,
                                       "clustered": CLUSTERED,
                                       "shares": SHARES}[which])


def simulate(sched, cpus, slots, tasks, params=()):
    extra = [a for p in params for a in ("--param", p)]
    out = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
         "--slots", str(slots), *extra, str(tasks)],
        capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.splitlines()


def schedule_lines(serial):
    return [l.strip() for l in serial.splitlines()
            if l.strip().startswith("{")]


def boot_run(iso_with, sched, cpus, tasks, words=(), slots=SLOTS,
             late=False):
    """late: the run is made late on purpose (late_boundary=)."""
    iso = iso_with(" ".join([f"sched={sched}", f"slots={slots}", *words]),
                   tasks=tasks)
    boot = qemu(iso, smp=cpus, icount=ICOUNT)
    assert (boot.late if late else boot.passed), boot.tail()
    return boot


def task_results(boot):
    return {r["name"]: r for r in boot.results("task")}


# Each plugin on 2, 4 and an odd number of CPUs; the dynamic sets exercise
# join/leave/block/wake through the same threads.
CASES = [(s, m, "default", ()) for s in ("pd2", "spd2", "gedf")
         for m in (2, 3, 4)] + [
    ("pedf", 2, "dynamic", ()), ("pedf", 3, "default", ("edf_cpudl=2",)),
    ("pedf", 4, "default", ()),
    ("spd2", 3, "dynamic", ()), ("gedf", 3, "dynamic", ()),
    ("cedf", 4, "clustered", ("cluster=2",)),
    ("pd2", 2, "dynamic", ("pfair_er=1",)),
    ("gdq", 2, "shares", ("gdq_err=1",)), ("gdq", 3, "shares", ("gdq_err=1",)),
    ("gdq", 4, "shares", ("gdq_T=40", "gdq_delta=2", "gdq_err=1")),
    ("ngedf", 2, "default", ()), ("ngedf", 3, "default", ()),
    ("ngedf", 4, "default", ()),
]


@pytest.mark.parametrize("sched,cpus,taskset,params", CASES)
def test_executed_schedule_equals_simulator(iso_with, tmp_path, sched, cpus,
                                            taskset, params):
    tasks = task_file(tmp_path, taskset)
    boot = boot_run(iso_with, sched, cpus, tasks, (*params, "trace=events"))
    want = simulate(sched, cpus, SLOTS, tasks, params)
    got = schedule_lines(boot.serial)
    assert len(got) == SLOTS + 1, boot.tail()
    assert got == want
    _, summary = parse_schedule("\n".join(want))
    results = task_results(boot)
    for name, st in summary["tasks"].items():
        r = results[name]
        assert r["state"] == "ok", r
        assert int(r["quanta"]) == st["quanta"], (name, r, st)
    # The kernel's own job accounting (kernel/task/jobs.c) against the jobs the
    # executed schedule holds, on sets without events.
    if taskset == "default":
        rows, _ = parse_schedule("\n".join(got))
        model = jobs_of_schedule(rows, periodic_specs(tasks),
                                 summary["ticks"] == "staggered")
        for name, (jobs, misses) in model.items():
            r = results[name]
            assert (int(r["jobs"]), int(r["misses"])) == (jobs, misses), r
    # The decoder reads the same records from the dump: its schedule,
    # jobs and overheads are the ones the kernel printed (tools/rtktrace).
    assert check_log(boot.serial) == []
    # The dump and the simulator's run export valid Perfetto traces with
    # the same jobs (a job dropped at a wake: when the kernel got to it).
    (tmp_path / "console.log").write_text(boot.serial)
    (tmp_path / "sim.jsonl").write_text("\n".join(want) + "\n")
    kernel = exported_jobs(tmp_path / "k", tmp_path / "console.log")
    sim = exported_jobs(tmp_path / "s", tmp_path / "sim.jsonl", "--tasks",
                        tasks)
    assert kernel == sim


def exported_jobs(out, *args):
    """tools/rtk-trace decode's jobs.csv, less the start times (the
    kernel's switches take their time), after checking its perfetto.json
    against the Trace Event Format."""
    proc = subprocess.run([str(ROOT / "tools" / "rtk-trace"), "decode",
                           *map(str, args), "--out", str(out),
                           "--no-pictures"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and " 0 problems" in proc.stdout, \
        proc.stdout + proc.stderr
    assert validate(json.loads((out / "perfetto.json").read_text())) == []
    with open(out / "jobs.csv", newline="") as f:
        return [dict(r, start_ns="", response_ns="",
                     completion_ns=("" if r["outcome"] == "dropped" else
                                    r["completion_ns"]))
                for r in csv.DictReader(f)]


# Light enough that most slots have no release and no completion.
SPARSE = """\
task A e=2 p=10
task B e=3 p=20 phase=5
task C e=4 p=20
"""


def boundaries_per_cpu(serial):
    """Each CPU's (serviced, missed) from the quantum clock's table."""
    table = serial[serial.index("   cpu   apic   serviced   missed"):]
    return [(int(m.group(1)), int(m.group(2))) for m in re.finditer(
        r"^\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s*$", table, re.M)]


@pytest.mark.parametrize("sched", ["gedf", "pedf", "ngedf"])
def test_edf_plugins_run_at_events(iso_with, tmp_path, sched):
    """The EDF family is called only at releases and completions, with the
    timers armed for them (events=on, the default): every CPU takes a
    boundary exactly at the slots schedsim --at-events decides, and the
    executed schedule is the one of a decision at every quantum
    (events=off), which is the simulator's."""
    tasks = write_set(tmp_path, "sparse", SPARSE)
    want = simulate(sched, 2, SLOTS, tasks)
    ev = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", "2",
         "--slots", str(SLOTS), "--at-events", str(tasks)],
        capture_output=True, text=True, check=True, timeout=120)
    decided = int(re.search(r"decided=(\d+)", ev.stderr).group(1))
    assert ev.stdout.splitlines() == want
    assert decided < SLOTS / 2
    at_events = boot_run(iso_with, sched, 2, tasks, ("trace=events",))
    quanta = boot_run(iso_with, sched, 2, tasks, ("events=off",))
    assert schedule_lines(at_events.serial) == want
    assert schedule_lines(quanta.serial) == want
    assert boundaries_per_cpu(at_events.serial) == [(decided, 0)] * 2
    assert boundaries_per_cpu(quanta.serial) == [(SLOTS, 0)] * 2
    assert check_log(at_events.serial) == []


def test_at_events_the_run_ends_after_the_last_event(iso_with, tmp_path):
    """SPARSE's last event before slot 37 is A's completion at 32 and the
    next its release at 40: the CPUs still take the run's end boundary,
    which ends their idle loops (they used to arm past it and idle on)."""
    tasks = write_set(tmp_path, "sparse", SPARSE)
    boot = boot_run(iso_with, "gedf", 2, tasks, slots=37)
    assert schedule_lines(boot.serial) == simulate("gedf", 2, 37, tasks)


@pytest.mark.parametrize("events", ["on", "off"])
def test_a_slot_its_cpu_passed_late_ends_the_job_as_the_plugin_does(
        iso_with, tmp_path, events):
    """CPU 0 takes slot 8's boundary 1.5 ms late, past slot 9's: job 2 of
    L (released at 8, one quantum) was the plugin's for slot 8 and never
    ran. The kernel charges it that slot as the plugin did, so job 2 ends
    by its budget and every later job is the one the plugin runs (the
    kernel's count had stayed one job behind: each sleep ended the
    previous job, 7 misses of 4 ms and a latency of a whole period). All
    10 jobs released end, none late, and each sample of the latency task
    is measured from its own job's release: 8 samples (not job 0, nothing
    released it after a sleep; not job 2), each under a quantum."""
    tasks = write_set(tmp_path, "late", "task L e=1 p=4 work=latency\n")
    boot = boot_run(iso_with, "pedf", 2, tasks,
                    ("late_boundary=0:8:1500", f"events={events}"), slots=40,
                    late=True)
    assert boot.result("sched")["boundary_missed"] == "1"
    r = task_results(boot)["L"]
    assert (r["jobs"], r["misses"], r["lat_n"]) == ("10", "0", "8"), r
    assert int(r["lat_max_ns"]) < 1000000, r


BAD = """\
task S e=2 p=4
task K e=1 p=16 work=bad_kread
task W e=1 p=16 work=bad_write_other
task X e=1 p=16 work=bad_exec_data
task Z e=1 p=16 work=bad_div0
task P e=1 p=16 work=bad_syscall_ptr
task U e=1 p=16 work=bad_ud
task G e=1 p=16 work=bad_gp
"""

# What each misbehaving program does, as the kernel names it.
KILLED = {
    "K": r"page fault reading 0xffffffff80100000 \(not allowed\)",
    "W": r"page fault writing 0x[0-9a-f]+ \(not allowed\)",
    "X": r"page fault executing 0x8000[0-9a-f]+ \(not allowed\)",
    "Z": r"divide error",
    "P": r"bad system-call pointer 0xffffffff80100000 \(\d+ bytes\) in write",
    "U": r"invalid opcode",
    "G": r"general protection fault \(error \w+\)",
}


@pytest.mark.parametrize("sched", ["gedf", "spd2"])
def test_misbehaving_programs_are_killed_and_the_rest_runs_on(
        iso_with, tmp_path, sched):
    """One CPU, so the spin task S shares it with every misbehaving
    program: each is killed and named, S keeps every deadline."""
    slots = 48
    boot = boot_run(iso_with, sched, 1, write_set(tmp_path, "bad", BAD),
                    slots=slots)
    results = task_results(boot)
    for name, what in KILLED.items():
        assert re.search(rf"^task {name} killed: {what} rip=0x[0-9a-f]+",
                         boot.serial, re.M), (name, boot.tail())
        r = results[name]
        assert (r["state"], r["faults"]) == ("killed", "1"), r
    # A program that survives its bad deed says so and exits: none does.
    assert "let through" not in boot.serial, boot.tail()
    s = results["S"]
    assert (s["state"], s["faults"], s["misses"]) == ("ok", "0", "0"), s
    assert int(s["jobs"]) == slots // 4, s


def test_a_task_cannot_read_or_write_the_kernel_or_another_task(iso_with,
                                                                tmp_path):
    """The writes of bad_write_other go to the victim's control page through
    the kernel's address for it: the fault stops them, and the victim's own
    measurement (written to that page) comes out whole."""
    tasks = write_set(tmp_path, "pair", "task V e=2 p=4\n"
                      "task W e=1 p=4 work=bad_write_other\n"
                      "task K e=1 p=4 work=bad_kread\n")
    boot = boot_run(iso_with, "gedf", 1, tasks, slots=20)
    r = task_results(boot)
    assert r["W"]["state"] == "killed" and r["K"]["state"] == "killed"
    v = r["V"]
    assert v["state"] == "ok" and int(v["self_us"]) > 0, v


def overheads(boot):
    return {r["event"]: r for r in boot.results("overhead")}


def test_hourglass_cross_check(iso_with, tmp_path):
    """ran_us (the kernel's switch records), self_us (the task's own
    hourglass) and got_us (the idle threads' hourglass) tell one story.

    Tolerance, per quantum a task ran: the boundary's handling and one
    switch (the quantum's ran time includes them; its hourglass sees them
    as a gap when they are longer than its threshold) on each of the M
    CPUs -- QEMU runs the virtual CPUs one at a time, so another CPU's
    boundary work stalls this one too -- and two thresholds (a gap is only
    noticed above the threshold, and a step that straddles one is counted
    either way). Per idle slot of a CPU the same for the idle thread, whose
    gaps are the boundaries' overhead."""
    tasks = ROOT / "tasks" / "default.tasks"
    cpus, slots = 3, SLOTS
    boot = boot_run(iso_with, "pedf", cpus, tasks, slots=slots)
    ov = overheads(boot)
    rows, _ = parse_schedule("\n".join(schedule_lines(boot.serial)))
    tick = int(ov["tick"]["max_ns"]) / 1000
    cxs = int(ov["cxs"]["max_ns"]) / 1000
    thr = next(int(l.split()[-2]) for l in boot.serial.splitlines()
               if l.startswith("hourglass: on")) / 1000
    q = 1000
    per_quantum = cpus * (tick + cxs) + 2 * thr
    for name, r in task_results(boot).items():
        # Slots it held in the executed schedule (the plugin's `quanta`
        # leaves out the last slot, which EDF charges at its next call).
        quanta = sum(row.count(name) for row in rows)
        ran, self_us = int(r["ran_us"]), int(r["self_us"])
        assert abs(ran - quanta * q) <= quanta * (tick + cxs) + q / 10, r
        assert self_us <= ran + thr, r
        assert ran - self_us <= quanta * per_quantum, (r, per_quantum)
    for h in boot.results("hourglass"):
        k = int(h["cpu"])
        idle = sum(1 for row in rows if row[k] is None)
        got = int(h["got_us"])
        gap_max = int(h["gap_max_ns"]) / 1000
        assert got <= idle * q + (slots - idle) * per_quantum, (h, idle)
        assert got >= idle * (q - gap_max - 2 * thr) - slots * per_quantum, \
            (h, idle)


def test_bad_inputs_are_named(iso_with, tmp_path):
    """A task whose program is not on the boot medium, a work= the
    scheduler cannot run, and a set too large for memory: named errors and
    a fail with a one-word reason, never a hang."""
    w = write_set(tmp_path, "wr", "task A e=1 p=4\ntask B e=1 p=5 work=writer\n")
    boot = qemu(iso_with("sched=gedf slots=10", tasks=w,
                         omit_program="writer"), smp=2)
    assert "taskset: wr.tasks:2: task B: no program 'writer' on the boot " \
        "medium (work=writer)" in boot.serial, boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=program"
    t = write_set(tmp_path, "bt", "task A weight=2 work=backtest\n"
                  "task B weight=1\n")
    boot = qemu(iso_with("sched=gdq slots=10", tasks=t), smp=2)
    assert "task A: work=backtest completes jobs, so it needs e= and p=" \
        in boot.serial, boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=work"
    big = "".join(f"task T{i} e=1 p=100 ws=60000000\n" for i in range(8))
    boot = qemu(iso_with("sched=gedf slots=10", tasks=write_set(
        tmp_path, "big", big)), smp=2)
    assert "sched: 8 tasks and a" in boot.serial and "KiB are free" in \
        boot.serial, boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=memory"
