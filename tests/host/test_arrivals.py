"""Aperiodic arrivals (lib/arrival.c, docs/formats.md): `arrivals`
lines are Poisson streams drawn in integer arithmetic, so that the kernel
draws the same times as the simulator. Checked through the arrive events
schedsim prints: the exact times against a Python rendering of the
documented method, the distribution against the exponential law, and the
merge with scripted arrivals."""
import math

from test_pfp import run_pfp

MASK = (1 << 64) - 1
LN2_Q64 = 0xb17217f7d1cf79ab


def seed_state(seed):
    """splitmix64's finaliser (lib/arrival.h)."""
    z = (seed + 0x9e3779b97f4a7c15) & MASK
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    z ^= z >> 31
    return z or 0x9e3779b97f4a7c15


def xorshift64(x):
    x ^= (x << 13) & MASK
    x ^= x >> 7
    x ^= (x << 17) & MASK
    return x


def log2_q32(v):
    """log2(v) to 32 fractional bits, rounded down, by repeated squaring."""
    k = v.bit_length() - 1
    y = v << (62 - k)
    frac = 0
    for i in range(31, -1, -1):
        y = (y * y) >> 62
        if y >= 1 << 63:
            y >>= 1
            frac |= 1 << i
    return k << 32 | frac


def gaps(seed, rate_hz, n):
    state, out = seed_state(seed), []
    for _ in range(n):
        state = xorshift64(state)
        v = (state >> 11) + 1
        minus_ln = (((53 << 32) - log2_q32(v)) * LN2_Q64) >> 64
        mean = (1000000 << 32) // rate_hz
        out.append((minus_ln * mean + (1 << 63)) >> 64)
    return out


def test_log2_is_within_one_unit_of_the_truth():
    for v in (1, 2, 3, 5, 1000, 123456789, 2 ** 52 + 12345, 2 ** 53):
        exact = math.log2(v) * 2 ** 32
        assert exact - 2 <= log2_q32(v) <= exact + 1e-6


def arrive_times(text, tmp_path, slots=1000):
    _, events, summary = run_pfp(text, 1, slots, tmp_path, quantum=1000)
    return [(e["at_us"], e["task"], e["cost_us"]) for e in events
            if e["event"] == "arrive"], summary


def test_generated_times_are_the_documented_stream(tmp_path):
    text = ("server S kind=polling budget=10 period=100 prio=0\n"
            "arrivals S rate_hz=3000 cost_us=2 seed=7\n")
    got, _ = arrive_times(text, tmp_path, slots=50)
    t, want = 0, []
    for g in gaps(7, 3000, len(got) + 1):
        t += g
        if t > 50000:
            break
        want.append((t, "S", 2))
    assert got == want and len(got) > 100


def test_gaps_follow_the_exponential_law(tmp_path):
    """20 s at 2000 Hz: about 40000 gaps of mean 500 us; the sample mean
    within 2 %, and the share of gaps above the mean near e^-1."""
    text = ("server S kind=sporadic budget=10 period=100 prio=0\n"
            "arrivals S rate_hz=2000 cost_us=1 seed=3\n")
    got, summary = arrive_times(text, tmp_path, slots=20000)
    times = [t for t, _, _ in got]
    d = [b - a for a, b in zip([0] + times, times)]
    mean = sum(d) / len(d)
    assert abs(mean - 500) < 10
    above = sum(1 for x in d if x > mean) / len(d)
    assert abs(above - math.exp(-1)) < 0.01
    assert summary["servers"]["S"]["arrivals"] == len(d)


def test_seeds_and_scripted_arrivals(tmp_path):
    """The same seed draws the same stream, another seed another; scripted
    arrivals merge in time order, first at a tie; two generated streams
    merge by time (the earlier-declared server first at a tie)."""
    base = ("server A kind=polling budget=10 period=100 prio=0\n"
            "server B kind=polling budget=10 period=100 prio=1\n")
    one, _ = arrive_times(base + "arrivals A rate_hz=500 cost_us=1 seed=4\n"
                          "arrivals B rate_hz=500 cost_us=2 seed=4\n",
                          tmp_path, slots=100)
    a = [x for x in one if x[1] == "A"]
    b = [x for x in one if x[1] == "B"]
    assert [t for t, _, _ in a] == [t for t, _, _ in b]
    assert one == sorted(one, key=lambda x: (x[0], x[1]))
    other, _ = arrive_times(base + "arrivals A rate_hz=500 cost_us=1 seed=5\n",
                            tmp_path, slots=100)
    assert [t for t, _, _ in other] != [t for t, _, _ in a]
    first = a[0][0]
    mixed, _ = arrive_times(base + "arrivals A rate_hz=500 cost_us=1 seed=4\n"
                            f"at 0 arrive B cost_us=9\n"
                            f"at {first} arrive B cost_us=8\n",
                            tmp_path, slots=100)
    assert mixed[:3] == [(0, "B", 9), (first, "B", 8), (first, "A", 1)]
