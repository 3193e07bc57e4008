"""schedsim --bus (sched/bus_model, docs/bus-model.md): per-task bus
contention delays against bus_ref.py's exact event simulation of the same
schedule, the model's invariants, and the option's errors."""
import json
import subprocess

import pytest

from bus_ref import per_task
from conftest import host_tool

LINE = 32


def sets(m):
    """Small sets for M CPUs: 2M tasks of weight 1/2 (every CPU switches
    every quantum), and a mixed one of total weight M."""
    half = [(f"H{k}", 1, 2) for k in range(2 * m)]
    if m == 1:
        mixed = [("A", 1, 2), ("B", 1, 3), ("C", 1, 6)]
    else:  # weight 2, plus 2/3 + 2/3 + 2/3 = 2 more for M = 4
        mixed = [("A", 1, 2), ("B", 2, 3), ("C", 1, 3), ("D", 1, 2)]
        mixed += [(f"X{k}", 2, 3) for k in range(3 * (m - 2) // 2)]
    return [half, mixed]


def text(tasks):
    return "".join(f"task {n} e={e} p={p}\n" for n, e, p in tasks)


def schedsim(tmp_path, tasks, sched, m, slots, ticks, bus, check=True):
    f = tmp_path / "set.tasks"
    f.write_text(text(tasks))
    cmd = [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(m),
           "--slots", str(slots), "--ticks", ticks, *(["--bus", bus]
                                                       if bus is not None else []),
           str(f)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if not check:
        return proc
    assert proc.returncode == 0, proc.stderr
    rows, bus_rows, bus_sum, summary = [], {}, None, None
    for line in proc.stdout.splitlines():
        obj = json.loads(line)
        if "t" in obj:
            rows.append(obj["cpus"])
        elif "bus" in obj:
            bus_rows[obj["bus"]["task"]] = obj["bus"]
        elif "bus_summary" in obj:
            bus_sum = obj["bus_summary"]
        else:
            summary = obj["summary"]
    assert proc.stdout.splitlines()[-1].startswith('{"summary"')
    return rows, bus_rows, bus_sum, summary, proc.stdout


def close(c, ref, n):
    """The C keeps time in 1/(1024 M) cycles and rounds progress down at
    boundaries: under 1/500 cycle per burst, plus printing."""
    return abs(c - float(ref)) <= 0.002 * (n + 1)


@pytest.mark.parametrize("m", [1, 2, 4])
@pytest.mark.parametrize("sched,ticks", [("pd2", "aligned"),
                                         ("spd2", "staggered"),
                                         ("gedf", "aligned"),
                                         ("pd2", "staggered")])
@pytest.mark.parametrize("wss,q", [(320, 1000), (8000, 1000),
                                   (16000, 999), (64000, 1000),
                                   (16384, 20000)])
def test_equals_reference(tmp_path, m, sched, ticks, wss, q):
    lines = -(-wss // LINE)
    for tasks in sets(m):
        rows, got, _, _, _ = schedsim(tmp_path, tasks, sched, m, 24, ticks,
                                      f"{wss},{LINE},{q}")
        ref = per_task(rows, m, {n: e for n, e, _ in tasks}, lines, q,
                       ticks == "staggered")
        # The cases do exercise the model: contention, cut-offs.
        if m > 1 and ticks == "aligned" and tasks[0][0] == "H0" \
                and lines < q:
            assert sum(r["delay_total"] for r in ref.values()) > 0
        if lines > q:
            assert all(r["cut"] == r["bursts"] > 0 for r in ref.values())
        for name, _, _ in tasks:
            c = got[name]
            r = ref.get(name)
            if r is None:
                assert c["quanta"] == 0 and c["jobs"] == 0
                continue
            for key in ("quanta", "bursts", "cut", "jobs"):
                assert c[key] == r[key], (name, key, c, r)
            for key in ("delay_total", "delay_max", "wait", "served"):
                ck = key + ("_cycles" if key != "served" else "_lines")
                assert close(c[ck], r[key], r["bursts"]), (name, key, c, r)


@pytest.mark.parametrize("ticks", ["aligned", "staggered"])
def test_one_cpu_no_delay(tmp_path, ticks):
    _, got, s, _, _ = schedsim(tmp_path, sets(1)[1], "pd2", 1, 30, ticks,
                               "4096,32,1000")
    assert s["bursts"] > 0
    assert s["delay_max_cycles"] == 0 and s["delay_mean_cycles"] == 0
    assert all(x["wait_cycles"] == 0 for x in got.values())


@pytest.mark.parametrize("m", [2, 3, 4])
def test_staggered_short_bursts_no_delay(tmp_path, m):
    """A burst shorter than Q/M ends before the next CPU's boundary."""
    q = 1200
    lines = q // m - 1
    _, _, s, _, _ = schedsim(tmp_path, [(f"H{k}", 1, 2)
                                        for k in range(2 * m)],
                             "spd2", m, 20, "staggered",
                             f"{lines * LINE},{LINE},{q}")
    assert s["bursts"] == 20 * m and s["cut"] == 0
    assert s["delay_max_cycles"] == 0
    # One line more than Q/M: the next CPU's burst meets it.
    _, _, s2, _, _ = schedsim(tmp_path, [(f"H{k}", 1, 2)
                                         for k in range(2 * m)],
                              "spd2", m, 20, "staggered",
                              f"{(q // m + 1) * LINE},{LINE},{q}")
    assert s2["delay_max_cycles"] > 0


@pytest.mark.parametrize("m", [2, 3, 4])
@pytest.mark.parametrize("lines", [1, 100, 250])
def test_aligned_together(tmp_path, m, lines):
    """All M CPUs reload together at every boundary (2M tasks of weight
    1/2 under pd2) and M bursts fit a quantum: each burst takes M * lines,
    so each job (one quantum) is delayed by exactly (M - 1) * lines."""
    q = 1000
    assert m * lines <= q
    _, got, s, _, _ = schedsim(tmp_path, [(f"H{k}", 1, 2)
                                          for k in range(2 * m)],
                               "pd2", m, 20, "aligned",
                               f"{lines * LINE},{LINE},{q}")
    assert s["bursts"] == 20 * m and s["jobs"] == 20 * m and s["cut"] == 0
    for x in got.values():
        assert x["delay_max_cycles"] == (m - 1) * lines
        assert x["delay_total_cycles"] == (m - 1) * lines * x["jobs"]
    assert s["delay_mean_cycles"] == (m - 1) * lines


def test_saturated_cut_off(tmp_path):
    """Bursts of more than Q/M lines each under aligned M = 2: all cut
    off at Q having loaded Q/2 lines; delay per job Q - lines."""
    q, lines = 1000, 700
    _, got, s, _, _ = schedsim(tmp_path, [(f"H{k}", 1, 2) for k in range(4)],
                               "pd2", 2, 10, "aligned",
                               f"{lines * LINE},{LINE},{q}")
    assert s["cut"] == s["bursts"] == 20
    for x in got.values():
        assert x["delay_max_cycles"] == q - lines
        assert x["served_lines"] == x["bursts"] * q / 2


def test_output_unchanged_without_bus(tmp_path):
    """docs/formats.md: extend, never break -- the slot and summary lines are
    the same with --bus, which only adds its own lines before the
    summary."""
    tasks = sets(2)[1]
    plain = schedsim(tmp_path, tasks, "spd2", 2, 16, "staggered", None,
                     check=False)
    assert plain.returncode == 0
    assert "bus" not in plain.stdout
    *_, out = schedsim(tmp_path, tasks, "spd2", 2, 16, "staggered",
                       "4096")
    kept = [x for x in out.splitlines() if '"bus' not in x]
    assert kept == plain.stdout.splitlines()


@pytest.mark.parametrize("arg,words", [
    ("", "WSS_BYTES"), ("0", "too small"), ("abc", "WSS_BYTES abc"),
    ("4096,0", "LINE_BYTES 0"), ("4096,32,x", "Q_BUS_CYCLES x"),
    ("4096,32,1000,5", "more than three"), ("4096,,1000", "LINE_BYTES"),
    ("4096,8192", "LINE_BYTES 8192")])
def test_bad_values(tmp_path, arg, words):
    proc = schedsim(tmp_path, sets(1)[0], "pd2", 1, 4, "aligned", arg,
                    check=False)
    assert proc.returncode == 2
    assert "--bus" in proc.stderr and words in proc.stderr, proc.stderr


def test_clock_overflow_and_event_driven(tmp_path):
    proc = schedsim(tmp_path, sets(1)[0], "pd2", 4, 4000000000, "aligned",
                    "4096,32,100000000", check=False)
    assert proc.returncode == 2 and "model's clock" in proc.stderr
    f = tmp_path / "p.tasks"
    f.write_text("task A e=1 p=2 prio=1 cpu=0\n")
    proc = subprocess.run([str(host_tool("schedsim")), "--sched", "pfp",
                           "--cpus", "1", "--slots", "4", "--bus", "4096",
                           str(f)], capture_output=True, text=True)
    assert proc.returncode == 2 and "event-driven" in proc.stderr
