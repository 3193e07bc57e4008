"""The task-set format (docs/formats.md, "Task files"), through the lib/
parser; program names, args= and exec= (docs/user-programs.md) against the
independent model of args_ref.py."""
import json
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from args_ref import work_ok, words as args_words
from conftest import ROOT, host_tool


def check(tmp_path, text, name="set.tasks"):
    f = tmp_path / name
    f.write_bytes(text.encode() if isinstance(text, str) else text)
    proc = subprocess.run([str(host_tool("taskset_check")), str(f)],
                          capture_output=True, text=True, timeout=60)
    objs = [json.loads(line) for line in proc.stdout.splitlines()]
    return proc.returncode, objs, proc.stderr.strip()


def test_example_from_formats(tmp_path):
    rc, objs, err = check(tmp_path, """\
# name      budget  period  [deadline] [phase]  -- units: quanta (slots)
task T1 e=1 p=2
task T2 e=2 p=3 d=3 phase=0
task C7 weight=12          # proportional share only (GDQ)
\ttask\tW1 e=3 p=10 work=writer ws=65536\r
""")
    assert rc == 0, err
    assert objs == [
        {"task": "T1", "e": 1, "p": 2, "d": 2, "phase": 0, "weight": 0,
         "work": "spin", "ws": 4096},
        {"task": "T2", "e": 2, "p": 3, "d": 3, "phase": 0, "weight": 0,
         "work": "spin", "ws": 4096},
        {"task": "C7", "e": 0, "p": 0, "d": 0, "phase": 0, "weight": 12,
         "work": "spin", "ws": 4096},
        {"task": "W1", "e": 3, "p": 10, "d": 10, "phase": 0, "weight": 0,
         "work": "writer", "ws": 65536},
    ]


def test_events(tmp_path):
    rc, objs, err = check(tmp_path, """\
task A e=1 p=2
at 3 block A
at 5 wake A
at 7 leave A
at 9 join A
""")
    assert rc == 0, err
    assert [o for o in objs if "at" in o] == [
        {"at": 3, "event": "block", "task": "A"},
        {"at": 5, "event": "wake", "task": "A"},
        {"at": 7, "event": "leave", "task": "A"},
        {"at": 9, "event": "join", "task": "A"},
    ]


LONG = "x" * 32
ERRORS = [
    ("task T1 e=1 p=2\ntask T1 e=1 p=3\n", 2, "used twice"),
    # The earliest error wins: a name's second use before a bad line, a bad
    # line before it, and of two names used twice the one repeated first.
    ("task A e=1 p=2\ntask B e=1 p=2\ntask A e=1 p=2\nbogus\n", 3,
     "task name 'A' is used twice (first on line 1)"),
    ("task A e=1 p=2\nbogus\ntask A e=1 p=2\n", 2, "unknown declaration"),
    ("task B e=1 p=2\ntask A e=1 p=2\ntask A e=1 p=2\ntask B e=1 p=2\n"
     "task A e=1 p=2\n", 3, "task name 'A' is used twice (first on line 2)"),
    ("task T1 e=1 p=2 q=3\n", 1, "unknown key 'q'"),
    ("task T1 e= p=2\n", 1, "key 'e' has no value"),
    ("task T1 e p=2\n", 1, "'e' is not key=value"),
    ("task T1 e=1 e=1 p=2\n", 1, "key 'e' given twice"),
    ("task T1 e=3 p=2\n", 1, "e=3 is greater than p=2"),
    ("task T1 e=3 p=5 d=2\n", 1, "e=3 is greater than d=2"),
    ("task T1 e=0 p=5\n", 1, "e=0 must be at least 1"),
    ("task T1 e=1 p=2147483648\n", 1, "out of range"),
    ("task T1 e=1 p=99999999999999999999999\n", 1, "out of range"),
    ("task T1 e=1 p=-2\n", 1, "not a decimal number"),
    ("task T1 e=1 p=2x\n", 1, "not a decimal number"),
    ("task T1 p=2\n", 1, "has no e="),
    ("task T1 e=2\n", 1, "has no p="),
    ("task T1 weight=2 e=1 p=2\n", 1, "both weight= and e="),
    ("task T1 weight=0\n", 1, "weight=0 must be at least 1"),
    ("task T1 e=1 p=2 work=2fast\n", 1,
     "work=2fast: a program name is letters, digits"),
    ("task T1 e=1 p=2 work=a.b\n", 1, "work=a.b: a program name"),
    ("task T1 e=1 p=2 work=" + "w" * 32 + "\n", 1, "at most 31 characters"),
    ("task T1 e=1 p=2 args=-v\n", 1, "the value goes in double quotes"),
    ('task T1 e=1 p=2 args="a b\n', 1, "has no closing double quote"),
    ('task T1 e=1 p=2 args="a"b\n', 1, "a quoted value ends its word"),
    ('task T1 e=1 p=2 args="it\'s\n"\n', 1, "no closing double quote"),
    ('task T1 e=1 p=2 args="\\n"\n', 1, "a backslash before something"),
    ("task T1 e=1 p=2 args=\"'a\"\n", 1, "a single quote that is not closed"),
    ('task T1 e=1 p=2 args="' + "x " * 33 + '"\n', 1, "more than 32 arguments"),
    ("task T1 e=2 p=4 exec=3\n", 1, "exec=3 is greater than e=2"),
    ("task T1 weight=2 exec=1\n", 1, "exec= is for tasks given e= and p="),
    (f"task {LONG} e=1 p=2\n", 1, "longer than 31"),
    ("task T/1 e=1 p=2\n", 1, "character '/'"),
    ("task\n", 1, "needs a name"),
    ("tsak T1 e=1 p=2\n", 1, "unknown declaration 'tsak'"),
    ("task T1 e=1 p=2 " + "#" * 250 + "\n", 1, "at most 255"),
    ("# nothing\n\n", None, "no task declared"),
    ("task A e=1 p=2\nat 5 wake A\n", 2, "cannot wake at 5: it is present"),
    ("task A e=1 p=2\nat 5 join A\n", 2, "cannot join"),
    ("task A e=1 p=2\nat 5 leave A\nat 6 block A\n", 3, "cannot block"),
    ("task A e=1 p=2\nat 5 leave B\n", 2, "'B', which is not declared"),
    ("task A e=1 p=2\nat 5 leave A\nat 4 join A\n", 3, "time order"),
    ("task A e=1 p=2\nat 5 stop A\n", 2, "unknown event 'stop'"),
    ("task A e=1 p=2\nat 5 leave\n", 2, "an event is"),
]


@pytest.mark.parametrize("text,line,reason", ERRORS)
def test_errors_name_file_line_and_reason(tmp_path, text, line, reason):
    rc, objs, err = check(tmp_path, text, "bad.tasks")
    assert rc != 0
    assert objs == [], "nothing from a file with an error is applied"
    prefix = str(tmp_path / "bad.tasks") + (f":{line}:" if line else ":")
    assert err.startswith(prefix), err
    assert reason in err, err


def test_every_program_of_user_is_a_work_name(tmp_path):
    programs = sorted(p.stem for p in (ROOT / "user").glob("*.c"))
    assert all(work_ok(p) for p in programs), programs
    text = "".join(f"task T{i} e=1 p=2 work={w}\n" for i, w in enumerate(programs))
    rc, objs, err = check(tmp_path, text)
    assert rc == 0, err
    assert [o["work"] for o in objs] == programs


NAME_CHARS = "aZ09_-.!/é"


@settings(max_examples=150, deadline=None)
@given(name=st.text(alphabet=NAME_CHARS, min_size=1, max_size=34))
def test_any_well_formed_program_name_is_taken(tmp_path_factory, name):
    """work= takes a name exactly when the model does, and keeps it; the
    set names no program yet (the build and the kernel check that)."""
    tmp = tmp_path_factory.mktemp("work")
    if name.startswith("#"):
        return
    rc, objs, err = check(tmp, f"task T1 e=1 p=2 work={name}\n")
    if work_ok(name):
        assert rc == 0 and objs[0]["work"] == name, err
    else:
        assert rc != 0 and "work=" in err, (name, err)


def test_works_lists_each_task_with_its_program(tmp_path):
    f = tmp_path / "w.tasks"
    f.write_text("task A e=1 p=2 work=mine\n# x\nserver S kind=polling "
                 "budget=1 period=4 prio=1\ntask B weight=1\n")
    proc = subprocess.run([str(host_tool("taskset_check")), "--works", str(f)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["1 A mine", "3 S spin", "4 B spin"]


def test_args_and_exec_are_kept(tmp_path):
    rc, objs, err = check(tmp_path, """\
task A e=3 p=6 work=rtspin args="-f 0.5 'two words' \\"q\\" ''" exec=2 # x
task B e=1 p=2 args=""
""")
    assert rc == 0, err
    assert objs[0]["args"] == ["-f", "0.5", "two words", '"q"', ""]
    assert objs[0]["exec"] == 2
    assert "args" not in objs[1] and "exec" not in objs[1]


# Pieces of an args= value: plain text, blanks, single quotes, escapes
# (good and bad), '#'. What follows the value (tail) is a word's end or
# not; an unescaped double quote inside would start the line's next word.
PIECES = ["a", "bc", " ", "\t", "'", '\\"', "\\\\", "\\'", "#", "\\x", "-"]


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=40),
       close=st.booleans(), tail=st.sampled_from(["", " ws=8", "x", "# c"]))
def test_args_split_as_the_model_says(tmp_path_factory, pieces, close, tail):
    rest = '"' + "".join(pieces) + ('"' if close else "") + tail
    tmp = tmp_path_factory.mktemp("args")
    rc, objs, err = check(tmp, f"task T1 e=1 p=2 args={rest}\n")
    kind, want = args_words(rest)
    if kind == "ok":
        assert rc == 0, (rest, err)
        assert objs[0].get("args", []) == want, rest
    else:
        assert rc != 0 and want in err, (rest, want, err)


def test_limits_accepted(tmp_path):
    name = "a" * 31
    rc, objs, err = check(tmp_path, f"task {name} e=2147483647 p=2147483647 "
                          "phase=2147483647\n")
    assert rc == 0, err
    assert objs[0]["task"] == name and objs[0]["d"] == 2147483647


def test_nul_byte_rejected(tmp_path):
    rc, _, err = check(tmp_path, b"task A e=1 p=2\x00\n")
    assert rc != 0 and "NUL" in err


def test_servers_arrivals_and_priorities(tmp_path):
    """docs/formats.md, "`server` lines": servers, their arrival generators, scripted
    arrivals (TIME in microseconds) and prio=/cpu= of tasks."""
    rc, objs, err = check(tmp_path, """\
task T1 e=1 p=2 prio=3 cpu=1
at 7 arrive S cost_us=20
server S kind=sporadic budget=1000 period=10000 prio=1 toll_us=10
server H kind=hybrid budget=500 period=5000 prio=2 coalesce=gradual max_repl=4 cpu=2
server P kind=polling budget=10 period=100 prio=0
server Q kind=hybrid budget=5 period=9 prio=4
arrivals S rate_hz=500 cost_us=8 seed=3
arrivals P rate_hz=20 cost_us=2
at 3 block T1
at 5 wake T1
at 7 arrive P cost_us=1
""")
    assert rc == 0, err
    assert objs == [
        {"task": "T1", "e": 1, "p": 2, "d": 2, "phase": 0, "weight": 0,
         "work": "spin", "ws": 4096, "prio": 3, "cpu": 1},
        {"server": "S", "kind": "sporadic", "budget_us": 1000,
         "period_us": 10000, "prio": 1, "cpu": 0, "max_repl": 100,
         "toll_us": 10,
         "arrivals": {"rate_hz": 500, "cost_us": 8, "seed": 3}},
        {"server": "H", "kind": "hybrid", "budget_us": 500,
         "period_us": 5000, "prio": 2, "cpu": 2, "max_repl": 4,
         "toll_us": 0, "coalesce": "gradual"},
        {"server": "P", "kind": "polling", "budget_us": 10,
         "period_us": 100, "prio": 0, "cpu": 0, "max_repl": 0,
         "toll_us": 0, "arrivals": {"rate_hz": 20, "cost_us": 2, "seed": 1}},
        {"server": "Q", "kind": "hybrid", "budget_us": 5, "period_us": 9,
         "prio": 4, "cpu": 0, "max_repl": 100, "toll_us": 0,
         "coalesce": "immediate"},
        {"at_us": 7, "arrive": "S", "cost_us": 20},
        {"at": 3, "event": "block", "task": "T1"},
        {"at": 5, "event": "wake", "task": "T1"},
        {"at_us": 7, "arrive": "P", "cost_us": 1},
    ]


SERVER = "server S kind=sporadic budget=10 period=100 prio=1\n"
SERVER_ERRORS = [
    ("server S kind=sporadic budget=10 period=100\n", 1, "has no prio="),
    ("server S budget=10 period=100 prio=1\n", 1, "has no kind="),
    ("server S kind=deferrable budget=1 period=2 prio=1\n", 1,
     "kind=deferrable: not one of sporadic, polling, hybrid"),
    ("server S kind=sporadic budget=20 period=10 prio=1\n", 1,
     "budget=20 is greater than period=10"),
    ("server S kind=polling budget=1 period=2 prio=1 max_repl=3\n", 1,
     "max_repl= is for sporadic and hybrid"),
    ("server S kind=sporadic budget=1 period=2 prio=1 coalesce=gradual\n", 1,
     "coalesce= is for kind=hybrid only"),
    ("server S kind=hybrid budget=1 period=2 prio=1 coalesce=soon\n", 1,
     "coalesce=soon: not one of immediate, gradual"),
    ("server S kind=sporadic budget=1 period=2 prio=1 max_repl=0\n", 1,
     "max_repl=0 must be at least 1"),
    ("server S kind=sporadic budget=1 period=2 prio=1 max_repl=4097\n", 1,
     "max_repl=4097 is above 4096"),
    ("server S kind=sporadic budget=0 period=2 prio=1\n", 1,
     "budget=0 must be at least 1"),
    ("task S e=1 p=2\n" + SERVER, 2, "'S' is used twice (first on line 1)"),
    ("server\n", 1, "'server' needs a name"),
    ("arrivals S rate_hz=5 cost_us=1\n" + SERVER, 1,
     "arrivals names 'S', which is not declared above"),
    ("task T e=1 p=2\narrivals T rate_hz=5 cost_us=1\n", 2,
     "'T', which is a task, not a server"),
    (SERVER + "arrivals S cost_us=1\n", 2, "'arrivals S' has no rate_hz="),
    (SERVER + "arrivals S rate_hz=0 cost_us=1\n", 2,
     "rate_hz=0 must be at least 1"),
    (SERVER + "arrivals S rate_hz=1 cost_us=1\narrivals S rate_hz=2 cost_us=1\n",
     3, "second 'arrivals' line (the first is line 2)"),
    (SERVER + "at 5 arrive S\n", 2, "an arrival is 'at TIME arrive SERVER"),
    (SERVER + "at 5 arrive S size=3\n", 2, "unknown key 'size'"),
    (SERVER + "at 5 arrive S cost_us=0\n", 2, "cost_us=0 must be at least 1"),
    (SERVER + "at 5 arrive T cost_us=1\n", 2,
     "arrive names 'T', which is not declared"),
    (SERVER + "task T e=1 p=2\nat 5 arrive T cost_us=1\n", 3,
     "'T', which is a task, not a server"),
    (SERVER + "at 9 arrive S cost_us=1\nat 8 arrive S cost_us=1\n", 3,
     "arrival at 8 us comes after one at 9 us"),
    (SERVER + "at 5 block S\n", 2, "'S' is a server: servers take only"),
    ("task T e=1 p=2 prio=x\n", 1, "prio=x: not a decimal number"),
    ("stream S\n", 1, "expected 'task', 'server', 'arrivals', 'at' or 'resource'"),
]


@pytest.mark.parametrize("text,line,reason", SERVER_ERRORS)
def test_server_errors_name_file_line_and_reason(tmp_path, text, line,
                                                 reason):
    test_errors_name_file_line_and_reason(tmp_path, text, line, reason)


def test_arrivals_and_quanta_events_are_ordered_apart(tmp_path):
    """Arrival times are microseconds and the other events' quanta: each
    kind is in time order on its own."""
    rc, objs, err = check(tmp_path, SERVER + "task T e=1 p=2\n"
                          "at 500 arrive S cost_us=1\nat 3 block T\n"
                          "at 600 arrive S cost_us=2\nat 4 wake T\n")
    assert rc == 0, err
    assert [o.get("at_us", o.get("at")) for o in objs[2:]] == [500, 3, 600, 4]


def test_quantum_schedulers_refuse_servers(tmp_path):
    """A set with servers is pfp's: every other scheduler names the first
    server instead of treating it as a task."""
    f = tmp_path / "s.tasks"
    f.write_text("task T e=1 p=2\n" + SERVER)
    for sched in ("pd2", "spd2", "gdq", "gedf", "pedf"):
        proc = subprocess.run([str(host_tool("schedsim")), "--sched", sched,
                               "--cpus", "2", "--slots", "4", str(f)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1
        assert f"server S (line 2): {sched} schedules no servers" in \
            proc.stderr, proc.stderr
