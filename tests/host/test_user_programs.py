"""The ring-3 programs of user/ as built (build/user/NAME.elf): their
layout and permissions as readelf sees them, the instructions that make the
bad_* programs bad, the system-call stubs' registers (objdump), and what
user/ may include. The programs run only under the kernel; these checks
read the files."""
import pathlib
import re
import subprocess
import tempfile

import pytest

from conftest import ROOT
from user_build import (PROGRAMS, RT_USER_BASE, RT_WS_BASE, USER, PAGE,
                        disassemble, elf, run, sections, segments, symbols,
                        syscall_numbers)

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
    assert [s[0] for s in segs if s[0] != "LOAD"] == ["GNU_STACK"], segs
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
             "sys_write": "RT_SYS_WRITE"}
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


class Tracker:
    """Follows register contents through a straight-line function, enough
    to name the address of each memory access and each indirect call:
    immediates, copies, and loads from the control page (rdi on entry)."""

    CALLER_SAVED = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
                    "r11"}
    NAMES = {"eax": "rax", "ebx": "rbx", "ecx": "rcx", "edx": "rdx",
             "esi": "rsi", "edi": "rdi", "ebp": "rbp", "esp": "rsp"}

    def __init__(self):
        self.reg = {"rdi": "ctl"}

    def canon(self, r):
        r = r.lstrip("%")
        if re.fullmatch(r"r\d+d", r):
            return r[:-1]
        return self.NAMES.get(r, r)

    def value(self, operand):
        """What a source operand holds: an int, ('ctl', off), ('load',
        value, off), or None when unknown."""
        if operand.startswith("$"):
            return int(operand[1:], 16) & (2**64 - 1)
        if operand.startswith("%"):
            return self.reg.get(self.canon(operand))
        return ("load", self.address(operand))

    def address(self, operand):
        m = re.fullmatch(r"(-?0x[0-9a-f]+)?\((%\w+)\)", operand)
        if m:
            off = int(m.group(1), 16) if m.group(1) else 0
            base = self.reg.get(self.canon(m.group(2)))
            if isinstance(base, int):
                return (base + off) & (2**64 - 1)
            return ("at", base, off)
        if re.fullmatch(r"0x[0-9a-f]+", operand):
            return int(operand, 16)
        return None

    def step(self, mnemonic, operands):
        """Returns the memory addresses the instruction touches."""
        ops = [o for o in re.split(r",(?![^(]*\))", operands) if o]
        touched = [self.address(o) for o in ops if not o.startswith(("$", "%", "*"))]
        if mnemonic.startswith(("call", "jmp")):
            for r in self.CALLER_SAVED:
                self.reg.pop(r, None)
        elif mnemonic in ("mov", "movabs", "movq", "movl") and len(ops) == 2 \
                and ops[1].startswith("%"):
            self.reg[self.canon(ops[1])] = self.value(ops[0])
        elif ops and ops[-1].startswith("%") and \
                not mnemonic.startswith(("test", "cmp", "push", "j", "nop")):
            self.reg.pop(self.canon(ops[-1]), None)
        return touched


def trace(name):
    """(instructions, per-instruction touched addresses, per-instruction
    indirect branch target) of a program's user_main."""
    code = disassemble(elf(name), "user_main")
    t, touched, targets = Tracker(), [], []
    for _, m, o in code:
        target = t.reg.get(t.canon(o[1:])) if o.startswith("*%") else None
        targets.append(target)
        touched.append(t.step(m, o))
    return code, touched, targets


def first(pred, seq):
    return next((i for i, x in enumerate(seq) if pred(x)), None)


def bad_act_index(name, syms):
    """Index in user_main of the one instruction that must fault."""
    code, touched, targets = trace(name)
    kernel = 0xffffffff80100000
    if name == "bad_ud":
        return first(lambda c: c[1] == "ud2", code)
    if name == "bad_gp":
        return first(lambda c: c[1] == "hlt", code)
    if name == "bad_div0":
        return first(lambda c: c[1] in ("div", "divq", "idiv", "idivq"), code)
    if name == "bad_kread":
        return first(lambda a: kernel in a, touched)
    if name == "bad_write_other":
        other = ("load", ("at", "ctl", offset_of("other_page")))
        return first(lambda i: ("at", other, 0) in touched[i]
                     and code[i][2].endswith(")"), range(len(code)))
    if name == "bad_exec_data":
        return first(lambda t: t == syms["data_code"], targets)
    if name == "bad_syscall_ptr":
        return first(lambda t: t == syms["sys_write"], targets)
    raise AssertionError(f"no check for {name}")


_offsets = {}


def offset_of(field):
    """offsetof(struct rt_control, field), from the compiler."""
    if field not in _offsets:
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp) / "off.c"
            src.write_text('#include <stddef.h>\n#include <stdio.h>\n'
                           '#include "lib/rt_abi.h"\nint main(void) { '
                           f'printf("%zu", offsetof(struct rt_control, {field})); }}\n')
            exe = pathlib.Path(tmp) / "off"
            subprocess.run(["gcc", "-I", str(ROOT), str(src), "-o", str(exe)],
                           check=True, timeout=60)
            _offsets[field] = int(run(exe))
    return _offsets[field]


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


def test_user_code_includes_only_its_lib_and_rt_abi():
    allowed_system = {"stdint.h", "stddef.h"}
    for src in sorted((ROOT / "user").rglob("*.[ch]")):
        for inc in re.findall(r'^#include\s+([<"][^>"]+[>"])', src.read_text(), re.M):
            name = inc[1:-1]
            if inc[0] == "<":
                assert name in allowed_system, f"{src}: {inc}"
                continue
            target = (src.parent / name).resolve()
            assert target.exists(), f"{src}: {inc} does not exist"
            assert target == ROOT / "lib/rt_abi.h" or \
                (ROOT / "user/lib") in target.parents, f"{src}: {inc}"
