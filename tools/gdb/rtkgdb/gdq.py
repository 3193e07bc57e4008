"""`rtk gdq`: Grouped Distributed Queues' state (sched/gdq)."""
from .base import plugin_state, ratio, subcommand, task_name


@subcommand("gdq", """GDQ state: groups, queues, NVTs, VFTs, processors.
P, T, delta and the total weight; each group with queues -- MFQ's allocation
(alloc, ceil), whether it could feed one more processor, its virtual
finishing time (VFT) --; each queue's processor, round number (NVT), weight
and processes in round-robin order from its current one, with their weights
and NVTs; and each processor's group, queue, dedication and next MFQ time.""")
def gdq():
    _, s = plugin_state({"gdq": "gdq"})
    P = int(s["P"])
    ts = s["ts"]
    out = ["gdq P=%d T=%d delta=%d phi_total=%d"
           % (P, int(s["T"]), int(s["delta"]), int(s["phi_total"]))]
    groups = s["grp"]
    orders = groups.type.range()[1] + 1
    for k in range(orders):
        g, c = groups[k], s["cli"][k]
        nq = int(g["nq"])
        if not nq:
            continue
        hatw = int(c["hatw"])
        vft = ratio(int(c["m"]) * P, hatw) if hatw else "none"
        out.append("gdq group %d queues=%d alloc=%d ceil=%d ready=%d vft=%s"
                   % (k, nq, int(c["alloc"]), int(c["ceil"]),
                      int(c["ready"]), vft))
        for i in range(nq):
            q = g["q"][i]
            cpu = int(q["cpu"])
            out.append("gdq queue %d.%d cpu=%s nv=%d weight=%d n=%d"
                       % (k, i, cpu if cpu >= 0 else "-", int(q["nv"]),
                          int(q["weight"]), int(q["n"])))
            x = q["cur"]
            for _ in range(int(q["n"])):
                out.append("gdq proc %d.%d %s phi=%d nvt=%s"
                           % (k, i, task_name(ts, x - s["proc"]),
                              int(x["phi"]), ratio(x["nvn"], x["phi"])))
                x = x["next"]
    for j in range(P):
        k = int(s["cpu_group"][j])
        q = s["cpu_q"][j]
        queue = "%d.%d" % (k, int(q - groups[k]["q"])) \
            if k >= 0 and int(q) else "-"
        out.append("gdq cpu %d group=%s queue=%s dedicated=%d next_mfq=%d"
                   % (j, k if k >= 0 else "-", queue,
                      int(s["dedicated"][j]), int(s["next_mfq"][j])))
    return out
