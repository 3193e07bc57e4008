"""`make run`, `debug` and `bochs` as a user types them (docs/running.md):
the timing mode reaches QEMU and the kernel, and wrong use is refused
before anything is built, naming what was wrong. `make -n` shows what
would run without booting."""
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT


# What a parent make hands its children: under `make test` these made the
# make below a sub-make (MAKELEVEL 1), which skips the command line's
# checks, and the test then saw none of them. A user types make at a shell.
PARENT_MAKE = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")


def make(*args, dry=True):
    cmd = ["make", "--no-print-directory", *(["-n"] if dry else []), *args]
    env = {k: v for k, v in os.environ.items() if k not in PARENT_MAKE}
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL, env=env)


def boot_line(out, script):
    lines = [l for l in out.splitlines() if f"scripts/{script}" in l
             and "mkiso" not in l]
    assert len(lines) == 1, out
    return lines[0]


def iso_words(out):
    m = re.search(r'scripts/mkiso\.sh \S+ --cmdline "([^"]*)"', out)
    assert m, out
    return m.group(1).split()


@pytest.mark.parametrize("goal,script", [("run", "run-qemu.sh"),
                                         ("debug", "debug.sh")])
def test_virtual_time_is_the_default_and_reaches_qemu_and_kernel(goal,
                                                                 script):
    p = make(goal)
    assert p.returncode == 0, p.stderr
    assert "ICOUNT=shift=3,sleep=off" in boot_line(p.stdout, script)
    assert iso_words(p.stdout) == ["sched=spd2", "timing=virtual"]


def test_make_debug_with_the_kernel_stub_runs_on_virtual_time():
    """The kernel's stub, then `continue`: the run must be the plugin's,
    which plain TCG on a busy host is not (docs/running.md, "Debugging")."""
    p = make("debug", "STUB=kernel", "SLOTS=50")
    assert p.returncode == 0, p.stderr
    line = boot_line(p.stdout, "debug.sh")
    assert "ICOUNT=shift=3,sleep=off" in line and "STUB=kernel" in line
    assert iso_words(p.stdout) == ["sched=spd2", "slots=50", "timing=virtual",
                                   "gdb=wait"]


@pytest.mark.parametrize("args,icount,timing", [
    (("TIMING=real",), "", "real"),
    (("ACCEL=kvm",), "", "real"),
    (("TIMING=virtual", "SCHED=gedf", "SLOTS=40"), "shift=3,sleep=off",
     "virtual"),
])
def test_timing_real_is_plain_tcg_or_kvm(args, icount, timing):
    p = make("run", *args)
    assert p.returncode == 0, p.stderr
    assert f"ICOUNT={icount} " in boot_line(p.stdout, "run-qemu.sh")
    assert f"timing={timing}" in iso_words(p.stdout)


def test_bochs_takes_the_timing_mode():
    p = make("bochs", "TIMING=real")
    assert p.returncode == 0, p.stderr
    assert "TIMING=real" in boot_line(p.stdout, "run-bochs.sh")


@pytest.mark.parametrize("args,message", [
    (("SHED=gedf", "SLOTS=40"),
     "SHED is not a variable of this Makefile: did you mean SCHED"),
    (("sched=gedf",), "sched is not a variable of this Makefile: did you "
                      "mean SCHED?"),
    (("SLOT=40",), "SLOT is not a variable of this Makefile: did you mean "
                   "SLOTS?"),
    (("TIME=real",), "TIME is not a variable of this Makefile: did you mean "
                     "TIMING?"),
    (("SMP=0",), "SMP must be a number of CPUs from 1 to 255, not '0'"),
    (("SMP=256",), "SMP must be a number of CPUs from 1 to 255, not '256'"),
    (("SMP=four",), "SMP must be a number of CPUs from 1 to 255, not 'four'"),
    (("SLOTS=0",), "SLOTS must be a number of quanta from 1 to 1000000"),
    (("TIMING=fast",), "TIMING must be virtual or real, not 'fast'"),
    (("ACCEL=kvm", "TIMING=virtual"), "TIMING=virtual needs TCG"),
    (("TASKS=no/such.tasks",), "TASKS=no/such.tasks: no such file"),
])
def test_wrong_use_is_refused_before_anything_is_built(args, message):
    p = make("run", *args)
    assert p.returncode == 2, p.stdout
    assert message in p.stderr, p.stderr
    # Refused while make read its files: nothing was run or printed.
    assert "mkiso" not in p.stdout and "ensure-deps" not in p.stdout


def test_an_unknown_far_variable_is_named_and_ignored():
    p = make("run", "FROBNICATE=1")
    assert p.returncode == 0, p.stderr
    assert "make: note: FROBNICATE is not a variable of this Makefile; it " \
        "changes nothing" in p.stdout


def known_vars():
    """KNOWN_VARS as the top Makefile lists it."""
    text = (ROOT / "Makefile").read_text()
    m = re.search(r"^KNOWN_VARS := ((?:.*\\\n)*.*)$", text, re.M)
    return set(m.group(1).replace("\\\n", " ").split())


# Given only on a sub-make's command line (`make run` calls `make
# boot-run RUN_GOAL=run`), where the check does not run.
INTERNAL_VARS = {"RUN_GOAL"}


def test_every_variable_make_reads_or_the_readme_names_is_known():
    """A variable the makefiles take from the command line (`NAME ?=`) or
    the README's table names is in KNOWN_VARS; one missing there is said
    to change nothing when a user gives it (USER_PROGS_DIR and
    RUN_ISO_FILE were)."""
    read = set()
    for f in [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]:
        read |= set(re.findall(r"^([A-Z][A-Z0-9_]*) *\?=", f.read_text(),
                               re.M))
    readme = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)=",
                            (ROOT / "README.md").read_text(), re.M))
    assert "USER_PROGS_DIR" in read & readme
    assert (read | readme) - INTERNAL_VARS - known_vars() == set()


def test_your_programs_directory_is_taken_without_a_note(tmp_path):
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "mine.c").write_text("int x;\n")
    p = make("run", f"USER_PROGS_DIR={progs}",
             f"RUN_ISO_FILE={tmp_path / 'run.iso'}")
    assert p.returncode == 0, p.stderr
    assert "not a variable" not in p.stdout + p.stderr, p.stdout
    assert f"--program build/user-dirs{progs}/mine.elf" in p.stdout, \
        p.stdout


def test_an_unknown_scheduler_is_refused_listing_the_registry():
    """SCHED against schedsim's list (the registry, whatever it holds),
    checked after the packages and before the kernel is built."""
    sim = ROOT / "build/host/schedsim-fast"
    names = [json.loads(line)["name"] for line in subprocess.run(
        [str(sim), "--list"], capture_output=True, text=True, check=True,
        timeout=60).stdout.splitlines()]
    assert "spd2" in names and "pfp" in names
    check = [str(ROOT / "scripts/check-sched.sh"), str(sim)]
    p = subprocess.run([*check, "typo"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip() == \
        f"make: SCHED=typo: no such scheduler; there are: {' '.join(names)}"
    for name in names:
        assert subprocess.run([*check, name], timeout=60).returncode == 0
    steps = make("run", "SCHED=typo").stdout.splitlines()
    order = [i for i, l in enumerate(steps)
             if "ensure-deps.sh" in l or "check-sched.sh" in l
             or "mkiso.sh" in l]
    assert [steps[i].split()[0].rsplit("/", 1)[-1] for i in order] == \
        ["ensure-deps.sh", "check-sched.sh", "mkiso.sh"], steps
