"""The lock variants of pedf, gedf and cedf (sched/lock) through
tools/schedsim, against the independent reference of lock_ref.py: on
generated sets with resources the schedule slot by slot, every lock event
in order, and every task's accounting and blocking totals; by hand, the
rules each protocol is known by; and the refusals, by their messages."""
import json
import subprocess
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import host_tool
from cedf_ref import cluster_ffd
from edf_ref import ffd_partition
from lock_ref import LockRef, LTask, set_text

SETTINGS = dict(deadline=None, max_examples=80, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def schedsim(text, sched, cpus, slots, tmp_path, *extra, check=True):
    """(rows, lock events, summary) of `schedsim --locks`."""
    f = tmp_path / "set.tasks"
    f.write_text(text)
    proc = subprocess.run(
        [str(host_tool("schedsim")), "--sched", sched, "--cpus", str(cpus),
         "--slots", str(slots), "--locks", *map(str, extra), str(f)],
        capture_output=True, text=True, timeout=120)
    if not check:
        return proc
    assert proc.returncode == 0, proc.stderr
    rows, events, summary = [], [], None
    for line in proc.stdout.splitlines():
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        elif "lock" in obj:
            events.append(obj)
        else:
            assert obj["t"] == len(rows)
            rows.append(obj["cpus"])
    return rows, events, summary


@st.composite
def lock_sets(draw, protocol, mode, max_cpus=4):
    """(cpus, cluster, tasks, resources): tasks that fit (pedf: first fit
    by density; global: U <= M; cedf: onto clusters), each with up to two
    sections. srp's resources are each used on one CPU only; omlp under
    clusters each inside one cluster; nesting only under srp."""
    cpus = draw(st.integers(1, max_cpus))
    cluster = cpus
    if mode == "clustered":
        cluster = draw(st.sampled_from([k for k in range(1, cpus + 1)
                                        if cpus % k == 0]))
    tasks, total = [], Fraction(0)
    for i in range(draw(st.integers(2, 3 * cpus + 2))):
        p = draw(st.integers(3, 12))
        e = draw(st.integers(2, p))
        d = draw(st.integers(e, p))
        phase = draw(st.integers(0, 3))
        if total + Fraction(e, p) > cpus:
            continue
        total += Fraction(e, p)
        tasks.append(LTask(f"T{i}", e, p, d, phase))
    if not tasks:
        tasks.append(LTask("T0", 2, 4, 4))
    if mode == "partitioned":
        home = ffd_partition(tasks, cpus)
    else:
        home = cluster_ffd(tasks, cpus // cluster, cluster)
    if not isinstance(home, list):
        tasks = tasks[:1]
        home = [0]
    nres = draw(st.integers(1, 2))
    local = protocol == "srp" or (protocol == "omlp" and cluster < cpus)
    resources = []
    for t, h in zip(tasks, home):
        names = [f"R{h}_{k}" if local else f"R{k}" for k in range(nres)]
        at = 1
        for _ in range(draw(st.integers(1, 2))):
            if at >= t.e:
                break
            n = draw(st.integers(1, t.e - at))
            r = draw(st.sampled_from(names))
            if any(c[0] == r for c in t.cs):
                break
            t.cs.append((r, at, n))
            if protocol == "srp" and n > 1 and draw(st.booleans()):
                inner = draw(st.sampled_from(names))
                if inner != r:
                    t.cs.append((inner, at + 1, draw(
                        st.integers(1, n - 1))))
            at += n + draw(st.integers(0, 2))
        for c in t.cs:
            if c[0] not in resources:
                resources.append(c[0])
    if not resources:
        resources.append("R0_0" if local else "R0")
    return cpus, cluster, tasks, sorted(resources)


def check(protocol, mode, sched, data, tmp_path, slots=60):
    cpus, cluster, tasks, resources = data
    text = set_text(tasks, resources, protocol)
    extra = ("--param", f"cluster={cluster}") if sched == "cedf" else ()
    rows, events, summary = schedsim(text, sched, cpus, slots, tmp_path,
                                     *extra)
    ref = LockRef(tasks, resources, protocol, cpus,
                  "partitioned" if mode == "partitioned" else "global",
                  cluster)
    want = ref.simulate(slots)
    for t, (got, exp) in enumerate(zip(rows, want)):
        assert got == exp, f"slot {t}: {got} != {exp}\n{text}"
    assert events == ref.events, text
    for i, t in enumerate(tasks):
        got = summary["tasks"][t.name]
        assert got == ref.stats[i], f"{t.name}\n{text}"
    # At events (the kernel's way) the same lines come out.
    at = schedsim(text, sched, cpus, slots, tmp_path, *extra, "--at-events")
    assert at == (rows, events, summary), text
    return ref


@pytest.mark.parametrize("protocol, mode, sched", [
    ("msrp", "partitioned", "pedf"), ("srp", "partitioned", "pedf"),
    ("omlp", "global", "gedf"), ("omlp", "clustered", "cedf")])
@settings(**SETTINGS)
@given(data=st.data())
def test_matches_reference(tmp_path, protocol, mode, sched, data):
    check(protocol, mode, sched, data.draw(lock_sets(protocol, mode)),
          tmp_path)


def refused(tmp_path, text, sched, cpus=2, *extra):
    proc = schedsim(text, sched, cpus, 10, tmp_path, *extra, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr


@pytest.mark.parametrize("cs, message", [
    ("cs=R3:1", "cs= names 'R3', which is not a resource declared above"),
    ("cs=R1:0", "cs item 'R1:0': the length must be at least 1"),
    ("cs=R1:2@4", "the section on R1 from 4 for 2 quanta ends after the "
                  "job's e=5"),
    ("cs=R1:3@1,R2:3@2", "the sections on R1 [1, 4) and R2 [2, 5) overlap "
                         "without one inside the other"),
    ("cs=R1:3@1,R1:1@2", "R1 is locked inside its own section"),
    ("cs=R1", "cs item 'R1': a section is RESOURCE:LEN or RESOURCE:LEN@AT"),
    ("cs=R1:1@x", "cs item 'R1:1@x': the start 'x' is not a number"),
])
def test_bad_sections_are_refused_by_line(tmp_path, cs, message):
    text = ("resource R1 protocol=msrp\nresource R2 protocol=msrp\n"
            f"task A e=5 p=10 {cs}\n")
    err = refused(tmp_path, text, "pedf")
    assert f"set.tasks:3: task 'A': {message}" in err, err


def test_bad_resource_lines_are_refused(tmp_path):
    err = refused(tmp_path, "resource R1 protocol=msrp\nresource R2 "
                  "protocol=srp\ntask A e=1 p=2\n", "pedf")
    assert "set.tasks:2: resource 'R2': protocol=srp, but 'R1' (line 1) " \
        "has protocol=msrp; a set uses one protocol" in err
    err = refused(tmp_path, "resource R protocol=msrp\nresource R "
                  "protocol=msrp\ntask A e=1 p=2\n", "pedf")
    assert "set.tasks:2: resource 'R' is declared twice (first on line 1)" \
        in err
    err = refused(tmp_path, "resource R protocol=fmlp\ntask A e=1 p=2\n",
                  "pedf")
    assert "protocol=fmlp: not one of srp, msrp, pcp, mpcp, omlp" in err
    err = refused(tmp_path, "resource R protocol=srp\ntask A weight=2 "
                  "cs=R:1\n", "gdq")
    assert "cs= needs e= and p=" in err


def test_a_plugin_without_the_protocol_names_those_with_it(tmp_path):
    text = "resource R protocol=omlp\ntask A e=2 p=4 cs=R:1\n"
    err = refused(tmp_path, text, "pd2")
    assert "resource R (line 1): pd2 runs no locking protocol, so no " \
        "protocol=omlp; these do: gedf (omlp), pedf (srp, msrp), cedf " \
        "(omlp)" in err, err
    err = refused(tmp_path, text, "pedf")
    assert "pedf runs no protocol=omlp; these do:" in err, err


def test_srp_needs_each_resource_on_one_cpu(tmp_path):
    # Two tasks of 3/4: first fit puts them on CPUs 0 and 1.
    text = ("resource R protocol=srp\ntask A e=3 p=4 cs=R:1\n"
            "task B e=3 p=4 cs=R:1\n")
    err = refused(tmp_path, text, "pedf")
    assert "resource R (line 1): used by A on CPU 0 and B on CPU 1; srp " \
        "needs every user of a resource on one CPU" in err, err


def test_nesting_is_refused_where_the_protocol_forbids_it(tmp_path):
    text = ("resource R protocol=msrp\nresource S protocol=msrp\n"
            "task A e=5 p=10 cs=R:3@1,S:1@2\n")
    err = refused(tmp_path, text, "pedf")
    assert "task A (line 3): its section on S lies inside the one on R; " \
        "msrp forbids nesting" in err, err
    rows, _, _ = schedsim(text.replace("msrp", "srp"), "pedf", 2, 10,
                          tmp_path)
    assert rows[0] == ["A", None]


def test_a_section_cannot_start_a_job(tmp_path):
    text = "resource R protocol=msrp\ntask A e=5 p=10 cs=R:2@0\n"
    err = refused(tmp_path, text, "pedf")
    assert "its section on R starts at 0; under pedf a section starts " \
        "after at least 1 quantum of its job's work" in err, err


def test_omlp_under_cedf_keeps_a_resource_in_one_cluster(tmp_path):
    text = ("resource R protocol=omlp\ntask A e=3 p=4 cs=R:1\n"
            "task B e=3 p=4 cs=R:1\n")
    err = refused(tmp_path, text, "cedf", 2, "--param", "cluster=1")
    assert "resource R (line 1): used in two clusters" in err, err


def test_only_leave_events_with_resources(tmp_path):
    text = "resource R protocol=msrp\ntask A e=2 p=4 cs=R:1\nat 3 block A\n"
    err = refused(tmp_path, text, "pedf")
    assert "line 3: a set with resources takes only 'leave' events" in err


@pytest.mark.parametrize("protocol", ["msrp", "omlp"])
def test_a_job_that_leaves_while_waiting_leaves_the_queue(tmp_path,
                                                          protocol):
    """H holds R from 1 to 5. W asks for it at 1 and waits (msrp: spinning
    on CPU 1; omlp: suspended, second in the FIFO queue), then leaves at
    3; V, released at 3, asks at 4 and waits one quantum: at 5 R is V's,
    not the departed W's -- a departed waiter handed R would hold it for
    ever, and V and H's later jobs would wait for it for ever. Worked by
    hand (lock_ref has no leave events); pedf puts H (density 3/4) on CPU
    0, W (1/2) and V (3/10) on CPU 1, gedf on 2 CPUs runs them the same
    way until 5."""
    text = (f"resource R protocol={protocol}\n"
            "task H e=6 p=8 cs=R:4@1\ntask W e=3 p=6 cs=R:1@1\n"
            "task V e=3 p=10 phase=3 cs=R:1@1\nat 3 leave W\n")
    sched = "pedf" if protocol == "msrp" else "gedf"
    rows, events, summary = schedsim(text, sched, 2, 24, tmp_path)
    got = rows[:7]
    assert [sorted(x for x in r if x) for r in got] == [
        ["H", "W"], ["H"] + (["W"] if protocol == "msrp" else []),
        ["H"] + (["W"] if protocol == "msrp" else []), ["H", "V"],
        ["H"] + (["V"] if protocol == "msrp" else []), ["H", "V"],
        ["V"]], rows
    v = summary["tasks"]["V"]
    assert (v["jobs"], v["misses"]) == (2, 0), v
    assert summary["tasks"]["H"]["misses"] == 0
    assert summary["tasks"]["W"]["jobs"] == 0
