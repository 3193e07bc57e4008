"""The cedf plugin (clustered EDF, sched/edf) through tools/schedsim,
against the independent reference of cedf_ref.py: in every slot each
cluster runs exactly its K earliest-deadline ready jobs, the per-task
accounting and the dropped jobs are the reference's, the placement and
its refusals are first-fit decreasing by utilisation; and the two ends,
cluster=M as gedf and cluster=1 as pedf."""
import json
from fractions import Fraction

from hypothesis import assume, event, given, settings, strategies as st

from cedf_ref import (ClusteredReference, cluster_ffd, default_cluster,
                      divisors)
from conftest import run_schedsim
from edf_ref import ffd_partition, tardiness_bound, tasks_text
from test_edf import (LARGE_EVENTS, SETTINGS, event_lists, large_set,
                      run_bad, task_sets)


@st.composite
def clustered_sets(draw, implicit=False, max_cpus=8):
    """M, a cluster size K dividing M, and a set with U <= M."""
    cpus, tasks = draw(task_sets(implicit=implicit, max_cpus=max_cpus))
    return cpus, draw(st.sampled_from(divisors(cpus))), tasks


def cedf(text, cpus, k, slots, tmp_path, *extra, check=True):
    return run_schedsim(text, "cedf", cpus, slots, tmp_path, "--param",
                        f"cluster={k}", *extra, check=check)


def check_against_reference(tasks, cpus, k, slots, tmp_path, events=(),
                            extra=()):
    """The run against the reference; False when the reference's
    placement fails (then the plugin must refuse, naming that task)."""
    where = cluster_ffd(tasks, cpus // k, k)
    text = tasks_text(tasks, events)
    if not isinstance(where, list):
        t = tasks[where[1]]
        proc = cedf(text, cpus, k, slots, tmp_path, *extra, check=False)
        assert proc.returncode != 0 and proc.stdout == ""
        u = Fraction(t.e, t.p)
        cpus_word = "CPU" if k == 1 else "CPUs"
        assert (f"task {t.name} (line {where[1] + 1}, u = {t.e}/{t.p}) fits "
                f"in none of the {cpus // k} clusters of {k} {cpus_word}") \
            in proc.stderr, (proc.stderr, u)
        return False
    ref = ClusteredReference(tasks, cpus, k, where, events)
    want = ref.run(slots)
    rows, summary = cedf(text, cpus, k, slots, tmp_path, *extra)
    index = {t.name: i for i, t in enumerate(tasks)}
    for t, (row, exp) in enumerate(zip(rows, want)):
        got = [[index[n] for n in row[c:c + k] if n is not None]
               for c in range(0, cpus, k)]
        exp = ref.by_cluster(exp)
        assert [sorted(g) for g in got] == exp, (
            f"slot {t}: runs {row}, the K earliest-deadline jobs of each "
            f"cluster are {[[tasks[i].name for i in c] for c in exp]}")
    assert summary["tasks"] == ref.stats()
    assert summary["dropped_jobs"] == ref.dropped
    assert summary["cluster"] == k
    return True


def test_hand_worked_example(tmp_path):
    """M = 4 in two clusters of 2. Utilisations A 2/3, B 2/3, C 1/2,
    D 1/2, E 1/4 in that (decreasing) order: A, B and C fill cluster 0 to
    11/6; D (7/3) and E (25/12) do not fit there and go to cluster 1.
    Slot 0: cluster 0's two earliest are C (dl 2) and A (dl 3, before B by
    index); B waits while cluster 1 runs D and E. Slot 1: A and B; cluster
    1 idles -- B could not have gone there. Slot 2: B's last quantum and
    C's second job (dl 4); D's second job."""
    text = ("task A e=2 p=3\ntask B e=2 p=3\ntask C e=1 p=2\n"
            "task D e=1 p=2\ntask E e=1 p=4\n")
    rows, summary = run_schedsim(text, "cedf", 4, 3, tmp_path, "--param",
                                 "cluster=2")
    c0 = [sorted(n for n in r[:2] if n) for r in rows]
    c1 = [sorted(n for n in r[2:] if n) for r in rows]
    assert c0 == [["A", "C"], ["A", "B"], ["B", "C"]]
    assert c1 == [["D", "E"], [], ["D"]]
    # Global EDF would have run B in slot 0 on the fourth CPU.
    g, _ = run_schedsim(text, "gedf", 4, 1, tmp_path)
    assert sorted(g[0]) == ["A", "B", "C", "D"]


@settings(max_examples=80, **SETTINGS)
@given(clustered_sets(), st.sampled_from([0, 1, 2]))
def test_each_cluster_runs_its_k_earliest_jobs(tmp_path, case, mode):
    cpus, k, tasks = case
    placed = check_against_reference(tasks, cpus, k, 60, tmp_path,
                                     extra=("--param", f"edf_cpudl={mode}"))
    event(f"K {'< M' if k < cpus else '= M'}, "
          f"{'placed' if placed else 'refused'}")


@settings(max_examples=60, **SETTINGS)
@given(st.data())
def test_events_match_reference(tmp_path, data):
    cpus, k, tasks = data.draw(clustered_sets())
    events = data.draw(event_lists(tasks, 60))
    placed = check_against_reference(tasks, cpus, k, 60, tmp_path, events)
    event("placed" if placed else "refused")


def test_many_cpus_in_clusters_match_reference(tmp_path):
    """M = 96 in clusters of 48: each cluster's masks span two 64-bit
    words; 2 tasks per CPU, U at most 90, some events."""
    tasks = large_set(96, 192, 90)
    for mode in range(3):
        assert check_against_reference(tasks, 96, 48, 120, tmp_path,
                                       LARGE_EVENTS,
                                       ("--param", f"edf_cpudl={mode}"))


@settings(max_examples=40, **SETTINGS)
@given(st.data())
def test_cluster_of_m_is_gedf(tmp_path, data):
    """cluster=M: the same schedule, accounting and dump as gedf, slot by
    slot, with any push structure and events."""
    cpus, tasks = data.draw(task_sets())
    events = data.draw(event_lists(tasks, 50))
    mode = data.draw(st.sampled_from([0, 1, 2]))
    slot = data.draw(st.integers(0, 49))
    text = tasks_text(tasks, events)
    extra = ("--param", f"edf_cpudl={mode}", "--dump-at", slot)
    g = run_schedsim(text, "gedf", cpus, 50, tmp_path, *extra, check=False)
    c = cedf(text, cpus, cpus, 50, tmp_path, *extra, check=False)
    assert g.returncode == c.returncode == 0, g.stderr + c.stderr
    same_apart_from_the_summary("gedf", g.stdout, c.stdout, cpus)


def same_apart_from_the_summary(other, a, b, k):
    """Every line of `other`'s output a and cedf's b equal, but the
    summary's name and cedf's cluster=K."""
    la, lb = a.splitlines(), b.splitlines()
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        if x.startswith('{"summary"'):
            sx, sy = json.loads(x)["summary"], json.loads(y)["summary"]
            assert (sx.pop("sched"), sy.pop("sched"), sy.pop("cluster")) == \
                (other, "cedf", k)
            assert sx == sy
        else:
            assert x == y


@settings(max_examples=40, **SETTINGS)
@given(st.data())
def test_cluster_of_one_is_pedf(tmp_path, data):
    """cluster=1 with implicit deadlines: utilisation is density, so the
    placement is pedf's, and so are the schedule, the accounting and the
    dump (no push structure). With d < p the two differ on purpose: cedf
    places by utilisation. (On one CPU cluster=1 is cluster=M, gedf.)"""
    cpus, tasks = data.draw(task_sets(implicit=True))
    assume(cpus > 1)
    if not isinstance(ffd_partition(tasks, cpus), list):
        return
    events = data.draw(event_lists(tasks, 50))
    slot = data.draw(st.integers(0, 49))
    text = tasks_text(tasks, events)
    p = run_schedsim(text, "pedf", cpus, 50, tmp_path, "--dump-at", slot,
                     check=False)
    c = cedf(text, cpus, 1, 50, tmp_path, "--dump-at", slot, check=False)
    assert p.returncode == c.returncode == 0, p.stderr + c.stderr
    same_apart_from_the_summary("pedf", p.stdout, c.stdout, 1)


@settings(max_examples=40, **SETTINGS)
@given(st.integers(1, 12), st.integers(0, 14))
def test_a_cluster_size_must_divide_m(tmp_path, cpus, k):
    """Refused, naming the value and every size that would do, exactly
    when K does not divide M (K = 0 and K > M included)."""
    proc = cedf("task A e=1 p=2\n", cpus, k, 4, tmp_path, check=False)
    if k and cpus % k == 0:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode != 0 and proc.stdout == ""
    ds = [str(d) for d in divisors(cpus)]
    allowed = ds[0] if len(ds) == 1 else ", ".join(ds[:-1]) + " or " + ds[-1]
    assert (f"cluster={k}: the cluster size must divide M = {cpus}, so be "
            f"{allowed}") in proc.stderr, proc.stderr


def test_default_cluster_size(tmp_path):
    """Without cluster=: two clusters of M/2 on an even M, one of M on an
    odd M; the summary says which."""
    for cpus in (1, 2, 3, 4, 6, 7):
        _, summary = run_schedsim("task A e=1 p=2\n", "cedf", cpus, 4,
                                  tmp_path)
        assert summary["cluster"] == default_cluster(cpus) == \
            (cpus // 2 if cpus % 2 == 0 else cpus)


def test_bad_push_structure_and_staggered_quanta_are_refused(tmp_path):
    err = run_bad(tmp_path, "task A e=1 p=2\n", "cedf", 2,
                  "--param", "edf_cpudl=3")
    assert "edf_cpudl=3: expected 0 (heap), 1 (fmask) or 2 (original)" in err
    err = run_bad(tmp_path, "task A e=1 p=2\n", "cedf", 2,
                  "--ticks", "staggered")
    assert "cedf runs on aligned quanta only" in err
    err = run_bad(tmp_path, "task W weight=3\n", "cedf", 2)
    assert "task W (line 1) has only weight=" in err


@settings(max_examples=40, **SETTINGS)
@given(clustered_sets(implicit=True, max_cpus=6))
def test_tardiness_bounded_per_cluster(tmp_path, case):
    """Each cluster is a G-EDF of K CPUs with U <= K: every task's
    tardiness stays within Devi and Anderson's bound (edf_ref's
    tardiness_bound) for its cluster's tasks on K CPUs."""
    cpus, k, tasks = case
    where = cluster_ffd(tasks, cpus // k, k)
    if not isinstance(where, list):
        return
    _, summary = cedf(tasks_text(tasks), cpus, k, 300, tmp_path,
                      "--summary-only")
    for c in range(cpus // k):
        mine = [t for i, t in enumerate(tasks) if where[i] == c]
        for j, t in enumerate(mine):
            got = summary["tasks"][t.name]["max_tardiness"]
            assert got <= tardiness_bound(mine, k, j), (t, got, c)
