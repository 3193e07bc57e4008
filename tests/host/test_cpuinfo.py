"""arch/x86/cpuinfo.c, the CPUID decoder behind `RESULT cpu` and the
hardware report, held to two readings made apart from it: Linux's, of the
CPU this test runs on (/proc/cpuinfo), and tests/host/cpuid_ref.py's, of
generated CPUID tables that reach every leaf and branch it reads."""
import json
import pathlib
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from conftest import host_tool
from cpuid_ref import FEATURES, decode

# Linux's /proc/cpuinfo flag for each feature: nonstop_tsc is set from
# CPUID 80000007H EDX[8] alone (constant_tsc has other sources).
LINUX_FLAG = {"x2apic": "x2apic", "tsc_deadline": "tsc_deadline_timer",
              "invtsc": "nonstop_tsc", "arat": "arat", "smep": "smep",
              "smap": "smap", "umip": "umip", "nx": "nx", "pcid": "pcid",
              "xsave": "xsave"}


def decode_c(tables):
    """Each (table, fill, apic_ids) decoded by the C decoder."""
    lines = []
    for table, fill, apic_ids in tables:
        for (leaf, sub), regs in table.items():
            lines.append("L %x %x %x %x %x %x" % (leaf, sub, *regs))
        lines.append("F %x %x %x %x" % fill)
        lines += ["A %x" % a for a in apic_ids]
        lines.append("E")
    out = subprocess.run([str(host_tool("tests/test_cpuinfo")), "--tables"],
                         input="\n".join(lines) + "\n", capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def proc_cpuinfo():
    """[{field: value}] per processor of /proc/cpuinfo."""
    text = pathlib.Path("/proc/cpuinfo").read_text()
    cpus = []
    for block in text.strip().split("\n\n"):
        fields = {}
        for line in block.splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                fields[k.strip()] = v.strip()
        cpus.append(fields)
    return cpus


@pytest.mark.skipif(not pathlib.Path("/proc/cpuinfo").exists() or
                    "vendor_id" not in pathlib.Path("/proc/cpuinfo")
                    .read_text(), reason="needs an x86 Linux host")
def test_the_host_cpu_as_linux_reads_it():
    out = subprocess.run([str(host_tool("tests/test_cpuinfo")), "--native"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    me = json.loads(out.stdout)
    linux = proc_cpuinfo()
    first = linux[0]
    assert me["vendor"] == first["vendor_id"]
    assert me["family"] == int(first["cpu family"])
    assert me["model"] == int(first["model"])
    assert me["stepping"] == int(first["stepping"])
    flags = set(first["flags"].split())
    want = [f for f in FEATURES if LINUX_FLAG[f] in flags]
    assert me["features"] == want
    # Every processor's APIC ID split as Linux split it.
    if all("apicid" in c and "core id" in c for c in linux):
        ids = [int(c["apicid"]) for c in linux]
        split = split_host(me["topo"], ids)
        for c, (pkg, core, _) in zip(linux, split):
            assert (pkg, core) == (int(c["physical id"]), int(c["core id"])), \
                (me["topo"], c["apicid"])


def split_host(topo, ids):
    smt, core = topo["smt_bits"], topo["core_bits"]
    return [(a >> (smt + core), (a >> smt) & ((1 << core) - 1),
             a & ((1 << smt) - 1)) for a in ids]


VENDORS = ["GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls"]
u32 = st.integers(0, 2**32 - 1)
regs = st.tuples(u32, u32, u32, u32)


def vendor_regs(name):
    w = [int.from_bytes(name[i:i + 4], "little") for i in (0, 4, 8)]
    return w[0], w[2], w[1]       # EBX, ECX, EDX


@st.composite
def cpuid_tables(draw):
    vendor = draw(st.sampled_from(VENDORS).map(str.encode) |
                  st.binary(min_size=12, max_size=12))
    max_basic = draw(st.sampled_from([0, 1, 4, 6, 7, 0xB, 0xD, 0x16, 0x1F,
                                      0x20]) | u32)
    max_ext = draw(st.sampled_from([0, 0x80000001, 0x80000004, 0x80000007,
                                    0x80000008, 0x8000001E, 0x80000021]) |
                   u32)
    ebx, ecx, edx = vendor_regs(vendor)
    table = {(0, 0): (max_basic, ebx, ecx, edx),
             (0x80000000, 0): (max_ext, 0, 0, 0)}
    # Signatures both random and with family 6 / 0FH, where the extended
    # fields count.
    sig = draw(u32 | st.builds(lambda lo, fam, hi: lo | fam << 8 | hi << 16,
                               st.integers(0, 0xFF), st.sampled_from([6, 0xF]),
                               st.integers(0, 0xFFFF)))
    one = draw(regs)
    table[(1, 0)] = (sig, *one[1:])
    for leaf in (4, 6, 7, 0x80000001, 0x80000002, 0x80000003, 0x80000004,
                 0x80000007, 0x80000008, 0x8000001E):
        if draw(st.booleans()):
            table[(leaf, 0)] = draw(regs)
    for leaf in (0xB, 0x1F):
        if draw(st.booleans()):
            n = draw(st.integers(0, 9))
            for sub in range(n):
                kind = draw(st.sampled_from([1, 2, 3, 5]) |
                            st.integers(0, 255))
                shift = draw(st.integers(0, 31))
                eax = draw(u32) & ~0x1F | shift
                ecx = draw(u32) & ~0xFF00 | kind << 8
                # EBX 0 in subleaf 0 says the leaf is absent.
                ebx = draw(st.just(0) | u32)
                table[(leaf, sub)] = (eax, ebx, ecx, draw(u32))
    fill = draw(st.just((0, 0, 0, 0)) | regs)
    ids = draw(st.lists(st.integers(0, 2**32 - 1), max_size=4))
    return table, fill, ids


@settings(max_examples=120, deadline=None)
@given(st.lists(cpuid_tables(), min_size=1, max_size=8))
def test_generated_tables_decode_as_the_manuals_say(tables):
    got = decode_c(tables)
    for (table, fill, ids), c in zip(tables, got):
        assert c == decode(table, fill, ids), table


def test_real_cpus_topology():
    """Topologies written out by hand from the manuals' examples of real
    parts: a 2-thread Intel core behind leaf 0BH, an AMD Zen 1 package
    without leaf 0BH (80000008H and 8000001EH), and an old Intel part with
    only leaves 1 and 4."""
    intel = {(0, 0): (0xB, *vendor_regs(b"GenuineIntel")),
             (1, 0): (0x50654, 0x00400800, 0, 1 << 28),
             (0xB, 0): (1, 2, 0x100, 0), (0xB, 1): (5, 16, 0x201, 0),
             (0x80000000, 0): (0x80000008, 0, 0, 0)}
    zen1 = {(0, 0): (0xD, *vendor_regs(b"AuthenticAMD")),
            (1, 0): (0x800F12, 0, 0, 1 << 28),
            (0x80000000, 0): (0x8000001F, 0, 0, 0),
            (0x80000001, 0): (0, 0, 1 << 22, 0),
            (0x80000008, 0): (0, 0, 0x601F, 0),
            (0x8000001E, 0): (0, 0x0100, 0, 0)}
    core2 = {(0, 0): (0xA, *vendor_regs(b"GenuineIntel")),
             (1, 0): (0x6FB, 0x00040800, 0, 1 << 28),
             (4, 0): (0x0C000121, 0, 0, 0)}
    got = decode_c([(intel, (0, 0, 0, 0), [0, 1, 2, 0x11]),
                    (zen1, (0, 0, 0, 0), [0, 1, 2, 0x41]),
                    (core2, (0, 0, 0, 0), [0, 1, 2, 3])])
    assert got[0]["topo"] == {"source": "leaf0b", "smt_bits": 1,
                              "core_bits": 4}
    assert got[0]["split"] == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 8, 1]]
    assert got[1]["topo"] == {"source": "amd", "smt_bits": 1, "core_bits": 5}
    assert got[1]["split"][3] == [1, 0, 1]
    assert got[2]["topo"] == {"source": "legacy", "smt_bits": 0,
                              "core_bits": 2}
    for (table, fill, ids), c in zip([(intel, (0,) * 4, [0, 1, 2, 0x11]),
                                      (zen1, (0,) * 4, [0, 1, 2, 0x41]),
                                      (core2, (0,) * 4, [0, 1, 2, 3])], got):
        assert c == decode(table, fill, ids)
