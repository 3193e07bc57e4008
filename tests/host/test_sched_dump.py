"""The plugins' dump() (the kernel's dumpstate=, GDB's `rtk` commands print
the same lines) through schedsim --dump-at: what it shows must agree with
the schedule schedsim printed for that slot and with each algorithm's
invariants, for random task sets and random slots."""
import re

from hypothesis import assume, given, settings, strategies as st

from conftest import run_schedsim
from test_pfair import dynamic_sets, tasks_text

SLOTS = 40


def dump_at(text, sched, cpus, slot, tmp_path, *extra):
    f = tmp_path / "set.tasks"
    f.write_text(text)
    proc = run_schedsim(text, sched, cpus, slot + 1, tmp_path,
                        "--dump-at", slot, *extra, check=False)
    # A set first-fit cannot place is refused, naming the task: not this
    # test's subject.
    assume("fits on none" not in proc.stderr and
           "fits in none" not in proc.stderr)
    assert proc.returncode == 0, proc.stderr
    rows = [l for l in proc.stdout.splitlines() if l.startswith('{"t"')]
    state = [l[len("STATE "):] for l in proc.stdout.splitlines()
             if l.startswith("STATE ")]
    assert state, "no dump"
    names = re.findall(r'"(\w+)"|null', rows[slot].split('"cpus": ')[1])
    return [n or None for n in names], state


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


# -------------------------------------------------------------- Pfair

def pd2_key(t):
    """PD2 priority as a sort key, highest first (pfair_task.h)."""
    b = int(t["b"])
    return (int(t["deadline"]), 0 if b else 1,
            -int(t["gd"]) if b else 0, t["index"])


def check_pfair(sched, cpus, names, state):
    head = state[0].split()
    assert head[:2] == ["pfair", sched]
    horizon = int(fields(state[0])["horizon"])
    tasks, sets, cpu = {}, {}, {}
    for line in state[1:]:
        w = line.split()
        if w[1] == "task":
            tasks[w[2]] = dict(fields(line), index=len(tasks))
        elif w[1] == "cpu":
            cpu[int(w[2])] = None if w[3] == "-" else w[3]
        elif w[1] == "Incoming":
            sets.setdefault(("Incoming", int(w[2])), []).append(w[3])
        else:
            sets.setdefault(w[1], []).append(w[2])
    # What each CPU runs is the slot's schedule.
    assert [cpu[k] for k in range(cpus)] == names
    # Every active task waits in exactly one place, nobody else anywhere.
    placed = [n for members in sets.values() for n in members]
    active = sorted(n for n, t in tasks.items() if t["state"] == "active")
    assert sorted(placed) == active
    for label, members in sets.items():
        assert members == sorted(members, key=lambda n: pd2_key(tasks[n])), \
            "listed highest priority first"
        for n in members:
            elig = int(tasks[n]["elig"])
            if label == "Eligible":
                assert elig <= horizon
            elif label[0] == "Incoming":
                assert elig == label[1] > horizon
    if sched == "spd2":
        # After CPU M-1's call every task picked for the slot has a
        # processor (Fig. 5): the Now heaps are empty, and invariants
        # I1/I2 hold with SchedCount = M (Sec. 3.2).
        assert "SchedNow" not in sets and "ReschedNow" not in sets
        nxt = sets.get("SchedNext", []) + sets.get("ReschedNext", [])
        elig = sets.get("Eligible", [])
        assert len(nxt) <= cpus
        if len(nxt) < cpus:
            assert not elig
        elif elig:
            lowest = max(pd2_key(tasks[n]) for n in nxt)
            assert lowest < pd2_key(tasks[elig[0]])


@settings(max_examples=60, deadline=None)
@given(dynamic_sets(), st.integers(0, SLOTS - 1),
       st.sampled_from(["pd2", "spd2"]))
def test_pfair_dump_agrees_with_the_schedule(tmp_path_factory, case, slot,
                                             sched):
    m, tasks, events = case
    names, state = dump_at(tasks_text(tasks, events), sched, m, slot,
                           tmp_path_factory.mktemp("d"))
    check_pfair(sched, m, names, state)


# ---------------------------------------------------------------- GDQ

@st.composite
def weight_sets(draw):
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 10))
    tasks = [f"task W{i} weight={draw(st.integers(1, 5000))}"
             + (f" phase={draw(st.sampled_from([0, 0, 2, 5]))}")
             for i in range(n)]
    return m, "\n".join(tasks) + "\n"


@settings(max_examples=60, deadline=None)
@given(weight_sets(), st.integers(0, SLOTS - 1))
def test_gdq_dump_is_consistent(tmp_path_factory, case, slot):
    m, text = case
    names, state = dump_at(text, "gdq", m, slot,
                           tmp_path_factory.mktemp("d"))
    head = fields(state[0])
    assert state[0].startswith("gdq ") and int(head["P"]) == m
    queues, procs, cpus, groups = {}, {}, {}, {}
    for line in state[1:]:
        w = line.split()
        f = fields(line)
        if w[1] == "group":
            groups[w[2]] = f
        elif w[1] == "queue":
            queues[w[2]] = f
        elif w[1] == "proc":
            procs.setdefault(w[2], []).append((w[3], int(f["phi"])))
        elif w[1] == "cpu":
            cpus[int(w[2])] = f
    listed = [n for ps in procs.values() for n, _ in ps]
    assert len(listed) == len(set(listed)), "a process is in one queue"
    running = {n for n in names if n}
    assert running <= set(listed), "what runs is queued"
    total = 0
    for q, f in queues.items():
        ps = procs.get(q, [])
        assert int(f["n"]) == len(ps)
        assert int(f["weight"]) == sum(phi for _, phi in ps)
        total += int(f["weight"])
        if f["cpu"] != "-":
            assert cpus[int(f["cpu"])]["queue"] == q
    assert total == int(head["phi_total"])
    for g, f in groups.items():
        assert int(f["queues"]) == int(f["ceil"])
        assert int(f["alloc"]) == sum(1 for c in cpus.values()
                                      if c["group"] == g)
    for j, c in cpus.items():
        if c["queue"] != "-":
            assert queues[c["queue"]]["cpu"] == str(j)
            assert c["queue"].split(".")[0] == c["group"]


# ---------------------------------------------------------------- EDF

@st.composite
def edf_sets(draw):
    """Densities e/d below 0.7 each and 0.7 M together, so that first-fit
    usually places them for pedf too."""
    m = draw(st.integers(1, 4))
    tasks, u = [], 0.0
    for i in range(draw(st.integers(1, 3 * m))):
        p = draw(st.integers(2, 15))
        d = draw(st.integers(2, p))
        e = draw(st.integers(1, max(1, int(0.7 * d))))
        if u + e / d > m * 0.7:
            continue
        u += e / d
        tasks.append(f"task E{i} e={e} p={p} d={d}")
    return m, "\n".join(tasks or ["task E0 e=1 p=2"]) + "\n"


@settings(max_examples=80, deadline=None)
@given(edf_sets(), st.integers(0, SLOTS - 1), st.sampled_from([0, 1, 2]),
       st.sampled_from(["gedf", "pedf", "cedf"]), st.data())
def test_edf_dump_agrees_with_the_schedule(tmp_path_factory, case, slot,
                                           mode, sched, data):
    m, text = case
    order = [l.split()[1] for l in text.splitlines()]
    # cedf: clusters of k (k = M is gedf's structure, k = 1 pedf's).
    k = {"gedf": m, "pedf": 1}.get(sched) or data.draw(
        st.sampled_from([d for d in range(1, m + 1) if m % d == 0]))
    extra = ("--param", f"cluster={k}") if sched == "cedf" else ()
    names, state = dump_at(text, sched, m, slot,
                           tmp_path_factory.mktemp("d"), "--param",
                           f"edf_cpudl={mode}", *extra)
    head = fields(state[0])
    glob = sched == "gedf" or (sched == "cedf" and (k > 1 or m == 1))
    assert head["global"] == ("1" if glob else "0")
    assert head.get("push") == (["heap", "fmask", "original"][mode]
                                if glob else None)
    assert head.get("cluster") == (str(k) if glob and k < m else None)
    rq, cpudl, free, fmask = {}, [], set(), set()
    for line in state[1:]:
        w = line.split()
        if w[1] == "rq":
            rq.setdefault(int(w[2]), []).append(
                (int(fields(line)["dl"]), order.index(w[3]), w[3]))
        elif w[1] == "cpudl":
            cpudl.append((int(fields(line)["dl"]), order.index(w[4]),
                          int(fields(line)["cpu"]), w[4], int(w[2])))
        elif w[1] == "free":
            free.add(int(w[2]))
        elif w[1] == "fmask":
            fmask.add(int(w[2]))
    # The head of each CPU's queue is what it runs; heaps are min-heaps by
    # (deadline, task index).
    for c in range(m):
        heap = rq.get(c, [])
        assert (heap[0][2] if heap else None) == names[c]
        for i in range(1, len(heap)):
            assert heap[(i - 1) // 2][:2] <= heap[i][:2]
    busy = {c for c in range(m) if rq.get(c)}
    if glob and mode == 0:
        # The max-heap of the busy CPUs' current deadlines (Sec. 5), one
        # per cluster, listed cluster by cluster from index 0.
        assert {(c, n) for _, _, c, n, _ in cpudl} == \
            {(c, rq[c][0][2]) for c in busy}
        assert [e[2] // k for e in cpudl] == sorted(e[2] // k for e in cpudl)
        for base in range(0, m, k):
            heap = [e for e in cpudl if e[2] // k == base // k]
            assert [e[4] for e in heap] == list(range(len(heap)))
            for i in range(1, len(heap)):
                assert heap[(i - 1) // 2][:2] >= heap[i][:2]
        assert free == set(range(m)) - busy
    else:
        assert not cpudl and not free
    assert fmask == (set(range(m)) - busy if glob and mode == 1 else set())


@settings(max_examples=40, deadline=None)
@given(edf_sets(), st.integers(0, SLOTS - 1))
def test_ngedf_dump_agrees_with_the_schedule(tmp_path_factory, case, slot):
    m, text = case
    order = [l.split()[1] for l in text.splitlines()]
    names, state = dump_at(text, "ngedf", m, slot,
                           tmp_path_factory.mktemp("d"))
    assert state[0] == "edf ngedf now=%d" % slot
    cpu = {int(l.split()[2]): l.split()[3] for l in state
           if l.startswith("edf cpu ")}
    assert [None if cpu[k] == "-" else cpu[k] for k in range(m)] == names
    ready = [(int(fields(l)["dl"]), order.index(l.split()[2]))
             for l in state if l.startswith("edf ready ")]
    # A min-heap by (deadline, task index), and no job both queued and
    # running.
    for i in range(1, len(ready)):
        assert ready[(i - 1) // 2] <= ready[i]
    assert not {order[i] for _, i in ready} & set(names)


# ---------------------------------------------------------------- gfp

@settings(max_examples=40, deadline=None)
@given(edf_sets(), st.integers(0, SLOTS - 1))
def test_gfp_dump_agrees_with_the_schedule(tmp_path_factory, case, slot):
    m, text = case
    spec = {l.split()[1]: (fields(l), i)
            for i, l in enumerate(text.splitlines())}

    def prio(name):
        """Rate-monotonic: the shorter period, then the earlier line."""
        return int(spec[name][0]["p"]), spec[name][1]

    names, state = dump_at(text, "gfp", m, slot,
                           tmp_path_factory.mktemp("d"))
    assert state[0] == "gfp now=%d" % slot
    cpu = {int(l.split()[2]): l.split()[3] for l in state
           if l.startswith("gfp cpu ")}
    assert [None if cpu[k] == "-" else cpu[k] for k in range(m)] == names
    wait = [l.split()[2] for l in state if l.startswith("gfp wait ")]
    assert len(state) == 1 + m + len(wait)
    # Waiting jobs, highest priority first, each below every running one;
    # nobody waits while a CPU idles.
    assert wait == sorted(wait, key=prio)
    running = [n for n in names if n]
    if wait:
        assert len(running) == m
        assert max(map(prio, running)) < prio(wait[0])
    for line in state[1:]:
        f = fields(line)
        if "rem" in f:
            assert 1 <= int(f["rem"]) <= int(spec[line.split()[-3]][0]["e"])
