"""`rtk pfair`: the Pfair plugins' state (sched/pfair), read by walking their
heaps -- the kernel's own dump (dumpstate=) finds the same sets through the
tasks' flags instead, and the tests compare the two."""
from .base import (container, enum_name, heap_nodes, plugin_state,
                   subcommand, task_name)



def pd2_order(t):
    """Sort key for the PD2 priority order (sched/pfair/pfair_task.h):
    earlier deadline, then b = 1, then (both b = 1) the later group
    deadline, then the lower task index. Highest priority sorts first."""
    b = int(t["b"])
    return (int(t["deadline"]), 0 if b else 1,
            -int(t["group_deadline"]) if b else 0, int(t["id"]))


def heap_tasks(heap):
    return [container(n, "pfair_task", "node") for n in heap_nodes(heap)]


def members(pf, label, tasks, ordered=False):
    """One line per task, in PD2 order; `ordered`: the tasks come in the
    order to show (an array the plugin keeps sorted)."""
    ts = pf["ts"]
    return ["pfair %s %s" % (label, task_name(ts, t["id"]))
            for t in (tasks if ordered else sorted(tasks, key=pd2_order))]


def queue_lines(pf):
    """Eligible, then Incoming[x] slot by slot (the wheel's buckets and
    the far heap), then every task's current subtask."""
    q = pf["q"]
    out = members(pf, "Eligible", heap_tasks(q["eligible"]))
    incoming = heap_tasks(q["far"])
    for i in range(int(q["mask"]) + 1):
        incoming += heap_tasks(q["wheel"][i])
    for slot in sorted({int(t["elig"]) for t in incoming}):
        out += members(pf, "Incoming %d" % slot,
                       [t for t in incoming if int(t["elig"]) == slot])
    ts = pf["ts"]
    for i in range(int(pf["n"])):
        t = pf["task"][i]
        out.append("pfair task %s state=%s job=%d k=%d release=%d "
                   "deadline=%d b=%d gd=%d elig=%d"
                   % (task_name(ts, i), enum_name(t["state"], "PFAIR_"),
                      int(t["job"]), int(t["k"]), int(t["release"]),
                      int(t["deadline"]), int(t["b"]),
                      int(t["group_deadline"]), int(t["elig"])))
    return out


def cpu_lines(pf, names):
    return ["pfair cpu %d %s" % (k, name) for k, name in enumerate(names)]


def spd2(s):
    pf = s["pf"]
    out = ["pfair spd2 t=%d sched_count=%d horizon=%d"
           % (int(s["t"]), int(s["sched_count"]), int(pf["q"]["h"]))]
    # Fig. 5's four heaps are arrays sorted by decreasing priority
    # (sched/pfair/pfair_selq.h): shown as they lie, so that the comparison
    # with the kernel's dump checks that order too.
    for label in ("sched_now", "resched_now", "sched_next", "resched_next"):
        name = "".join(w.capitalize() for w in label.split("_"))
        q = s[label].dereference()
        out += members(pf, name, [q["a"][i].dereference()
                                  for i in range(int(q["n"]))], ordered=True)
    ts = pf["ts"]
    out += cpu_lines(pf, [task_name(ts, s["running"][k]["id"])
                          if int(s["running"][k]) else "-"
                          for k in range(int(pf["m"]))])
    return out + queue_lines(pf)


def pd2(s):
    pf = s["pf"]
    out = ["pfair pd2 decided=%d horizon=%d"
           % (int(s["decided"]), int(pf["q"]["h"]))]
    ts = pf["ts"]
    out += cpu_lines(pf, [task_name(ts, s["assign"][k])
                          if int(s["assign"][k]) >= 0 else "-"
                          for k in range(int(pf["m"]))])
    return out + queue_lines(pf)


@subcommand("pfair", """Pfair state (pd2, spd2): heaps, queues, subtasks.
spd2's SchedNow, ReschedNow, SchedNext and ReschedNext heaps (staggered
Pfair, Fig. 5), what each CPU runs, Eligible, Incoming[x] for each slot x,
and every task's current subtask (release, deadline, b-bit, group deadline,
eligibility). Sets are listed highest PD2 priority first.""")
def pfair():
    name, s = plugin_state({"pd2": "pd2", "spd2": "spd2"})
    return (spd2 if name == "spd2" else pd2)(s)
