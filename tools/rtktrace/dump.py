"""Reads the TRACE- lines of a console log (docs/trace-format.md, "The
dump"): finds each dump, checks every line's CRC and every CPU's sequence,
names what is damaged, and keeps what is intact."""
import base64
import dataclasses
import re
import zlib

from .derive import Params, usable
from .records import EVENTS, RECORD_SIZE, unpack_all

VERSION = 1
MARK = "TRACE-"

# Lines that carry key=value fields and end in the CRC of what precedes it.
FIELDS = {
    "BEGIN": ("v", "cpus", "tsc_khz", "t0", "quantum_us", "slots", "ticks",
              "sched", "tasks", "end"),
    "TASK": ("id", "name", "e", "p", "d", "phase", "weight", "work"),
    "RESOURCE": ("id", "name", "protocol"),
    "CPU": ("cpu", "records", "dropped"),
    "END": ("lines",),
}
NUMERIC = {"v", "cpus", "tsc_khz", "t0", "quantum_us", "slots", "tasks",
           "end", "id", "e", "p", "d", "phase", "weight", "cpu", "records",
           "dropped", "lines"}
KV_LINE = re.compile(
    r"TRACE-(BEGIN|TASK|RESOURCE|CPU|END) (.*) crc=([0-9a-f]{8})$")
# At most this many resources (lib/taskset.h, TASKSET_RES_MAX).
RESOURCES_MAX = 64
DATA_LINE = re.compile(
    r"TRACE-DATA cpu=(\d+) seq=(\d+) n=(\d+) crc=([0-9a-f]{8}) (\S+)$")
SUMMARY_LINE = re.compile(
    r"TRACE-SUMMARY part=(\d+) parts=(\d+) crc=([0-9a-f]{8}) (.*)$")


def crc_hex(data):
    return f"{zlib.crc32(data) & 0xFFFFFFFF:08x}"


@dataclasses.dataclass
class Task:
    id: int
    name: str
    e: int
    p: int
    d: int
    phase: int
    weight: int
    work: str


@dataclasses.dataclass
class Dump:
    """One run's dump as found in the log."""
    begin_line: int
    header: dict
    params: Params
    tasks: dict = dataclasses.field(default_factory=dict)   # id -> Task
    resources: dict = dataclasses.field(default_factory=dict)  # id -> name
    # cpu -> {seq: (Record, line)}
    records: dict = dataclasses.field(default_factory=dict)
    cpu_lines: dict = dataclasses.field(default_factory=dict)  # cpu -> dict
    summary_parts: dict = dataclasses.field(default_factory=dict)
    summary_count: int = None
    end: dict = None
    lines: int = 1            # TRACE- lines from BEGIN on, END excluded
    problems: list = dataclasses.field(default_factory=list)

    def problem(self, line, text):
        self.problems.append((line, text))

    def task_name(self, i):
        t = self.tasks.get(i)
        return t.name if t else f"task{i}"

    def per_cpu(self):
        """Each CPU's intact records in seq order."""
        return [[rec for _, (rec, _) in sorted(self.records.get(k, {})
                                               .items())]
                for k in range(self.params.cpus)]

    def summary_text(self):
        """The kernel's summary line when every part arrived, else None."""
        if self.summary_count is None:
            return None
        if set(self.summary_parts) != set(range(self.summary_count)):
            return None
        return "".join(self.summary_parts[i]
                       for i in range(self.summary_count))


def parse_fields(kind, text):
    """key=value fields in the order FIELDS gives, or a reason."""
    words = text.split(" ")
    keys = FIELDS[kind]
    if len(words) != len(keys):
        return None, f"{len(words)} fields where {len(keys)} belong"
    out = {}
    for key, word in zip(keys, words):
        k, eq, v = word.partition("=")
        if k != key or not eq:
            return None, f"field '{word}' where {key}= belongs"
        if key in NUMERIC:
            if not v.isdigit():
                return None, f"{key}={v} is not a number"
            v = int(v)
        out[key] = v
    return out, None


class Reader:
    """Feeds console lines through; collects dumps and problems outside
    any dump (as (line, text))."""

    def __init__(self):
        self.dumps = []
        self.current = None
        self.loose = []

    def problem(self, line, text):
        if self.current is not None:
            self.current.problem(line, text)
        else:
            self.loose.append((line, text))

    def feed(self, number, raw):
        at = raw.find(MARK)
        if at < 0:
            return
        line = raw[at:].rstrip("\r\n")
        kind = line[len(MARK):].split(" ", 1)[0]
        if self.current is not None and kind != "BEGIN":
            self.current.lines += kind != "END"
        if kind == "DATA":
            return self.data(number, line)
        if kind == "SUMMARY":
            return self.summary(number, line)
        if kind not in FIELDS:
            return self.problem(number, f"unknown line TRACE-{kind}; ignored")
        m = KV_LINE.match(line)
        fields, why = None, "is malformed"
        if m and crc_hex(line[:line.rfind(" crc=")].encode()) != m.group(3):
            why = "fails its CRC"
        elif m:
            fields, bad = parse_fields(kind, m.group(2))
            why = f"is malformed ({bad})"
        if fields is not None:
            return getattr(self, kind.lower())(number, fields)
        if kind != "BEGIN":
            return self.problem(number, f"TRACE-{kind} {why}; ignored")
        self.close(number, "a damaged TRACE-BEGIN")
        self.loose.append((number, f"TRACE-BEGIN {why}: its dump cannot be "
                           "placed in time and is skipped"))

    def outside(self, number, kind):
        self.problem(number, f"TRACE-{kind} outside a dump (no intact "
                     "TRACE-BEGIN before it); ignored")

    # ---- one method per kind of line

    def begin(self, number, f):
        self.close(number, "another TRACE-BEGIN")
        if f["v"] != VERSION:
            self.loose.append((number, f"TRACE-BEGIN v={f['v']}: this "
                               f"decoder reads v={VERSION}; dump skipped"))
            return
        why = None
        if f["cpus"] == 0:
            why = "cpus=0"
        elif f["tsc_khz"] == 0:
            why = "tsc_khz=0"
        elif f["ticks"] not in ("aligned", "staggered"):
            why = f"ticks={f['ticks']}"
        if why:
            self.loose.append((number, f"TRACE-BEGIN {why} cannot be "
                               "decoded; dump skipped"))
            return
        params = Params(f["cpus"], f["tsc_khz"], f["t0"], f["end"],
                        f["quantum_us"], f["slots"],
                        f["ticks"] == "staggered", f["tasks"])
        self.current = Dump(number, f, params)
        self.dumps.append(self.current)

    def task(self, number, f):
        d = self.entry(number, "TASK", "id", f["id"], "tasks",
                       lambda d: (d.params.ntasks, d.tasks))
        if d:
            d.tasks[f["id"]] = Task(**f)

    def resource(self, number, f):
        d = self.entry(number, "RESOURCE", "id", f["id"], "resources",
                       lambda d: (RESOURCES_MAX, d.resources))
        if d:
            d.resources[f["id"]] = f["name"]

    def cpu(self, number, f):
        d = self.entry(number, "CPU", "cpu", f["cpu"], "CPUs",
                       lambda d: (d.params.cpus, d.cpu_lines))
        if d:
            d.cpu_lines[f["cpu"]] = dict(f, line=number)

    def entry(self, number, kind, key, value, what, where):
        """The current dump when a TRACE-TASK or TRACE-CPU line's index is
        in range and new; else names the problem and returns None. where(d)
        gives the range's limit and the entries so far."""
        d = self.current
        if d is None:
            return self.outside(number, kind)
        limit, seen = where(d)
        if value >= limit:
            return d.problem(number, f"TRACE-{kind} {key}={value} beyond "
                             f"the {limit} {what}; ignored")
        if value in seen:
            return d.problem(number, f"TRACE-{kind} {key}={value} "
                             "repeated; the first kept")
        return d

    def end(self, number, f):
        d = self.current
        if d is None:
            return self.outside(number, "END")
        d.end = dict(f, line=number)
        if f["lines"] != d.lines:
            d.problem(number, f"TRACE-END counts {f['lines']} lines before "
                      f"it, {d.lines} arrived: lines are missing or extra")
        self.current = None

    def opened(self, number, kind, pattern, line):
        """(current dump, match) for a line of the dump's body; (None, None)
        after naming why it cannot be read."""
        m = pattern.match(line)
        if m is None:
            self.problem(number, f"TRACE-{kind} line is malformed; ignored")
        elif self.current is None:
            self.outside(number, kind)
        else:
            return self.current, m
        return None, None

    def data(self, number, line):
        d, m = self.opened(number, "DATA", DATA_LINE, line)
        if d is None:
            return
        cpu, seq, n, crc, b64 = m.groups()
        cpu, seq, n = int(cpu), int(seq), int(n)
        try:
            raw = base64.b64decode(b64, validate=True)
        except ValueError:      # binascii.Error, or a non-ASCII character
            return d.problem(number, "TRACE-DATA base64 is damaged; its "
                             "records are lost")
        if crc_hex(raw) != crc:
            return d.problem(number, "TRACE-DATA fails its CRC; its records "
                             "are lost")
        if n == 0 or len(raw) != n * RECORD_SIZE:
            return d.problem(number, f"TRACE-DATA n={n} but {len(raw)} "
                             "bytes; its records are lost")
        if cpu >= d.params.cpus:
            return d.problem(number, f"TRACE-DATA cpu={cpu} beyond the "
                             f"{d.params.cpus} CPUs; ignored")
        recs = unpack_all(raw)
        for i, r in enumerate(recs):
            if r.cpu != cpu or r.seq != seq + i:
                return d.problem(number, f"TRACE-DATA record {i} says cpu="
                                 f"{r.cpu} seq={r.seq}, the line cpu={cpu} "
                                 f"seq={seq + i}; its records are lost")
        have = d.records.setdefault(cpu, {})
        clash = [r.seq for r in recs if r.seq in have]
        if clash:
            same = all(have[r.seq][0] == r for r in recs if r.seq in have)
            first = have[clash[0]][1]
            d.problem(number, f"cpu {cpu}: seq {span(clash)} repeated (first "
                      f"at line {first}, "
                      f"{'identical' if same else 'different'}); the first "
                      "kept")
        for r in recs:
            have.setdefault(r.seq, (r, number))

    def summary(self, number, line):
        d, m = self.opened(number, "SUMMARY", SUMMARY_LINE, line)
        if d is None:
            return
        part, parts, crc, text = m.groups()
        part, parts = int(part), int(parts)
        if crc_hex(text.encode()) != crc:
            return d.problem(number, f"TRACE-SUMMARY part {part} fails its "
                             "CRC; ignored")
        if part >= parts or (d.summary_count not in (None, parts)):
            return d.problem(number, f"TRACE-SUMMARY part={part} parts="
                             f"{parts} does not fit the others; ignored")
        d.summary_count = parts
        if part in d.summary_parts:
            return d.problem(number, f"TRACE-SUMMARY part {part} repeated; "
                             "the first kept")
        d.summary_parts[part] = text

    def close(self, number, why):
        """The current dump ends without its TRACE-END."""
        if self.current is not None:
            self.current.problem(number, f"no TRACE-END before {why}: the "
                                 "dump is truncated")
            self.current = None

    def finish(self, last_line):
        if self.current is not None:
            self.current.problem(last_line, "no TRACE-END: the dump is "
                                 "truncated at the end of the log")
            self.current = None
        for d in self.dumps:
            check_complete(d)


def span(seqs):
    seqs = sorted(seqs)
    return str(seqs[0]) if len(seqs) == 1 else f"{seqs[0]}-{seqs[-1]}"


def runs(values):
    """Sorted ints as (first, last) runs of consecutive values."""
    out = []
    for v in sorted(values):
        if out and v == out[-1][1] + 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return [tuple(r) for r in out]


def check_complete(d):
    """After the log: what each CPU is missing, what the kernel dropped,
    which tasks and summary parts never came."""
    where = d.end["line"] if d.end else d.begin_line
    for k in range(d.params.cpus):
        have = d.records.get(k, {})
        info = d.cpu_lines.get(k)
        if info is None:
            d.problem(where, f"cpu {k}: no TRACE-CPU line; how many records "
                      "it wrote is unknown")
            total = max(have) + 1 if have else 0
        else:
            total = info["records"]
            if info["dropped"]:
                d.problem(info["line"], f"cpu {k}: the kernel dropped "
                          f"{info['dropped']} records (its buffer was full): "
                          f"its trace stops at record {total}")
        beyond = [s for s in have if s >= total]
        if beyond:
            d.problem(where, f"cpu {k}: records {span(beyond)} beyond the "
                      f"{total} its TRACE-CPU line counts")
        missing = [s for s in range(total) if s not in have]
        for lo, hi in runs(missing):
            d.problem(where, f"cpu {k}: records {lo}-{hi} missing "
                      f"({hi - lo + 1} of {total})" if hi > lo else
                      f"cpu {k}: record {lo} missing (of {total})")
    absent = [i for i in range(d.params.ntasks) if i not in d.tasks]
    if absent:
        d.problem(d.begin_line, f"no TRACE-TASK line for task {span(absent)}"
                  f" (named task<id>)" if len(absent) == 1 else
                  f"no TRACE-TASK lines for tasks "
                  f"{', '.join(map(str, absent))} (named task<id>)")
    if d.summary_text() is None:
        got = len(d.summary_parts)
        d.problem(where, "the kernel's TRACE-SUMMARY is incomplete "
                  f"({got} of {d.summary_count} parts)" if d.summary_count
                  else "no TRACE-SUMMARY: the summary is computed from the "
                  "trace")
    for k, recs in enumerate(d.per_cpu()):
        bad = [r for r in recs if r.event not in EVENTS]
        if bad:
            d.problem(where, f"cpu {k}: {len(bad)} records of unknown kinds "
                      f"(first: event {bad[0].event}, seq {bad[0].seq}); "
                      "ignored")
        kept = set(usable(d.params, recs))
        out = [r for r in recs if r not in kept]
        if out:
            d.problem(where, f"cpu {k}: {len(out)} records name a task "
                      "beyond the set or switch earlier than the switch "
                      f"before (first: {out[0].name} seq {out[0].seq}); left "
                      "out")
    d.problems.sort(key=lambda p: p[0])


def read(text):
    """(dumps, problems outside any dump) from a console log's text."""
    reader = Reader()
    number = 0
    for number, raw in enumerate(text.splitlines(), 1):
        reader.feed(number, raw)
    reader.finish(number)
    return reader.dumps, reader.loose
