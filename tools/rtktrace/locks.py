"""Locks in a run (docs/locking.md): a kernel dump's lock and blocked
records (docs/trace-format.md, "Records") as the JSON lines `schedsim
--locks` prints, the RESULT lock keys they give, and the spans of time
each job waited for and held a resource, for the pictures."""
import dataclasses

from .records import BLOCKED_KINDS, CODE, LOCK_KINDS

LOCK, BLOCKED = CODE["lock"], CODE["blocked"]
# RESULT lock keys the records give (the rest come from the kernel only).
TRACE_KEYS = ("requests", "spin_max", "wait_max", "pi_max", "intf_max",
              "blocked_max", "forced")


def events(dump, event_driven):
    """The lock events of a dump in the order they happened: one CPU's
    records in its order, the CPUs' merged by the plugin's time and the
    TSC. Each is a dict as schedsim prints it ("at_us" when
    event_driven)."""
    at_key = "at_us" if event_driven else "at"
    out = []
    for k, recs in enumerate(dump.per_cpu()):
        i = 0
        while i < len(recs):
            r = recs[i]
            i += 1
            if r.event != LOCK or r.flags >= len(LOCK_KINDS):
                continue
            kind = LOCK_KINDS[r.flags]
            ev = {"lock": kind, at_key: r.arg >> 8,
                  "task": dump.task_name(r.task), "job": r.job}
            if kind == "blocked":
                parts = {}
                while i < len(recs) and recs[i].event == BLOCKED and \
                        recs[i].task == r.task and recs[i].job == r.job:
                    parts[BLOCKED_KINDS.get(recs[i].flags, "?")] = \
                        recs[i].arg
                    i += 1
                ev.update((name, parts.get(name, 0))
                          for name in ("spin", "wait", "pi", "intf"))
            else:
                ev["res"] = dump.resources.get(r.arg & 0xff,
                                               f"res{r.arg & 0xff}")
            out.append(((r.arg >> 8, r.tsc, k, r.seq), ev))
    return [ev for _, ev in sorted(out, key=lambda x: x[0])]


def totals(evs, names):
    """{task: {key: value}} for TRACE_KEYS, as the plugin counts them."""
    out = {n: dict.fromkeys(TRACE_KEYS, 0) for n in names}
    for ev in evs:
        t = out.setdefault(ev["task"], dict.fromkeys(TRACE_KEYS, 0))
        if ev["lock"] == "request":
            t["requests"] += 1
        elif ev["lock"] == "forced":
            t["forced"] += 1
        elif ev["lock"] == "blocked":
            for k in ("spin", "wait", "pi", "intf"):
                t[k + "_max"] = max(t[k + "_max"], ev[k])
            t["blocked_max"] = max(t["blocked_max"],
                                   ev["spin"] + ev["wait"] + ev["pi"])
    return out


@dataclasses.dataclass
class LockSpan:
    kind: str        # spin, wait (suspended) or hold
    task: str
    job: int
    res: str
    start: int       # ns from time 0
    stop: int


def spans(evs, unit_ns, end):
    """Each job's waits (spinning or suspended, from its request to its
    acquisition) and holds (to its release), in ns; what is still open at
    the run's end stops there."""
    out, open_wait, open_hold = [], {}, {}
    for ev in evs:
        at = ev.get("at", ev.get("at_us", 0)) * unit_ns
        key = (ev["task"], ev.get("res"))
        kind = ev["lock"]
        if kind in ("spin", "suspend"):
            open_wait[key] = ("spin" if kind == "spin" else "wait", at,
                              ev["job"])
        elif kind == "acquire":
            w = open_wait.pop(key, None)
            if w and at > w[1]:
                out.append(LockSpan(w[0], key[0], w[2], key[1], w[1], at))
            open_hold[key] = (at, ev["job"])
        elif kind in ("release", "forced"):
            h = open_hold.pop(key, None)
            if h and at > h[0]:
                out.append(LockSpan("hold", key[0], h[1], key[1], h[0], at))
        elif kind == "blocked":
            # A job that ends waiting waits no more.
            for k in [k for k in open_wait if k[0] == ev["task"]]:
                w = open_wait.pop(k)
                if at > w[1]:
                    out.append(LockSpan(w[0], k[0], w[2], k[1], w[1], at))
    for (task, res), (kind, start, job) in open_wait.items():
        if end > start:
            out.append(LockSpan(kind, task, job, res, start, end))
    for (task, res), (start, job) in open_hold.items():
        if end > start:
            out.append(LockSpan("hold", task, job, res, start, end))
    return sorted(out, key=lambda s: (s.start, s.task, s.res))
