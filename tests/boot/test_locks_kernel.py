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
from lock_bounds import msrp, omlp, srp  # noqa: E402
from lock_ref import parse_set  # noqa: E402
from trace_event_ref import validate  # noqa: E402

ICOUNT = "shift=3,sleep=off"
SLOTS = 30

SETS = {
    # R is global (first fit by density puts A and C on one CPU, B and D on
    # the other): spinning, non-preemptive sections; L is local (srp).
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
    # tests/host/test_lock_bounds.py's worst case for msrp: J's jobs meet
    # the bound, 14 quanta (6 spinning, 8 behind L's spin and section).
    "pedf-msrp-worst": ("pedf", 3, """\
resource R protocol=msrp
task O1 e=6 p=9 cs=R:3@1 work=locker
task O2 e=6 p=9 cs=R:3@1 work=locker
task J e=3 p=30 d=4 phase=1 cs=R:1@1 work=locker
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


def decode(tmp_path, serial):
    log = tmp_path / "console.log"
    log.write_text(serial)
    out = tmp_path / "decoded"
    proc = subprocess.run(
        [str(ROOT / "tools" / "rtk-trace"), "decode", str(log), "--out",
         str(out), "--no-pictures", "--check"],
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
            ("6", "8", "14")
    assert decode(tmp_path, boot.serial) == locks_sim


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
