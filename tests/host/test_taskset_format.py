"""The task-set format of FORMATS.md section 1, through the lib/ parser."""
import json
import subprocess

import pytest

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
    ("task T1 e=1 p=2 work=sleep\n", 1, "work=sleep"),
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


def work_names(tmp_path):
    """The work= values the parser takes, from its refusal of one it does
    not."""
    rc, _, err = check(tmp_path, "task T1 e=1 p=2 work=sleep\n")
    assert rc != 0
    return err.split("not one of ", 1)[1].split(", ")


def test_every_work_name_is_a_user_program_and_back(tmp_path):
    programs = sorted(p.stem for p in (ROOT / "user").glob("*.c"))
    assert sorted(work_names(tmp_path)) == programs
    text = "".join(f"task T{i} e=1 p=2 work={w}\n" for i, w in enumerate(programs))
    rc, objs, err = check(tmp_path, text)
    assert rc == 0, err
    assert [o["work"] for o in objs] == programs


def test_misbehaving_programs_of_formats_section_7_are_work_names(tmp_path):
    names = work_names(tmp_path)
    for bad in ("bad_kread", "bad_write_other", "bad_exec_data", "bad_div0",
                "bad_syscall_ptr", "bad_ud", "bad_gp"):
        assert bad in names


@pytest.mark.parametrize("value", ["bad_", "bad_gp2", "BAD_GP", "bad-gp", "spinx"])
def test_near_miss_work_names_are_refused(tmp_path, value):
    rc, objs, err = check(tmp_path, f"task T1 e=1 p=2 work={value}\n")
    assert rc != 0 and objs == []
    assert f"work={value}: not one of spin, writer, backtest, hourglass, bad_kread" in err


def test_limits_accepted(tmp_path):
    name = "a" * 31
    rc, objs, err = check(tmp_path, f"task {name} e=2147483647 p=2147483647 "
                          "phase=2147483647\n")
    assert rc == 0, err
    assert objs[0]["task"] == name and objs[0]["d"] == 2147483647


def test_nul_byte_rejected(tmp_path):
    rc, _, err = check(tmp_path, b"task A e=1 p=2\x00\n")
    assert rc != 0 and "NUL" in err
