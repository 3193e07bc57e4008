"""What every `rtk` command shares: the registry of subcommands, reading the
running scheduler's state, and walking the kernel's data structures."""
import fractions

import gdb

_COMMANDS = {}


def subcommand(name, doc):
    """Registers fn() -> list of lines as `rtk NAME`."""
    def wrap(fn):
        _COMMANDS[name] = (fn, doc)
        return fn
    return wrap


class _Prefix(gdb.Command):
    """rtk: the kernel's own state, read from memory (tools/gdb/rtkgdb).
Subcommands: see `help rtk`."""

    def __init__(self):
        super().__init__("rtk", gdb.COMMAND_DATA, prefix=True)


class _Sub(gdb.Command):
    def __init__(self, name, fn, doc):
        self.__doc__ = doc
        super().__init__("rtk " + name, gdb.COMMAND_DATA)
        self.fn = fn

    def invoke(self, arg, from_tty):
        for line in self.fn(*gdb.string_to_argv(arg)):
            gdb.write(line + "\n")


def register_all():
    _Prefix()
    for name, (fn, doc) in sorted(_COMMANDS.items()):
        _Sub(name, fn, doc)


def clock_cpu(k):
    """CPU k's place in the current quantum-clock run (kernel/time/quantum_clock.c,
    qclock.cpu[k]): (serviced, missed, next, done); zeros before any run."""
    q = gdb.parse_and_eval("qclock")
    if int(q["cpu"]) == 0 or k >= int(q["cpu_capacity"]):
        return 0, 0, 0, 0
    c = q["cpu"][k]
    return (int(c["serviced"]), int(c["missed"]), int(c["next"]),
            int(c["done"]))


def driver():
    """The running scheduler's driver (kernel/run/sched_run.h) and its plugin's
    name; an error when no run has started."""
    d = gdb.parse_and_eval("sched_run_driver").dereference()
    if int(d["plugin"]) == 0:
        raise gdb.GdbError("no scheduler has started (sched_run_driver->"
                           "plugin is NULL): boot with sched=NAME")
    return d, d["plugin"]["name"].string()


def plugin_state(families):
    """The running plugin's name and its state as the struct families
    names for it (plugin name -> struct tag); an error naming the plugin
    when it is not one of them."""
    d, name = driver()
    if name not in families:
        raise gdb.GdbError("the running scheduler is %s, not %s"
                           % (name, " or ".join(sorted(families))))
    ptr = d["s"].cast(gdb.lookup_type("struct " + families[name]).pointer())
    return name, ptr.dereference()


def task_name(ts, i):
    return ts["task"][int(i)]["name"].string()


def enum_name(value, prefix):
    """PFAIR_ACTIVE -> "active": the enumerator's name from the debug
    information, without its prefix."""
    s = str(value)
    return s[len(prefix):].lower() if s.startswith(prefix) else s


def ratio(num, den):
    """num/den reduced, "num" when den divides it (sched/gdq's dump)."""
    f = fractions.Fraction(int(num), int(den))
    return str(f.numerator) if f.denominator == 1 else \
        "%d/%d" % (f.numerator, f.denominator)


def container(node_ptr, type_name, member):
    """The struct type_name whose `member` is at node_ptr (container_of)."""
    t = gdb.lookup_type("struct " + type_name)
    offset = next(f.bitpos // 8 for f in t.fields() if f.name == member)
    addr = int(node_ptr) - offset
    return gdb.Value(addr).cast(t.pointer()).dereference()


def heap_nodes(heap):
    """Every node of a lib/heap binomial heap (root list by sibling, each
    tree's children by child then sibling), in no particular order."""
    out, todo = [], []
    n = heap["head"]
    while int(n):
        todo.append(n)
        n = n["sibling"]
    while todo:
        n = todo.pop()
        out.append(n)
        c = n["child"]
        while int(c):
            todo.append(c)
            c = c["sibling"]
    if len(out) != int(heap["size"]):
        raise gdb.GdbError("heap at %#x: %d nodes reachable, size says %d"
                           % (int(heap.address), len(out), int(heap["size"])))
    return out


def mask_members(words, count):
    """The CPUs in a sched/edf/cpumask of count CPUs."""
    return [k for k in range(count)
            if (int(words[k // 64]) >> (k % 64)) & 1]
