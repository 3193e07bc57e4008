"""`rtk cpus`: each CPU's record (arch/x86/percpu.h)."""
import gdb

from .base import clock_cpu, enum_name, subcommand


@subcommand("cpus", """Each CPU: APIC ID, state, quantum, missed boundaries.
The state is absent, starting, online, measuring, done or halted; quantum
counts the boundaries serviced in the current run. From percpu[] and
cpu_count, and the quantum clock's qclock.cpu[].""")
def cpus():
    n = int(gdb.parse_and_eval("cpu_count"))
    state_type = gdb.lookup_type("enum cpu_state")
    out = []
    for i in range(n):
        p = gdb.parse_and_eval("percpu[%d]" % i)
        state = enum_name(p["state"].cast(state_type), "CPU_")
        serviced, missed, _, _ = clock_cpu(i)
        out.append("cpu %d apic=%d state=%s quantum=%d missed=%d"
                   % (i, int(p["apic_id"]), state, serviced, missed))
    return out
