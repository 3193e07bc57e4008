"""`rtk edf`: the EDF engine's state (sched/edf)."""
from .base import enum_name, mask_members, plugin_state, subcommand, task_name

# A job's key is deadline << EDF_TASK_BITS | task (sched/edf/jobs.h); the
# macro is not in the debug information.
EDF_TASK_BITS = 20


def ngedf(s):
    """NG-EDF's one ready queue and what each CPU runs (sched/edf/ngedf.c);
    no job is ever preempted, so nothing is per CPU but the running one."""
    ts = s["ts"]
    out = ["edf ngedf now=%d" % int(s["now"])]
    for k in range(int(s["cpus"])):
        i = int(s["running"][k])
        out.append("edf cpu %d -" % k if i < 0 else "edf cpu %d %s dl=%d" % (
            k, task_name(ts, i), int(s["jobs"]["task"][i]["deadline"])))
    ready = s["ready"]
    keys = s["jobs"]["key"]
    for j in range(int(ready["n"])):
        t = int(ready["heap"][j])
        out.append("edf ready %s dl=%d"
                   % (task_name(ts, t), int(keys[t]) >> EDF_TASK_BITS))
    return out


@subcommand("edf", """EDF state (gedf, pedf, ngedf): queues, deadline heap.
Each CPU's ready queue in heap order (its head is the job the CPU runs),
with the jobs' absolute deadlines; the max-heap of the CPUs' current
deadlines (global EDF paper, Sec. 5) and its free-CPU mask, or the free-CPU
mask alone (edf_cpudl=1). For ngedf, what each CPU runs and the one ready
queue.""")
def edf():
    name, s = plugin_state({"gedf": "edf", "pedf": "edf", "ngedf": "ngedf"})
    if name == "ngedf":
        return ngedf(s)
    ts = s["ts"]
    cpus = int(s["cpus"])
    p = s["push"]
    glob = int(s["global"])
    # Partitioned EDF has no push structure (nothing in it is set up).
    mode = enum_name(p["mode"], "EDF_PUSH_") if glob else None
    out = ["edf global=%d now=%d%s" % (glob, int(s["now"]),
                                      " push=" + mode if glob else "")]
    task_mask = (1 << EDF_TASK_BITS) - 1
    keys = s["jobs"]["key"]
    for k in range(cpus):
        rq = s["rq"][k]
        for i in range(int(rq["n"])):
            t = int(rq["heap"][i])
            out.append("edf rq %d %s dl=%d" % (
                k, task_name(ts, t), int(keys[t]) >> EDF_TASK_BITS))
    if mode == "heap":
        h = p["heap"]
        for i in range(int(h["size"])):
            e = h["elements"][i]
            key = int(e["key"])
            out.append("edf cpudl %d cpu=%d %s dl=%d" % (
                i, int(e["cpu"]), task_name(ts, key & task_mask),
                key >> EDF_TASK_BITS))
        out += ["edf free %d" % k for k in mask_members(h["free_cpus"], cpus)]
    elif mode == "fmask":
        out += ["edf fmask %d" % k for k in mask_members(p["fmask"], cpus)]
    return out
