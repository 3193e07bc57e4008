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


@subcommand("edf", """EDF state (gedf, pedf, cedf, ngedf): queues, deadline
heaps. Each CPU's ready queue in heap order (its head is the job the CPU
runs), with the jobs' absolute deadlines; the max-heap of the CPUs' current
deadlines (global EDF paper, Sec. 5) and its free-CPU mask, or the free-CPU
mask alone (edf_cpudl=1) -- under cedf one per cluster, cluster by
cluster. For ngedf, what each CPU runs and the one ready queue.""")
def edf():
    name, s = plugin_state({"gedf": "edf", "pedf": "edf", "cedf": "edf",
                            "ngedf": "ngedf"})
    if name == "ngedf":
        return ngedf(s)
    ts = s["ts"]
    cpus = int(s["cpus"])
    k = int(s["cluster"])
    glob = int(s["global"])
    # Partitioned EDF has no push structures (the pointer is NULL).
    mode = enum_name(s["push"][0]["mode"], "EDF_PUSH_") if glob else None
    head = "edf global=%d now=%d" % (glob, int(s["now"]))
    if glob:
        head += " push=" + mode + (" cluster=%d" % k if k < cpus else "")
    out = [head]
    task_mask = (1 << EDF_TASK_BITS) - 1
    keys = s["jobs"]["key"]
    for c in range(cpus):
        rq = s["rq"][c]
        for i in range(int(rq["n"])):
            t = int(rq["heap"][i])
            out.append("edf rq %d %s dl=%d" % (
                c, task_name(ts, t), int(keys[t]) >> EDF_TASK_BITS))
    for base in range(0, cpus, k) if glob else ():
        p = s["push"][base // k]
        if mode == "heap":
            h = p["heap"]
            for i in range(int(h["size"])):
                e = h["elements"][i]
                key = int(e["key"])
                out.append("edf cpudl %d cpu=%d %s dl=%d" % (
                    i, base + int(e["cpu"]), task_name(ts, key & task_mask),
                    key >> EDF_TASK_BITS))
            out += ["edf free %d" % (base + c)
                    for c in mask_members(h["free_cpus"], k)]
        elif mode == "fmask":
            out += ["edf fmask %d" % (base + c)
                    for c in mask_members(p["fmask"], k)]
    return out
