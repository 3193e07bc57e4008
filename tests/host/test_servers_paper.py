"""Exact schedules of the sporadic-server paper's mechanisms (Stanovich,
Baker and Wang), worked out by hand from the rules the paper states: the
replenishment of Fig. 1 (Sec. 2), the polling server (Sec. 2), the toll
(Sec. 3.1), and the replenishment patterns of Figs. 7 and 8 -- a server
whose budget is in four pending replenishments, coalesced into one of the
whole budget when a hybrid detects overload (Sec. 3.3). The figures are
images the text copy does not carry; the scenarios follow their captions
and the text around them. H is a CPU hog below the server (the paper's
hourglass task), so that a server out of budget does not run in the
background."""
from test_pfp import run_pfp

HOG = "task H e=100 p=100 prio=9\n"


def notes(events):
    """Budget events as (time, kind, amount[, due]) tuples."""
    out = []
    for e in events:
        if e["event"] in ("arrive", "done"):
            continue
        amount = e.get("amount_us", e.get("left_us", e.get("pending")))
        out.append((e["at_us"], e["event"], amount) +
                   ((e["due_us"],) if "due_us" in e else ()))
    return out


def responses(events):
    return [(e["at_us"], e["response_us"]) for e in events
            if e["event"] == "done" and "response_us" in e]


def runs(segments):
    return [(s["from_us"], s["to_us"], s["task"]) for s in
            sorted(segments, key=lambda s: s["from_us"])]


def test_fig1_consumed_budget_returns_one_period_after_activation(tmp_path):
    """Sec. 2: "The amount of CPU time consumed is restored to the budget
    one replenishment period in the future, starting from the instant when
    the sporadic server requested CPU time and had budget." B = 300 every
    1000. Job A (100) at 100 runs at once and comes back at 1100. Job B
    (250) arrives at 400 with 200 of budget left, as T (above the server)
    is released: the server requested CPU time and had budget at 400, ran
    from 450, so its 200 come back at 1400, not 1450. Out of budget at 650
    it waits -- H runs -- for the 100 at 1100 to finish B, whose 50 come
    back at 2100."""
    text = ("task T e=1 p=100 phase=8 prio=0\n" + HOG +
            "server S kind=sporadic budget=300 period=1000 prio=1 "
            "max_repl=4\n"
            "at 100 arrive S cost_us=100\nat 400 arrive S cost_us=250\n")
    segments, events, summary = run_pfp(text, 1, 50, tmp_path, quantum=50)
    assert runs(segments) == [
        (0, 100, "H"), (100, 200, "S"), (200, 400, "H"), (400, 450, "T"),
        (450, 650, "S"), (650, 1100, "H"), (1100, 1150, "S"),
        (1150, 2500, "H")]
    assert notes(events) == [
        (200, "posted", 100, 1100),
        (650, "posted", 200, 1400), (650, "exhausted", 0),
        (1100, "replenished", 100),
        (1150, "posted", 50, 2100),
        (1400, "replenished", 200),
        (2100, "replenished", 50)]
    assert responses(events) == [(200, 100), (1150, 750)]
    s = summary["servers"]["S"]
    assert (s["consumed_us"], s["exhaustions"], s["window_ok"]) == \
        (350, 1, None)          # T outranks it: the window bound is T's


def test_polling_server_waits_for_its_period(tmp_path):
    """Sec. 2: a polling server "immediately loses its budget" when no work
    is queued at its period, and gives up the rest when its queue empties;
    a job that arrives just after must wait for the next period. B = 200
    every 1000: the job at 0 is served and the rest given up; the job at
    150 waits until 1000; the one at 1020 gets the 150 left, exhausts it
    at 1200 and finishes in the next period."""
    text = (HOG + "server P kind=polling budget=200 period=1000 prio=0\n"
            "at 0 arrive P cost_us=100\nat 150 arrive P cost_us=50\n"
            "at 1020 arrive P cost_us=300\n")
    segments, events, summary = run_pfp(text, 1, 30, tmp_path, quantum=100)
    assert runs(segments) == [
        (0, 100, "P"), (100, 1000, "H"), (1000, 1200, "P"),
        (1200, 2000, "H"), (2000, 2150, "P"), (2150, 3000, "H")]
    assert notes(events) == [
        (0, "replenished", 200), (1000, "replenished", 200),
        (1200, "exhausted", 0), (2000, "replenished", 200)]
    assert responses(events) == [(100, 100), (1050, 900), (2150, 1130)]
    assert summary["servers"]["P"]["window_ok"] is True


def test_toll_is_charged_only_for_a_preemption(tmp_path):
    """Sec. 3.1: the server is charged "when it actually preempts another
    task". Toll 10, B = 100 every 1000, above H. At 100 it preempts H: 10
    + 50 used. At 200 again: 10, then the 30 left run out at 230. At 1100
    the 60 come back, it preempts H once more (10) and finishes the job's
    last 20. On an idle CPU (no H) the same jobs pay nothing."""
    server = ("server S kind=sporadic budget=100 period=1000 prio=0 "
              "toll_us=10\nat 100 arrive S cost_us=50\n"
              "at 200 arrive S cost_us=50\n")
    segments, events, summary = run_pfp(HOG + server, 1, 25, tmp_path,
                                        quantum=100)
    assert notes(events) == [
        (100, "toll", 10), (150, "posted", 60, 1100),
        (200, "toll", 10), (230, "posted", 40, 1200),
        (230, "exhausted", 0),
        (1100, "replenished", 60), (1100, "toll", 10),
        (1120, "posted", 30, 2100),
        (1200, "replenished", 40), (2100, "replenished", 30)]
    s = summary["servers"]["S"]
    assert (s["tolls"], s["toll_us"], s["consumed_us"]) == (3, 30, 130)
    _, events, summary = run_pfp(server, 1, 25, tmp_path, quantum=100)
    assert summary["servers"]["S"]["tolls"] == 0
    assert notes(events) == [(150, "posted", 50, 1100),
                             (250, "posted", 50, 1200),
                             (1100, "replenished", 50),
                             (1200, "replenished", 50)]


# Figs. 7 and 8: four jobs of 100 every 200 from 0, then one of 150 at 600,
# against B = 400 every 1000 with max_repl = 4: the budget ends up in four
# pending replenishments of 100 (Fig. 7), and the 150 exhaust the last
# 100 at 700 with 50 of work left -- the overload the hybrid detects.
FIG7 = "".join(f"at {t} arrive S cost_us={c}\n"
               for t, c in ((0, 100), (200, 100), (400, 100), (600, 150)))


def server(kind, extra=""):
    return (HOG + f"server S kind={kind} budget=400 period=1000 prio=0 "
            f"max_repl=4 {extra}\n" + FIG7)


BEFORE = [(100, "posted", 100, 1000), (300, "posted", 100, 1200),
          (500, "posted", 100, 1400), (700, "posted", 100, 1600),
          (700, "exhausted", 0)]


def test_fig7_sporadic_keeps_four_replenishments(tmp_path):
    """Fig. 7: the sporadic server with max_repl >= 4 keeps its four
    replenishments. At 1000 the first 100 finishes the job (50) and the 50
    left cannot be kept: with four pending the post takes them along
    (max_repl), so nothing runs until 1200."""
    segments, events, _ = run_pfp(server("sporadic"), 1, 30, tmp_path,
                                  quantum=100)
    assert notes(events) == BEFORE + [
        (1000, "replenished", 100), (1050, "posted", 100, 2000),
        (1200, "replenished", 100), (1400, "replenished", 100),
        (1600, "replenished", 100), (2000, "replenished", 100)]
    assert responses(events)[-1] == (1050, 450)


def test_fig8_immediate_coalescing(tmp_path):
    """Fig. 8: at the overload the hybrid coalesces all four into the
    latest, one replenishment of the whole budget at 1600, and polls
    (max_repl = 1); blocking at 1650 with budget left is light load, and
    the 50 used come back alone at 2600."""
    segments, events, summary = run_pfp(
        server("hybrid", "coalesce=immediate"), 1, 30, tmp_path, quantum=100)
    assert notes(events) == BEFORE + [
        (700, "coalesced", 1),
        (1600, "replenished", 400), (1650, "posted", 50, 2600),
        (2600, "replenished", 50)]
    assert runs(segments)[-3:] == [(700, 1600, "H"), (1600, 1650, "S"),
                                   (1650, 3000, "H")]
    assert responses(events)[-1] == (1650, 1050)
    s = summary["servers"]["S"]
    assert (s["coalesces"], s["max_pending"], s["window_ok"]) == \
        (1, 4, True)


def test_gradual_coalescing_merges_two(tmp_path):
    """Sec. 3.3, gradual: the overload merges only the two earliest
    replenishments (200 at 1200) and allows three; the job finishes at
    1250 and the later replenishments arrive as before."""
    _, events, _ = run_pfp(server("hybrid", "coalesce=gradual"), 1, 30,
                           tmp_path, quantum=100)
    assert notes(events) == BEFORE + [
        (700, "coalesced", 3),
        (1200, "replenished", 200), (1250, "posted", 50, 2200),
        (1400, "replenished", 100), (1600, "replenished", 100),
        (2200, "replenished", 50)]
    assert responses(events)[-1] == (1250, 650)


def test_sched_fifo_order_within_a_priority(tmp_path):
    """SCHED_FIFO: of two tasks of one priority the one ready first runs;
    a preempted one keeps its place at the head. A and B (prio 1) both
    released at 0: A first (file order); S preempts A at 100; A resumes
    before B."""
    text = ("task A e=3 p=10 prio=1\ntask B e=2 p=10 prio=1\n"
            "server S kind=sporadic budget=50 period=1000 prio=0\n"
            "at 100 arrive S cost_us=50\n")
    segments, _, _ = run_pfp(text, 1, 10, tmp_path, quantum=100)
    assert runs(segments) == [(0, 100, "A"), (100, 150, "S"),
                              (150, 350, "A"), (350, 550, "B")]
