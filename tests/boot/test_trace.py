"""trace=on (FORMATS.md section 4): every boundary of every CPU as a TRACE
line; the RESULT ticks statistics are recomputed from them here."""
import re

from harness import qemu

TRACE = re.compile(r"TRACE tick mode=(\w+) cpu=(\d+) slot=(\d+) "
                   r"late_ns=(-?\d+|missed)$")


def test_trace_lines_match_the_results(iso_with):
    cpus, slots = 2, 60
    boot = qemu(iso_with(f"trace=on slots={slots}"), smp=cpus)
    assert boot.passed, boot.tail()
    late = {}
    for line in boot.serial.splitlines():
        m = TRACE.match(line.strip())
        if m:
            mode, k, i, v = m.groups()
            late[mode, int(k), int(i)] = None if v == "missed" else int(v)
    for res in boot.results("ticks"):
        mode = res["mode"]
        keys = [(mode, k, i) for k in range(cpus) for i in range(slots)]
        assert set(keys) == {key for key in late if key[0] == mode}
        assert sum(late[key] is None for key in keys) == int(res["missed"])
        if mode == "aligned":
            # The spread of a boundary serviced by every CPU.
            errs = []
            for i in range(slots):
                vals = [late[mode, k, i] for k in range(cpus)]
                if None not in vals:
                    errs.append(max(vals) - min(vals))
        else:
            errs = [abs(late[k]) for k in keys if late[k] is not None]
        # Each value went through its own TSC-to-ns rounding: 2 ns slack.
        assert abs(min(errs) / 1000 - float(res["err_min_us"])) <= 0.002
        assert abs(max(errs) / 1000 - float(res["err_max_us"])) <= 0.002
