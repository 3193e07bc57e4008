"""`rtk trace save FILE`: the kernel's trace buffers as the dump's lines
(docs/trace-format.md, "The dump" and "From GDB"), which
`tools/rtk-trace decode FILE` reads like a console log."""
import base64
import struct
import zlib

import gdb

from .base import subcommand

PER_LINE = 16           # lib/trace_dump.h TRACE_DUMP_PER_LINE
SUMMARY_CHUNK = 700     # TRACE_DUMP_SUMMARY_CHUNK
REC_BYTES = 32          # struct trace_rec (lib/trace_rec.h)
SEQ_OFFSET = 20         # trace_rec.seq: tsc 8, cpu 2, event 1, flags 1,
                        # task 4, job 4


class _Dump:
    def __init__(self):
        self.lines = []

    def fields(self, text):
        """A key=value line: the text, " crc=" and the text's CRC."""
        self.lines.append("%s crc=%08x" % (text, zlib.crc32(text.encode())))

    def raw(self, text):
        self.lines.append(text)


def params():
    """trace_header.p, or (no run described yet) what trace-format.md says
    to use instead."""
    h = gdb.parse_and_eval("trace_header")
    p = h["p"]
    if int(p["cpus"]):
        names = ("cpus", "tsc_khz", "t0", "end", "quantum_us", "slots",
                 "staggered", "ntasks")
        return h, {n: int(p[n]) for n in names}
    return h, {"cpus": int(gdb.parse_and_eval("trace_ncpus")),
               "tsc_khz": int(gdb.parse_and_eval("tsc.khz")), "t0": 0,
               "end": 0, "quantum_us": 0, "slots": 0, "staggered": 0,
               "ntasks": 0}


def summary_parts(text):
    """lib/trace_dump.c's part_end: 700-byte pieces, each moved back over
    trailing spaces by at most half a piece."""
    parts, at = [], 0
    while at < len(text):
        end = len(text)
        if end - at > SUMMARY_CHUNK:
            end = at + SUMMARY_CHUNK
            while end > at + SUMMARY_CHUNK // 2 and text[end - 1] == 32:
                end -= 1
        parts.append(text[at:end])
        at = end
    return parts or [b""]


def cpu_lines(d, k):
    """CPU k's records, count read before the records (trace-format.md)."""
    b = gdb.parse_and_eval("trace_buf")[k]
    n = int(b["count"])
    data = bytes(gdb.selected_inferior().read_memory(int(b["rec"]),
                                                     n * REC_BYTES)) \
        if n else b""
    for i in range(0, n, PER_LINE):
        chunk = data[i * REC_BYTES:min(n, i + PER_LINE) * REC_BYTES]
        seq = struct.unpack_from("<I", chunk, SEQ_OFFSET)[0]
        d.raw("TRACE-DATA cpu=%d seq=%d n=%d crc=%08x %s"
              % (k, seq, len(chunk) // REC_BYTES, zlib.crc32(chunk),
                 base64.b64encode(chunk).decode()))
    d.fields("TRACE-CPU cpu=%d records=%d dropped=%d"
             % (k, n, int(b["dropped"])))


def dump_lines():
    h, p = params()
    d = _Dump()
    sched = h["sched"].string() if int(h["sched"]) else "none"
    d.fields("TRACE-BEGIN v=1 cpus=%d tsc_khz=%d t0=%d quantum_us=%d "
             "slots=%d ticks=%s sched=%s tasks=%d end=%d"
             % (p["cpus"], p["tsc_khz"], p["t0"], p["quantum_us"],
                p["slots"], "staggered" if p["staggered"] else "aligned",
                sched, p["ntasks"], p["end"]))
    ts = h["ts"]
    ntasks = min(p["ntasks"], int(ts["ntasks"])) if int(ts) else 0
    for i in range(ntasks):
        t = ts["task"][i]
        d.fields("TRACE-TASK id=%d name=%s e=%d p=%d d=%d phase=%d "
                 "weight=%d work=%s"
                 % (i, t["name"].string(), int(t["e"]), int(t["p"]),
                    int(t["d"]), int(t["phase"]), int(t["weight"]),
                    t["work"].string()))
    for k in range(p["cpus"]):
        cpu_lines(d, k)
    n = int(h["summary_len"]) if int(h["summary"]) else 0
    text = bytes(gdb.selected_inferior().read_memory(int(h["summary"]), n)) \
        if n else b""
    parts = summary_parts(text)
    for i, part in enumerate(parts):
        d.raw("TRACE-SUMMARY part=%d parts=%d crc=%08x %s"
              % (i, len(parts), zlib.crc32(part),
                 part.decode(errors="replace")))
    d.fields("TRACE-END lines=%d" % len(d.lines))
    return d.lines


@subcommand("trace", """Trace buffers: `rtk trace save FILE`.
Writes every CPU's trace records, the run's parameters, its tasks and its
summary as the kernel's dump (trace=events) prints them -- TRACE-BEGIN to
TRACE-END -- into FILE, for `tools/rtk-trace decode FILE`. Works at any
stop: before a run's end the records so far, and the summary is empty.""")
def trace(*argv):
    if len(argv) != 2 or argv[0] != "save":
        raise gdb.GdbError("usage: rtk trace save FILE")
    lines = dump_lines()
    try:
        with open(argv[1], "w") as f:
            f.write("".join(line + "\n" for line in lines))
    except OSError as e:
        raise gdb.GdbError("rtk trace save: cannot write %s: %s"
                           % (argv[1], e.strerror))
    return ["rtk trace: %d lines to %s" % (len(lines), argv[1])]
