"""`rtk tasks`: the kernel's tasks (kernel/task/task.h, kernel/task/jobs.h) and, where
the running plugin keeps one, each task's lag (Pfair) or service error
(GDQ)."""
import gdb

from .base import driver, enum_name, ratio, subcommand

TASK_NONE = -1
U64 = (1 << 64) - 1
GDQ_PRESENT = 1         # sched/gdq/gdq.c: enum { GONE, PRESENT, BLOCKED }


def cpu_of(v):
    return "-" if int(v) == TASK_NONE else str(int(v))


def job_slots(t):
    """Job `done`'s release and deadline slots, in kernel/task/jobs.c's u64
    arithmetic: anchor_slot + (j - anchor_job) * p, deadline d later."""
    j = t["jobs"]
    if not int(j["periodic"]):
        return "-", "-"
    spec = t["spec"].dereference()
    rel = (int(j["anchor_slot"]) +
           ((int(j["done"]) - int(j["anchor_job"])) & U64) * int(spec["p"])
           ) & U64
    return str(rel), str((rel + int(spec["d"])) & U64)


def task_lines():
    tasks = gdb.parse_and_eval("tasks")
    out = []
    for i in range(int(gdb.parse_and_eval("ntasks"))):
        t = tasks[i]
        j = t["jobs"]
        rel, dl = job_slots(t)
        out.append("task %s state=%s sleeping=%d linked=%s scheduled=%s "
                   "released=%d done=%d ran=%d release=%s deadline=%s"
                   % (t["name"].string(), enum_name(t["state"], "TASK_"),
                      int(t["sleeping"]), cpu_of(t["linked_on"]),
                      cpu_of(t["scheduled_on"]), int(j["released"]),
                      int(j["done"]), int(j["ran"]), rel, dl))
    return out


def pfair_lags(s):
    """lag(T, t) = w (t - theta) - the subtasks done since theta
    (staggered Pfair Sec. 2.1), at t = the first slot not yet decided
    (struct pfair's next_slot): sched/pfair/pfair_task.c's abs_lag with its
    sign. "-" before theta, or once the task has left."""
    pf = s["pf"]
    at = int(pf["next_slot"])
    out = ["lag at=%d" % at]
    for i in range(int(pf["n"])):
        t = pf["task"][i]
        e, p, theta = int(t["e"]), int(t["p"]), int(t["theta"])
        name = pf["ts"]["task"][i]["name"].string()
        state = enum_name(t["state"], "PFAIR_")
        if at < theta or state in ("leaving", "gone"):
            out.append("lag %s -" % name)
            continue
        done = int(t["job"]) * e + int(t["k"]) - 1
        out.append("lag %s %s" % (name, ratio((at - theta) * e - done * p,
                                               p)))
    return out


def gdq_errors(s):
    """Service error (GDQ Sec. 3.1) since the last change of mix: the work
    done minus phi/Phi_T of all the work done, sched/gdq/gdq.c's
    error_num over phi_total, for the tasks it schedules (arrived and
    present: GDQ_PRESENT is 1 in gdq.c's state enum)."""
    out = []
    total = int(s["total"]) - int(s["total0"])
    phi_total = int(s["phi_total"])
    for i in range(int(s["n"])):
        if not int(s["arrived"][i]) or int(s["state"][i]) != GDQ_PRESENT:
            continue
        work = int(s["work"][i]) - int(s["work0"][i])
        num = work * phi_total - int(s["proc"][i]["phi"]) * total
        out.append("err %s %s" % (s["ts"]["task"][i]["name"].string(),
                                  ratio(num, phi_total)))
    return out


@subcommand("tasks", """Each task: state, CPUs, current job, lag or error.
For each task of the run: ok, killed or exited, whether it sleeps until its
next period, the CPU it is linked to (the plugin chose it there) and the
one it is scheduled on (its registers are live there), its jobs released
and done, the quanta the current job (job `done`) has run and that job's
release and deadline slots -- the same lines as the kernel's
`dumpstate=end` (STATE task ...). Then, under pd2 or spd2, each task's lag
at the first slot not yet decided ("lag at=T", "lag NAME L"), under gdq
each task's service error ("err NAME E").""")
def tasks():
    out = task_lines()
    try:
        d, name = driver()
    except gdb.GdbError:
        return out
    if name in ("pd2", "spd2"):
        s = d["s"].cast(gdb.lookup_type("struct " + name).pointer())
        out += pfair_lags(s.dereference())
    elif name == "gdq":
        s = d["s"].cast(gdb.lookup_type("struct gdq").pointer())
        out += gdq_errors(s.dereference())
    return out
