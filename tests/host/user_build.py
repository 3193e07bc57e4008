"""The ring-3 programs as built (build/user/NAME.elf) and what readelf,
nm and objdump say about them, for the tests that read them."""
import pathlib
import re
import subprocess
import tempfile

from conftest import ROOT, BUILD

USER = BUILD / "user"
PROGRAMS = sorted(p.stem for p in (ROOT / "user").glob("*.c"))
PAGE = 4096


def abi_constant(name):
    text = (ROOT / "lib/rt_abi.h").read_text()
    m = re.search(rf"#define {name}\s+(0x[0-9a-fA-F]+)", text)
    return int(m.group(1), 16)


def syscall_numbers():
    text = (ROOT / "lib/rt_abi.h").read_text()
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"(RT_SYS_[A-Z_]+) = (\d+)", text)}


RT_USER_BASE = abi_constant("RT_USER_BASE")
RT_WS_BASE = abi_constant("RT_WS_BASE")


def elf(name):
    path = USER / f"{name}.elf"
    assert path.exists(), f"{path} missing: run `make host` (or `make user`)"
    return path


def run(*cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True, check=True, timeout=60).stdout


def segments(path):
    """readelf's program headers: [(type, vaddr, memsz, offset, filesz,
    flags, align)]."""
    out = []
    for line in run("readelf", "-lW", path).splitlines():
        f = line.split()
        if f and (f[0] == "LOAD" or f[0].startswith("GNU_")):
            flags = " ".join(f[6:-1])
            out.append((f[0], int(f[2], 16), int(f[5], 16), int(f[1], 16),
                        int(f[4], 16), flags, int(f[-1], 16)))
    return out


def sections(path):
    """Allocated sections: [(name, addr, size, flags)]."""
    out = []
    for line in run("readelf", "-SW", path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+"
                     r"\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s", line)
        if m and "A" in m.group(4):
            out.append((m.group(1), int(m.group(2), 16),
                        int(m.group(3), 16), m.group(4)))
    return out


def symbols(path):
    syms = {}
    for line in run("nm", path).splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    return syms


def disassemble(path, function):
    """[(address, mnemonic, operands)] of one function."""
    out, inside = [], False
    for line in run("objdump", "-d", "--no-show-raw-insn", path).splitlines():
        if re.match(r"^[0-9a-f]+ <.*>:$", line):
            inside = line.endswith(f"<{function}>:")
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if inside and m:
            out.append((int(m.group(1), 16), m.group(2), m.group(3).strip()))
    assert out, f"no function {function} in {path}"
    return out


class Tracker:
    """Follows register contents through a straight-line function, enough
    to name the address of each memory access and each indirect call:
    immediates, copies, and loads from the control page (rdi on entry)."""

    CALLER_SAVED = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
                    "r11"}
    NAMES = {"eax": "rax", "ebx": "rbx", "ecx": "rcx", "edx": "rdx",
             "esi": "rsi", "edi": "rdi", "ebp": "rbp", "esp": "rsp"}

    def __init__(self):
        # user_main(argc, argv, ctl): the third argument, in rdx.
        self.reg = {"rdx": "ctl"}

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
