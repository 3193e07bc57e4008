"""Independent reference for GDQ (Caprita, Nieh & Stein), written apart from
sched/gdq: weights, feasibility, grouping, and the ideal service against
which a schedule's service error is measured (Sec. 3.1)."""
from fractions import Fraction


def ep_weight(e, p):
    """FORMATS.md section 1: an e/p task has GDQ weight round(e * 2^16 / p)
    (halves round up)."""
    return (e * 65536 + p // 2) // p


def feasible_weights(weights, cpus):
    """Sec. 2.3: the closest feasible assignment (every phi <= Phi_T / P).
    The k largest weights are capped to one value W = floor(rest / (P - k)),
    rest the sum of the others, with k the least count for which the next
    weight already fits; with fewer processes than processors each gets a
    processor, i.e. equal weights."""
    n = len(weights)
    if n < cpus:
        return [1] * n
    order = sorted(range(n), key=lambda i: -weights[i])
    for k in range(cpus):
        rest = sum(weights[i] for i in order[k:])
        cap = rest // (cpus - k)
        if weights[order[k]] <= cap:
            out = list(weights)
            for i in order[:k]:
                out[i] = cap
            return out
    raise AssertionError("no feasible cap found")


def order_of(w):
    """Group order: 2^k <= w < 2^(k+1) (Sec. 2.1)."""
    return w.bit_length() - 1


def groups(weights, cpus):
    """{order: (group weight, floor, ceil of its processor entitlement)}."""
    total = sum(weights)
    out = {}
    for w in weights:
        k = order_of(w)
        out[k] = out.get(k, 0) + w
    return {k: (g, g * cpus // total, -(-g * cpus // total))
            for k, g in out.items()}


def theorem_3_6_bounds(delta, T, g):
    """-2(2 delta + 2) - T <= e <= 2(2 delta + 2) + g T."""
    return -2 * (2 * delta + 2) - T, 2 * (2 * delta + 2) + g * T


def service_errors(rows, names, phi):
    """Yields, after each slot t, {name: e} with e = w - phi * W_T / Phi_T
    (Sec. 3.1): w the quanta the process got in slots 0..t, W_T all quanta
    given. Idle processors give no work, so W_T counts only service given,
    as the paper's W_T (the total work) does."""
    total_phi = sum(phi[n] for n in names)
    work = dict.fromkeys(names, 0)
    given = 0
    for cpus in rows:
        for c in cpus:
            if c is not None:
                work[c] += 1
                given += 1
        yield {n: work[n] - Fraction(phi[n] * given, total_phi)
               for n in names}
