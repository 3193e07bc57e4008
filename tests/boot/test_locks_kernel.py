"""Locks in the kernel (docs/locking.md): sets with resources whose tasks
run work=locker -- a program that makes its lock and unlock system calls
where its cs= says -- under virtual time (-icount shift=3,sleep=off). The
executed schedule is the simulator's slot for slot, its summary (every
task's lock totals included) too, the RESULT lock lines are the
summary's, and the decoded trace gives the simulator's lock events one by
one, its own RESULT lines (rtk-trace decode --check) and a valid
Perfetto export. One more boot makes the calls the kernel must refuse,
and holds resources past a job's end and into a kill."""
import json
import subprocess
import sys

import pytest

from conftest import parse_schedule
from harness import ROOT, qemu
from test_tasks import schedule_lines, simulate

sys.path.insert(0, str(ROOT / "tests" / "host"))
from cedf_ref import cluster_ffd  # noqa: E402
from edf_ref import ffd_partition  # noqa: E402
from lock_bounds import mpcp, msrp, omlp, pcp, srp  # noqa: E402
from lock_ref import parse_set  # noqa: E402
from trace_event_ref import validate  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from rtktrace import dump as dumpmod  # noqa: E402

ICOUNT = "shift=3,sleep=off"
SLOTS = 30

SETS = {
    # R is global (first fit by density puts A and B on one CPU, C and D on
    # the other): spinning, non-preemptive sections; L is local (srp). D's
    # local section begins where its global one ends: D is preempted
    # there, before it asks for L (docs/locking.md, "The bounds").
    "pedf-msrp": ("pedf", 2, """\
resource R protocol=msrp
resource L protocol=msrp
task A e=3 p=6 cs=R:2@1 work=locker
task B e=4 p=8 cs=R:2@1 work=locker
task C e=2 p=5 cs=L:1@1 work=locker
task D e=3 p=7 cs=R:1@1,L:1@2 work=locker
"""),
    # Each resource on one CPU (C and B on CPU 0, A and D on CPU 1), B's
    # sections nested: ceilings keep jobs from starting.
    "pedf-srp": ("pedf", 2, """\
resource S protocol=srp
resource T protocol=srp
resource U protocol=srp
task A e=3 p=6 d=5 cs=T:2@1 work=locker
task B e=4 p=12 cs=S:3@1,U:1@2 work=locker
task C e=2 p=4 d=3 cs=U:1@1 work=locker
task D e=3 p=10 cs=T:2@1 work=locker
"""),
    # Five tasks share R on two CPUs, more than the FIFO queue holds:
    # suspension, the priority queue, inheritance.
    "gedf-omlp": ("gedf", 2, """\
resource R protocol=omlp
task A e=3 p=8 cs=R:2@1 work=locker
task B e=3 p=9 cs=R:2@1 work=locker
task C e=3 p=10 cs=R:1@1 work=locker
task D e=2 p=7 cs=R:1@1 work=locker
task E e=3 p=12 cs=R:2@1 work=locker
"""),
    # tests/host/test_lock_bounds.py's worst case for msrp: J's jobs come
    # within a quantum of the bound, 13 quanta of 14 (6 spinning, 7
    # behind L's spin and section).
    "pedf-msrp-worst": ("pedf", 3, """\
resource R protocol=msrp
task O1 e=6 p=9 cs=R:3@1 work=locker
task O2 e=6 p=9 cs=R:3@1 work=locker
task J e=3 p=30 d=4 phase=2 cs=R:1@1 work=locker
task L e=3 p=30 cs=R:2@1 work=locker
"""),
}


def bounds(sched, cpus, text):
    """Each task's published bound (tests/host/lock_bounds.py) and which
    of its numbers it covers."""
    tasks, _, protocol = parse_set(text)
    if protocol == "omlp":
        return omlp(tasks, cluster_ffd(tasks, 1, cpus), cpus), ["pi"]
    home = ffd_partition(tasks, cpus)
    b = srp(tasks, home) if protocol == "srp" else msrp(tasks, home, cpus)
    return b, ["spin", "pi", "blocked"]


def decode(tmp_path, serial, check=True):
    """The decoded trace's lock events; check: against the console's
    schedule and RESULT lines (rtk-trace decode --check, for quantum-driven
    runs: an event-driven run prints no schedule or overhead lines)."""
    log = tmp_path / "console.log"
    log.write_text(serial)
    out = tmp_path / "decoded"
    proc = subprocess.run(
        [str(ROOT / "tools" / "rtk-trace"), "decode", str(log), "--out",
         str(out), "--no-pictures"] + (["--check"] if check else []),
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 problems" in proc.stdout, proc.stdout
    assert validate(json.loads((out / "perfetto.json").read_text())) == []
    return [json.loads(l) for l in
            (out / "locks.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("name", sorted(SETS))
def test_kernel_runs_the_simulators_locks(iso_with, tmp_path, name):
    sched, cpus, text = SETS[name]
    tasks = tmp_path / f"{name}.tasks"
    tasks.write_text(text)
    sim = [l for l in simulate(sched, cpus, SLOTS, tasks, ()) if l]
    locks_sim = [json.loads(l) for l in
                 subprocess.run([str(ROOT / "build/host/schedsim"), "--sched",
                                 sched, "--cpus", str(cpus), "--slots",
                                 str(SLOTS), "--locks", str(tasks)],
                                capture_output=True, text=True, check=True,
                                timeout=60).stdout.splitlines()
                 if l.startswith('{"lock"')]
    kinds = {e["lock"] for e in locks_sim}
    # The set does what it is here for.
    assert {"request", "acquire", "release", "blocked"} <= kinds
    assert ("spin" in kinds) == name.startswith("pedf-msrp")
    assert ("suspend" in kinds) == (name == "gedf-omlp")
    boot = qemu(iso_with(f"sched={sched} slots={SLOTS} trace=events",
                         tasks=tasks), smp=cpus, icount=ICOUNT)
    assert boot.passed, boot.tail()
    # The kernel's own verdict checks the run with its locks: every slot
    # ran what the plugin decided, no more misses than it counted.
    verdict = boot.result("verdict")
    assert (verdict["schedule"], verdict["misses"]) == ("ok", "ok"), verdict
    rows, summary = parse_schedule("\n".join(sim))
    got, kernel = parse_schedule("\n".join(schedule_lines(boot.serial)))
    assert got == rows
    assert kernel == summary
    bound, keys = bounds(sched, cpus, text)
    names = [t.split()[1] for t in text.splitlines()
             if t.startswith("task ")]
    for r in boot.results("lock"):
        want = summary["tasks"][r["name"]]["lock"]
        assert {k: int(r[k]) for k in want} == want, r
        assert r["refused"] == "0" and r["unit"] == "slots"
        # The kernel's worst blocking is within the published bound.
        b = bound[names.index(r["name"])]
        for key in keys:
            assert int(r[f"{key}_max"]) <= b[key], (r, b)
    if name == "pedf-msrp-worst":
        j = [r for r in boot.results("lock") if r["name"] == "J"][0]
        assert (j["spin_max"], j["pi_max"], j["blocked_max"]) == \
            ("6", "7", "13")
    assert decode(tmp_path, boot.serial) == locks_sim


# A CPU behind (late_mode=syscall, docs/formats.md): the CPU running the
# task stops in its lock call, made in slot 1 (its section begins after 2
# quanta of work), interrupts off, until boundary 2 is 2.5 ms late; the
# other CPU decides slots 2 to 4 meanwhile. gedf puts A on CPU 0 and B on
# CPU 1. At slot 4, when the call reaches the plugin, A's job (5 quanta)
# still runs, B's (4) ended at its budget.
BEHIND = """\
resource R protocol=omlp
task A e=5 p=10 cs=R:2@2 work=locker
task B e=4 p=10 cs=R:1@2 work=locker
"""


@pytest.mark.parametrize("cpu", [0, 1])
def test_a_lock_call_from_a_cpu_behind(iso_with, tmp_path, cpu):
    """The call is the plugin's at the latest slot it decided (4), never
    at the stalled CPU's own slot: the plugin's clock never goes back
    (every call into it, in the trace's order, at a slot no earlier than
    the one before). A's call takes effect, and A's job ends holding R
    (released for it, as for any job ending with a section open). B's
    call comes from a job that has ended: it is refused (RT_ETIME, 62),
    where queued it took effect in B's next job and refused that job's
    own lock (it holds R already); B's next jobs lock R as their cs=
    says."""
    tasks = tmp_path / "behind.tasks"
    tasks.write_text(BEHIND)
    boot = qemu(iso_with(f"sched=gedf slots={SLOTS} events=off "
                         f"trace=events late_boundary={cpu}:2:2500 "
                         f"late_mode=syscall", tasks=tasks),
                smp=2, icount=ICOUNT)
    assert boot.late, boot.tail()
    assert boot.result("verdict")["misses"] == "ok", boot.tail()
    d = dumpmod.read(boot.serial)[0][-1]
    recs = sorted((r for c in d.per_cpu() for r in c),
                  key=lambda r: (r.tsc, r.cpu, r.seq))
    calls = [(r.cpu, r.task, r.arg) for r in recs if r.name == "sched_start"]
    assert [(a, b) for a, b in zip(calls, calls[1:]) if b[2] < a[2]] == []
    # The stalled call: its task's on the stalled CPU, at slot 4.
    assert (cpu, cpu, 4) in calls, calls
    lock = {r["name"]: r for r in boot.results("lock")}
    out = boot.serial
    if cpu == 0:
        assert lock["A"]["refused"] == "0", lock
        assert "lock: task A: 1 resource released for it; the first: R, " \
            "held as its job ended at 5 (job 0)" in out
    else:
        assert "B| locker: lock of resource 0 in job 0 after 1 quanta: " \
            "error 62" in out
        assert "lock: task B: refused: B lock R: the job that made the " \
            "call had ended at its budget by slot 4, when the call " \
            "reached the scheduler" in out
        assert (lock["B"]["refused"], lock["B"]["requests"]) == ("1", "2")
    # Every job after the stall makes its request.
    events = decode(tmp_path, boot.serial, check=False)
    assert {(e["task"], e["job"]) for e in events
            if e["lock"] == "request" and e["job"] >= 1} == \
        {(n, j) for n in "AB" for j in (1, 2)}


# A ends each job by sleeping right after its unlock (locker
# args="sleep"), in the quantum it makes the unlock in, so the unlock has
# not taken effect when the job ends. B, released at 4 on the other CPU,
# holds R through slots 5 to 7 when A's next job (released at 6) asks.
EARLY_END = """\
resource R protocol=omlp
task A e=3 p=6 cs=R:1@1 work=locker args="sleep"
task B e=5 p=6 phase=4 cs=R:3@1 work=locker
"""


def test_an_unlock_made_as_its_job_ends_takes_effect_with_it(iso_with,
                                                             tmp_path):
    """The decoded lock events keep mutual exclusion -- R is acquired only
    when free and let go only by its holder -- and every section its
    cs= length. A's unlock takes effect as its job ends (a release, not a
    forced one) and nothing of it is left for its next job: left queued,
    it let go of R at that job's first boundary while B held it, and both
    ran their sections at once (B then had its R released for it at its
    job's end, forced=4, and the verdict still said pass)."""
    tasks = tmp_path / "early.tasks"
    tasks.write_text(EARLY_END)
    boot = qemu(iso_with(f"sched=gedf slots={SLOTS} trace=events",
                         tasks=tasks), smp=2, icount=ICOUNT)
    assert boot.passed, boot.tail()
    events = decode(tmp_path, boot.serial)
    holder, since, held = {}, {}, []
    for e in events:
        if e["lock"] == "acquire":
            assert holder.get(e["res"]) is None, e
            holder[e["res"]], since[e["task"]] = e["task"], e["at"]
        elif e["lock"] in ("release", "forced"):
            assert holder.get(e["res"]) == e["task"], e
            holder[e["res"]] = None
            held.append((e["task"], e["lock"], e["at"] - since[e["task"]]))
    # A's section is a quantum, let go within it as the job ends; B's runs
    # its 3 quanta.
    assert {h for h in held if h[0] == "A"} == {("A", "release", 0)}
    assert {h for h in held if h[0] == "B"} == {("B", "release", 3)}
    # Five jobs of A and four of B (its fifth, released at 28, is cut by
    # the run's end before its section ends).
    assert len(held) == 9, held
    lock = {r["name"]: r for r in boot.results("lock")}
    assert [(r["forced"], r["refused"]) for r in lock.values()] == \
        [("0", "0")] * 2


MISUSE = """\
resource R0 protocol=msrp
resource R1 protocol=msrp
resource R2 protocol=msrp
task X e=4 p=10 cs=R0:1@1,R1:1@3 work=lock_misuse
task Y e=3 p=10 cs=R0:1@1 work=lock_misuse
task Z e=2 p=5 cs=R1:1@1 work=locker
"""


def test_bad_lock_calls_are_refused_by_name(iso_with, tmp_path):
    """user/lock_misuse's calls: each refused with its error number (to the
    program) and its reason (on the console); a resource held as a job
    ends, and one held as its task is killed, released and reported."""
    tasks = tmp_path / "misuse.tasks"
    tasks.write_text(MISUSE)
    boot = qemu(iso_with(f"sched=pedf slots=20", tasks=tasks), smp=2,
                icount=ICOUNT)
    assert boot.passed, boot.tail()
    out = boot.serial
    for who, other in (("X", 2), ("Y", 1)):
        # ENOENT 2, EPERM 1, EDEADLK 35 (lib/rt_abi.h).
        for call, rc in (("lock 63", -2), (f"lock {other}", -2),
                         ("unlock 0", -1), ("lock 0", 0), ("lock 0", -35)):
            assert f"{who}| lock_misuse: {call} -> {rc}" in out, who
        for why in (f"{who} lock resource 63: the set declares 3 resources",
                    f"{who} lock R{other}: its cs= names no section on "
                    f"R{other}",
                    f"{who} unlock R0: it does not hold R0",
                    f"{who} lock R0: it holds R0 already"):
            assert f"lock: task {who}: refused: {why}" in out, why
    assert "X| lock_misuse: lock 1 -> -35" in out
    assert "lock: task X: refused: X lock R1: it holds R0, and msrp " \
        "forbids nesting" in out
    assert "task X killed: divide error" in out
    assert "lock: task X: 1 resource released for it; the first: R0, held " \
        "as it was stopped" in out
    assert "lock: task Y: 1 resource released for it; the first: R0, held " \
        "as its job ended" in out
    lock = {r["name"]: r for r in boot.results("lock")}
    assert (lock["X"]["refused"], lock["X"]["forced"]) == ("5", "1")
    assert (lock["Y"]["refused"], lock["Y"]["forced"]) == ("4", "1")
    assert (lock["Z"]["refused"], lock["Z"]["forced"]) == ("0", "0")
    # Z, sharing nothing with them, keeps every deadline.
    z = [r for r in boot.results("task") if r["name"] == "Z"][0]
    assert z["misses"] == "0" and z["state"] == "ok"


# pfp (event-driven, microseconds): the kernel takes a call when its
# program makes it, a few microseconds after the simulator's instant.
# (slots, set): chosen so that the simulator's run has no ties (below).
PFP_SETS = {
    # H blocked on S directly (L holds it, then runs at H's priority), M
    # blocked at S's ceiling (its request for T, free, suspends while L
    # holds S); CPU 1 runs a task of its own.
    "pfp-pcp": (38, """\
resource S protocol=pcp
resource T protocol=pcp
task H e=3 p=10 prio=1 cs=S:1@1 work=locker
task M e=4 p=12 prio=2 phase=2 cs=T:1@1 work=locker
task L e=5 p=20 prio=3 phase=2 cs=S:3@1 work=locker
task X e=4 p=9 prio=1 cpu=1 work=locker
"""),
    # G is global (A, B on CPU 0, C on CPU 1): A and B suspend on it while
    # C holds it and get it in priority order; B's global section runs
    # above A's local priority. L is local (pcp on CPU 0).
    "pfp-mpcp": (40, """\
resource G protocol=mpcp
resource L protocol=mpcp
task A e=5 p=13 prio=1 cpu=0 phase=3 cs=G:1@1,L:1@3 work=locker
task B e=5 p=19 prio=3 cpu=0 phase=4 cs=G:2@1 work=locker
task E e=3 p=13 prio=2 cpu=0 phase=7 cs=L:1@1 work=locker
task C e=5 p=19 prio=2 cpu=1 phase=2 cs=G:3@1 work=locker
task D e=3 p=7 prio=0 cpu=1 phase=6 work=locker
"""),
}
# What the kernel's lags (a timer's, a call's: tests/boot/test_events_pfp.py
# sees 30-40 us each) may add up to within a busy stretch of a few jobs.
LOCK_TOL_US = 250


def ties(text, sim, locks, slots):
    """The simulator's instants where the kernel's lag could make another,
    equally correct, schedule: two things the simulator does at one
    instant that the kernel does a few microseconds apart, in either
    order. A job ending at the instant a job of higher priority is
    released on its CPU, or at the run's end (or a call there); a job's work reaching a point
    of its cs= just as it is preempted; a resource shared across CPUs
    granted to a job on another CPU at the instant that CPU has a call or
    a job's end of its own, or requested there at the instant it is let
    go. The sets below have none (tests/boot/test_events_pfp.py's rule,
    for locks)."""
    tasks, _, _ = parse_set(text)
    by = {t.name: t for t in tasks}
    out = []
    for d in sim[1]:
        t = by[d["task"]]
        at = d["at_us"]
        if at >= slots * 1000:
            out.append(f"{t.name} ends at the run's end")
        hi = [u.name for u in tasks if u.cpu == t.cpu and u.prio < t.prio
              and at >= u.phase * 1000 and
              (at - u.phase * 1000) % (u.p * 1000) == 0]
        if hi:
            out.append(f"{t.name} ends at {at} as {hi} arrive")
    # Each task's work along its segments: a segment that ends at a point
    # of its cs= with no call of its own there (it was preempted).
    for t in tasks:
        points = {x * 1000 for _, at, n in t.cs for x in (at, at + n)}
        work = 0
        for s in sorted((s for s in sim[0] if s["task"] == t.name),
                        key=lambda s: s["from_us"]):
            work += s["to_us"] - s["from_us"]
            own = [e for e in locks if e["task"] == t.name and
                   e["at_us"] == s["to_us"] and e["lock"] != "blocked"]
            if work % (t.e * 1000) in points - {0} and not own and \
                    s["to_us"] < slots * 1000:
                out.append(f"{t.name} reaches a point at {s['to_us']} as "
                           "it is preempted")
    out += [f"{e['task']} calls at the run's end" for e in locks
            if e["at_us"] >= slots * 1000]
    for e in locks:
        if e["lock"] != "release":
            continue
        at, cpu = e["at_us"], by[e["task"]].cpu
        granted = [f for f in locks if f["lock"] == "acquire" and
                   f["at_us"] == at and f["res"] == e["res"] and
                   by[f["task"]].cpu != cpu]
        for g in granted:
            there = by[g["task"]].cpu
            busy = [f["task"] for f in locks if f is not g and
                    f["at_us"] == at and f["lock"] != "blocked" and
                    by[f["task"]].cpu == there] + \
                [d["task"] for d in sim[1] if d["at_us"] == at and
                 by[d["task"]].cpu == there]
            if busy:
                out.append(f"{e['res']} granted to {g['task']} at {at} as "
                           f"{sorted(set(busy))} call or end there")
        asked = [f["task"] for f in locks if f["lock"] == "request" and
                 f["at_us"] == at and f["res"] == e["res"] and
                 by[f["task"]].cpu != cpu]
        if asked:
            out.append(f"{e['res']} let go at {at} as {asked} request it")
    return out


def assert_close_run(kernel, sim, lag):
    """The kernel's segments and completions are the simulator's, each
    instant within LOCK_TOL_US, once the kernel's segments shorter than
    the lag are left out: a job dispatched only to find that its call
    suspends it runs that long in the kernel, and not at all in the
    simulator."""
    ksegs = [s for s in kernel[0] if s["to_us"] - s["from_us"] >= lag]
    key = lambda s: (s["cpu"], s["task"])  # noqa: E731
    assert [key(s) for s in ksegs] == [key(s) for s in sim[0]]
    for k, s in zip(ksegs, sim[0]):
        assert abs(k["from_us"] - s["from_us"]) <= LOCK_TOL_US, (k, s)
        assert abs(k["to_us"] - s["to_us"]) <= LOCK_TOL_US, (k, s)
    assert [(d["task"], d["job"]) for d in kernel[1]] == \
        [(d["task"], d["job"]) for d in sim[1]]
    for k, s in zip(kernel[1], sim[1]):
        assert abs(k["at_us"] - s["at_us"]) <= LOCK_TOL_US, (k, s)
    for name, st in sim[3]["tasks"].items():
        got = kernel[3]["tasks"][name]
        assert (got["jobs"], got["misses"]) == (st["jobs"], st["misses"])
        assert got["lock"]["requests"] == st["lock"]["requests"], name


@pytest.mark.parametrize("name", sorted(PFP_SETS))
def test_kernel_runs_the_simulators_locks_at_events(iso_with, tmp_path,
                                                    name):
    from harness import parse_event_schedule
    from test_events_pfp import LAG_US
    slots, text = PFP_SETS[name]
    tasks = tmp_path / f"{name}.tasks"
    tasks.write_text(text)
    out = subprocess.run([str(ROOT / "build/host/schedsim"), "--sched", "pfp",
                          "--cpus", "2", "--slots", str(slots), "--locks",
                          str(tasks)], capture_output=True, text=True,
                         check=True, timeout=60).stdout.splitlines()
    sim = parse_event_schedule([l for l in out if not l.startswith('{"lock"')])
    locks_sim = [json.loads(l) for l in out if l.startswith('{"lock"')]
    assert "suspend" in {e["lock"] for e in locks_sim}
    assert ties(text, sim, locks_sim, slots) == []
    boot = qemu(iso_with(f"sched=pfp slots={slots} trace=events",
                         tasks=tasks),
                smp=2, icount=ICOUNT)
    assert boot.passed, boot.tail()
    # The verdict's plan is the simulated machine's run of the set with
    # its locks: no more misses than planned.
    verdict = boot.result("verdict")
    assert verdict["misses"] == "ok", verdict
    kernel = parse_event_schedule(boot.serial.splitlines())
    assert_close_run(kernel, sim, LAG_US)
    locks_kernel = decode(tmp_path, boot.serial, check=False)
    # The RESULT lock lines are what the trace's events add up to.
    for r in boot.results("lock"):
        mine = [e for e in locks_kernel if e["task"] == r["name"]]
        assert int(r["requests"]) == \
            sum(e["lock"] == "request" for e in mine), r
        assert int(r["blocked_max"]) == max(
            [e["spin"] + e["wait"] + e["pi"] for e in mine
             if e["lock"] == "blocked"] + [0]), r
    # Each task's lock events are the simulator's, one by one (two CPUs'
    # events of one instant may come in either order).
    for name in sorted({e["task"] for e in locks_kernel + locks_sim}):
        ks = [e for e in locks_kernel if e["task"] == name]
        ss = [e for e in locks_sim if e["task"] == name]
        assert [(e["lock"], e["job"], e.get("res")) for e in ks] == \
            [(e["lock"], e["job"], e.get("res")) for e in ss], name
        for k, s in zip(ks, ss):
            assert abs(k["at_us"] - s["at_us"]) <= LOCK_TOL_US, (k, s)
            if s["lock"] == "blocked":
                for part in ("spin", "wait", "pi", "intf"):
                    assert abs(k[part] - s[part]) <= LOCK_TOL_US, (k, s)
    tasks_list, _, protocol = parse_set(text)
    bound = (pcp if protocol == "pcp" else mpcp)(tasks_list)
    for r in boot.results("lock"):
        assert r["unit"] == "us" and r["refused"] == "0", r
        b = bound[[t.name for t in tasks_list].index(r["name"])]["blocked"]
        if b is not None:
            assert int(r["blocked_max"]) <= b * 1000 + LOCK_TOL_US, (r, b)


def test_a_locker_argument_it_cannot_read_is_named(iso_with, tmp_path):
    """args= other than "sleep" (here a misspelt one) is not ignored: the
    program names it and exits, and its task ends exited."""
    tasks = tmp_path / "typo.tasks"
    tasks.write_text(EARLY_END.replace('args="sleep"', 'args="slep"'))
    boot = qemu(iso_with(f"sched=gedf slots={SLOTS}", tasks=tasks), smp=2,
                icount=ICOUNT)
    assert "locker: cannot read slep; usage: [sleep]" in boot.serial, \
        boot.tail()
    state = {r["name"]: r["state"] for r in boot.results("task")}
    assert state == {"A": "exited", "B": "ok"}, boot.tail()
