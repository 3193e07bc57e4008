"""lib/crc32, lib/base64 and lib/trace_stats (the code the kernel computes
its RESULT lines with), through tools/trace_calc: the CRC and base64 against
Python's zlib and base64, the derived numbers against the decoder
(tools/rtktrace) on the same random record sets, and both against numbers
worked out by hand from docs/trace-format.md."""
import base64
import subprocess
import sys
import zlib

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, host_tool
from trace_enc import NO_TASK, calc_input, quantum_cycles, random_run

sys.path.insert(0, str(ROOT / "tools"))
from rtktrace.derive import (OVERHEAD_KINDS, Params, derive,  # noqa: E402
                             result_lines, task_keys)
from rtktrace.records import Record  # noqa: E402

SETTINGS = dict(deadline=None, max_examples=150,
                suppress_health_check=[HealthCheck.too_slow])


def calc(mode, data):
    proc = subprocess.run([str(host_tool("trace_calc")), mode], input=data,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def test_crc32_check_value():
    assert calc("crc32", b"123456789").strip() == "cbf43926"


@settings(**SETTINGS)
@given(st.binary(max_size=2000))
def test_crc32_and_base64_match_python(data):
    assert calc("crc32", data).strip() == "%08x" % zlib.crc32(data)
    assert calc("base64", data).strip() == base64.b64encode(data).decode()


def parse_calc(text, run, ntasks):
    """tools/trace_calc stats output as the decoder's shapes."""
    schedule, tasks, samples, gaps, results = [], [], {}, {}, []
    for line in text.splitlines():
        w = line.split()
        if w[0] == "slot":
            schedule.append([None if x == "-1" else int(x) for x in w[2:]])
        elif w[0] == "task":
            tasks.append(tuple(int(x) for x in w[2:]))
        elif w[0] == "samples":
            samples[w[1]] = [int(x) for x in w[2:]]
        elif w[0] == "gaps":
            gaps[int(w[1])] = [int(x) for x in w[2:]]
        elif w[0] == "RESULT":
            results.append(line)
    return schedule, tasks, samples, gaps, results


def python_side(run, ntasks, per_cpu, budget):
    p = Params(run["cpus"], run["tsc_khz"], run["t0"], run["end"],
               run["quantum_us"], run["slots"], run["staggered"], ntasks)
    recs = [[Record(tsc, k, ev, fl, task, job, seq, arg)
             for seq, (tsc, ev, fl, task, job, arg) in cpu]
            for k, cpu in enumerate(per_cpu)]
    return p, derive(p, recs, budget)


def check_same(run, ntasks, per_cpu, e=None):
    """e: each task's budget in quanta (1 each by default)."""
    e = e or [1] * ntasks
    tasks = [(f"T{i}", e[i], 2, 2) for i in range(ntasks)]
    out = calc("stats", calc_input(run, tasks, per_cpu).encode())
    schedule, tasks, samples, gaps, results = parse_calc(out, run, ntasks)
    p, d = python_side(run, ntasks, per_cpu, dict(enumerate(e)))
    assert schedule == d.schedule
    assert tasks == [(t.jobs, t.short, t.misses, t.faults, t.max_tardiness,
                      t.ran, t.self_cycles) for t in d.tasks]
    for kind in OVERHEAD_KINDS:
        assert samples[kind] == sorted(s.cycles for s in d.samples
                                       if s.kind == kind), kind
    for k in range(run["cpus"]):
        assert gaps[k] == sorted(s.cycles for s in d.gaps[k])
    want = result_lines(p, d) + [f"RESULT task name=T{i} {task_keys(p, t)}"
                                 for i, t in enumerate(d.tasks)]
    assert results == want
    return d


@settings(**SETTINGS)
@given(st.data())
def test_c_and_python_derive_the_same_numbers(data):
    run, tasks, per_cpu = random_run(data.draw, st)
    check_same(run, len(tasks), per_cpu)


# ---- worked by hand from docs/trace-format.md

KHZ = 1_000_000            # 1 GHz: one cycle is one ns
Q_US = 10                  # 10,000 cycles per quantum


def hand_run(cpus=2, slots=4, staggered=False, end=None):
    return {"cpus": cpus, "tsc_khz": KHZ, "quantum_us": Q_US, "slots": slots,
            "staggered": staggered, "sched": "pd2", "t0": 1000,
            "end": end if end is not None else 1000 + slots * 10_000}


def numbered(recs):
    return [(i, r) for i, r in enumerate(recs)]


def test_longest_runner_and_ties_by_hand():
    # CPU 0 (aligned; slot t is [1000 + 10000 t, 11000 + 10000 t)):
    #   slot 0: T0 from 1000, T1 from 6000 -> 5000 each: the later, T1.
    #   slot 1: T1 until 14000 (3000), idle 14000-19000 (5000), T0 from
    #           19000 (2000): idle ran longest -> null.
    #   slot 2: T0 whole; slot 3: T0 until the run's end at 41000.
    # CPU 1: nothing before 26000, then T2: slots 0, 1 idle; slot 2 T2
    #   5000 against idle's 5000 -> T2 (later); slot 3 T2.
    run = hand_run()
    cpu0 = [(1000, 6, 0, 0, 0, 0), (6000, 6, 0, 1, 0, 0),
            (14000, 6, 0, NO_TASK, 0, 0), (19000, 6, 0, 0, 1, 0)]
    cpu1 = [(26000, 6, 0, 2, 0, 0)]
    d = check_same(run, 3, [numbered(cpu0), numbered(cpu1)])
    assert d.schedule == [[1, None], [None, None], [0, 2], [0, 2]]
    # ran: T0 5000 + (41000 - 19000); T1 8000; T2 41000 - 26000.
    assert [t.ran for t in d.tasks] == [27000, 8000, 15000]


def test_staggered_slots_by_hand():
    # Two CPUs staggered: CPU 1's slot t is [6000 + 10000 t, 16000 + ...).
    # T0 runs on CPU 1 from 12000: 4000 of slot 0 against idle's 6000, and
    # slot 1 until the run's end at 21000.
    run = hand_run(staggered=True, slots=2)
    d = check_same(run, 1, [[], numbered([(12000, 6, 0, 0, 0, 0)])])
    assert d.schedule == [[None, None], [None, 0]]


def test_short_jobs_by_hand():
    """A quantum is 10,000 cycles; T0 has e = 1, T1 e = 2. T0's job 0
    (budget, at 11000) ran 1000-7000: 6000 < 3/4 of 10000, short. Its
    job 1 (budget, at 21000) ran 11000-18500 on CPU 0 and nothing else:
    exactly 7500, not short. Its job 2 ended itself (flag 2) at 22000
    after 1000 cycles: never short. T1's job 0 (budget of 20000, at 31000)
    ran 7000-11000 on CPU 0 and 12000-23000 on CPU 1: exactly 15000."""
    cpu0 = [(1000, 6, 0, 0, 0, 0), (7000, 6, 0, 1, 0, 0),
            (11000, 6, 0, 0, 1, 0), (18500, 6, 0, NO_TASK, 0, 0),
            (21000, 6, 0, 0, 2, 0), (22000, 6, 0, NO_TASK, 0, 0),
            (11000, 8, 1, 0, 0, 11000), (21000, 8, 1, 0, 1, 21000),
            (22000, 8, 2, 0, 2, 22000)]
    cpu1 = [(12000, 6, 0, 1, 0, 0), (23000, 6, 0, NO_TASK, 0, 0),
            (31000, 8, 1, 1, 0, 31000)]
    cpu0.sort()
    d = check_same(hand_run(slots=4), 2, [numbered(cpu0), numbered(cpu1)],
                   e=[1, 2])
    assert [(t.jobs, t.short) for t in d.tasks] == [(2, 1), (1, 0)]


def test_overheads_and_tasks_by_hand():
    # Ticks of 100, 300, 200 cycles and one whose end is lost to a seq gap;
    # a release 50 cycles late and one accounted 20 cycles early (0); an
    # IPI received 700 cycles after its sender's stamp.
    cpu0 = [(0, (2000, 1, 0, 0, 0, 0)), (1, (2100, 2, 0, 0, 0, 0)),
            (2, (3000, 1, 1, 0, 0, 1)), (3, (3300, 2, 0, 0, 0, 1)),
            (4, (4000, 1, 0, 0, 0, 2)), (5, (4200, 2, 0, 0, 0, 2)),
            (6, (5000, 1, 0, 0, 0, 3)), (8, (5050, 2, 0, 0, 0, 3)),
            (9, (6050, 7, 0, 0, 1, 6000)), (10, (7000, 7, 0, 0, 2, 7020)),
            (11, (8000, 8, 1, 0, 0, 8000)), (12, (8100, 8, 2, 0, 1, 8100)),
            (13, (8200, 8, 3, 0, 2, 8200)), (14, (8300, 9, 0, 0, 3, 2500)),
            (15, (8400, 9, 0, 0, 4, 1500)), (16, (9000, 23, 0, 0, 0, 700)),
            (17, (9100, 23, 0, 0, 0, 900)), (18, (9200, 20, 14, 0, 0, 0))]
    cpu1 = [(0, (2500, 11, 1, NO_TASK, 0, 1800)),
            (1, (3000, 18, 1, NO_TASK, 0, 2000)),
            (2, (3500, 18, 0, NO_TASK, 0, 3000)),
            (3, (9999, 19, 0, NO_TASK, 0, 4321))]
    run = hand_run(slots=1)
    d = check_same(run, 1, [cpu0, cpu1])
    t = d.tasks[0]
    # Job 0 ended by its budget (flag 1) but T0 never ran: short, not a
    # job; job 1 ended itself (flag 2); job 2 was dropped (a miss).
    assert (t.jobs, t.short, t.misses, t.max_tardiness, t.self_cycles,
            t.faults) == (1, 1, 3, 2500, 900, 1)
    tick = d.overheads["tick"]
    # Sorted 100, 200, 300: p50 = sorted[1], p99 = sorted[(3-1)*99//100=1].
    assert (tick.n, tick.p50_ns, tick.p99_ns, tick.max_ns) == \
        (3, 200, 200, 300)
    rel = d.overheads["release"]
    assert (rel.n, rel.p50_ns, rel.max_ns) == (2, 0, 50)
    ipi = d.overheads["ipi"]
    assert (ipi.n, ipi.max_ns, ipi.max_cpu) == (1, 700, 1)
    gaps, got = d.hourglass[1]
    assert (gaps.n, gaps.max_ns, got) == (1, 1000, 4321)
