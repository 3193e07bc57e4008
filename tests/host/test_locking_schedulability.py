"""locking_schedulability's tests (tools/experiments/
exp_locking_schedulability.py) held to what they must compute, without a
boot: each protocol's blocking terms, per task, against the published
bounds as tests/host/lock_bounds.py models them (written for the kernel's
tests, apart from the experiment), and the schedulability tests around
them on sets worked out by hand and on sets without resources, where they
reduce to the tests they are built from."""
import math
import random
import sys
from types import SimpleNamespace

import pytest

from conftest import ROOT
import lock_bounds

sys.path.insert(0, str(ROOT / "tools/experiments"))
import common  # noqa: E402,F401  (puts tools/bench on the path)
import exp_locking_schedulability as X  # noqa: E402

DRAWS = 400
LENGTHS = (5.0, 10.0, 20.0, 50.0)


def draw(rng, m, equal=False):
    """A set of the experiment's form (dicts: e, p in us, cs [(resource,
    length)]) and a placement on m CPUs drawn apart from it, so that
    resources come out local and global in every mix."""
    n = rng.randint(2, 9)
    nr = rng.randint(1, 4)
    length = rng.choice(LENGTHS)
    tasks = []
    for _ in range(n):
        p = 1000.0 * rng.randint(10, 100)
        rs = rng.sample(range(nr), rng.randint(0, min(3, nr)))
        tasks.append(dict(e=rng.uniform(0.02, 0.3) * p, p=p,
                          cs=[(r, length if equal else rng.choice(LENGTHS))
                              for r in rs]))
    return tasks, [rng.randrange(m) for _ in range(n)]


def model(tasks, home):
    """The same set as lock_bounds takes it: implicit deadlines, sections
    (resource, at, length), rate-monotonic priorities with ties by index
    (the experiment's), each task's CPU."""
    order = sorted(range(len(tasks)), key=lambda i: (tasks[i]["p"], i))
    rank = {i: k for k, i in enumerate(order)}
    return [SimpleNamespace(name=f"T{i}", e=t["e"], p=t["p"], d=t["p"],
                            phase=0, cs=[(r, 0, n) for r, n in t["cs"]],
                            prio=rank[i], cpu=home[i])
            for i, t in enumerate(tasks)]


def draws(seed, equal=False):
    rng = random.Random(seed)
    for k in range(DRAWS):
        m = (1, 2, 4)[k % 3]
        tasks, home = draw(rng, m, equal)
        yield m, tasks, home


def test_srp_and_msrp_blocking_are_the_models():
    """Per task, the spinning and the blocking of MSRP (and of SRP on one
    CPU, where nothing is global) equal lock_bounds'."""
    seen_spin = seen_block = 0
    for m, tasks, home in draws(1):
        got = X.msrp_terms(tasks, home, m)
        want = lock_bounds.msrp(model(tasks, home), home, m)
        for i, ((spin, block), w) in enumerate(zip(got, want)):
            assert spin == pytest.approx(w["spin"]), (tasks, home, i)
            assert block == pytest.approx(w["pi"]), (tasks, home, i)
            seen_spin += spin > 0
            seen_block += block > 0
        if m == 1:
            srp = lock_bounds.srp(model(tasks, home), home)
            assert [b for _, b in got] == pytest.approx(
                [w["blocked"] for w in srp])
    assert seen_spin > DRAWS and seen_block > DRAWS


def test_omlp_blocking_is_safe_and_is_the_bound_when_it_is_reached():
    """The experiment charges each request 2M - 1 times the longest
    section of another user: never less than lock_bounds' bound, and equal
    to it when every section has one length and every resource has more
    than M + 1 users (then 2M - 1 requests of others can be ahead)."""
    equal_cases = 0
    for seed, equal in ((2, False), (3, True)):
        for m, tasks, home in draws(seed, equal):
            got = X.omlp_terms(tasks, m)
            want = lock_bounds.omlp(model(tasks, [0] * len(tasks)),
                                    [0] * len(tasks), m)
            crowded = all(len(who) > m + 1
                          for who in X.users(tasks).values())
            for i, (b, w) in enumerate(zip(got, want)):
                assert b >= w["blocked"] - 1e-9, (tasks, i)
                if equal and crowded:
                    assert b == pytest.approx(w["blocked"]), (tasks, i)
                    equal_cases += b > 0
    assert equal_cases > 20


def test_pcp_and_mpcp_blocking_are_the_models():
    """Per task, MPCP's remote plus local blocking equals lock_bounds' for
    a task whose sections are all on global resources (lock_bounds counts
    a local section as a point where the job may wait too, which the
    paper's analysis, and the experiment, does not: there the experiment's
    is at most the model's); pcp's, on one CPU, equals lock_bounds.pcp. A
    task whose remote blocking passes its period is unschedulable in the
    experiment and has at least that much in the model."""
    compared = remote_seen = 0
    for m, tasks, home in draws(4):
        got = X.mpcp_terms(tasks, home)
        lt = model(tasks, home)
        want = lock_bounds.mpcp(lt)
        glob = {r: len({home[j] for j in who}) > 1
                for r, who in X.users(tasks).items()}
        for i, (g, w) in enumerate(zip(got, want)):
            if g is None:
                assert w["blocked"] is None or w["blocked"] > tasks[i]["p"]
                continue
            assert w["blocked"] is not None, (tasks, home, i)
            total = sum(g)
            if all(glob[r] for r, _ in tasks[i]["cs"]):
                assert total == pytest.approx(w["blocked"]), (tasks, home, i)
                compared += 1
                remote_seen += g[0] > 0
            else:
                assert total <= w["blocked"] + 1e-9, (tasks, home, i)
        if m == 1:
            assert [sum(g) for g in got] == pytest.approx(
                [w["blocked"] for w in lock_bounds.pcp(lt)])
    assert compared > DRAWS and remote_seen > DRAWS // 4


def test_tests_without_resources_are_the_tests_they_extend():
    """No sections: srp is EDF's U <= 1 on one CPU, omlp the GFB test,
    msrp first-fit EDF, pcp the response-time test of rate-monotonic."""
    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(1, 8)
        tasks = [dict(e=rng.uniform(0.05, 0.5) * p, p=p, cs=[])
                 for p in (1000.0 * rng.randint(10, 100) for _ in range(n))]
        u = [t["e"] / t["p"] for t in tasks]
        assert X.schedulable("srp", tasks, 1) == (sum(u) <= 1 + 1e-12)
        assert X.schedulable("omlp", tasks, 4) == (
            max(u) <= 1 and sum(u) <= 4 - 3 * max(u) + 1e-12)
        bins = [0.0] * 4
        fits = True
        for x in sorted(u, reverse=True):
            c = next((c for c in range(4) if bins[c] + x <= 1 + 1e-12), None)
            if c is None:
                fits = False
                break
            bins[c] += x
        assert X.schedulable("msrp", tasks, 4) == fits
        by = sorted(tasks, key=lambda t: t["p"])
        rm = True
        for k, t in enumerate(by):
            r = t["e"]
            while r <= t["p"]:
                nxt = t["e"] + sum(math.ceil(r / h["p"]) * h["e"]
                                   for h in by[:k])
                if nxt == r:
                    break
                r = nxt
            rm = rm and r <= t["p"]
        assert X.schedulable("pcp", tasks, 1) == rm


def test_blocking_decides_by_hand():
    """Worked by hand. SRP on one CPU: A (e 4, p 10) and B (e 8, p 20)
    share R; A waits for B's section once: 4/10 + 3/10 <= 1 passes with
    B's section 3, 4/10 + 7/10 fails with 7. PCP, the same numbers:
    A's response 4 + 3 = 7 <= 10, then 4 + 7 = 11 > 10; MPCP on two CPUs
    places both on CPU 0 (RTA without blocking passes there), so R is
    local and its verdicts are pcp's. With A on CPU 0 and B on CPU 1, R
    is global: A's remote blocking is B's section (lower priority,
    nothing else on B's CPU), B's is (ceil(B / 10) + 1) of A's sections,
    2; under MSRP each spins for the other's section. The global OMLP on
    two CPUs with three users of R: 2M - 1 = 3 of another user's longest
    section per request."""
    def pair(n):
        return [dict(e=4.0, p=10.0, cs=[(0, 1.0)]),
                dict(e=8.0, p=20.0, cs=[(0, n)])]
    for proto, m in (("srp", 1), ("pcp", 1), ("mpcp", 2)):
        assert X.schedulable(proto, pair(3.0), m), proto
        assert not X.schedulable(proto, pair(7.0), m), proto
    assert X.mpcp_terms(pair(3.0), [0, 1]) == [(3.0, 0.0), (2.0, 0.0)]
    assert X.msrp_terms(pair(3.0), [0, 1], 2) == [(3.0, 0.0), (1.0, 0.0)]
    three = [dict(e=1.0, p=10.0, cs=[(0, 1.0)]),
             dict(e=1.0, p=10.0, cs=[(0, 2.0)]),
             dict(e=1.0, p=10.0, cs=[(0, 0.5), (1, 0.5)])]
    assert X.omlp_terms(three, 2) == [6.0, 3.0, 6.0]
