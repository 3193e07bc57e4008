"""A checker of the Trace Event Format (the JSON that chrome://tracing and
Perfetto's UI open), written from the format's published definition apart
from tools/rtktrace/chrome.py, for the phases rtk-trace writes and their
duration counterparts:

- the file is a JSON array of events, or an object whose "traceEvents" is
  one (displayTimeUnit, when present, "ms" or "ns"; otherData an object);
- every event is an object with a one-character "ph"; "name", "cat" and
  "args" are a string, a string and an object where present; "ts" (and
  "tts", "dur", "tdur") are numbers of microseconds; "pid" and "tid" are
  integers;
- X (complete): name, ts, pid, tid and a "dur" that is not negative;
- B/E (duration): name, ts, pid, tid; on a thread each E closes the latest
  open B, not earlier than it, and a thread's B/E events come in time
  order;
- i/I (instant): name, ts, pid and tid; "s", the scope, is "g", "p" or
  "t" (thread when absent); a global instant needs no pid or tid, a
  process instant no tid; no dur;
- M (metadata): name one of process_name, process_labels,
  process_sort_index, thread_name, thread_sort_index; a pid (and a tid
  for the thread ones); args {"name": string}, {"labels": string} or
  {"sort_index": integer};
- the durations of one thread nest: two of them are either apart (one
  ends where or before the other begins) or one holds the other.

Any other phase is refused: nothing here says what its rules are. Times
are compared in integer nanoseconds (a viewer's clock: round(us * 1000)).
"""
import math

META = {"process_name": "name", "process_labels": "labels",
        "process_sort_index": "sort_index", "thread_name": "name",
        "thread_sort_index": "sort_index"}
PHASES = set("XBEiIM")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (is_int(v) or isinstance(v, float)) and math.isfinite(v)


def to_ns(us):
    return round(us * 1000)


def events_of(doc):
    """The event list of either form; raises ValueError when neither."""
    if isinstance(doc, list):
        return doc
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"),
                                                    list):
        raise ValueError("neither an array of events nor an object with a "
                         "traceEvents array")
    return doc["traceEvents"]


def is_string(v):
    return isinstance(v, str)


TYPES = {"name": (is_string, "a string"), "cat": (is_string, "a string"),
         "args": (lambda v: isinstance(v, dict), "an object"),
         "ts": (is_number, "a number"), "tts": (is_number, "a number"),
         "pid": (is_int, "an integer"), "tid": (is_int, "an integer"),
         "dur": (lambda v: is_number(v) and v >= 0,
                 "a number of microseconds, not negative"),
         "tdur": (lambda v: is_number(v) and v >= 0,
                  "a number, not negative")}


def required(ph, ev):
    """The fields an event of phase ph must carry."""
    if ph == "M":
        keys = ["name", "pid", "args"]
        if str(ev.get("name")).startswith("thread_"):
            keys.append("tid")
        return keys
    keys = ["ts"] + (["name"] if ph != "E" else [])
    scope = ev.get("s", "t") if ph in "iI" else "t"
    if scope != "g":
        keys.append("pid")
    if scope == "t":
        keys.append("tid")
    if ph == "X":
        keys.append("dur")
    return keys


def check_event(i, ev):
    """The field rules of one event: a list of what is wrong."""
    if not isinstance(ev, dict):
        return [f"event {i}: not an object"]
    ph = ev.get("ph")
    if not isinstance(ph, str) or len(ph) != 1:
        return [f"event {i}: ph {ph!r} is not one character"]
    if ph not in PHASES:
        return [f"event {i}: phase {ph!r} is not one this checker knows"]
    out = [f"event {i} ({ph}): no {key}" for key in required(ph, ev)
           if key not in ev]
    for key, (test, what) in TYPES.items():
        if key in ev and not test(ev[key]):
            out.append(f"event {i} ({ph}): {key} {ev[key]!r} is not {what}")
    if ph in "iI":
        if ev.get("s", "t") not in ("g", "p", "t"):
            out.append(f"event {i} ({ph}): scope {ev['s']!r} is not g, p "
                       "or t")
        if "dur" in ev:
            out.append(f"event {i} ({ph}): an instant has no dur")
    if ph == "M":
        key = META.get(ev.get("name"))
        if key is None:
            out.append(f"event {i} (M): name {ev.get('name')!r} is not a "
                       "metadata name")
        elif isinstance(ev.get("args"), dict):
            want = is_int if key == "sort_index" else is_string
            if not want(ev["args"].get(key)):
                out.append(f"event {i} (M {ev['name']}): args.{key} "
                           f"{ev['args'].get(key)!r} is missing or of the "
                           "wrong type")
    return out


def durations(events):
    """{(pid, tid): [(start_ns, end_ns, index)]} of the X events and the
    B/E pairs, and the B/E errors."""
    out, errors, open_ = {}, [], {}
    last_ts = {}
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or ev.get("ph") not in ("X", "B", "E"):
            continue
        if not is_number(ev.get("ts")) or not is_int(ev.get("pid")) or \
                not is_int(ev.get("tid")):
            continue            # check_event names it
        track = (ev["pid"], ev["tid"])
        start = to_ns(ev["ts"])
        if ev["ph"] == "X":
            if is_number(ev.get("dur")) and ev["dur"] >= 0:
                out.setdefault(track, []).append(
                    (start, start + to_ns(ev["dur"]), i))
            continue
        if start < last_ts.get(track, start):
            errors.append(f"event {i} ({ev['ph']}): ts {ev['ts']} before "
                          "the thread's previous B/E event")
        last_ts[track] = start
        if ev["ph"] == "B":
            open_.setdefault(track, []).append((start, i, ev.get("name")))
            continue
        stack = open_.get(track)
        if not stack:
            errors.append(f"event {i} (E): no open B on pid {track[0]} tid "
                          f"{track[1]}")
            continue
        b_start, b, name = stack.pop()
        if "name" in ev and ev["name"] != name:
            errors.append(f"event {i} (E): name {ev['name']!r} closes "
                          f"{name!r} (event {b})")
        out.setdefault(track, []).append((b_start, start, b))
    for track, stack in open_.items():
        for _, b, name in stack:
            errors.append(f"event {b} (B {name!r}): never closed")
    return out, errors


def nesting(track, spans):
    """What partly overlaps on one thread."""
    out, stack = [], []
    for start, end, i in sorted(spans, key=lambda s: (s[0], -s[1], s[2])):
        while stack and stack[-1][1] <= start:
            stack.pop()
        if stack and end > stack[-1][1]:
            out.append(f"event {i}: [{start}, {end}) ns overlaps event "
                       f"{stack[-1][2]} [{stack[-1][0]}, {stack[-1][1]}) ns "
                       f"on pid {track[0]} tid {track[1]} without nesting")
            continue
        stack.append((start, end, i))
    return out


def validate(doc):
    """Everything wrong with a parsed document; [] when it keeps the
    rules."""
    try:
        events = events_of(doc)
    except ValueError as e:
        return [str(e)]
    out = []
    if isinstance(doc, dict):
        if "displayTimeUnit" in doc and doc["displayTimeUnit"] not in ("ms",
                                                                       "ns"):
            out.append(f"displayTimeUnit {doc['displayTimeUnit']!r} is not "
                       "ms or ns")
        if "otherData" in doc and not isinstance(doc["otherData"], dict):
            out.append("otherData is not an object")
    for i, ev in enumerate(events):
        out += check_event(i, ev)
    spans, errors = durations(events)
    out += errors
    for track, mine in spans.items():
        out += nesting(track, mine)
    return out


# ---- reading a valid document back, for the tests' own comparisons


def names(doc):
    """({pid: process name}, {(pid, tid): thread name}) from metadata."""
    procs, threads = {}, {}
    for ev in events_of(doc):
        if ev.get("ph") != "M":
            continue
        if ev["name"] == "process_name":
            procs[ev["pid"]] = ev["args"]["name"]
        elif ev["name"] == "thread_name":
            threads[ev["pid"], ev["tid"]] = ev["args"]["name"]
    return procs, threads


def by_thread(doc, process, ph):
    """{thread name: [event]} of the phase-ph events of the named process,
    each with "start_ns" (and "end_ns" for X) added."""
    procs, threads = names(doc)
    pids = [pid for pid, name in procs.items() if name == process]
    out = {}
    for ev in events_of(doc):
        if ev.get("ph") != ph or ev.get("pid") not in pids:
            continue
        ev = dict(ev, start_ns=to_ns(ev["ts"]))
        if ph == "X":
            ev["end_ns"] = ev["start_ns"] + to_ns(ev["dur"])
        out.setdefault(threads.get((ev["pid"], ev["tid"])), []).append(ev)
    return out
