"""The fraction of random task sets schedulable under each
locking protocol, against the critical sections' length L and against the
resources each task uses, with this kernel's overheads inflated in (in the
manner of litmus_schedulability).

Sets: tasks of utilisation uniform in [0.1, 0.3] drawn until the set's
total reaches U (the remainder, when at least 0.01, a last task), periods
whole milliseconds in [10, 100], implicit deadlines; NR resources; each
task has K sections, on K distinct resources drawn uniformly, each of
min(L, e / K) us (a section never longer than its share of the job).
The same sets (same seed) are used for every L and every K of a sweep,
and for every protocol of a CPU count, so a curve moves only with the
parameter.

The tests (each sufficient; blocking terms written here from the papers,
apart from tests/host/lock_bounds.py, which the tests hold this to):
- srp, P-EDF on one CPU (the kernel refuses an srp resource used on two
  CPUs, so srp and pcp are the one-CPU curves, at utilisation U / M):
  Baker's test (T. P. Baker, "Stack-Based Scheduling of Realtime
  Processes", Real-Time Systems 3(1), 1991, Thm. 3): tasks in order of
  relative deadline, for each k: sum_{i<=k} C_i / D_i + B_k / D_k <= 1,
  B_k the longest section of a task with a longer D on a resource one of
  whose users has D <= D_k.
- msrp, P-EDF on M CPUs (P. Gai, G. Lipari, M. Di Natale, "Minimizing
  Memory Utilization of Real-Time Task Sets in Single and Multi-Processor
  Systems-on-a-Chip", RTSS 2001, Sec. 5): tasks placed first-fit by
  decreasing density (the kernel's pedf placement); a resource used on
  two CPUs is global. A request for a global R spins at most the longest
  section on R of each other CPU; C_i grows by its spinning; B_k is the
  longest non-preemptive stretch (a global section plus its spinning) or
  local srp section of a task with a longer D on its CPU; then Baker's
  test per CPU.
- omlp, G-EDF on M CPUs (B. B. Brandenburg, J. H. Anderson, "Optimality
  Results for Multiprocessor Real-Time Locking", RTSS 2010, Sec. 4, the
  global OMLP, suspension-oblivious): each request is pi-blocked by at
  most 2M - 1 other requests, bounded here by the longest section of
  another user of the resource; C_i grows by the sum over its requests
  (s-oblivious inflation) and the set must pass the G-EDF test
  litmus_schedulability uses (Goossens, Funk and Baruah, U <= M - (M - 1)
  u_max).
- pcp, P-FP on one CPU (L. Sha, R. Rajkumar, J. P. Lehoczky, "Priority
  Inheritance Protocols: An Approach to Real-Time Synchronization", IEEE
  Trans. Computers 39(9), 1990): rate-monotonic priorities, response-time
  analysis R_i = C_i + B_i + sum_{hp j} ceil(R_i / T_j) C_j <= D_i, B_i
  the longest section of a lower-priority task on a resource whose
  ceiling is at least i's priority.
- mpcp, P-FP on M CPUs (R. Rajkumar, "Real-Time Synchronization Protocols
  for Shared Memory Multiprocessors", ICDCS 1990; the analysis of K.
  Lakshmanan, D. de Niz, R. Rajkumar, "Coordinated Task Scheduling,
  Allocation and Synchronization on Multiprocessors", RTSS 2009, Sec. 3):
  tasks placed first-fit by decreasing utilisation (a CPU takes a task
  while RTA without blocking passes), rate-monotonic priorities. A
  global section of j on R lasts W_j(R) = its length plus the longest
  global section of every other task of j's CPU whose resource's remote
  ceiling is as high (those may preempt it). Remote blocking of a
  request of i on global R: the least
  B = max_{lower j} W_j(R) + sum_{higher j != i} (ceil(B / T_j) + 1)
  n_j(R) W_j(R); local blocking, at each of the 1 + (global requests)
  times i resumes: the longest global section of each lower task of its
  CPU plus one pcp section. RTA with the remote blocking of the higher
  tasks as their jitter: R_i = C_i + B_i + sum_{hp j on CPU} ceil((R_i +
  Br_j) / T_j) C_j <= D_i.

Overheads (the kernel's, kernel_overheads.py): every job pays what
litmus_schedulability's EDF inflation charges (two decisions, two context
switches, one reload at WSS_KB, the release), with P-EDF's measured costs
for P-EDF and P-FP (pfp's are not measured: see overheads()) and
G-EDF's for G-EDF, from litmus_overheads' CSVs; and
each section one lock and one unlock: C_i grows by K (lock + unlock), and
each section's length, as a job blocked behind it sees it, by lock +
unlock. The lock and unlock costs are measured here: a boot under -icount
of work=lockcost (user/lockcost.c) tasks under pfp with mpcp, one on a
local resource (which follows pcp), two on a global one, each timing its
calls' round trips with the resource free; the worst case of the three
is charged to every protocol (under the quantum-driven plugins a call takes effect at the
quantum's end, inside the decision sched already counts, and its wait
there is no cost a user program can time)."""
import math
import random
import re

import common
import kernel_overheads
import kernel_runs
import workitems
from benchlib import pyplot, write_csv
from common import Section, host_platform, panel, save_figure

PROTOCOLS = ("srp", "msrp", "omlp", "pcp", "mpcp")
PLUGIN = {"srp": "P-EDF", "msrp": "P-EDF", "omlp": "G-EDF", "pcp": "P-FP",
          "mpcp": "P-FP"}
ONE_CPU = ("srp", "pcp")   # uniprocessor protocols: the one-CPU curves
WSS_KB = 64                # the working set whose reload each job pays
LOCK_SLOTS = 300           # pfp run length of the lockcost boot, 1 ms quanta

PLANS = {
    "tiny": dict(sets=12, m=4, u=2.0, nr=6, lengths=[10, 100, 1000],
                 k_fixed=2, ks=[1, 3], l_fixed=100, lock_slots=30,
                 keep=4),
    "quick": dict(sets=200, m=4, u=2.0, nr=6,
                  lengths=[5, 10, 25, 50, 100, 200, 400, 800, 1600],
                  k_fixed=2, ks=[1, 2, 3, 4, 5, 6], l_fixed=100,
                  lock_slots=LOCK_SLOTS, keep=3),
    "full": dict(sets=1000, m=4, u=2.0, nr=6,
                 lengths=[5, 10, 25, 50, 100, 200, 400, 800, 1600, 3200],
                 k_fixed=2, ks=[1, 2, 3, 4, 5, 6], l_fixed=100,
                 lock_slots=LOCK_SLOTS, keep=3),
}


# ---------------------------------------------------------------- sets

def draw_base(rng, u_total):
    """[(u, p_us)] of one set: utilisations uniform in [0.1, 0.3] summing
    to u_total."""
    out, total = [], 0.0
    while total < u_total - 1e-9:
        u = rng.uniform(0.1, 0.3)
        if total + u > u_total:
            u = u_total - total
            if u < 0.01:
                break
        out.append((u, 1000.0 * rng.randint(10, 100)))
        total += u
    return out


def draw_resources(rng, n, nr, kmax):
    """Per task, kmax distinct resources in a random order; a task with K
    sections uses its first K."""
    return [rng.sample(range(nr), min(kmax, nr)) for _ in range(n)]


def build(base, res, k, length):
    """Tasks as dicts: e, p (us), cs [(resource, length us)]."""
    tasks = []
    for (u, p), rs in zip(base, res):
        e = u * p
        n = min(k, len(rs))
        lc = min(length, e / n) if n else 0.0
        tasks.append(dict(e=e, p=p, cs=[(r, lc) for r in rs[:n]]))
    return tasks


def inflate(tasks, per_job, per_lock):
    """The overheads: per_job on every job, per_lock (a lock and an
    unlock) on every section, both into e and, per_lock, into the
    section's length."""
    return [dict(e=t["e"] + per_job + per_lock * len(t["cs"]), p=t["p"],
                 cs=[(r, n + per_lock) for r, n in t["cs"]]) for t in tasks]


# ---------------------------------------------------------------- placement

def first_fit(tasks, m, key, fits=None):
    """CPU of each task, first fit in decreasing key (C / T) on m CPUs:
    a CPU takes a task while fits(tasks on it) holds (default: their key
    sums to at most 1); None when one fits nowhere."""
    home, on = [None] * len(tasks), [[] for _ in range(m)]
    fits = fits or (lambda idx: sum(key(tasks[j]) for j in idx)
                    <= 1 + 1e-12)
    for i in sorted(range(len(tasks)), key=lambda i: -key(tasks[i])):
        for c in range(m):
            if fits(on[c] + [i]):
                home[i] = c
                on[c].append(i)
                break
        else:
            return None
    return home


def rm_fits(tasks):
    """A P-FP CPU's admission: response-time analysis without blocking
    under rate-monotonic priorities (the placement the FP tests use)."""
    def fits(idx):
        return all(rta(tasks[i]["e"], 0, 0,
                       [(tasks[j]["e"], tasks[j]["p"], 0) for j in idx
                        if (tasks[j]["p"], j) < (tasks[i]["p"], i)],
                       tasks[i]["p"], tasks[i]["p"]) is not None
                   for i in idx)
    return fits


def users(tasks):
    out = {}
    for i, t in enumerate(tasks):
        for r, _ in t["cs"]:
            out.setdefault(r, set()).add(i)
    return out


def longest(t, r):
    return max((n for rr, n in t["cs"] if rr == r), default=0.0)


# ---------------------------------------------------------------- EDF

def baker(tasks, idx, extra, block):
    """Baker's test over the tasks idx of one CPU: extra[i] added to C_i,
    block[i] its blocking (D = p)."""
    acc = 0.0
    for i in sorted(idx, key=lambda i: tasks[i]["p"]):
        acc += (tasks[i]["e"] + extra[i]) / tasks[i]["p"]
        if acc + block[i] / tasks[i]["p"] > 1 + 1e-12:
            return False
    return True


def msrp_terms(tasks, home, m):
    """MSRP's (spin, blocking) per task, for the placement home on m CPUs
    (srp's when every user of a resource is on one CPU: nothing is
    global, nothing spins). A resource used on two CPUs is global. A
    request for a global R spins for at most the longest section on R of
    each other CPU that uses it (the FIFO spin lock serves one request per
    CPU ahead of it); a job's spinning is the sum over its global
    requests. A job is blocked once, at its start, by the longest
    non-preemptive stretch of a task of its CPU with a longer relative
    deadline (a global section with the spinning before it) or by the
    longest local section of such a task on a resource whose ceiling is
    at least its preemption level (some user's deadline at most its own:
    Baker's SRP)."""
    use = users(tasks)
    glob = {r: len({home[i] for i in who}) > 1 for r, who in use.items()}

    def spin(r, cpu):
        return sum(max((longest(tasks[j], r) for j in use[r]
                        if home[j] == c), default=0.0)
                   for c in range(m) if c != cpu)

    spins = [sum(spin(r, home[i]) for r, _ in t["cs"] if glob[r])
             for i, t in enumerate(tasks)]
    stretch = [max((n + spin(r, home[j]) for r, n in t["cs"] if glob[r]),
                   default=0.0) for j, t in enumerate(tasks)]
    ceiling = {r: min(tasks[j]["p"] for j in who) for r, who in use.items()}
    block = []
    for i, t in enumerate(tasks):
        lower = [j for j in range(len(tasks))
                 if home[j] == home[i] and tasks[j]["p"] > t["p"]]
        block.append(max([stretch[j] for j in lower]
                         + [n for j in lower for r, n in tasks[j]["cs"]
                            if not glob[r] and ceiling[r] <= t["p"]],
                         default=0.0))
    return list(zip(spins, block))


def msrp_ok(tasks, m):
    """MSRP on m CPUs (srp when m = 1), placed first fit by decreasing
    density, then Baker's test on each CPU with the spinning as
    execution."""
    home = first_fit(tasks, m, lambda t: t["e"] / t["p"])
    if home is None:
        return False
    terms = msrp_terms(tasks, home, m)
    spins = [s for s, _ in terms]
    block = [b for _, b in terms]
    return all(baker(tasks, [i for i in range(len(tasks)) if home[i] == c],
                     spins, block) for c in range(m))


def omlp_terms(tasks, m):
    """The global OMLP's pi-blocking per task, suspension-oblivious: each
    request is pi-blocked by at most 2m - 1 requests of other jobs
    (Brandenburg and Anderson's bound: at most m - 1 ahead of it in the
    FIFO queue, at most m while it waits in the priority queue), each
    charged here the longest section on the resource of another task
    that uses it."""
    use = users(tasks)
    return [sum((2 * m - 1) * max((longest(tasks[j], r) for j in use[r]
                                   if j != i), default=0.0)
                for r, _ in t["cs"])
            for i, t in enumerate(tasks)]


def omlp_ok(tasks, m):
    """Global OMLP, s-oblivious, then GFB on the inflated utilisations."""
    us = [(t["e"] + b) / t["p"] for t, b in zip(tasks, omlp_terms(tasks, m))]
    return max(us) <= 1 and sum(us) <= m - (m - 1) * max(us) + 1e-12


# ---------------------------------------------------------------- FP

def rta(c, b, jitter, hp, t, d):
    """Least R = c + b + sum ceil((R + J_j) / T_j) C_j over hp [(C, T,
    J)], or None once past d."""
    r = c + b
    while True:
        nxt = c + b + sum(math.ceil((r + j) / tt) * cc for cc, tt, j in hp)
        if nxt > d + 1e-9:
            return None
        if nxt <= r + 1e-9:
            return nxt
        r = nxt


def mpcp_terms(tasks, home):
    """MPCP's (remote, local) blocking per task for the placement home,
    or None for a task whose remote blocking on some request exceeds its
    period (pcp's on one CPU: nothing is global, so only local blocking).
    Priority: shorter period higher, ties by index.

    A global section (on a resource used on two CPUs) runs at the
    resource's remote ceiling -- the highest priority of its users on
    other CPUs -- above every task priority, so on its CPU only global
    sections of other tasks with a ceiling as high can preempt it: one of
    j's sections on R, once it holds R, lasts W_j(R) = its length plus
    the longest such section of every other task of j's CPU. Remote
    blocking of a request of i for R: the least B with B = max over
    lower-priority users j of W_j(R) + sum over higher-priority users j of
    (ceil(B / T_j) + 1) n_j(R) W_j(R). Local blocking, at each of the
    1 + (global requests) times the job arrives or resumes: the longest
    global section of every lower-priority task of its CPU plus one pcp
    section of a lower task on a local resource with a ceiling at least
    its priority (Lakshmanan, de Niz and Rajkumar, RTSS 2009, Sec. 3)."""
    n = len(tasks)
    prio = {i: (tasks[i]["p"], i) for i in range(n)}   # smaller: higher
    use = users(tasks)
    glob = {r: len({home[i] for i in who}) > 1 for r, who in use.items()}
    ceiling = {r: min(prio[j] for j in who) for r, who in use.items()}

    def remote_ceiling(r, cpu):
        return min(prio[j] for j in use[r] if home[j] != cpu)

    def gcs(j):
        return max((x for r, x in tasks[j]["cs"] if glob[r]), default=0.0)

    def w(j, r):
        mine = remote_ceiling(r, home[j])
        return longest(tasks[j], r) + sum(
            max((x for rr, x in tasks[k]["cs"] if glob[rr]
                 and remote_ceiling(rr, home[k]) <= mine), default=0.0)
            for k in range(n) if k != j and home[k] == home[j])

    out = []
    for i, t in enumerate(tasks):
        remote = 0.0
        for r, _ in t["cs"]:
            if not glob[r]:
                continue
            others = [j for j in use[r] if j != i]
            low = max((w(j, r) for j in others if prio[j] > prio[i]),
                      default=0.0)
            high = [(tasks[j]["p"], w(j, r) * sum(
                1 for rr, _ in tasks[j]["cs"] if rr == r))
                for j in others if prio[j] < prio[i]]
            b = low + sum(x for _, x in high)
            while b <= t["p"]:
                nxt = low + sum((math.ceil(b / p) + 1) * x for p, x in high)
                if nxt <= b + 1e-9:
                    break
                b = nxt
            if b > t["p"]:
                remote = None
                break
            remote += b
        lower = [j for j in range(n)
                 if home[j] == home[i] and prio[j] > prio[i]]
        requests = sum(1 for r, _ in t["cs"] if glob[r])
        local = (1 + requests) * (
            sum(gcs(j) for j in lower)
            + max((x for j in lower for r, x in tasks[j]["cs"]
                   if not glob[r] and ceiling[r] <= prio[i]), default=0.0))
        out.append(None if remote is None else (remote, local))
    return out


def mpcp_ok(tasks, m):
    """MPCP on m CPUs (pcp when m = 1). Placed first fit by decreasing
    utilisation, a CPU taking a task while RTA without blocking passes;
    then RTA with each task's blocking, and the remote blocking of the
    higher tasks of its CPU as their release jitter (a task suspended on a
    remote resource runs later than its release)."""
    home = first_fit(tasks, m, lambda t: t["e"] / t["p"], rm_fits(tasks))
    if home is None:
        return False
    terms = mpcp_terms(tasks, home)
    if None in terms:
        return False
    prio = [(t["p"], i) for i, t in enumerate(tasks)]
    for i, t in enumerate(tasks):
        hp = [(tasks[j]["e"], tasks[j]["p"], terms[j][0])
              for j in range(len(tasks))
              if home[j] == home[i] and prio[j] < prio[i]]
        if rta(t["e"], sum(terms[i]), 0, hp, t["p"], t["p"]) is None:
            return False
    return True


def schedulable(protocol, tasks, m):
    """The protocol's test on inflated tasks (m: the set's CPUs)."""
    if protocol in ("srp", "msrp"):
        return msrp_ok(tasks, m)
    if protocol == "omlp":
        return omlp_ok(tasks, m)
    return mpcp_ok(tasks, m)


# ---------------------------------------------------------------- lock cost

# A resource on one CPU (L: under mpcp it follows pcp there) and one on
# both (G, global), used at phases apart so that every call finds its
# resource free. work=lockcost locks the first resource of its cs=.
LOCK_SET = """\
resource L protocol=mpcp
resource G protocol=mpcp
task A e=3 p=10 prio=1 cpu=0 cs=L:1@1 work=lockcost
task B e=3 p=10 prio=1 cpu=1 phase=3 cs=G:1@1 work=lockcost
task C e=3 p=10 prio=2 cpu=0 phase=5 cs=G:1@1 work=lockcost
"""
LOCK_PATH = {"A": "local (pcp)", "B": "global", "C": "global"}

LINE = re.compile(r"lockcost: jobs=(\d+) lock_max=(\d+) lock_sum=(\d+) "
                  r"unlock_max=(\d+) unlock_sum=(\d+) tsc_khz=(\d+)")


def lock_costs(b):
    """{task: (jobs, lock max us, lock mean us, unlock max us, unlock mean
    us)}: each task's line with the most jobs."""
    best = {}
    for line in b.serial.splitlines():
        name, _, rest = line.partition("| ")
        mt = LINE.search(rest)
        if mt:
            v = [int(x) for x in mt.groups()]
            if v[0] > best.get(name.strip(), [0])[0]:
                best[name.strip()] = v
    out = {}
    for name, (jobs, lmax, lsum, umax, usum, khz) in sorted(best.items()):
        us = 1000.0 / khz
        out[name] = (jobs, lmax * us, lsum * us / jobs, umax * us,
                     usum * us / jobs)
    return out


def measure_locks(plan):
    """The lockcost boot (pfp, mpcp, -icount) and its costs."""
    b = kernel_runs.boots([workitems.boot_item(
        tasks=LOCK_SET,
        cmdline=f"sched=pfp slots={plan['lock_slots']}",
        smp=2, icount=kernel_runs.ICOUNT, label="lockcost pfp mpcp")])[0]
    if b is None:
        raise SystemExit("locking_schedulability: the lockcost boot failed "
                         "twice")
    got = lock_costs(b)
    if set(got) != set(LOCK_PATH):
        raise SystemExit(f"locking_schedulability: 'lockcost:' lines of "
                         f"{sorted(got)} only, not of {sorted(LOCK_PATH)}:"
                         f"\n{b.tail()}")
    return got, b


def overheads(mode, outdir):
    """{plugin: Overheads}: kernel_overheads.load's for P-EDF and G-EDF
    (litmus_overheads' CSVs, or boots), P-EDF's for P-FP too (pfp prints
    no RESULT overhead and litmus_overheads does not measure it; both are
    partitioned, a decision on one CPU's queue). Tiny mode, which the
    tests run and must stay short, boots none: without litmus_overheads'
    CSVs it charges no scheduling overhead (the section says so)."""
    lo = outdir.parent / "litmus_overheads"
    if mode == "tiny" and not (lo / "overheads.csv").exists():
        ov = kernel_overheads.Overheads(
            {("*", e): [(1, 0)] for e in kernel_overheads.EVENTS},
            [(WSS_KB, 0.0)],
            ["tiny mode without litmus_overheads' CSVs: no scheduling "
             "overhead charged, only the lock costs"])
    else:
        ov = kernel_overheads.load(mode, outdir, ("P-EDF", "G-EDF"))
    return {"P-EDF": ov, "G-EDF": ov, "P-FP": ov}


# ---------------------------------------------------------------- run

def per_job_us(ovs, plugin, n):
    """litmus_schedulability's EDF inflation at N = n, with the plugin's
    costs (the Overheads' '*' rows serve P-FP)."""
    c = ovs[plugin].costs("P-EDF" if plugin == "P-FP" else plugin, n,
                          WSS_KB)  # P-FP: P-EDF's (overheads())
    return 2 * (c.sched + c.cxs) + c.reload + c.release


def sweep_points(plan):
    """(sweep, x, K, L) of every point."""
    return ([("length", length, plan["k_fixed"], length)
             for length in plan["lengths"]]
            + [("k", k, k, plan["l_fixed"]) for k in plan["ks"]])


def run(mode, outdir):
    plan = PLANS[mode]
    locks, boot = measure_locks(plan)
    ov = overheads(mode, outdir)
    lock_rows = [[name, LOCK_PATH[name], j, round(a, 3), round(b, 3),
                  round(c, 3), round(d, 3)]
                 for name, (j, a, b, c, d) in locks.items()]
    write_csv(outdir / "lock_cost.csv",
              ["task", "resource", "jobs", "lock_max_us", "lock_mean_us",
               "unlock_max_us", "unlock_mean_us"], lock_rows)
    lock_us = max(r[3] for r in lock_rows)
    unlock_us = max(r[5] for r in lock_rows)
    per_lock = lock_us + unlock_us
    m = plan["m"]
    kmax = max(plan["ks"] + [plan["k_fixed"]])
    rng = random.Random(27005)
    cpus = {p: 1 if p in ONE_CPU else m for p in PROTOCOLS}
    bases = {}
    for mm in sorted(set(cpus.values())):
        u = plan["u"] * mm / m
        bases[mm] = []
        for _ in range(plan["sets"]):
            base = draw_base(rng, u)
            bases[mm].append((base, draw_resources(rng, len(base),
                                                   plan["nr"], kmax)))
    rows, verdicts, kept = [], [], []
    for sweep, x, k, length in sweep_points(plan):
        for p in PROTOCOLS:
            mm = cpus[p]
            ok = 0
            for s, (base, res) in enumerate(bases[mm]):
                tasks = inflate(build(base, res, k, length),
                                per_job_us(ov, PLUGIN[p], len(base)),
                                per_lock)
                v = schedulable(p, tasks, mm)
                ok += v
                verdicts.append([sweep, x, p, s, int(v)])
                if s < plan["keep"]:
                    kept.append(dict(sweep=sweep, x=x, protocol=p, set=s,
                                     m=mm, tasks=tasks, verdict=int(v)))
            rows.append([sweep, x, p, PLUGIN[p], mm, k, length,
                         plan["sets"], ok / plan["sets"]])
    headers = ["sweep", "x", "protocol", "plugin", "cpus", "k", "length_us",
               "sets", "fraction_schedulable"]
    write_csv(outdir / "locking.csv", headers, rows)
    write_csv(outdir / "verdicts.csv",
              ["sweep", "x", "protocol", "set", "schedulable"], verdicts)
    import json
    (outdir / "kept_sets.json").write_text(json.dumps(
        dict(per_lock_us=per_lock, sets=kept)))
    plot(rows, plan, outdir)
    return section(rows, plan, ov, lock_rows, lock_us, unlock_us,
                   [boot], mode)


def plot(rows, plan, outdir):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, sweep, xlabel in (
            (axes[0], "length", f"critical-section length L (us), K = "
                                f"{plan['k_fixed']}"),
            (axes[1], "k", f"resources per task K, L = {plan['l_fixed']} "
                           "us")):
        series = [([(r[1], r[8]) for r in rows
                    if r[0] == sweep and r[2] == p], "o-",
                   f"{p} ({PLUGIN[p]}, {1 if p in ONE_CPU else plan['m']} "
                   "CPU" + ("" if p in ONE_CPU else "s") + ")")
                  for p in PROTOCOLS]
        panel(ax, series, xlabel, "fraction schedulable",
              f"U = {plan['u']} on {plan['m']} CPUs, {plan['nr']} "
              "resources")
        if sweep == "length":
            ax.set_xscale("log")
    save_figure(plt, fig, outdir / "locking.png")


def section(rows, plan, ov, lock_rows, lock_us, unlock_us, boots, mode):
    frac = {(r[0], r[1], r[2]): r[8] for r in rows}
    ls, ks = plan["lengths"], plan["ks"]

    def at(sweep, xs):
        return "; ".join(p + " " + "/".join(
            f"{frac[sweep, x, p]:.0%}" for x in xs) for p in PROTOCOLS)

    def drop(p, sweep, xs):
        """The smallest x where p falls below half, or None."""
        return next((x for x in xs if frac[sweep, x, p] < 0.5), None)

    halves = ", ".join(
        f"{p} {'never' if drop(p, 'length', ls) is None else drop(p, 'length', ls)}"
        for p in PROTOCOLS)
    pj_p = per_job_us(ov, "P-EDF", 10)
    pj_g = per_job_us(ov, "G-EDF", 10)
    table = [[p, PLUGIN[p], 1 if p in ONE_CPU else plan["m"]]
             + [frac["length", x, p] for x in (ls[0], ls[len(ls) // 2],
                                                ls[-1])]
             + [frac["k", x, p] for x in (ks[0], ks[-1])]
             for p in PROTOCOLS]
    mid = ls[len(ls) // 2]
    diff = (
        f"Against L (K = {plan['k_fixed']}), the fraction at L = "
        f"{'/'.join(map(str, ls))} us: {at('length', ls)}. (srp and pcp "
        f"run at the multiprocessor sets' load per CPU, {plan['u'] / plan['m']}: "
        "one CPU's sets of the same density.) The first L "
        f"where a protocol falls below half: {halves}. Against K (L = "
        f"{plan['l_fixed']} us), at K = {'/'.join(map(str, ks))}: "
        f"{at('k', ks)}. The one-CPU curves (srp, pcp) see only local "
        "blocking, a single section per job; msrp's spinning and mpcp's "
        "remote blocking grow with every request and every CPU that "
        "shares the resource, and omlp's s-oblivious 2M - 1 sections per "
        "request are charged as execution before the global test. The "
        "partitioned placements are the kernel's (pedf's first fit by "
        "density; for P-FP, first fit while response times hold), blind to "
        "blocking: first fit fills a CPU up to density 1, and any spinning "
        "or blocking then fails that CPU -- that, more than the sections' "
        f"length, is why msrp keeps {frac['length', ls[0], 'msrp']:.0%} "
        f"and mpcp {frac['length', ls[0], 'mpcp']:.0%} of the sets at "
        f"L = {ls[0]} us, while G-EDF, with no placement, keeps "
        f"{frac['length', ls[0], 'omlp']:.0%}. The "
        f"overheads inflated: a lock {lock_us:.2f} us and an unlock "
        f"{unlock_us:.2f} us (worst of the lockcost boots, "
        f"{len(lock_rows)} tasks: "
        + ", ".join(f"{r[0]} ({r[1]} resource) {r[2]} jobs, lock mean "
                    f"{r[4]:.2f} us, unlock mean {r[6]:.2f} us"
                    for r in lock_rows)
        + "), counted in virtual time (8 ns per instruction) on a boot "
          "of 2 CPUs, where -icount's one instruction counter makes a "
          "span count the instructions of both CPUs: upper bounds, and on "
          "hardware smaller still; per job at N = 10, P-EDF "
          f"{pj_p:.1f} us and G-EDF {pj_g:.1f} us (P-FP charged "
          "P-EDF's: pfp prints no overhead lines). No paper gives this "
          "figure for these five protocols with one generator; the "
          "published comparisons (Brandenburg's thesis, 2011, Ch. 6) use "
          "other tests and overheads of LITMUS^RT on hardware, so only "
          f"the trends compare. {plan['sets']} sets per point ({mode} "
          "mode).")
    return Section(
        title="Locking protocols: schedulable task sets against critical "
              "sections",
        paper="none (the tests: Baker 1991; Gai, Lipari and Di "
              "Natale, RTSS 2001; Brandenburg and Anderson, RTSS 2010; Sha, "
              "Rajkumar and Lehoczky 1990; Rajkumar, ICDCS 1990, with "
              "Lakshmanan, de Niz and Rajkumar, RTSS 2009)",
        figure="fraction schedulable against L and against K, per protocol "
               "(in the style of LITMUS^RT Figs. 9-10)",
        measured=f"fraction of {plan['sets']} random sets per point "
                 f"(utilisation {plan['u']} on {plan['m']} CPUs, "
                 f"{plan['u'] / plan['m']} on one CPU for srp and pcp; "
                 f"{plan['nr']} resources) passing each protocol's "
                 "sufficient test with the kernel's scheduling overheads "
                 f"({'; '.join(dict.fromkeys(s for o in ov.values() for s in o.sources))}) and its measured lock and "
                 "unlock costs (work=lockcost boots under pfp, -icount) "
                 "inflated in. Table: the fraction at the smallest, middle "
                 "and largest L and the smallest and largest K",
        platform=(host_platform("Python model of the tests")
                  + "; lock costs measured in "
                  + kernel_runs.platform(boots)),
        table=(["protocol", "plugin", "cpus", f"L={ls[0]}", f"L={mid}",
                f"L={ls[-1]}", f"K={ks[0]}", f"K={ks[-1]}"], table),
        published="no paper has this figure: these five protocols with one "
                  "generator and this kernel's costs. Brandenburg "
                  "and Anderson (RTSS 2010) and Brandenburg's thesis (UNC, "
                  "2011) report, for their own generators, that the "
                  "fraction falls with the critical sections' length and "
                  "the number of requests, the suspension-oblivious global "
                  "OMLP's the fastest when sections are long.",
        differences=diff,
        files=["locking.csv", "verdicts.csv", "kept_sets.json",
               "lock_cost.csv", "locking.png"])
