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
from .derive import cpu_samples, percentile, usable
from .records import CODE

# A release is made inside the tick (quantum-driven plugins) or the timer
# event (event-driven ones) whose start record precedes it on its CPU.
RELEASE_FROM = ("tick_start", "timer")


def read_marks(text):
    """{cpu: [count of each record mark]} from the plugin's out= file;
    ValueError naming the line when it is not the plugin's format."""
    marks, cur, want = {}, None, 0
    for i, line in enumerate(text.splitlines(), 1):
        w = line.split()
        if w[:1] == ["error"]:
            raise ValueError(f"insn_count: {line}")
        if w[:1] == ["cpu"]:
            if len(w) != 6 or w[2] != "marks" or w[4] != "executed" or \
                    not all(x.isdigit() for x in (w[1], w[3], w[5])):
                raise ValueError(f"line {i}: not 'cpu C marks N executed "
                                 f"X': {line!r}")
            if cur is not None and len(marks[cur]) != want:
                raise ValueError(f"CPU {cur}: {len(marks[cur])} counts, "
                                 f"{want} announced")
            cur, want = int(w[1]), int(w[3])
            marks[cur] = []
        elif cur is not None and len(w) == 1 and w[0].isdigit():
            marks[cur].append(int(w[0]))
        else:
            raise ValueError(f"line {i}: not a count: {line!r}")
    if cur is not None and len(marks[cur]) != want:
        raise ValueError(f"CPU {cur}: {len(marks[cur])} counts, {want} "
                         "announced")
    return marks


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
