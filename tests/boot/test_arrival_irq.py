"""Aperiodic arrivals from device interrupts (issue 13 item 4,
docs/interrupts.md): the self-check `irqcheck=hpet|uart` runs a source with
a callback that records every arrival, and prints it.

- HPET comparator 0 interrupts at the times of the set's `arrivals` and
  `at ... arrive` lines: compared with an independent Python rendering of
  lib/arrival's generator (tests/host/test_arrivals.py): all of them, in
  order, each interrupt at or after its time and not long after.
- Lines typed into COM1 through a socket this test holds: exactly the
  typed jobs arrive, each bad line is named.
- The I/O APIC routing itself: the vector arrives on the CPU it was routed
  to (irq_cpu=1 on -smp 2).
- A machine without an HPET refuses arrivals=hpet and irqcheck=hpet."""
import pathlib
import sys

import pytest

from harness import make_iso, parse_event_schedule, qemu, qemu_com1

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "host"))
from test_arrivals import gaps  # noqa: E402  (the independent generator)

ICOUNT = "shift=3,sleep=off"
SERVERS = ("server S kind=sporadic budget=100 period=1000 prio=0\n"
           "server P kind=polling budget=200 period=5000 prio=1\n")


class ArrivalSet:
    """Two servers, a stream for each (name, rate_hz, cost_us, seed) and
    scripted arrivals (t_us, name, cost_us), up to end_us."""

    def __init__(self, streams, scripted, end_us):
        self.streams, self.scripted, self.end_us = streams, scripted, end_us

    def text(self):
        return SERVERS + "".join(
            [f"arrivals {n} rate_hz={r} cost_us={c} seed={s}\n"
             for n, r, c, s in self.streams] +
            [f"at {t} arrive {n} cost_us={c}\n" for t, n, c in self.scripted])

    def expected(self):
        return expected_arrivals(self.end_us, self.streams, self.scripted)


# About 30 arrivals over 200 ms.
HPET = ArrivalSet((("S", 100, 50, 7), ("P", 50, 120, 11)),
                  ((0, "P", 9), (150000, "S", 33)), 200000)
# Streams whose mean gap (25 us in all) is below QEMU's interrupt latency:
# one interrupt must deliver every arrival due, and an arrival passed
# while its comparator is armed must not wait for the counter to wrap.
# Two scripted arrivals at one time share one interrupt.
DENSE = ArrivalSet((("S", 20000, 5, 3), ("P", 20000, 6, 3)),
                   ((5000, "P", 1), (5000, "S", 2)), 20000)
# Loose: 50 ms, a quarter of the run. What these tests hold is every
# arrival, in order, no earlier than its time and on the CPU routed to.
DELAY_BOUND_NS = 50_000_000


def expected_arrivals(end_us, streams, scripted):
    """lib/arrival's order (arrival.h): by time; at one time the scripted
    ones first (in file order), then the streams in server declaration
    order."""
    out = []
    for order, (name, rate, cost, seed) in enumerate(streams):
        t = 0
        for g in gaps(seed, rate, 100000):
            t += g
            if t > end_us:
                break
            out.append((t, 1, order, name, cost))
    out += [(t, 0, k, name, cost) for k, (t, name, cost) in enumerate(scripted)]
    return [(t, name, cost) for t, _, _, name, cost in sorted(out)]


def hpet_boot(iso_with, tmp_path, machine, smp=2, cpu=None, aset=HPET,
              firmware="bios", extra=""):
    tasks = tmp_path / "hpet.tasks"
    tasks.write_text(aset.text())
    words = f"irqcheck=hpet slots={aset.end_us // 1000} {extra}"
    if cpu is not None:
        words += f" irq_cpu={cpu}"
    # Virtual time: the TSC and the HPET then advance together, where under
    # plain TCG the TSC's time of an interrupt was once 15.6 us before its
    # arrival's on an unloaded host (the calibration's one read of both
    # clocks pairs them only as well as the host lets it).
    return qemu(iso_with(words, tasks=tasks), smp=smp, machine=machine,
                firmware=firmware, icount=ICOUNT, timeout=300)


def check_hpet_arrivals(boot, want, route):
    assert boot.passed, boot.tail()
    got = boot.results("irqarrival")
    assert [(int(a["t_us"]), a["server"], int(a["cost_us"])) for a in got] \
        == want, boot.tail()
    assert [int(a["n"]) for a in got] == list(range(len(want)))
    summary = boot.result("irqcheck")
    assert summary["route"] == route, summary
    assert int(summary["arrivals"]) == int(summary["expected"]) == len(want)
    irq_ns = [int(a["irq_ns"]) for a in got]
    assert irq_ns == sorted(irq_ns), "interrupts out of order"
    for a in got:
        assert 0 <= int(a["delay_ns"]) <= DELAY_BOUND_NS, a
        # The TSC's time of the interrupt: after the arrival's time, but
        # for the TSC's calibration against the HPET (a loaded host's is
        # tens of ppm off: 1000 ppm allowed) and one read of both clocks.
        t_ns = int(a["t_us"]) * 1000
        assert int(a["irq_ns"]) >= t_ns - t_ns // 1000 - 10000, a
    return got


@pytest.mark.parametrize("machine,firmware,route", [
    ("q35", "bios", "gsi23"), ("pc", "bios", "legacy"),
    ("q35", "uefi", "gsi23")])
def test_hpet_arrivals_come_at_the_generated_times(iso_with, tmp_path,
                                                   machine, firmware, route):
    """q35's HPET can drive I/O APIC inputs 16-23 directly; pc's only
    input 2, which the PIT shares, so it goes by the legacy route. And
    the same after OVMF (UEFI) as after SeaBIOS."""
    boot = hpet_boot(iso_with, tmp_path, machine, firmware=firmware)
    got = check_hpet_arrivals(boot, HPET.expected(), route)
    assert {a["cpu"] for a in got} == {"0"}


def test_dense_hpet_arrivals_all_come_in_order(iso_with, tmp_path):
    boot = hpet_boot(iso_with, tmp_path, "q35", aset=DENSE)
    want = DENSE.expected()
    assert len(want) > 500
    got = check_hpet_arrivals(boot, want, "gsi23")
    tied = [a for a in got if a["t_us"] == "5000" and
            int(a["cost_us"]) < 5]
    assert len(tied) == 2 and tied[0]["irq_ns"] == tied[1]["irq_ns"], tied


@pytest.mark.parametrize("machine", ["q35", "pc"])
def test_the_vector_arrives_on_the_cpu_it_was_routed_to(iso_with, tmp_path,
                                                       machine):
    """The I/O APIC entry's destination is CPU 1's APIC ID: every arrival
    is taken there, none on the boot CPU. (arrivals=hpet on a machine that
    has what it needs says which way the interrupts would go.)"""
    boot = hpet_boot(iso_with, tmp_path, machine, cpu=1,
                     extra="arrivals=hpet")
    assert boot.passed, boot.tail()
    route = "gsi23" if machine == "q35" else "legacy"
    assert f"arrivals: HPET comparator 0 by {route} to CPU 1" in boot.serial
    got = boot.results("irqarrival")
    assert len(got) == len(HPET.expected()), boot.tail()
    assert {a["cpu"] for a in got} == {"1"}, boot.tail()
    assert boot.result("irqcheck")["cpu"] == "1"


@pytest.mark.parametrize("words,named", [
    ("irqcheck=hpet slots=50", "irqcheck=hpet needs an HPET"),
    ("arrivals=hpet slots=50", "arrivals=hpet needs an HPET"),
])
def test_no_hpet_is_refused_with_a_message(iso_with, tmp_path, words, named):
    tasks = tmp_path / "hpet.tasks"
    tasks.write_text(HPET.text())
    boot = qemu(iso_with(words, tasks=tasks), smp=1, machine="pc,hpet=off",
                timeout=120)
    assert f"arrivals: {named}, and this machine has none" in boot.serial, \
        boot.tail()
    reason = words.split("=")[0]
    last = [l.strip() for l in boot.serial.splitlines() if l.strip()][-1]
    assert last == f"RESULT exit status=fail reason={reason}", boot.tail()
    assert not boot.results("irqarrival")


def test_an_irq_cpu_that_is_not_online_is_refused(iso_with, tmp_path):
    """And a bad arrivals= value is named, the default kept."""
    tasks = tmp_path / "hpet.tasks"
    tasks.write_text(HPET.text())
    boot = qemu(iso_with("arrivals=hpe irqcheck=hpet irq_cpu=3 slots=50",
                         tasks=tasks), smp=2, timeout=120)
    assert "cmdline: bad value 'arrivals=hpe' (timer, hpet, uart or irq); " \
        "using default timer" in boot.serial, boot.tail()
    assert "arrivals: irqcheck=hpet: interrupts go to CPU 3 (irq_cpu=), " \
        "and 2 CPUs are online" in boot.serial, boot.tail()
    assert not boot.passed


UART_SET = """\
server S kind=polling budget=100 period=1000 prio=0
server S2 kind=sporadic budget=100 period=1000 prio=1
task T e=1 p=10 prio=2
"""
# Typed lines, and what each should give: a job or a message.
TYPED = [
    ("S 300\n", ("S", 300)),
    ("T 5\n", "'T 5': not a server: the task 'T'; ignored"),
    ("X 10\n", "'X 10': the task set has no server named 'X'; ignored"),
    ("S abc\n", "'S abc': cost 'abc' is not a decimal number"),
    ("S 0\n", "'S 0': cost '0' is 0"),
    ("S2 70\r\n", ("S2", 70)),
    ("S 1 2\n", "'S 1 2': '2' after the cost"),
    ("S" * 90 + " 5\n", "longer than 80 characters; ignored"),
    ("\n", None),
    ("  S \t 40  \n", ("S", 40)),
]


def uart_boot(iso, smp, lines, machine="pc", timeout=120):
    """Boots with COM1 on a Unix socket this side listens on: waits for the
    kernel's ready line, types the lines and `!end`, reads to the end."""
    def feed(out, typed):
        if not typed and b"irqcheck: uart ready" in out:
            return "".join(lines).encode() + b"!end\n"
        return None
    return qemu_com1(iso, smp, feed, machine=machine, timeout=timeout)


@pytest.mark.parametrize("machine,cpu", [
    ("pc", 0), ("pc", 1),
    # COM1's I/O APIC input from the MP table's ISA interrupt entries.
    ("pc,acpi=off", 0)])
def test_typed_lines_deliver_exactly_the_typed_jobs(tmp_path, machine, cpu):
    tasks = tmp_path / "uart.tasks"
    tasks.write_text(UART_SET)
    iso = make_iso(tmp_path / "uart.iso", tasks=tasks,
                   cmdline=f"irqcheck=uart slots=60000 irq_cpu={cpu} "
                   "arrivals=uart")
    boot = uart_boot(iso, 2, [line for line, _ in TYPED], machine=machine)
    assert boot.passed, boot.tail()
    assert f"arrivals: typed on COM1, to CPU {cpu}" in boot.serial
    jobs = [want for _, want in TYPED if isinstance(want, tuple)]
    got = boot.results("irqtyped")
    assert [(a["server"], int(a["cost_us"])) for a in got] == jobs, \
        boot.tail()
    assert {a["cpu"] for a in got} == {str(cpu)}, boot.tail()
    irq_ns = [int(a["irq_ns"]) for a in got]
    assert irq_ns == sorted(irq_ns)
    # Each job is acknowledged on the console (no echo in raw mode).
    assert [l.strip() for l in boot.serial.splitlines()
            if l.startswith("uart: arrival ")] == \
        [f"uart: arrival {n} cost_us={c}" for n, c in jobs], boot.tail()
    bad = [want for _, want in TYPED if isinstance(want, str)]
    messages = [l for l in boot.serial.splitlines()
                if l.startswith("uart: bad line ")]
    assert len(messages) == len(bad), boot.tail()
    for m, want in zip(messages, bad):
        assert want in m, (m, want)
    summary = boot.result("irqcheck")
    assert summary == {"source": "uart", "cpu": str(cpu),
                       "arrivals": str(len(jobs)),
                       "bad_lines": str(len(bad)), "ended": "typed"}


# A pfp run fed from the keyboard: a sporadic server over a periodic task.
TYPED_RUN_SET = """\
server S kind=sporadic budget=2000 period=10000 max_repl=4 prio=1
task T e=2 p=10 prio=2
"""
# The last is longer than the budget: it is served across replenishments.
TYPED_RUN_JOBS = [("S", 300), ("S", 120), ("S", 2500), ("S", 45)]


def test_typed_jobs_are_served_in_a_pfp_run(tmp_path):
    """arrivals=uart in a sched=pfp run: each line typed into COM1 -- the
    first once the kernel says COM1 takes jobs for the run, each next one
    once it acknowledged the last -- is a job of its server, served in
    full, with its response time reported from the interrupt
    (docs/interrupts.md, "Typed arrivals"). The first may come in the
    lead before the run's time 0: it arrives at 0 and is not started
    before then, so no job is done in less than its cost."""
    tasks = tmp_path / "typed.tasks"
    tasks.write_text(TYPED_RUN_SET)
    iso = make_iso(tmp_path / "typed.iso", tasks=tasks,
                   cmdline="sched=pfp slots=3000 arrivals=uart")
    lines = [f"{name} {cost}\n".encode() for name, cost in TYPED_RUN_JOBS]

    def feed(out, typed):
        if typed == len(lines):
            return None
        started = b"arrivals: COM1 takes typed jobs for the run" in out
        if started and out.count(b"uart: arrival ") == typed:
            return lines[typed]
        return None

    # -icount: the window check is only exact on virtual time (under a
    # loaded host TCG timers come milliseconds late, docs/servers.md).
    boot = qemu_com1(iso, 1, feed, timeout=180, icount="shift=3,sleep=off")
    assert boot.passed, boot.tail()
    assert [l.strip() for l in boot.serial.splitlines()
            if l.startswith("uart: arrival ")] == \
        [f"uart: arrival {n} cost_us={c}" for n, c in TYPED_RUN_JOBS]
    _, done, arrive, summary = parse_event_schedule(
        boot.serial.splitlines())
    came = [a for a in arrive if a["task"] == "S"]
    assert [(a["job"], a["cost_us"]) for a in came] == \
        [(j, c) for j, (_, c) in enumerate(TYPED_RUN_JOBS)]
    served = {d["job"]: d for d in done if d["task"] == "S"}
    assert sorted(served) == list(range(len(TYPED_RUN_JOBS)))
    for a in came:
        d = served[a["job"]]
        # From the interrupt, which came no later than the plugin heard of
        # the job; at least the job's own work.
        assert d["response_us"] >= d["at_us"] - a["at_us"], (a, d)
        assert d["response_us"] >= a["cost_us"], (a, d)
    server = boot.result("server")
    assert (server["arrivals"], server["jobs"], server["queued"],
            server["dropped"]) == (str(len(TYPED_RUN_JOBS)),
                                   str(len(TYPED_RUN_JOBS)), "0", "0")
    assert int(server["response_max_us"]) == \
        max(d["response_us"] for d in served.values())
    assert summary["servers"]["S"]["jobs"] == len(TYPED_RUN_JOBS)
    assert boot.result("window")["verdict"] == "ok"
