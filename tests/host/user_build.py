"""The ring-3 programs as built (build/user/NAME.elf) and what readelf,
nm and objdump say about them, for the tests that read them."""
import re
import subprocess

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
