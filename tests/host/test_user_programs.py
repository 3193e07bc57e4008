"""The ring-3 programs of user/ as built (build/user/NAME.elf): their
layout and permissions as readelf sees them, the instructions that make the
bad_* programs bad, the system-call stubs' registers (objdump), and what
user/ may include. These checks read the files; test_user_run.py runs
them."""
import re

import pytest

from conftest import ROOT
from user_build import (PROGRAMS, RT_USER_BASE, RT_WS_BASE, USER, PAGE,
                        Tracker, bad_act_index, disassemble, elf, first, run,
                        sections, segments, symbols, syscall_numbers, trace)

BAD = [p for p in PROGRAMS if p.startswith("bad_")]


def test_every_program_is_built():
    assert PROGRAMS, "no user/*.c"
    for name in PROGRAMS:
        elf(name)


@pytest.mark.parametrize("name", PROGRAMS)
def test_layout_and_permissions(name):
    path = elf(name)
    segs = segments(path)
    loads = [s for s in segs if s[0] == "LOAD"]
    # A program's declaration (RT_PROGRAM) is a note of its own.
    assert [s[0] for s in segs if s[0] not in ("LOAD", "NOTE")] == \
        ["GNU_STACK"], segs
    assert len([s for s in segs if s[0] == "NOTE"]) <= 1, segs
    stack = [s for s in segs if s[0] == "GNU_STACK"][0]
    assert "E" not in stack[5], "the stack must not be executable"
    assert loads[0][1] == RT_USER_BASE, "text starts at RT_USER_BASE"
    for typ, vaddr, memsz, offset, filesz, flags, align in loads:
        assert flags in ("R E", "R", "RW"), f"segment at {vaddr:#x}: {flags}"
        assert vaddr % PAGE == 0 and offset % PAGE == 0 and align == PAGE
        assert RT_USER_BASE <= vaddr and vaddr + memsz <= RT_WS_BASE
        assert filesz <= memsz
    for a, b in zip(loads, loads[1:]):
        assert a[1] + a[2] <= b[1], "segments overlap"
    # Every allocated section sits in a segment with its own permissions.
    want = {"": "R", "W": "RW", "X": "R E"}
    for sec, addr, size, sflags in sections(path):
        kind = "X" if "X" in sflags else "W" if "W" in sflags else ""
        holder = [s for s in loads if s[1] <= addr and addr + size <= s[1] + s[2]]
        assert len(holder) == 1, f"{sec} at {addr:#x} in {len(holder)} segments"
        assert holder[0][5] == want[kind], f"{sec} ({sflags}) in a {holder[0][5]} segment"
    entry = int(re.search(r"Entry point address:\s+(0x[0-9a-f]+)",
                          run("readelf", "-hW", path)).group(1), 16)
    assert entry == symbols(path)["_start"]


def test_start_aligns_the_stack_before_calling_c():
    code = disassemble(elf("spin"), "_start")
    ops = [(m, o) for _, m, o in code]
    call = next(i for i, (m, _) in enumerate(ops) if m == "call")
    assert ("and", "$0xfffffffffffffff0,%rsp") in ops[:call]
    # The first frame (argc, argv) is where rsp was: passed on before
    # the alignment moves rsp.
    assert ops.index(("mov", "%rsp,%rdi")) < \
        ops.index(("and", "$0xfffffffffffffff0,%rsp"))
    assert ops[call + 1][0] == "ud2", "main's return goes to RT_SYS_EXIT, never past it"


def test_syscall_stubs_use_the_abi_registers():
    """Each stub puts its number in eax right before SYSCALL, leaves rdi,
    rsi and rdx (the arguments, where System V already put them) alone and
    returns rax as it came back."""
    obj = USER / "lib" / "sys.o"
    numbers = syscall_numbers()
    stubs = {"sys_exit": "RT_SYS_EXIT",
             "sys_sleep_next_period": "RT_SYS_SLEEP_NEXT_PERIOD",
             "sys_time": "RT_SYS_TIME", "sys_job_info": "RT_SYS_JOB_INFO",
             "sys_write": "RT_SYS_WRITE",
             "sys_wait_release": "RT_SYS_WAIT_RELEASE",
             "sys_end_job": "RT_SYS_END_JOB",
             "sys_task_info": "RT_SYS_TASK_INFO", "sys_lock": "RT_SYS_LOCK",
             "sys_unlock": "RT_SYS_UNLOCK", "sys_trace": "RT_SYS_TRACE"}
    assert set(stubs.values()) == set(numbers) - {"RT_SYS_COUNT"}
    arg_regs = re.compile(r"%(r?di|r?si|r?dx|[sd]il|dl|edi|esi|edx)\b")
    for stub, const in stubs.items():
        code = disassemble(obj, stub)
        at = [i for i, (_, m, _) in enumerate(code) if m == "syscall"]
        assert len(at) == 1, f"{stub}: {len(at)} syscall instructions"
        before, after = code[:at[0]], code[at[0] + 1:]
        n = numbers[const]
        sets_eax = [(m, o) for _, m, o in before if o.endswith(("%eax", "%rax"))]
        want = ("xor", "%eax,%eax") if n == 0 else ("mov", f"${n:#x},%eax")
        assert sets_eax == [want], f"{stub}: {sets_eax}"
        for _, m, o in before:
            dst = o.rsplit(",", 1)[-1]
            assert not arg_regs.fullmatch(dst), f"{stub} writes {dst}: {m} {o}"
        if const == "RT_SYS_EXIT":
            assert after[0][1] == "ud2", "exit never returns"
        else:
            assert after[0][1] == "ret", f"{stub} changes rax after syscall"


@pytest.mark.parametrize("name", BAD)
def test_bad_program_does_its_bad_thing_between_announcing_and_surviving(name):
    path = elf(name)
    syms = symbols(path)
    code, _, targets = trace(name)
    act = bad_act_index(name, syms)
    assert act is not None, f"{name}: the bad instruction is missing"
    announce = first(lambda t: t in (syms.get("bad_announce"),
                                     syms.get("bad_announce_at")), targets)
    survived = [i for i, t in enumerate(targets) if t == syms["bad_survived"]]
    assert announce is not None and announce < act, "announced first"
    assert survived and survived[-1] > act, "reports surviving afterwards"


def test_bad_syscall_ptr_passes_the_kernel_address_in_rdi():
    code = disassemble(elf("bad_syscall_ptr"), "user_main")
    t, syms = Tracker(), symbols(elf("bad_syscall_ptr"))
    for _, m, o in code:
        if o.startswith("*%") and t.reg.get(t.canon(o[1:])) == syms["sys_write"]:
            assert t.reg.get("rdi") == 0xffffffff80100000
            assert isinstance(t.reg.get("rsi"), int) and t.reg["rsi"] > 0
            return
        t.step(m, o)
    raise AssertionError("no call to sys_write")


def test_bad_exec_data_targets_a_data_segment():
    path = elf("bad_exec_data")
    addr = symbols(path)["data_code"]
    holder = [s for s in segments(path)
              if s[0] == "LOAD" and s[1] <= addr < s[1] + s[2]]
    assert len(holder) == 1 and holder[0][5] == "RW"


def test_user_code_includes_no_system_header_but_gccs_own():
    """-nostdinc leaves only gcc's freestanding headers reachable; of those
    the programs need stdint.h (lib/rt_abi.h uses it too). Quoted includes
    are tests/host/test_layers.py's."""
    for src in sorted((ROOT / "user").rglob("*.[ch]")):
        for name in re.findall(r"^#include\s+<([^>]+)>", src.read_text(), re.M):
            assert name == "stdint.h", f"{src}: <{name}>"
