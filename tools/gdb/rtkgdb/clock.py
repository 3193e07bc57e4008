"""`rtk clock`: the quantum clock's progress on each CPU."""
import gdb

from .base import clock_cpu, subcommand


@subcommand("clock", """Quantum clock per CPU: boundaries serviced, missed.
With each CPU's APIC ID, boundaries serviced and missed so far, the index of
the next one, and whether the run is done on it. The same lines as the
kernel's `dumpstate=end` (STATE clock ...).""")
def clock():
    n = int(gdb.parse_and_eval("cpu_count"))
    out = []
    for k in range(n):
        p = gdb.parse_and_eval("percpu[%d]" % k)
        serviced, missed, nxt, done = clock_cpu(k)
        out.append("clock cpu %d apic=%d serviced=%d missed=%d next=%d "
                   "done=%d" % (k, int(p["apic_id"]), serviced, missed, nxt,
                                done))
    return out
