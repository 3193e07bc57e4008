"""What a hostile task must not get through (issue: hostile tasks): its FPU
state kept apart from another task's on the same CPU, x87 errors raised,
system-call buffers checked whole and for writing, and with `-cpu max`
(SMEP, SMAP and UMIP) the descriptor tables hidden and EFLAGS.AC cleared
on every entry into the kernel. Each boot runs under virtual time on one
CPU, so what the tasks do is the same every run."""
import re

from harness import qemu

ICOUNT = "shift=3,sleep=off"

# On one CPU: two fpu tasks alternate (each holds its own registers across
# the other's quanta), and the misbehaving programs run in between.
HOSTILE = """\
task F1 e=1 p=3 work=fpu
task F2 e=1 p=3 work=fpu
task X e=1 p=40 work=bad_x87
task W e=1 p=40 work=bad_write_span
task T e=1 p=40 work=bad_info_text
task I e=1 p=40 work=bad_info_span
"""

SPAN = 0xF000000000 - 16     # BAD_SPAN_START: 16 bytes below RT_STACK_TOP


def tasks_of(boot):
    return {r["name"]: r for r in boot.results("task")}


def console_of(boot, name):
    return [l[len(name) + 2:] for l in boot.serial.splitlines()
            if l.startswith(f"{name}| ")]


def write_set(tmp_path, text):
    path = tmp_path / "hostile.tasks"
    path.write_text(text)
    return path


def test_fpu_state_x87_errors_and_syscall_buffers(iso_with, tmp_path):
    """fpu tasks keep every SSE and x87 register across the other's quanta
    (the kernel saves and restores each task's FXSAVE state); bad_x87 is
    killed for #MF (CR0.NE); sys_write given a buffer that runs from the
    stack into the unmapped page above, and job_info told to write into
    the task's read-only text or across that page, kill the task for the
    pointer, and nothing of the write reaches the console."""
    iso = iso_with("sched=gedf slots=30",
                   tasks=write_set(tmp_path, HOSTILE))
    boot = qemu(iso, smp=1, icount=ICOUNT)
    assert boot.passed, boot.tail()
    r = tasks_of(boot)
    for name in ("F1", "F2"):
        assert r[name]["state"] == "ok", r[name]
        assert int(r[name]["quanta"]) == 10 and int(r[name]["self_us"]) > 0, \
            r[name]
        assert console_of(boot, name) == [], boot.tail()
    killed = {
        "X": r"x87 floating-point error \(#MF\) rip=0x8000[0-9a-f]+",
        "W": rf"bad system-call pointer {SPAN:#x} \(64 bytes\) in write",
        "T": r"bad system-call pointer 0x8000[0-9a-f]+ \(64 bytes\) in "
             r"job_info",
        "I": rf"bad system-call pointer {SPAN:#x} \(64 bytes\) in job_info",
    }
    for name, why in killed.items():
        assert re.search(rf"^task {name} killed: {why}", boot.serial, re.M), \
            (name, boot.tail())
        assert (r[name]["state"], r[name]["faults"]) == ("killed", "1"), \
            r[name]
        # The announcement, and nothing the bad call wrote.
        out = console_of(boot, name)
        assert len(out) == 1 and ": about to " in out[0], out
    assert "let through" not in boot.serial, boot.tail()


UMIP = """\
task S e=1 p=2
task U0 e=1 p=8 work=bad_umip
task U1 e=1 p=8 work=bad_umip
task U2 e=1 p=8 work=bad_umip
"""


def test_umip_hides_the_descriptor_tables(iso_with, tmp_path):
    """With `-cpu max` the kernel turns on SMEP, SMAP and UMIP; SGDT, SIDT
    and SMSW in ring 3 (bad_umip by its task index) are then #GP(0), and
    the spin task beside them keeps every deadline."""
    iso = iso_with("sched=gedf slots=16", tasks=write_set(tmp_path, UMIP))
    boot = qemu(iso, smp=1, icount=ICOUNT, extra=("-cpu", "max"))
    assert boot.passed, boot.tail()
    assert "sched: ring 3 runs with NX on, SMEP on, SMAP on, UMIP on" in \
        boot.serial, boot.tail()
    r = tasks_of(boot)
    for i in range(3):
        # Task U{i} is index i + 1 of the set: its act is that modulo 3.
        what = ["sgdt", "sidt", "smsw"][(i + 1) % 3]
        out = console_of(boot, f"U{i}")
        assert len(out) == 1 and f"({what})" in out[0], out
        assert re.search(rf"^task U{i} killed: general protection fault "
                         r"\(error 0\) rip=0x8000", boot.serial, re.M), \
            boot.tail()
        assert r[f"U{i}"]["state"] == "killed", r[f"U{i}"]
    assert "let through" not in boot.serial, boot.tail()
    assert (r["S"]["state"], r["S"]["misses"]) == ("ok", "0"), r["S"]


def test_eflags_ac_set_by_a_task_does_not_lift_smap(iso_with, tmp_path):
    """ac_spin sets EFLAGS.AC in ring 3; selftest=smap_run makes the first
    quantum interrupt that finds it there read its control page by its user
    address. The interrupt entry clears AC, so SMAP stops the read: a
    kernel page fault (present page, a read, from ring 0) at RT_CONTROL,
    which ends the run in a PANIC. Were AC kept, the read would succeed and
    the kernel say so."""
    iso = iso_with("sched=gedf slots=8 selftest=smap_run",
                   tasks=write_set(tmp_path, "task A e=1 p=2 work=ac_spin\n"))
    boot = qemu(iso, smp=1, icount=ICOUNT, extra=("-cpu", "max"))
    assert "SMAP on" in boot.serial, boot.tail()
    assert "SMAP did not stop it" not in boot.serial, boot.tail()
    panic = re.search(r"^PANIC cpu=0 vector=14 \(#PF\) error=(0x[0-9a-f]+) "
                      r"rip=0x[0-9a-f]+ cr2=0xf000100000$", boot.serial, re.M)
    assert panic, boot.tail()
    # SDM vol. 3A, 4.7: P set (a protection fault), W/R clear, U/S clear.
    assert int(panic.group(1), 16) & 0b111 == 0b001, panic.group(0)
    assert re.search(r"#0 0x[0-9a-f]+ selftest_in_run\+", boot.serial), \
        boot.tail()
    assert boot.serial.strip().splitlines()[-1].strip() == \
        "RESULT exit status=fail reason=exception"
