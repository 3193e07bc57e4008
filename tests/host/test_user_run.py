"""The ring-3 programs run: tools/user_run loads each (through lib/elf64)
into a Linux process laid out as lib/rt_abi.h says, answers its system
calls as the kernel would, and reports how it ended, what it wrote and what
it measured. The programs execute on the host CPU in ring 3, so these tests
see their real behaviour: the faults the bad ones raise, the work and the
accounting of the good ones."""
import json
import math
import re
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from args_ref import words as args_words
from conftest import HOST
from user_build import bad_act_index, elf, symbols, trace

KERNEL_ADDRESS = 0xFFFFFFFF80100000
SI_KERNEL = 0x80
FPE_INTDIV = 1
BAD_EXIT = {"bad_kread": 101, "bad_write_other": 102, "bad_exec_data": 103,
            "bad_div0": 104, "bad_syscall_ptr": 105, "bad_ud": 106,
            "bad_gp": 107, "bad_x87": 109, "bad_umip": 110,
            "bad_write_span": 111, "bad_info_text": 112, "bad_info_span": 113,
            "bad_syscall_rsp": 114}
FPE_FLTDIV = 3
SPAN_START = 0xF000000000 - 16      # BAD_SPAN_START (user/lib/bad.h)
BACKTEST_ITERATIONS = 2048


def user_run(name, *args, dump_ws=None):
    runner = HOST / "user_run-fast"
    assert runner.exists(), f"{runner} missing: run `make host`"
    cmd = [str(runner), *map(str, args)]
    if dump_ws:
        cmd += ["--dump-ws", str(dump_ws)]
    proc = subprocess.run(cmd + [str(elf(name))], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def fault_address(name):
    """Address of the instruction that must fault, from the disassembly."""
    code, _, _ = trace(name)
    return code[bad_act_index(name, symbols(elf(name)))][0]


# ---------------------------------------------------------------- measuring
@pytest.mark.parametrize("name", ["spin", "hourglass", "writer"])
def test_hourglass_sees_the_time_it_did_not_get(name):
    """Stopped for 40 ms in the middle of the run, the task counts that as
    one gap at least as long, and its own time leaves room for it."""
    r = user_run(name, "--ms", 120, "--pause-at", 40, "--pause-ms", 40)
    c = r["control"]
    assert r["end"] == "time" and r["console"] == []
    assert r["syscalls"] == {}, "the measuring loop makes no system call"
    assert c["gaps"] >= 1
    assert c["gap_max_cycles"] >= 40 * r["tsc_khz"]
    assert 0 < c["self_cycles"] <= r["elapsed_cycles"] - c["gap_max_cycles"]


def test_hourglass_counts_its_clock_reads():
    c = user_run("hourglass", "--ms", 50)["control"]
    assert c["iterations"] > 1000
    assert c["self_cycles"] >= c["iterations"], "a clock read takes cycles"


# ---------------------------------------------------------------- writer
def cache_line():
    m = re.search(r"clflush size\s*:\s*(\d+)", open("/proc/cpuinfo").read())
    return int(m.group(1))


@pytest.mark.parametrize("ws", [65536, 4096 + 100])
def test_writer_writes_every_line_of_its_working_set_each_pass(tmp_path, ws):
    """Passes P (done) and P + 1 (under way): the first j lines hold P + 1,
    the rest P; bytes between line starts are never written."""
    dump = tmp_path / "ws.bin"
    r = user_run("writer", "--ms", 60, "--ws", ws, dump_ws=dump)
    data = dump.read_bytes()
    assert len(data) == ws
    line = cache_line()
    passes = r["control"]["iterations"]
    assert passes >= 1
    firsts = list(data[::line])
    assert all(b == 0 for i, b in enumerate(data) if i % line), "only line starts"
    done, under_way = passes & 0xFF, (passes + 1) & 0xFF
    j = next((i for i, b in enumerate(firsts) if b != under_way), len(firsts))
    assert firsts[j:] == [done] * (len(firsts) - j), (passes, firsts[:8])


# ---------------------------------------------------------------- backtest
@pytest.mark.parametrize("e,p", [(1, 2), (2, 3), (3, 3), (1, 7)])
def test_backtest_scales_each_job_by_its_weight(e, p):
    jobs = 4
    r = user_run("backtest", "--e", e, "--p", p, "--quantum-us", 500,
                 "--jobs", jobs, "--ws", 16384)
    c = r["control"]
    assert r["end"] == "jobs" and r["console"] == []
    assert r["syscalls"] == {"sleep_next_period": jobs, "time": jobs,
                             "job_info": jobs}
    assert c["jobs_seen"] == jobs
    assert c["iterations"] == jobs * math.ceil(BACKTEST_ITERATIONS * e / p)
    assert c["resp_count"] == jobs and c["lat_count"] == jobs - 1
    assert c["resp_max_ns"] * jobs >= c["resp_sum_ns"] > 0
    assert c["lat_max_ns"] * (jobs - 1) >= c["lat_sum_ns"]


def test_backtest_only_reads_its_array(tmp_path):
    dump = tmp_path / "ws.bin"
    user_run("backtest", "--jobs", 3, "--ws", 8192, dump_ws=dump)
    assert dump.read_bytes() == bytes(8192)


def test_backtest_without_periods_or_array_says_why():
    r = user_run("backtest", "--e", 0, "--p", 0, "--weight", 3)
    assert (r["end"], r["code"]) == ("exit", 2)
    assert r["console"] == ["backtest: sleep_next_period returned -22; a task "
                            "without periods cannot run backtest"]
    r = user_run("backtest", "--ws", 3)
    assert (r["end"], r["code"]) == ("exit", 1)
    assert r["console"] == ["backtest: ws=3 holds no 4-byte integer"]


# ---------------------------------------------------------------- start-up
# ---------------------------------------------------------------- latency
def test_latency_measures_every_release_after_a_sleep():
    """A sample per return from sleep_next_period, none for the first job;
    no other system call than the trace record that gives the sample with
    its job, both taken from the control page's woke_job and
    woke_release_ns (no job_info, which could name a later job): jobs 1 to
    4, and the values are the samples (their sum and maximum are the
    control page's)."""
    jobs = 5
    r = user_run("latency", "--e", 1, "--p", 2, "--quantum-us", 500,
                 "--jobs", jobs)
    c = r["control"]
    assert r["end"] == "jobs" and r["console"] == []
    assert r["syscalls"] == {"sleep_next_period": jobs, "trace": jobs - 1}
    assert [j for j, _ in r["traced"]] == list(range(1, jobs))
    values = [v for _, v in r["traced"]]
    assert (sum(values), max(values)) == (c["lat_sum_ns"], c["lat_max_ns"])
    assert c["lat_count"] == jobs - 1 and c["jobs_seen"] == jobs
    assert c["lat_max_ns"] * (jobs - 1) >= c["lat_sum_ns"]


def test_latency_without_periods_says_why():
    r = user_run("latency", "--e", 0, "--p", 0, "--weight", 3)
    assert r["console"] == ["latency: sleep_next_period returned -22; a task "
                            "without periods has no release to measure from"]
    assert r["control"]["lat_count"] == 0


def test_a_foreign_control_page_is_refused():
    r = user_run("spin", "--magic", 0x1234)
    assert (r["end"], r["code"]) == ("exit", 125)
    assert r["console"] == ["the control page has magic 0x1234 version 1; this "
                            "program was built for magic 0x72746b63 version 1"]


# ---------------------------------------------------------------- bad programs
OTHER_PAGE = 0xFFFF888000042000   # a kernel-half address, as the kernel gives

FAULTS = {
    "bad_kread": ("SEGV", None, KERNEL_ADDRESS),
    "bad_write_other": ("SEGV", None, OTHER_PAGE),
    "bad_exec_data": ("SEGV", None, "data_code"),
    "bad_div0": ("FPE", FPE_INTDIV, "rip"),
    "bad_ud": ("ILL", None, "rip"),
    "bad_gp": ("SEGV", SI_KERNEL, 0),
    # Linux runs x87 errors as #MF too (CR0.NE): SIGFPE at the FWAIT.
    "bad_x87": ("FPE", FPE_FLTDIV, "rip"),
}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_bad_program_faults_at_its_bad_instruction(name):
    r = user_run(name, "--other-page", OTHER_PAGE)
    signal, si_code, addr = FAULTS[name]
    assert r["end"] == "fault", r
    assert r["signal"] == signal
    if si_code is not None:
        assert r["si_code"] == si_code
    rip = fault_address(name) if name != "bad_exec_data" else \
        symbols(elf(name))["data_code"]
    assert r["rip"] == rip
    want = {"rip": rip, "data_code": rip}.get(addr, addr)
    assert r["addr"] == want
    assert len(r["console"]) == 1 and "about to" in r["console"][0]
    assert r["syscalls"] == {"write": 1}


@pytest.mark.parametrize("name,reason", [
    ("bad_syscall_ptr", "write pointer 0xffffffff80100000 + 64"),
    ("bad_write_span", f"write pointer {SPAN_START:#x} + 64"),
    # 64: sizeof(struct rt_job_info), lib/rt_abi.h.
    ("bad_info_text", "job_info pointer 0x8000000010 + 64"),
    ("bad_info_span", f"job_info pointer {SPAN_START:#x} + 64"),
])
def test_bad_pointer_programs_are_killed_for_their_pointer(name, reason):
    """A buffer into kernel memory, one that runs from the stack's top page
    into the unmapped page above, and a destination in the task's read-only
    text: the runner checks the whole range, and for writing where the call
    writes, as the kernel does."""
    r = user_run(name)
    assert r["end"] == "killed"
    assert r["reason"] == reason + " outside the task's pages", r["reason"]
    assert len(r["console"]) == 1 and f"{name}: about to " in \
        r["console"][0], r["console"]


@pytest.mark.parametrize("name,args,extra", [
    ("bad_syscall_ptr", ["--lenient-pointers"],
     ["bad_syscall_ptr: sys_write returned -22"]),
    ("bad_write_span", ["--lenient-pointers"],
     ["bad_write_span: sys_write returned -22"]),
    ("bad_info_text", ["--lenient-pointers"],
     ["bad_info_text: sys_job_info returned -22",
      "bad_info_text: bytes of its text changed: 0"]),
    ("bad_info_span", ["--lenient-pointers"],
     ["bad_info_span: sys_job_info returned -22"]),
    ("bad_exec_data", ["--exec-data"], []),
    ("bad_write_other", ["--other-page", 0xC000000000], []),
])
def test_let_through_says_so_and_exits_with_its_code(name, args, extra):
    """Were the kernel lenient, each bad program would say so and exit with
    its own code."""
    r = user_run(name, *args)
    code = BAD_EXIT[name]
    assert (r["end"], r["code"]) == ("exit", code)
    assert r["console"][1:] == extra + [
        f"{name}: still running: the kernel let it through; exit code {code}"]


def test_bad_syscall_rsp_exits_with_its_stack_in_the_kernel():
    """The exit call works with any stack pointer: the task ends exited,
    code 0, never back from the call."""
    r = user_run("bad_syscall_rsp")
    assert (r["end"], r["code"]) == ("exit", 0), r
    assert r["syscalls"] == {"write": 1, "exit": 1}


@pytest.mark.parametrize("name", ["fpu", "ac_spin"])
def test_fpu_and_ac_spin_run_and_measure_themselves(name):
    """fpu finds its registers as it loaded them at every check (a Linux
    process keeps its FPU state across the host's switches too) and says
    nothing; ac_spin runs with EFLAGS.AC set, which Linux enforces as
    alignment checking (CR0.AM) -- its loop makes no misaligned access."""
    r = user_run(name, "--ms", 40)
    c = r["control"]
    assert r["end"] == "time" and r["console"] == [], r
    assert c["self_cycles"] > 0
    if name == "fpu":
        assert c["iterations"] > 100


def test_bad_write_other_without_a_target_says_so():
    r = user_run("bad_write_other")
    assert (r["end"], r["code"]) == ("exit", 108)
    assert r["console"] == ["bad_write_other: ctl->other_page is 0: no other "
                            "task's page to write"]


@pytest.mark.parametrize("args,message", [
    (["--e", "x"], "user_run: --e x: not a number"),
    (["--ws", str(1 << 40)], "is above RT_WS_MAX"),
    (["--frob"], "unknown argument '--frob'"),
])
def test_runner_names_a_bad_argument(args, message):
    proc = subprocess.run([str(HOST / "user_run-fast"), *args, str(elf("spin"))],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


# ---------------------------------------------------------------- arguments
# Pieces of args= values the model (args_ref.py) takes; no brackets, which
# hello's line puts around each word.
ARG_PIECES = ["a", "-f", "0.5", " ", "\t", "'", "\\\"", "\\\\", "\\'", "#"]


@settings(max_examples=40, deadline=None)
@given(pieces=st.lists(st.sampled_from(ARG_PIECES), max_size=24))
def test_a_program_gets_its_args_as_argv(pieces):
    """argv[0] is the program's name and argv[1..] the words of args=, as
    the model splits them; the frame (argc, argv) is lib/task_args's, the
    kernel's too."""
    raw = "".join(pieces)
    kind, words = args_words('"' + raw + '"')
    if kind != "ok":
        return
    # hello writes its line and spins: the run ends at that write (a time
    # limit alone let a loaded host stop it before the line).
    r = user_run("hello", "--writes", 1, "--ms", 60000, "--args", raw)
    assert r["end"] == "writes", r
    assert r["console"] == ["hello: argc=%d" % (len(words) + 1) +
                            "".join(f" [{w}]" for w in ["hello", *words])]


# ---------------------------------------------------------------- rtspin
def xorshift64(state):
    """Marsaglia's xorshift64 (shifts 13, 7, 17), as a generator."""
    mask = (1 << 64) - 1
    while True:
        state ^= (state << 13) & mask
        state ^= state >> 7
        state ^= (state << 17) & mask
        yield state


def spun(r):
    """rtspin's own time in all, in TSC cycles."""
    return r["control"]["self_cycles"]


def budget_cycles(r, e, quantum_us=1000):
    return e * quantum_us * r["tsc_khz"] // 1000


def test_rtspin_spins_its_fraction_of_each_budget():
    """-f 0.5 of a 2-quantum budget: 6 jobs spin 6 ms of their own time
    (each overshoots by one step at most), and each job ends itself."""
    r = user_run("rtspin", "--e", 2, "--p", 4, "--jobs", 6, "--ms", 2000,
                 "--args", "-f 0.5 -q")
    assert r["end"] == "jobs", r
    want = 6 * budget_cycles(r, 2) // 2
    assert want <= spun(r) <= want * 1.02, (spun(r), want)
    assert r["syscalls"]["end_job"] == 6 and r["control"]["jobs_seen"] == 6
    assert r["syscalls"]["wait_release"] == 1


def test_rtspin_draws_each_jobs_fraction_from_its_range():
    """-r 0.2-0.8 -s 99: job j spins 200000 + x_j mod 600001 millionths of
    its budget, x_j the j-th xorshift64 number from 99."""
    r = user_run("rtspin", "--e", 3, "--p", 4, "--jobs", 5, "--ms", 2000,
                 "--args", "-r 0.2-0.8 -s 99 -q")
    draws = xorshift64(99)
    budget = budget_cycles(r, 3)
    want = sum(budget // 10**6 * share + budget % 10**6 * share // 10**6
               for share in (200000 + next(draws) % 600001 for _ in range(5)))
    assert want <= spun(r) <= want * 1.02, (spun(r), want)


def test_rtspin_touches_its_working_set_line_by_line(tmp_path):
    """-w 8192: one byte of each 64-byte line, round and round: the first
    (steps mod lines) lines one more time than the rest, nothing else
    written."""
    dump = tmp_path / "ws.bin"
    r = user_run("rtspin", "--e", 1, "--p", 2, "--jobs", 3, "--ms", 2000,
                 "--ws", 16384, "--args", "-f 0.3 -w 8192 -q", dump_ws=dump)
    data = dump.read_bytes()
    steps, lines = r["control"]["iterations"], 8192 // 64
    for i in range(lines):
        assert data[i * 64] == (steps // lines + (i < steps % lines)) % 256, i
        assert not any(data[i * 64 + 1:i * 64 + 64])
    assert not any(data[8192:])


def test_rtspin_with_exec_ends_each_job_after_its_quanta():
    """exec=1 (the runner: the job has run every quantum since it began):
    each job ends once a quantum has passed since it could first run, so
    its response is at least that and it made job_info calls to see it."""
    r = user_run("rtspin", "--e", 3, "--p", 4, "--exec", 1, "--jobs", 4,
                 "--ms", 2000)
    assert r["end"] == "jobs", r
    c = r["control"]
    assert c["resp_count"] == 4 and c["resp_sum_ns"] >= 4 * 10**6, c
    assert r["syscalls"]["job_info"] > 4
    assert r["console"] == ["rtspin: each job ends after 1 quanta (exec=), "
                            "touching 0 bytes"]


@pytest.mark.parametrize("args,extra,code,message", [
    ("-f x", (), 2, "rtspin: -f x; usage"),
    ("-r 0.9-0.1", (), 2, "rtspin: -r 0.9-0.1; usage"),
    ("-z 1", (), 2, "rtspin: no option -z"),
    ("-w 99999", (), 3, "is more than the working set, ws=4096"),
    ("-q", ("--p", 0, "--weight", 2), 4, "rtspin: end_job returned -22"),
])
def test_rtspin_names_what_it_cannot_do(args, extra, code, message):
    r = user_run("rtspin", "--args", args, *extra)
    assert (r["end"], r["code"]) == ("exit", code), r
    assert message in r["console"][-1], r["console"]
