"""`rtk gfp`: the global fixed-priority plugin's state (sched/gfp/gfp.c),
the lines of its dump()."""
from .base import plugin_state, subcommand, task_name


@subcommand("gfp", """gfp state: what each CPU runs (its job's quanta left
and absolute deadline), then the jobs that wait, highest priority first.""")
def gfp():
    _, s = plugin_state({"gfp": "gfp"})
    ts, task, running = s["ts"], s["task"], s["running"]
    cpus = int(s["cpus"])
    out = ["gfp now=%d" % int(s["now"])]
    on_cpu = set()
    for k in range(cpus):
        i = int(running[k])
        if i < 0:
            out.append("gfp cpu %d -" % k)
            continue
        on_cpu.add(i)
        out.append("gfp cpu %d %s rem=%d dl=%d" % (
            k, task_name(ts, i), int(task[i]["rem"]),
            int(task[i]["deadline"])))
    for j in range(int(s["ntasks"])):
        i = int(s["by_priority"][j])
        t = task[i]
        if int(t["present"]) and int(t["rem"]) > 0 and i not in on_cpu:
            out.append("gfp wait %s rem=%d dl=%d" % (
                task_name(ts, i), int(t["rem"]), int(t["deadline"])))
    return out
