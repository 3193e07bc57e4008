"""Trace records as docs/trace-format.md ("Records") lays them out."""
import struct
from typing import NamedTuple

RECORD = struct.Struct("<QHBBIIIQ")
RECORD_SIZE = RECORD.size
NO_TASK = 0xFFFFFFFF

EVENTS = {
    1: "tick_start", 2: "tick_end", 3: "sched_start", 4: "sched_end",
    5: "cxs_start", 6: "cxs_end", 7: "release", 8: "completion",
    9: "deadline_miss", 10: "ipi_send", 11: "ipi_recv", 12: "block",
    13: "wake", 14: "join", 15: "leave", 16: "budget_exhausted",
    17: "budget_replenished", 18: "hourglass_gap", 19: "hourglass_total",
    20: "fault", 21: "arrival", 22: "timer", 23: "self", 24: "lock",
    25: "blocked", 26: "user",
}
# A lock record's flags (sched/sched.h, enum sched_lock_kind), and a
# blocked record's (lib/trace_rec.h, TRACE_F_BLOCKED_*).
LOCK_KINDS = ("request", "acquire", "release", "forced", "spin", "suspend",
              "blocked")
BLOCKED_KINDS = {1: "spin", 2: "wait", 3: "pi", 4: "intf"}
CODE = {name: code for code, name in EVENTS.items()}

# Flag values of the kinds whose numbers depend on them.
DONE_BUDGET, DONE_SLEEP, DONE_DROPPED = 1, 2, 3
GAP_PURE = 1

# The kinds whose `task` the derived numbers use; a record of one of them
# naming a task beyond the set is damage and is left out.
TASK_EVENTS = {CODE[n] for n in
               ("cxs_end", "completion", "deadline_miss", "fault", "self")}


class Record(NamedTuple):
    tsc: int
    cpu: int
    event: int
    flags: int
    task: int
    job: int
    seq: int
    arg: int

    @property
    def name(self):
        return EVENTS.get(self.event, f"event{self.event}")


def unpack_all(data):
    """Records from bytes whose length is a multiple of RECORD_SIZE."""
    return [Record(*RECORD.unpack_from(data, off))
            for off in range(0, len(data), RECORD_SIZE)]
