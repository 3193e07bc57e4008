"""The published blocking bounds of the locking protocols, per task, from a
task set, its placement and its sections' lengths -- written for the
tests from the papers (docs/references.md), apart from sched/lock. Every
bound is in the unit the lengths are in (quanta), and says how much a job
of the task can be blocked in each category of docs/locking.md ("What is
measured"): spin, pi (priority inversion, with wait for the suspension
protocols where it counts) and their sum, "blocked".

Tasks are lock_ref.LTask (name, e, p, d, phase, cs: [(resource, at,
length)]); home[i] is task i's CPU (partitioned) or cluster.
"""


def users(tasks):
    """{resource: [task indices that have a section on it]}."""
    out = {}
    for i, t in enumerate(tasks):
        for r, _, _ in t.cs:
            out.setdefault(r, [])
            if i not in out[r]:
                out[r].append(i)
    return out


def srp_ceiling(tasks, who):
    """SRP (Baker 1991): a resource's ceiling as a relative deadline --
    the shortest d of the tasks that use it (a higher preemption level is
    a shorter relative deadline)."""
    return min(tasks[i].d for i in who)


def srp(tasks, home):
    """Baker's bound: a job of task i is blocked for at most one critical
    section, of a task on its CPU with a longer relative deadline, on a
    resource whose ceiling is at least i's preemption level (some user's
    d is at most d_i). Only priority inversion; no spinning or waiting."""
    use = users(tasks)
    out = []
    for i, ti in enumerate(tasks):
        b = max((n for j, tj in enumerate(tasks)
                 if home[j] == home[i] and tj.d > ti.d
                 for r, _, n in tj.cs
                 if srp_ceiling(tasks, use[r]) <= ti.d), default=0)
        out.append({"spin": 0, "pi": b, "blocked": b})
    return out


def msrp(tasks, home, cpus):
    """Gai, Lipari and Di Natale's MSRP (2001) on partitioned EDF.

    A resource used from one CPU is local (SRP); one used from several is
    global: a FIFO spin lock, spun for and held non-preemptively. Spinning:
    each request of task i for a global resource R waits for at most one
    section on R per other CPU, the longest there:
        spin(R, c) = sum over CPUs c' != c of max length on R from c'.
    A task j's longest non-preemptive stretch is its longest global
    section plus the spinning before it:
        np_j = max over j's global sections of (length + spin(R, c_j)).
    Local blocking, at most once per job: the longest np_j, or the longest
    local section with a ceiling at or above i's level, of a task on i's
    CPU with a longer relative deadline. i's bound is its spinning plus
    its local blocking."""
    use = users(tasks)
    glob = {r: len({home[j] for j in who}) > 1 for r, who in use.items()}

    def spin(r, c):
        return sum(max((n for j in use[r] if home[j] == other
                        for rr, _, n in tasks[j].cs if rr == r), default=0)
                   for other in range(cpus) if other != c)

    np = [max((n + spin(r, home[j]) for r, _, n in tj.cs if glob[r]),
              default=0) for j, tj in enumerate(tasks)]
    out = []
    for i, ti in enumerate(tasks):
        s = sum(spin(r, home[i]) for r, _, _ in ti.cs if glob[r])
        lower = [j for j, tj in enumerate(tasks)
                 if home[j] == home[i] and tj.d > ti.d]
        local = max([np[j] for j in lower] +
                    [n for j in lower for r, _, n in tasks[j].cs
                     if not glob[r] and
                     srp_ceiling(tasks, use[r]) <= ti.d], default=0)
        out.append({"spin": s, "pi": local, "blocked": s + local})
    return out


def omlp(tasks, home, k):
    """Brandenburg and Anderson's global OMLP (2010), in a cluster of k
    CPUs, suspension-oblivious: each request is pi-blocked by at most
    2k - 1 requests of other jobs -- at most k - 1 ahead in the FIFO
    queue, at most k while in the priority queue -- and a job is pi-blocked
    by nothing else (inheritance gives the holder the waiter's place). A
    task contributes at most two of them per request (a request in the
    priority queue can be passed by another's request once before it
    joins the FIFO queue); when at most k + 1 tasks use the resource the
    priority queue never holds two jobs, so each other task blocks a
    request at most once. The bound of a request takes the longest
    sections allowed; a task's, the sum over its requests."""
    use = users(tasks)
    out = []
    for i, ti in enumerate(tasks):
        b = 0
        for r, _, _ in ti.cs:
            others = [j for j in use[r] if j != i and home[j] == home[i]]
            longest = {j: max(n for rr, _, n in tasks[j].cs if rr == r)
                       for j in others}
            if len(others) + 1 <= k + 1:
                limit, per = len(others), 1
            else:
                limit, per = 2 * k - 1, 2
            pool = sorted((longest[j] for j in others for _ in range(per)),
                          reverse=True)
            b += sum(pool[:limit])
        out.append({"spin": 0, "pi": b, "blocked": b})
    return out


def pcp(tasks):
    """Sha, Rajkumar and Lehoczky's bound (1990) under partitioned fixed
    priority (tasks with .prio and .cpu, smaller prio higher): a job is
    blocked for at most one critical section of a lower-priority task of
    its CPU on a resource whose ceiling -- the highest priority of its
    users -- is at least the job's priority. It covers the time the job
    waits suspended while such a task runs and the time it is ready while
    one runs (inheritance pushing through)."""
    use = users(tasks)
    ceil = {r: min(tasks[j].prio for j in who) for r, who in use.items()}
    out = []
    for i, ti in enumerate(tasks):
        b = max((n for tj in tasks if tj.cpu == ti.cpu and tj.prio > ti.prio
                 for r, _, n in tj.cs if ceil[r] <= ti.prio), default=0)
        out.append({"spin": 0, "pi": b, "blocked": b})
    return out


def mpcp(tasks):
    """Rajkumar's MPCP (1990) under partitioned fixed priority, bounded as
    Lakshmanan, de Niz and Rajkumar (RTSS 2009) do; lengths in quanta,
    None for a task whose remote blocking does not converge.

    A global section (a resource used on two CPUs) on CPU c runs at the
    ceiling of the resource's users on other CPUs, above every priority.
    One of task i's global sections on R takes, once it holds R, its length
    plus one global section of every other task of its CPU whose ceiling
    is as high. Remote blocking of a request on R: the least B with
        B = sum over higher-priority users t of R (any CPU) of
              (ceil(B / p_t) + 1) * n_t(R) * resp_t(R)
            + the largest resp_t(R) of a lower-priority user,
    per request. Local blocking, at each of the job's arrivals (its
    release and each return from a suspension): one global section of
    every lower-priority task of its CPU, and one pcp section of a lower
    task on a local resource whose ceiling is at least its priority."""
    use = users(tasks)
    glob = {r: len({tasks[j].cpu for j in who}) > 1 for r, who in use.items()}

    def gceil(r, cpu):
        return min(tasks[j].prio for j in use[r] if tasks[j].cpu != cpu)

    def resp(j, r):
        tj = tasks[j]
        n = max(x for rr, _, x in tj.cs if rr == r)
        mine = gceil(r, tj.cpu)
        for k, tk in enumerate(tasks):
            if k != j and tk.cpu == tj.cpu:
                n += max((x for rr, _, x in tk.cs
                          if glob[rr] and gceil(rr, tk.cpu) <= mine),
                         default=0)
        return n

    def count(j, r):
        return sum(1 for rr, _, _ in tasks[j].cs if rr == r)

    ceil_local = {r: min(tasks[j].prio for j in who)
                  for r, who in use.items()}
    out = []
    for i, ti in enumerate(tasks):
        remote = 0
        for r, _, _ in ti.cs:
            if not glob[r]:
                continue
            others = [j for j in use[r] if j != i]
            lower = max((resp(j, r) for j in others
                         if tasks[j].prio > ti.prio), default=0)
            b, prev = 1, None
            while b != prev:
                prev = b
                b = lower + sum((-(-prev // tasks[j].p) + 1) * count(j, r) *
                                resp(j, r) for j in others
                                if tasks[j].prio < ti.prio)
                if b > 100 * max(ti.p, 1):
                    b = None
                    break
            if b is None:
                remote = None
                break
            remote += b
        local_gcs = sum(max((n for r, _, n in tj.cs if glob[r]), default=0)
                        for tj in tasks
                        if tj.cpu == ti.cpu and tj.prio > ti.prio)
        local_pcp = max((n for tj in tasks
                         if tj.cpu == ti.cpu and tj.prio > ti.prio
                         for r, _, n in tj.cs
                         if not glob[r] and ceil_local[r] <= ti.prio),
                        default=0)
        arrivals = 1 + len(ti.cs)
        local = arrivals * (local_gcs + local_pcp)
        total = None if remote is None else remote + local
        out.append({"spin": 0, "pi": total, "blocked": total})
    return out
