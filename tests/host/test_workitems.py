"""The engine under the experiments and benchmarks (tools/bench/
workitems.py): a real Dask scheduler and two workers, started as their own
processes on the loopback interface, run a tiny experiment with the same
result as the local cluster; a worker killed in the middle of a run loses
no item; an item is retried once, then reported with its inputs; the
cache answers only for the same inputs, and a changed file (the kernel, a
program, a host tool) invalidates exactly the items that read it."""
import csv
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "bench"))
sys.path.insert(0, str(ROOT / "tools" / "experiments"))
import workitems  # noqa: E402
import items_fixture as fx  # noqa: E402

FIXTURE = "tests/host/items_fixture.py"
DASK = pathlib.Path(sys.executable).parent / "dask"


def wait_for(cond, what, limit=60):
    deadline = time.monotonic() + limit
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen in {limit} s")
        time.sleep(0.05)


class LoopbackCluster:
    """`dask scheduler` and two `dask worker` processes on 127.0.0.1, each
    worker one thread and one 'cores' (as make dask-worker starts them)."""

    def __init__(self, tmp):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "tools" / "bench"))
        info = tmp / "scheduler.json"
        self.log = open(tmp / "cluster.log", "w")
        self.scheduler = subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(info)],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        wait_for(info.exists, "the scheduler's file")
        wait_for(lambda: "address" in info.read_text(), "its address")
        import json
        self.address = json.loads(info.read_text())["address"]
        self.workers = [subprocess.Popen(
            [str(DASK), "worker", self.address, "--host", "127.0.0.1",
             "--nthreads", "1", "--resources", "cores=1", "--no-nanny",
             "--no-dashboard", "--name", f"w{k}"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
            for k in range(2)]
        from distributed import Client
        with Client(self.address, timeout=60) as c:
            c.wait_for_workers(2, timeout=60)

    def close(self):
        for p in self.workers + [self.scheduler]:
            if p.poll() is None:
                p.terminate()
        # A worker still in a task when told to stop waits for the task
        # (seen under load after the experiment's run: 30 s, then the
        # kill); nothing of it is needed any more.
        for p in self.workers + [self.scheduler]:
            try:
                p.wait(timeout=3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.log.close()


@pytest.fixture
def cluster(tmp_path):
    c = LoopbackCluster(tmp_path)
    yield c
    c.close()


def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def run_exp(out, *engine):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools/experiments/run.py"), "--exp",
         "bus_contention", "--mode", "tiny", "--out", str(out), "--no-cache",
         *engine], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def test_tiny_experiment_on_loopback_cluster_equals_local(cluster, tmp_path):
    """bus_contention's tiny run (12 simulations) through the scheduler
    and its two workers gives the CSVs the local cluster gives, and its
    section says where its items ran."""
    far = run_exp(tmp_path / "far", "--scheduler", cluster.address)
    near = run_exp(tmp_path / "near", "--workers", "1")
    assert f"the Dask scheduler at {cluster.address}" in far
    assert "a local Dask cluster of 1 core" in near
    for name in ("bus_contention.csv", "bus_sim_delay.csv"):
        a = rows(tmp_path / "far" / "bus_contention" / name)
        b = rows(tmp_path / "near" / "bus_contention" / name)
        assert len(a) > 1 and a == b, name
    sec = (tmp_path / "far" / "bus_contention" / "section.md").read_text()
    assert ("Work items: 12 (0 from the cache, 12 computed on the Dask "
            f"scheduler at {cluster.address}, 0 failed)") in sec


def test_retried_once_then_reported_on_cluster(cluster, tmp_path):
    """Through the cluster: an item that fails once gives its result on
    the retry; one that always fails runs exactly twice and comes back as
    None, recorded with its label, inputs and error."""
    marks = str(tmp_path / "marks")
    with workitems.Session(scheduler=cluster.address, cache=None) as s:
        got = s.run([
            workitems.call_item(FIXTURE, "fail_times",
                                dict(n=1, where=marks, what="once"),
                                label="fails once"),
            workitems.call_item(FIXTURE, "fail_times",
                                dict(n=5, where=marks, what="always"),
                                label="fails always")], name="t")
    assert got == [2, None]
    assert fx.runs(marks, "once")[0] == 2
    assert fx.runs(marks, "always")[0] == 2
    [fail] = s.failures["t"]
    assert fail["label"] == "fails always"
    assert "what=always" in fail["inputs"] and "n=5" in fail["inputs"]
    assert "failing on purpose, run 2" in fail["why"]
    assert s.stats["t"] == dict(items=2, cached=0, computed=1, failed=1)


def test_worker_killed_mid_run_loses_no_item(cluster, tmp_path):
    """Six items, each waiting for a go-ahead once started; with one
    running on each worker, one worker is killed (SIGKILL) and the
    go-ahead given: every item's result comes back, the killed worker's
    item computed again by the other worker."""
    marks, go = tmp_path / "marks", tmp_path / "go"
    items = [workitems.call_item(FIXTURE, "wait_then_square",
                                 dict(x=x, where=str(marks), go=str(go)),
                                 label=f"wait {x}") for x in range(6)]
    out = {}
    with workitems.Session(scheduler=cluster.address, cache=None) as s:
        t = threading.Thread(target=lambda: out.update(got=s.run(items)))
        t.start()

        def pids():
            return {int(f.name.split(".")[-2]) for f in marks.glob("start*")}
        wait_for(lambda: marks.exists() and len(pids()) == 2,
                 "an item started on each worker")
        victim = cluster.workers[0]
        assert victim.pid in pids()
        started_there = [x for x in range(6)
                         if victim.pid in fx.runs(marks, f"start{x}")[1]]
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=30)
        go.touch()
        t.join(timeout=240)
        assert not t.is_alive(), "the run did not finish"
    got = out["got"]
    assert [g["square"] for g in got] == [x * x for x in range(6)]
    survivor = cluster.workers[1].pid
    assert {g["pid"] for g in got} == {survivor}
    assert started_there, "no item had started on the killed worker"
    for x in started_there:
        n, where = fx.runs(marks, f"start{x}")
        assert n == 2 and where == {victim.pid, survivor}, (x, n, where)
    assert not s.failures


# ---------------------------------------------------------------- the cache
def test_cache_hits_misses_and_deletion(tmp_path):
    """The first run computes every item; the second computes none and
    gives the same results; other arguments are a miss; a deleted or
    damaged cache is only a miss."""
    marks, cache = str(tmp_path / "marks"), tmp_path / "cache"

    def items(xs):
        return [workitems.call_item(FIXTURE, "square",
                                    dict(x=x, where=marks)) for x in xs]
    with workitems.Session(workers=0, cache=cache) as s:
        first = s.run(items([1, 2, 3]), name="a")
        again = s.run(items([1, 2, 3]), name="b")
        more = s.run(items([3, 4]), name="c")
    assert first == again == [{"x": x, "square": x * x} for x in (1, 2, 3)]
    assert more == [{"x": 3, "square": 9}, {"x": 4, "square": 16}]
    assert [s.stats[n]["cached"] for n in "abc"] == [0, 3, 1]
    assert [s.stats[n]["computed"] for n in "abc"] == [3, 0, 1]
    assert [fx.runs(marks, f"square{x}")[0] for x in (1, 2, 3, 4)] == \
        [1, 1, 1, 1]
    # A damaged entry and a deleted directory: computed again.
    entry = next(cache.rglob("*.json.gz"))
    entry.write_bytes(b"not gzip")
    with workitems.Session(workers=0, cache=cache) as s:
        assert s.run(items([1, 2, 3, 4]), name="d") == first + more[1:]
    assert s.stats["d"]["computed"] == 1
    shutil.rmtree(cache)
    with workitems.Session(workers=0, cache=cache) as s:
        s.run(items([1]), name="e")
    assert s.stats["e"] == dict(items=1, cached=0, computed=1, failed=0)


def test_changed_file_recomputes_exactly_its_items(tmp_path):
    """Items reading file A or file B: after A changes a rerun computes
    the items of A only."""
    marks, cache = str(tmp_path / "marks"), tmp_path / "cache"
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"a1")
    b.write_bytes(b"b1")
    items = [workitems.call_item(FIXTURE, "square", dict(x=x, where=marks),
                                 files=[str(f)])
             for x, f in ((1, a), (2, a), (3, b))]
    with workitems.Session(workers=0, cache=cache) as s:
        s.run(items, name="first")
        a.write_bytes(b"a2")
        s.run(items, name="second")
    assert s.stats["second"]["computed"] == 2
    assert [fx.runs(marks, f"square{x}")[0] for x in (1, 2, 3)] == [2, 2, 1]


def fake_tree(root):
    """A repository's files as boot and program items read them: two
    ring-3 programs, the kernel, GRUB's configuration, the ISO script and
    a host tool."""
    for rel, data in (("user/a.c", ""), ("user/b.c", ""),
                      ("build/user/a.elf", "A1"), ("build/user/b.elf", "B1"),
                      ("build/kernel/kernel.elf", "K1"),
                      ("boot/grub.cfg", "G"), ("scripts/mkiso.sh", "S"),
                      ("build/host/schedsim", "T1")):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(data)


def test_boot_keys_follow_what_the_boot_reads(tmp_path, monkeypatch):
    """A boot's key changes with the kernel, with each program its ISO
    holds (not one it leaves out), with its arguments and with QEMU's
    version; a simulation's key with its tool only."""
    fake_tree(tmp_path)
    monkeypatch.setattr(workitems, "ROOT", tmp_path)
    monkeypatch.setattr(workitems, "_versions", {})

    def keys():
        return {
            "all": workitems.key(workitems.boot_item(
                tasks="task T e=1 p=2\n", cmdline="sched=pd2", smp=2,
                icount="shift=3,sleep=off")),
            "no_b": workitems.key(workitems.boot_item(
                tasks="task T e=1 p=2\n", cmdline="sched=pd2", smp=2,
                icount="shift=3,sleep=off", omit_program="b")),
            "sim": workitems.key(workitems.program_item(
                "schedsim", ["--sched", "pd2", "{dir}/set.tasks"],
                inputs={"set.tasks": "task T e=1 p=2\n"})),
        }

    def changed(before):
        after = keys()
        return {k for k in before if before[k] != after[k]}
    k0 = keys()
    assert len(set(k0.values())) == 3
    (tmp_path / "build/user/b.elf").write_text("B2")
    assert changed(k0) == {"all"}
    k1 = keys()
    (tmp_path / "build/kernel/kernel.elf").write_text("K2")
    assert changed(k1) == {"all", "no_b"}
    k2 = keys()
    (tmp_path / "build/host/schedsim").write_text("T2")
    assert changed(k2) == {"sim"}
    k3 = keys()
    monkeypatch.setitem(workitems._versions, "qemu-system-x86_64", "QEMU 0")
    assert changed(k3) == {"all", "no_b"}
    base = dict(tasks="task T e=1 p=2\n", smp=2, icount="shift=3,sleep=off")
    variants = [dict(base, cmdline="sched=spd2"), dict(base, smp=4),
                dict(base, icount=None), dict(base, tasks="task T e=1 p=3\n"),
                dict(base, rep=1), dict(base, memory="1G")]
    same = workitems.key(workitems.boot_item(cmdline="sched=pd2", **base))
    assert same == workitems.key(workitems.boot_item(cmdline="sched=pd2",
                                                     **base))
    assert len({workitems.key(workitems.boot_item(**v)) for v in variants}
               | {same}) == len(variants) + 1


def test_missing_points_reach_the_section(tmp_path):
    """An experiment whose item fails twice still writes its section,
    which names the item, its inputs and the end of its output; the run
    reports it as incomplete."""
    import types
    import run as run_mod
    from common import Section
    marks = str(tmp_path / "marks")

    def run(mode, outdir):
        got = workitems.run_items([
            workitems.call_item(FIXTURE, "square", dict(x=3, where=marks)),
            workitems.call_item(FIXTURE, "fail_times",
                                dict(n=9, where=marks, what="bad"),
                                label="the bad point")])
        return Section(title="t", paper="p", figure="f", measured="m",
                       platform="here", table=(["x"], [[got[0]["square"]]]),
                       published="p", differences="d 1")
    with workitems.Session(workers=0, cache=None) as s:
        why = run_mod.run_one("fake", types.SimpleNamespace(run=run), "tiny",
                              tmp_path, s, [])
    sec = (tmp_path / "fake" / "section.md").read_text()
    assert why and "1 work items failed" in why
    assert "**Missing points.** 1 work item failed twice" in sec
    assert ("`the bad point` (inputs: tests/host/items_fixture.py: "
            "fail_times; n=9; what=bad; where=") in sec
    assert "failing on purpose, run 2" in sec
    assert "| 9 |" in sec
    assert "Work items: 2 (0 from the cache, 1 computed" in sec
