"""A trace-dump writer for the tests, written from docs/trace-format.md apart
from the kernel's kernel/trace/trace.c and the decoder's tools/rtktrace: random
record sets become the console lines a kernel would print."""
import base64
import random
import struct
import zlib

REC = struct.Struct("<QHBBIIIQ")
NO_TASK = 0xFFFFFFFF
PER_LINE = 16
SUMMARY_CHUNK = 700


def crc(data):
    return "%08x" % (zlib.crc32(data) & 0xFFFFFFFF)


def with_crc(text):
    return f"{text} crc={crc(text.encode())}"


def pack(cpu, seq, rec):
    """rec: (tsc, event, flags, task, job, arg)."""
    tsc, event, flags, task, job, arg = rec
    return REC.pack(tsc, cpu, event, flags, task, job, seq, arg)


def data_lines(cpu, recs, first_seq=0):
    out = []
    for i in range(0, len(recs), PER_LINE):
        chunk = b"".join(pack(cpu, first_seq + i + j, r)
                         for j, r in enumerate(recs[i:i + PER_LINE]))
        out.append(f"TRACE-DATA cpu={cpu} seq={first_seq + i} "
                   f"n={len(chunk) // 32} crc={crc(chunk)} "
                   f"{base64.b64encode(chunk).decode()}")
    return out


def summary_lines(summary):
    """Parts of at most SUMMARY_CHUNK bytes, none ending in a space (the
    cut moves back over spaces, by half a chunk at most)."""
    parts, at = [], 0
    while at < len(summary):
        end = min(at + SUMMARY_CHUNK, len(summary))
        if end < len(summary):
            while end > at + SUMMARY_CHUNK // 2 and summary[end - 1] == " ":
                end -= 1
        parts.append(summary[at:end])
        at = end
    parts = parts or [""]
    return [f"TRACE-SUMMARY part={i} parts={len(parts)} "
            f"crc={crc(part.encode())} {part}"
            for i, part in enumerate(parts)]


def dump(run, tasks, per_cpu, summary, dropped=None):
    """The TRACE- lines of a run. run: dict with cpus, tsc_khz, t0,
    quantum_us, slots, staggered, sched, end; tasks: [(name, e, p, d)];
    per_cpu[k]: CPU k's records as (tsc, event, flags, task, job, arg)."""
    dropped = dropped or [0] * run["cpus"]
    lines = [with_crc(
        f"TRACE-BEGIN v=1 cpus={run['cpus']} tsc_khz={run['tsc_khz']} "
        f"t0={run['t0']} quantum_us={run['quantum_us']} "
        f"slots={run['slots']} "
        f"ticks={'staggered' if run['staggered'] else 'aligned'} "
        f"sched={run['sched']} tasks={len(tasks)} end={run['end']}")]
    for i, (name, e, p, d) in enumerate(tasks):
        lines.append(with_crc(f"TRACE-TASK id={i} name={name} e={e} p={p} "
                              f"d={d} phase=0 weight=0 work=spin"))
    for k, recs in enumerate(per_cpu):
        lines += data_lines(k, recs)
        lines.append(with_crc(f"TRACE-CPU cpu={k} records={len(recs)} "
                              f"dropped={dropped[k]}"))
    lines += summary_lines(summary)
    lines.append(with_crc(f"TRACE-END lines={len(lines)}"))
    return lines


# ---- random runs for the property tests

def quantum_cycles(run):
    return run["quantum_us"] * run["tsc_khz"] // 1000


# Switches and the paired kinds come most often, so that schedules and
# overhead samples are rich; every kind can occur (and, with damage, two
# unknown ones).
EVENT_WEIGHTS = [(6, 8), (1, 3), (2, 3), (3, 2), (4, 2), (5, 3), (7, 2),
                 (8, 2), (9, 1), (11, 2), (18, 2), (19, 1), (20, 1), (23, 1)]
OTHER_EVENTS = [10, 12, 13, 14, 15, 16, 17, 21, 22]
UNKNOWN_EVENTS = [0, 99]


def random_run(draw, st, max_cpus=4, max_records=60, damage=True):
    """(run, tasks, per_cpu) for a property test: per_cpu[k] holds CPU k's
    records as (seq, (tsc, event, flags, task, job, arg)). Hypothesis draws
    the sizes (so it can shrink them) and a seed for the records (so that a
    run costs a few draws, not hundreds). With damage, seq may jump, time
    may go back, tasks may lie beyond the set and kinds may be unknown."""
    cpus = draw(st.integers(1, max_cpus))
    ntasks = draw(st.integers(0, 6))
    run = {"cpus": cpus, "tsc_khz": draw(st.integers(100_000, 3_000_000)),
           "quantum_us": draw(st.integers(10, 2000)),
           "slots": draw(st.integers(0, 25)),
           "staggered": draw(st.booleans()), "sched": "spd2",
           "t0": draw(st.integers(0, 1 << 40))}
    counts = [draw(st.integers(0, max_records)) for _ in range(cpus)]
    rnd = random.Random(draw(st.integers(0, 1 << 32)))
    q = quantum_cycles(run)
    run["end"] = max(0, run["t0"] + run["slots"] * q + rnd.randint(-q, q))
    tasks = [(f"T{i}", 1, 2, rnd.randint(1, 4)) for i in range(ntasks)]
    weighted = [e for e, w in EVENT_WEIGHTS for _ in range(w)]
    other = OTHER_EVENTS + (UNKNOWN_EVENTS if damage else [])
    per_cpu = []
    for n in counts:
        tsc = max(0, run["t0"] + rnd.randint(-q, q))
        seq = 0
        recs = []
        for _ in range(n):
            tsc += rnd.randint(0, max(1, q // 2))
            if damage and rnd.randint(0, 30) == 0:
                tsc = max(0, tsc - rnd.randint(1, q))
            event = rnd.choice(other if rnd.randint(0, 9) == 0 else weighted)
            pick = rnd.randint(0, 19)
            if pick == 0 or not ntasks:
                task = NO_TASK
            elif damage and pick == 1:
                task = ntasks + rnd.randint(0, 3)
            else:
                task = rnd.randint(0, ntasks - 1)
            if event in (7, 11, 18):        # arg is an earlier time
                arg = max(0, tsc - rnd.randint(-q // 10, q))
            else:
                arg = rnd.randint(0, 1 << 34)
            recs.append((seq, (tsc, event, rnd.randint(0, 4), task,
                               rnd.randint(0, 5), arg)))
            seq += 1
            if damage and rnd.randint(0, 10) == 0:
                seq += rnd.randint(1, 2)
        per_cpu.append(recs)
    return run, tasks, per_cpu


def calc_input(run, tasks, per_cpu, summary="{}", dropped=None):
    """The text tools/trace_calc reads (stats and dump)."""
    dropped = dropped or [0] * run["cpus"]
    out = [f"params cpus={run['cpus']} tsc_khz={run['tsc_khz']} "
           f"t0={run['t0']} end={run['end']} quantum_us={run['quantum_us']} "
           f"slots={run['slots']} staggered={int(run['staggered'])} "
           f"tasks={len(tasks)} sched={run['sched']}"]
    out += [f"task {name} {e} {p} {d}" for name, e, p, d in tasks]
    for k, recs in enumerate(per_cpu):
        out.append(f"cpu {k} {len(recs)} {dropped[k]}")
        out += [f"{tsc} {ev} {fl} {task} {job} {seq} {arg}"
                for seq, (tsc, ev, fl, task, job, arg) in recs]
    out.append(f"summary {summary}")
    return "\n".join(out) + "\n"


def boundary(run, k, t):
    """CPU k's quantum boundary t in cycles (docs/trace-format.md)."""
    m = run["cpus"]
    n = t * m + (k if run["staggered"] else 0)
    whole, rem = divmod(run["quantum_us"] * run["tsc_khz"], 1000 * m)
    return run["t0"] + n * whole + n * rem // (1000 * m)


def records_from_schedule(run, rows):
    """Per-CPU records of a kernel that ran rows[t][k] (task index or None)
    in CPU k's slot t: at each boundary a tick, the plugin's decision and,
    when the task changes, a context switch, a few hundred cycles in."""
    per_cpu = []
    for k in range(run["cpus"]):
        recs, running = [], None
        for t, row in enumerate(rows):
            b = boundary(run, k, t)
            want = row[k]
            task = NO_TASK if want is None else want
            recs += [(b + 40, 1, 0, NO_TASK if running is None else running,
                      0, t),
                     (b + 60, 3, 0, 0, 0, t), (b + 160 + 7 * k, 4, 0, task, 0,
                                               t)]
            if want != running:
                recs += [(b + 200, 5, 0, task, 0, 0),
                         (b + 300 + t % 5, 6, 0, task, t, 0)]
                running = want
            recs.append((b + 350, 2, 0, 0, 0, t))
        per_cpu.append(list(enumerate(recs)))
    return per_cpu


def records_with_jobs(run, rows, tasks, offset=300, faults=()):
    """(per_cpu, truth): the records of a kernel that ran rows[t][k] (task
    index or None) with the jobs of tasks [(name, e, p, d)] (phase 0), as
    its job rules say: job j released at CPU 0's boundary j p, each
    quantum counting towards the oldest unfinished job, which ends with
    its e-th at the end of that slot on that CPU and misses when that is
    after boundary j p + d. Each boundary has a tick and a decision; a
    CPU whose task changes switches `offset` cycles after its boundary,
    and to idle after the last slot. faults: (t, k) where CPU k's task is
    killed (a fault record) in slot t. truth holds what was written:
    "switches" [(cpu, tsc, task or None)], "completions" [(task, job,
    tsc)], "releases" [(task, job, tsc)], "misses" [(task, job, tsc of the
    late completion, cycles)], "kills" [(task, tsc)], "spans" [(cpu, kind,
    start, end)]."""
    m = run["cpus"]
    recs = [[] for _ in range(m)]
    truth = {key: [] for key in ("switches", "completions", "releases",
                                 "misses", "kills", "spans")}
    ran, done = [0] * len(tasks), [0] * len(tasks)
    running = [None] * m
    for t, row in enumerate(rows):
        b0 = boundary(run, 0, t)
        for i, (name, e, p, d) in enumerate(tasks):
            if t % p == 0:
                recs[0].append((b0 + 20, 7, 0, i, t // p, b0))
                truth["releases"].append((i, t // p, b0))
        for k, want in enumerate(row):
            b = boundary(run, k, t)
            task = NO_TASK if want is None else want
            recs[k] += [(b + 40, 1, 0, NO_TASK, 0, t), (b + 60, 3, 0, 0, 0, t),
                        (b + 160, 4, 0, task, 0, t), (b + 350, 2, 0, 0, 0, t)]
            truth["spans"] += [(k, "tick", b + 40, b + 350),
                               (k, "sched", b + 60, b + 160)]
            if want != running[k]:
                start = b + offset // 2
                job = 0 if want is None else done[want]
                recs[k] += [(start, 5, 0, task, 0, 0),
                            (b + offset, 6, 0, task, job, 0)]
                truth["switches"].append((k, b + offset, want))
                truth["spans"].append((k, "cxs", start, b + offset))
                running[k] = want
            if want is not None and (t, k) in faults:
                recs[k].append((b + 100, 20, 14, want, done[want], 0x1000))
                truth["kills"].append((want, b + 100))
        for k, i in enumerate(row):
            if i is None:
                continue
            name, e, p, d = tasks[i]
            ran[i] += 1
            if ran[i] < e:
                continue
            when = boundary(run, k, t + 1)
            due = boundary(run, 0, done[i] * p + d)
            recs[k].append((when + 2, 8, 1, i, done[i], when))
            truth["completions"].append((i, done[i], when))
            if when > due:
                recs[k].append((when + 3, 9, 0, i, done[i], when - due))
                truth["misses"].append((i, done[i], when, when - due))
            done[i] += 1
            ran[i] = 0
    for k, task in enumerate(running):
        if task is not None:
            b = boundary(run, k, len(rows))
            recs[k] += [(b + offset // 2, 5, 0, NO_TASK, 0, task),
                        (b + offset, 6, 0, NO_TASK, 0, task)]
            truth["switches"].append((k, b + offset, None))
            truth["spans"].append((k, "cxs", b + offset // 2, b + offset))
    per_cpu = [list(enumerate(r for r in sorted(cpu, key=lambda r: r[0])))
               for cpu in recs]
    return per_cpu, truth
