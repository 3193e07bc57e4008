"""record=off: a scheduler run without trace records (issue 11 item 5's
baseline). The scheduler decides the same; the kernel prints only what
needs no record and says what is missing."""
import json

from harness import qemu

ICOUNT = "shift=3,sleep=off"
SLOTS = 60
# Partitioned EDF: its decisions depend on the quanta only, so both runs
# must agree slot for slot. B measures its own release latency.
TASKS = """task A e=1 p=2
task B e=1 p=4 work=backtest
task C e=2 p=5
task D e=3 p=10
"""


def run(iso_with, tmp_path, word):
    path = tmp_path / "record.tasks"
    path.write_text(TASKS)
    iso = iso_with(f"sched=pedf slots={SLOTS} {word}", tasks=path)
    boot = qemu(iso, smp=2, icount=ICOUNT, timeout=600)
    assert boot.passed, boot.tail()
    return boot


def summary(boot):
    return next(json.loads(l) for l in boot.serial.splitlines()
                if l.startswith('{"summary"'))


def test_record_off_prints_what_needs_no_record(iso_with, tmp_path):
    # A bad value keeps the default, on: this is the recorded run.
    on = run(iso_with, tmp_path, "record=maybe")
    assert "cmdline: bad value 'record=maybe' (on or off); using default on" \
        in on.serial
    off = run(iso_with, tmp_path, "record=off")

    assert "trace: record=off: nothing was recorded" in off.serial
    assert not off.results("overhead")
    assert not [l for l in off.serial.splitlines() if l.startswith('{"t"')]
    assert len(on.results("overhead")) == 5
    assert summary(on) == summary(off)

    on_tasks = {r["name"]: r for r in on.results("task")}
    off_tasks = {r["name"]: r for r in off.results("task")}
    assert on_tasks.keys() == off_tasks.keys() == set("ABCD")
    for name, r in off_tasks.items():
        assert set(r) == {"name", "state", "quanta", "self_us", "lat_n",
                          "lat_avg_ns", "lat_max_ns", "resp_n",
                          "resp_avg_ns", "resp_max_ns", "work"}, r
        assert r["state"] == "ok" and r["quanta"] == on_tasks[name]["quanta"]
        assert int(r["self_us"]) > 0, r

    # The clock's error comes from the boundary records; the counts do not.
    for t in off.results("ticks"):
        assert set(t) == {"mode", "cpus", "quantum_us", "quanta", "missed",
                          "seen_min", "seen_max"}, t
    assert {k for t in on.results("ticks") for k in t} >= {
        "err_min_us", "err_p50_us", "err_p99_us", "err_max_us"}
    assert [(t["seen_min"], t["missed"]) for t in on.results("ticks")] == \
        [(t["seen_min"], t["missed"]) for t in off.results("ticks")]
    for h in off.results("hourglass"):
        assert set(h) == {"cpu", "gaps", "gap_max_ns", "got_us"}, h
        assert int(h["got_us"]) > 0, h
    assert {h["cpu"] for h in off.results("hourglass")} == {"0", "1"}

    # Release latency from the task's control page, in both runs: one per
    # return from sleep_next_period (the last job's may not return before
    # the run ends), each under B's period (a later first instruction
    # would be a job that started after its successor's release).
    for tasks in (on_tasks, off_tasks):
        b = tasks["B"]
        jobs = SLOTS // 4
        assert jobs - 1 <= int(b["lat_n"]) <= jobs, b
        assert 0 < int(b["lat_avg_ns"]) <= int(b["lat_max_ns"]) < 4_000_000, b
        assert tasks["A"]["lat_n"] == "0"
    assert int(on_tasks["B"]["jobs"]) - 1 <= int(on_tasks["B"]["lat_n"])
