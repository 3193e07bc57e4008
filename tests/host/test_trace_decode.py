"""The trace dump and its decoder (docs/trace-format.md, tools/rtk-trace):
lib/trace_dump's lines equal those of an encoder written apart
(trace_enc.py); dumps decode back to the very records; damaged, truncated,
interleaved and empty logs are named line by line and what is intact still
decodes; the files the decoder writes agree with the RESULT lines; the
Gantt chart's pixels show the schedule; and a console with the kernel's
schedule and RESULT lines passes the decoder's check."""
import csv
import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from conftest import ROOT, host_tool, run_schedsim
from trace_enc import (NO_TASK, calc_input, dump, random_run,
                       records_from_schedule)

sys.path.insert(0, str(ROOT / "tools"))
from rtktrace import (check_console, check_log, runs_from,  # noqa: E402
                      write_files)
from rtktrace.records import Record  # noqa: E402

SETTINGS = dict(deadline=None, max_examples=60,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])
RTK_TRACE = ROOT / "tools" / "rtk-trace"
SUMMARY = '{"summary": {"sched": "spd2", "note": "' + "x " * 500 + '"}}'


def draw_dump(draw, damage=False, max_records=40):
    """A random run and its dump lines."""
    run, tasks, per_cpu = random_run(draw, st, max_records=max_records,
                                     damage=damage)
    recs = [[r for _, r in cpu] for cpu in per_cpu]
    return run, tasks, recs, dump(run, tasks, recs, SUMMARY)


def decoded_records(run_):
    return [[tuple(r) for r in cpu] for cpu in run_.dump.per_cpu()]


def expected_records(recs):
    return [[Record(tsc, k, ev, fl, task, job, seq, arg)
             for seq, (tsc, ev, fl, task, job, arg) in enumerate(cpu)]
            for k, cpu in enumerate(recs)]


# ---- the kernel's lines, the encoder's lines, and back


@settings(**SETTINGS)
@given(st.data(), st.text(alphabet=' {}":,ab', max_size=2500))
def test_lib_trace_dump_writes_what_the_encoder_writes(data, summary):
    run, tasks, per_cpu = random_run(data.draw, st, max_records=40,
                                     damage=False)
    dropped = [data.draw(st.integers(0, 5)) for _ in per_cpu]
    proc = subprocess.run([str(host_tool("trace_calc")), "dump"],
                          input=calc_input(run, tasks, per_cpu, summary,
                                           dropped),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    recs = [[r for _, r in cpu] for cpu in per_cpu]
    want = dump(run, tasks, recs, summary, dropped)
    assert proc.stdout.splitlines() == want
    assert all(len(line) < 1023 for line in want)


@settings(**SETTINGS)
@given(st.data())
def test_round_trip(data):
    run, tasks, recs, lines = draw_dump(data.draw)
    runs, loose = runs_from("\n".join(lines) + "\n")
    assert loose == [] and len(runs) == 1
    r = runs[0]
    assert r.dump.problems == []
    assert decoded_records(r) == expected_records(recs)
    assert r.summary_line() == SUMMARY
    assert [r.name(i) for i in range(len(tasks))] == [t[0] for t in tasks]
    p = r.params
    assert (p.cpus, p.tsc_khz, p.t0, p.end, p.quantum_us, p.slots,
            p.staggered) == (run["cpus"], run["tsc_khz"], run["t0"],
                             run["end"], run["quantum_us"], run["slots"],
                             run["staggered"])


# ---- damage


def problems_of(text):
    runs, loose = runs_from(text)
    return runs, loose + [p for r in runs for p in r.dump.problems]


@settings(**SETTINGS)
@given(st.data())
def test_a_corrupted_byte_is_named_and_the_rest_decodes(data):
    run, tasks, recs, lines = draw_dump(data.draw)
    i = data.draw(st.integers(0, len(lines) - 1))
    pos = data.draw(st.integers(0, len(lines[i]) - 1))
    char = data.draw(st.sampled_from("A0z=+/ -x9\x00\u00e9"))
    assume(lines[i][pos] != char)
    bad = lines[:i] + [lines[i][:pos] + char + lines[i][pos + 1:]] + \
        lines[i + 1:]
    runs, problems = problems_of("\n".join(bad) + "\n")
    if i == 0:
        # TRACE-BEGIN: nothing can be placed in time. The line is named, or
        # (when its TRACE- mark is what broke) the lines it left homeless.
        assert runs == [] and problems and problems[0][0] <= 2
        return
    assert len(runs) == 1
    got, want = decoded_records(runs[0]), expected_records(recs)
    if not problems:
        # Only damage that changes nothing may pass unnamed (base64's
        # unused low bits of a padded last character).
        assert got == want and runs[0].summary_line() == SUMMARY
        return
    assert all(isinstance(n, int) and text for n, text in problems)
    # The damaged line is named, or the records it carried are.
    named = {n for n, _ in problems}
    assert i + 1 in named or any("missing" in t for _, t in problems)
    # Every record of every other line is intact.
    for k, cpu in enumerate(want):
        assert set(got[k]) <= set(cpu)
    lost = sum(len(c) for c in want) - sum(len(c) for c in got)
    assert lost <= 16


@settings(**SETTINGS)
@given(st.data())
def test_a_truncated_log_decodes_up_to_the_cut(data):
    run, tasks, recs, lines = draw_dump(data.draw)
    text = "\n".join(lines) + "\n"
    cut = data.draw(st.integers(len(lines[0]) + 1, len(text) - 2))
    runs, problems = problems_of(text[:cut])
    assert len(runs) == 1
    assert any("no TRACE-END" in t for _, t in problems)
    # Whole lines before the cut decode (the cut one may or may not).
    whole = text[:cut].count("\n")
    want = expected_records(recs)
    got = decoded_records(runs[0])
    n_before = {}
    for line in lines[:whole]:
        if line.startswith("TRACE-DATA"):
            k = int(line.split()[1][4:])
            n_before[k] = n_before.get(k, 0) + int(line.split()[3][2:])
    for k in range(run["cpus"]):
        assert got[k][:n_before.get(k, 0)] == want[k][:n_before.get(k, 0)]
        assert set(got[k]) <= set(want[k])


OTHER = st.text(alphabet="abcRESULT =0123456789{}\"", max_size=60)


@settings(**SETTINGS)
@given(st.data())
def test_interleaved_lines_decode_whole(data):
    """Other console output between the lines and before them on the same
    line, and the dump's own lines in another order, change nothing."""
    run, tasks, recs, lines = draw_dump(data.draw)
    middle = lines[1:-1]
    rnd = random.Random(data.draw(st.integers(0, 1 << 30)))
    rnd.shuffle(middle)
    mixed = []
    for line in [lines[0]] + middle + [lines[-1]]:
        for _ in range(data.draw(st.integers(0, 2))):
            mixed.append(data.draw(OTHER))
        mixed.append(data.draw(OTHER) + line)
    runs, problems = problems_of("\r\n".join(mixed) + "\r\n")
    assert problems == []
    assert decoded_records(runs[0]) == expected_records(recs)
    assert runs[0].summary_line() == SUMMARY


@settings(**SETTINGS)
@given(st.data())
def test_repeated_and_missing_lines_are_named(data):
    run, tasks, recs, lines = draw_dump(data.draw)
    data_at = [i for i, l in enumerate(lines) if l.startswith("TRACE-DATA")]
    assume(data_at)
    i = data.draw(st.sampled_from(data_at))
    if data.draw(st.booleans()):
        bad = lines[:i + 1] + [lines[i]] + lines[i + 1:]
        runs, problems = problems_of("\n".join(bad) + "\n")
        assert any(n == i + 2 and "repeated" in t and "identical" in t
                   for n, t in problems), problems
        assert any("TRACE-END counts" in t for _, t in problems)
        assert decoded_records(runs[0]) == expected_records(recs)
    else:
        bad = lines[:i] + lines[i + 1:]
        runs, problems = problems_of("\n".join(bad) + "\n")
        words = lines[i].split()
        k, seq, n = (int(words[j].split("=")[1]) for j in (1, 2, 3))
        gap = f"record {seq} missing" if n == 1 else \
            f"records {seq}-{seq + n - 1} missing"
        assert any(f"cpu {k}: {gap}" in t for _, t in problems), problems
        want = expected_records(recs)
        want[k] = want[k][:seq] + want[k][seq + n:]
        assert decoded_records(runs[0]) == want


def test_the_same_seq_with_other_records_is_named():
    run = {"cpus": 1, "tsc_khz": 1000, "t0": 0, "end": 10, "quantum_us": 1,
           "slots": 1, "staggered": False, "sched": "pd2"}
    a = dump(run, [], [[(1, 6, 0, NO_TASK, 0, 0)]], "{}")
    b = dump(run, [], [[(2, 6, 0, NO_TASK, 0, 0)]], "{}")
    text = "\n".join(a[:1] + [a[1], b[1]] + a[2:]) + "\n"
    runs, problems = problems_of(text)
    assert any(n == 3 and "seq 0 repeated (first at line 2, different)" in t
               for n, t in problems)
    assert runs[0].dump.per_cpu()[0][0].tsc == 1


def test_empty_and_dumpless_logs(tmp_path):
    for text in ("", "RESULT exit status=pass\n", "TRACE tick mode=x\n"):
        runs, problems = problems_of(text)
        assert runs == [] and problems == []
        log = tmp_path / "console.log"
        log.write_text(text)
        proc = subprocess.run([sys.executable, str(RTK_TRACE), "decode",
                               str(log), "--out", str(tmp_path / "out"),
                               "--no-pictures"], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 1
        assert "no usable trace dump" in proc.stderr


def test_missing_file_is_named(tmp_path):
    proc = subprocess.run([sys.executable, str(RTK_TRACE), "decode",
                           str(tmp_path / "nope.log"), "--out",
                           str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "nope.log" in proc.stderr


def test_dropped_records_and_damaged_begin_are_named():
    run = {"cpus": 2, "tsc_khz": 1000, "t0": 0, "end": 10, "quantum_us": 1,
           "slots": 1, "staggered": False, "sched": "pd2"}
    lines = dump(run, [], [[(1, 6, 0, NO_TASK, 0, 0)], []], "{}", [0, 7])
    runs, problems = problems_of("\n".join(lines))
    assert any("cpu 1: the kernel dropped 7 records" in t
               for _, t in problems)
    lines[0] = lines[0].replace("cpus=2", "cpus=3")
    runs, problems = problems_of("\n".join(lines))
    assert runs == [] and problems[0] == (
        1, "TRACE-BEGIN fails its CRC: its dump cannot be placed in time "
        "and is skipped")
    assert any("TRACE-DATA outside a dump" in t for _, t in problems)


# ---- what the decoder writes


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@settings(**dict(SETTINGS, max_examples=25))
@given(data=st.data())
def test_files_agree_with_the_result_lines(tmp_path_factory, data):
    run, tasks, recs, lines = draw_dump(data.draw, damage=True)
    out = tmp_path_factory.mktemp("dec")
    (out / "console.log").write_text("\n".join(lines) + "\n")
    runs, _ = runs_from((out / "console.log").read_text())
    r = runs[0]
    write_files(r, out, pictures=False)
    results = {}
    for line in r.result_lines():
        w = line.split()
        results[w[1], w[2].split("=")[1]] = dict(x.split("=") for x in w[2:])
    # jobs.csv: the misses of each task add up to RESULT task's.
    jobs = read_csv(out / "jobs.csv")
    for i, t in enumerate(tasks):
        assert sum(int(j["misses"]) for j in jobs if j["task"] == t[0]) == \
            int(results["task", t[0]]["misses"])
    # overheads.csv: its percentiles are RESULT overhead's.
    rows = read_csv(out / "overheads.csv")
    for kind in ("tick", "sched", "cxs", "release", "ipi"):
        ns_ = sorted(int(x["ns"]) for x in rows if x["event"] == kind)
        res = results["overhead", kind]
        assert len(ns_) == int(res["n"])
        if ns_:
            assert ns_[(len(ns_) - 1) * 50 // 100] == int(res["p50_ns"])
            assert ns_[(len(ns_) - 1) * 99 // 100] == int(res["p99_ns"])
            assert ns_[-1] == int(res["max_ns"])
    sched = [json.loads(l) for l in
             (out / "schedule.jsonl").read_text().splitlines()]
    assert sched[-1] == json.loads(SUMMARY)
    assert [s["t"] for s in sched[:-1]] == list(range(run["slots"]))


# ---- a run end to end: schedsim's schedule, the records a kernel running
# it would write, the RESULT lines lib/trace_stats prints, the dump


TASKS = """\
task A e=1 p=2
task B e=2 p=3
task C e=1 p=4
task D e=1 p=6
"""


def kernel_console(tmp_path, sched, cpus, slots):
    rows, summary = run_schedsim(TASKS, sched, cpus, slots, tmp_path)
    names = ["A", "B", "C", "D"]
    idx = [[None if n is None else names.index(n) for n in row]
           for row in rows]
    run = {"cpus": cpus, "tsc_khz": 2_000_000, "t0": 5_000_000,
           "quantum_us": 1000, "slots": slots,
           "staggered": sched == "spd2", "sched": sched}
    run["end"] = run["t0"] + (slots + 1) * 2_000_000
    per_cpu = records_from_schedule(run, idx)
    tasks = [(n, 1, 2, 2) for n in names]
    sumline = json.dumps({"summary": summary})
    calc = subprocess.run([str(host_tool("trace_calc")), "stats"],
                          input=calc_input(run, tasks, per_cpu, sumline),
                          capture_output=True, text=True, timeout=60)
    assert calc.returncode == 0, calc.stderr
    console = ["rtk: real-time SMP microkernel", "sched: ..."]
    console += [json.dumps({"t": t, "cpus": row}) for t, row in
                enumerate(rows)]
    console += [sumline] + [l for l in calc.stdout.splitlines()
                            if l.startswith("RESULT")]
    console += dump(run, tasks, [[r for _, r in c] for c in per_cpu],
                    sumline)
    console.append("RESULT exit status=pass")
    return rows, "\n".join(console) + "\n"


@pytest.mark.parametrize("sched,cpus", [("spd2", 3), ("gedf", 2)])
def test_a_kernel_console_passes_the_check(tmp_path, sched, cpus):
    rows, console = kernel_console(tmp_path, sched, cpus, 24)
    runs, loose = runs_from(console)
    assert loose == [] and runs[0].dump.problems == []
    assert [r["cpus"] for r in runs[0].schedule_rows()] == rows
    assert check_console(console, runs[0], runs) == []
    assert check_log(console) == []
    log = tmp_path / "console.log"
    log.write_text(console)
    proc = subprocess.run([sys.executable, str(RTK_TRACE), "decode",
                           str(log), "--out", str(tmp_path / "out"),
                           "--check", "--no-pictures"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # A number the kernel printed wrong, and a slot: both are named.
    wrong = console.replace("RESULT overhead event=tick n=",
                            "RESULT overhead event=tick n=9")
    wrong = wrong.replace(json.dumps({"t": 3, "cpus": rows[3]}),
                          json.dumps({"t": 3, "cpus": ["X"] * cpus}))
    wruns, _ = runs_from(wrong)
    diffs = check_console(wrong, wruns[0], wruns)
    assert any(d.startswith("RESULT overhead tick: n=9") for d in diffs)
    assert any(d.startswith("schedule differs from slot 3") for d in diffs)
    assert check_log(wrong) == diffs
    assert check_log(console + console) == [
        "2 trace dumps in the log, not 1"]


def test_a_damaged_schedule_line_on_the_console_is_named(tmp_path):
    """A schedule line the serial port cut short is named by its line and
    counted as a slot that differs; the check goes on (it raised
    JSONDecodeError; found by the fuzz target `trace`)."""
    rows, console = kernel_console(tmp_path, "gedf", 2, 8)
    line = json.dumps({"t": 3, "cpus": rows[3]})
    cut = console.replace(line, line[:len(line) // 2 + 6])
    runs, _ = runs_from(cut)
    number = cut.splitlines().index(line[:len(line) // 2 + 6]) + 1
    diffs = check_console(cut, runs[0], runs)
    assert diffs[0] == f"console line {number}: a damaged schedule line"
    assert diffs[1].startswith("schedule differs from slot 3: console None")
    assert check_log(cut) == diffs


# ---- the picture


def test_gantt_pixels_show_the_schedule(tmp_path):
    """Each CPU row holds its slot's task colour across the slot (white when
    idle), staggered by k/M: the picture is checked, not only produced. Only matplotlib's own mapping from data to pixels is taken
    from the chart; the layout is the test's: CPU 0's row on top, one unit
    per row, CPU k's slot t over [t + k/M, t + 1 + k/M) quanta."""
    from matplotlib.image import imread
    from rtktrace import plots
    rows = [[0, 1, None], [2, 1, 0], [2, None, 0], [1, 0, 2], [None, 2, 1],
            [0, 1, 2]]
    run = {"cpus": 3, "tsc_khz": 1_000_000, "t0": 0, "quantum_us": 100,
           "slots": len(rows), "staggered": True, "sched": "spd2"}
    run["end"] = (len(rows) + 1) * 100_000
    lines = dump(run, [("A", 1, 2, 2), ("B", 1, 2, 2), ("C", 1, 2, 2)],
                 [[r for _, r in c] for c in
                  records_from_schedule(run, rows)], "{}")
    r = runs_from("\n".join(lines))[0][0]
    assert [row for row in r.derived.schedule] == rows
    geo = plots.chart(r.view(), tmp_path / "g.png", tmp_path / "g.svg")
    img = imread(tmp_path / "g.png")
    assert img.shape[:2] == (geo.height, geo.width)
    assert (tmp_path / "g.svg").read_text().startswith("<?xml")
    assert geo.rows == {"CPU 0": 2, "CPU 1": 1, "CPU 2": 0, "jobs": 2.85}
    for t, row in enumerate(rows):
        for k, task in enumerate(row):
            want = plots.IDLE_COLOUR if task is None else \
                plots.task_colour(task)
            # Near both ends of the slot and in its middle (the switches
            # come 300 of its 100,000 cycles in).
            for at in (0.1, 0.5, 0.9):
                x, y = geo.to_px(t + at + k / 3, 2 - k)
                got = tuple(float(c) for c in img[y, x, :3])
                assert all(abs(a - b) < 0.02 for a, b in zip(got, want)), \
                    (t, k, at, got, want)
