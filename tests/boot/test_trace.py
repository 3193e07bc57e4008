"""trace=on (docs/formats.md, "The kernel command line"): every boundary of every CPU as a TRACE
line. The RESULT ticks statistics are recomputed from them here, and the
ideal times the kernel measured against are checked against the model:
aligned, CPU k's boundary i at T0 + i*Q; staggered, at T0 + i*Q + k*Q/M."""
import re

import pytest

from harness import qemu

TRACE = re.compile(r"TRACE tick mode=(\w+) cpu=(\d+) slot=(\d+) "
                   r"(?:at_ns=(-?\d+) late_ns=(-?\d+)|late_ns=missed)$")


def traces(serial):
    """{(mode, cpu, slot): (at_ns, late_ns) or None when missed}."""
    out = {}
    for line in serial.splitlines():
        m = TRACE.match(line.strip())
        if m:
            mode, k, i, at, late = m.groups()
            out[mode, int(k), int(i)] = (None if at is None
                                         else (int(at), int(late)))
    return out


@pytest.mark.parametrize("ticks,cpus,quantum_us", [
    ("both", 2, 1000),
    ("staggered", 3, 500),
])
def test_trace_lines_match_the_model_and_the_results(iso_with, ticks, cpus,
                                                     quantum_us):
    slots = 60
    boot = qemu(iso_with(f"trace=on slots={slots} ticks={ticks} "
                         f"quantum_us={quantum_us}"), smp=cpus)
    assert boot.passed, boot.tail()
    tr = traces(boot.serial)
    modes = ["aligned", "staggered"] if ticks == "both" else [ticks]
    results = boot.results("ticks")
    assert [r["mode"] for r in results] == modes
    q_ns = quantum_us * 1000
    for res in results:
        mode = res["mode"]
        assert int(res["quantum_us"]) == quantum_us
        assert int(res["quanta"]) == slots
        keys = [(mode, k, i) for k in range(cpus) for i in range(slots)]
        assert set(keys) == {key for key in tr if key[0] == mode}
        assert sum(tr[key] is None for key in keys) == int(res["missed"])
        for (_, k, i) in keys:
            if tr[mode, k, i] is None:
                continue
            at, late = tr[mode, k, i]
            want = i * q_ns + (k * q_ns // cpus if mode == "staggered" else 0)
            # Two independent TSC-to-ns roundings plus the integer Q/M of
            # the kernel in TSC cycles: a few ns.
            assert abs(at - late - want) <= 3, (mode, k, i, at, late)
        if mode == "aligned":
            # The spread of a boundary serviced by every CPU.
            errs = []
            for i in range(slots):
                vals = [tr[mode, k, i] for k in range(cpus)]
                if None not in vals:
                    errs.append(max(v[1] for v in vals) -
                                min(v[1] for v in vals))
        else:
            errs = [abs(tr[k][1]) for k in keys if tr[k] is not None]
        assert abs(min(errs) / 1000 - float(res["err_min_us"])) <= 0.002
        assert abs(max(errs) / 1000 - float(res["err_max_us"])) <= 0.002
