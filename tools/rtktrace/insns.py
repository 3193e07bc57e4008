"""Instructions per CPU: the trace's overhead spans costed in the
instructions of the CPU that ran them, from the counts the QEMU plugin
tools/qemu/insn_count.c noted at each trace record (docs/trace-format.md,
"Instructions per CPU").

Under -icount the TSC follows one instruction counter for the whole
machine, so with several CPUs a span's TSC cycles / 8 also count what the
other CPUs ran meanwhile: an upper bound. The plugin counts each CPU's
own; the k-th count of CPU c belongs to the record of seq k on c.

- tick, sched, cxs: the instructions between the span's start and end
  records, paired by derive.cpu_samples;
- release: from the start of the tick (or event) that made the release,
  on the same CPU, to the release record (the TSC's release overhead is
  measured from the release's ideal time instead, which includes how late
  the timer came);
- ipi: begins on one CPU and ends on another, so no per-CPU count.
"""
import bisect

from .derive import cpu_samples, percentile, usable
from .records import CODE

# A release is made inside the tick (quantum-driven plugins) or the timer
# event (event-driven ones) whose start record precedes it on its CPU.
RELEASE_FROM = ("tick_start", "timer")


def read_file(text):
    """({cpu: [count of each record mark]}, {cpu: [(kind, count)]}) from
    the plugin's out= file, kind "in" (the kernel entered: an interrupt,
    an exception, a system call) or "out" (about to return to ring 3);
    ValueError naming the line when it is not the plugin's format."""
    marks, events, cur, want = {}, {}, None, 0

    def close():
        if cur is not None and len(cur[1][cur[0]]) != want:
            raise ValueError(f"CPU {cur[0]}: {len(cur[1][cur[0]])} "
                             f"{'counts' if cur[1] is marks else 'events'}"
                             f", {want} announced")

    for i, line in enumerate(text.splitlines(), 1):
        w = line.split()
        if w[:1] == ["error"]:
            raise ValueError(f"insn_count: {line}")
        if w[:1] == ["cpu"]:
            close()
            if len(w) == 6 and w[2] == "marks" and w[4] == "executed" and \
                    all(x.isdigit() for x in (w[1], w[3], w[5])):
                cur, want = (int(w[1]), marks), int(w[3])
            elif len(w) == 4 and w[2] == "events" and \
                    all(x.isdigit() for x in (w[1], w[3])) and \
                    int(w[1]) in marks and int(w[1]) not in events:
                cur, want = (int(w[1]), events), int(w[3])
            else:
                raise ValueError(f"line {i}: not 'cpu C marks N executed "
                                 f"X' or 'cpu C events N' after its marks:"
                                 f" {line!r}")
            cur[1][cur[0]] = []
        elif cur is not None and cur[1] is marks and len(w) == 1 and \
                w[0].isdigit():
            marks[cur[0]].append(int(w[0]))
        elif cur is not None and cur[1] is events and len(w) == 2 and \
                w[0] in ("in", "out") and w[1].isdigit():
            events[cur[0]].append((w[0], int(w[1])))
        else:
            raise ValueError(f"line {i}: not a count: {line!r}")
    close()
    return marks, events


def read_marks(text):
    """{cpu: [count of each record mark]} of the plugin's out= file
    (read_file)."""
    return read_file(text)[0]


def counts_of(dump, marks):
    """[(record, count)] per CPU of the dump, each CPU's records in seq
    order; ValueError when a CPU has not one mark for each record it took
    (its TRACE-CPU line's records and dropped): not the plugin's run of
    this dump."""
    out = []
    for cpu, recs in enumerate(dump.per_cpu()):
        recs = sorted(recs, key=lambda r: r.seq)
        m = marks.get(cpu, [])
        info = dump.cpu_lines.get(cpu)
        if info is None:
            raise ValueError(f"CPU {cpu}: no TRACE-CPU line")
        taken = int(info["records"]) + int(info["dropped"])
        if len(m) != taken:
            raise ValueError(f"CPU {cpu}: {len(m)} marks for {taken} "
                             "records taken")
        pairs = [(r, m[r.seq]) for r in recs]
        if any(b < a for (_, a), (_, b) in zip(pairs, pairs[1:])):
            raise ValueError(f"CPU {cpu}: counts fall from one record to "
                             "the next")
        out.append(pairs)
    return out


def span_insns(dump, marks):
    """[(kind, cpu, seq, instructions)] of every tick, sched, cxs and
    release span of the dump, the seq its closing record's. The paired
    spans are derive.cpu_samples' with the counts for positions."""
    p = dump.params
    out = []
    for cpu, pairs in enumerate(counts_of(dump, marks)):
        records = [r for r, _ in pairs]
        count = {r.seq: n for r, n in pairs}
        spans, _ = cpu_samples(p, cpu, records, at=lambda r: count[r.seq])
        out += [(s.kind, cpu, s.seq, s.cycles) for s in spans]
        kept = {r.seq for r in usable(p, records)}
        since, prev_seq = None, None
        for r, n in pairs:
            # A jump in seq: the start of the release's tick may be lost.
            if prev_seq is not None and r.seq != prev_seq + 1:
                since = None
            prev_seq = r.seq
            if r.seq not in kept:
                continue
            if r.event in (CODE[e] for e in RELEASE_FROM):
                since = n
            elif r.event == CODE["release"] and since is not None:
                out.append(("release", cpu, r.seq, n - since))
    return out


def summary(spans):
    """{kind: (n, p50, p99, max)} of the spans' instructions, the
    percentiles as derive's (nearest rank)."""
    by = {}
    for kind, _, _, n in spans:
        by.setdefault(kind, []).append(n)
    return {k: (len(v), percentile(sorted(v), 50), percentile(sorted(v), 99),
                max(v)) for k, v in by.items()}


# The parts of a release's path on the CPU its task first runs on, between
# the positions below (release_paths).
PATH_PARTS = ("entry", "boundary", "decision", "after", "to_switch",
              "switch", "exit")


def release_paths(dump, marks, events):
    """[(cpu, task, job, {part: instructions}, total)] of every job that
    a boundary released and that first ran where its CPU's tick at that
    boundary switched to it: from the interrupt's entry (the CPU's last
    "in" before the tick's start record) to its return to ring 3 (the
    first "out" after the switch's end record), in that CPU's own
    instructions. The parts, between those marks and the records of the
    CPU's tick and switch:

    - entry: the interrupt's entry to the tick's start record;
    - boundary: to the decision's start (to the tick's end without one):
      accounting, releases (on CPU 0), waiting for the CPU's turn;
    - decision: the plugin's sched spans inside the tick;
    - after: the rest of the tick, to its end record;
    - to_switch: the tick's end to the switch's start;
    - switch: the context switch (cxs_start to cxs_end);
    - exit: the switch's end to the return to ring 3.

    A job counts only when the tick is its CPU's first at or after the
    job's release (the release record's ideal time, on any CPU), the
    CPU's records from the tick to the switch have no gap in seq, and
    nothing else switched in between."""
    per_cpu = counts_of(dump, marks)
    released = {(r.task, r.job): r.arg for pairs in per_cpu
                for r, _ in pairs if r.event == CODE["release"]}
    out = []
    for cpu, pairs in enumerate(per_cpu):
        ev = events.get(cpu, [])
        ins = [n for k, n in ev if k == "in"]       # in the order they ran
        outs = [n for k, n in ev if k == "out"]
        count = {r.seq: n for r, n in pairs}
        # The decisions, paired as for span_insns: (end seq, instructions).
        sched = [(x.seq, x.cycles) for x in cpu_samples(
            dump.params, cpu, [r for r, _ in pairs],
            at=lambda r: count[r.seq])[0] if x.kind == "sched"]
        sched_seqs = [q for q, _ in sched]
        seen = set()
        for at, (r, c1) in enumerate(pairs):
            if r.event != CODE["cxs_end"] or (r.task, r.job) in seen:
                continue
            seen.add((r.task, r.job))
            if (r.task, r.job) not in released:
                continue
            # Back to the switch's start and the tick before it.
            k = at - 1
            while k >= 0 and pairs[k][0].event != CODE["cxs_start"]:
                k -= 1
            t1 = k - 1
            while t1 >= 0 and pairs[t1][0].event != CODE["tick_end"]:
                t1 -= 1
            t0 = t1 - 1
            while t0 >= 0 and pairs[t0][0].event != CODE["tick_start"]:
                t0 -= 1
            if t0 < 0:
                continue
            # The first tick of this CPU at or after the release.
            prev = t0 - 1
            while prev >= 0 and pairs[prev][0].event != CODE["tick_start"]:
                prev -= 1
            if prev >= 0 and pairs[prev][0].tsc >= released[(r.task, r.job)]:
                continue
            span = [p[0] for p in pairs[t0:at + 1]]
            if any(b.seq != a.seq + 1 for a, b in zip(span, span[1:])) or \
                    any(x.event in (CODE["cxs_start"], CODE["cxs_end"])
                        for x in span[t1 - t0:k - t0]) or \
                    released[(r.task, r.job)] > span[0].tsc:
                continue
            n0, n1, c0 = pairs[t0][1], pairs[t1][1], pairs[k][1]
            i = bisect.bisect_right(ins, n0)
            j = bisect.bisect_left(outs, c1)
            if i == 0 or j == len(outs):
                continue
            entry, exit_ = ins[i - 1], outs[j]
            mine = sched[bisect.bisect_right(sched_seqs, span[0].seq):
                         bisect.bisect_right(sched_seqs, span[t1 - t0].seq)]
            decision = sum(n for _, n in mine)
            first = count[mine[0][0]] - mine[0][1] if mine else n1
            parts = {"entry": n0 - entry, "boundary": first - n0,
                     "decision": decision,
                     "after": n1 - first - decision,
                     "to_switch": c0 - n1, "switch": c1 - c0,
                     "exit": exit_ - c1}
            out.append((cpu, r.task, r.job, parts, exit_ - entry))
    return out

