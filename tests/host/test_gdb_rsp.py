"""lib/gdb_rsp, the GDB remote protocol layer, on the host through
tools/gdb_rsp_fake: against an independent reference (gdb_rsp_ref.py) for
random packets and framing faults, against garbage (it must never crash:
the fake runs under ASan and UBSan), and against a real GDB."""
import json
import subprocess
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from conftest import host_tool
from gdb_rsp_ref import (NREGS, PACKET_MAX, SIZES, Ref, checksum, decode,
                         frame, unescape, unrle)

THREADS, DEAD = 4, 3


def run_fake(data: bytes, *args, counts=None):
    """What the fake sent back; its counters go into counts (a dict)."""
    proc = subprocess.run([str(host_tool("gdb_rsp_fake")),
                           "--threads", str(THREADS), "--dead", str(DEAD),
                           *args], input=data, capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    if counts is not None:
        counts.update(json.loads(proc.stderr.decode().splitlines()[-1]))
    return proc.stdout


def target_xml():
    out = decode(run_fake(frame(b"qXfer:features:read:target.xml:0,fff")))
    assert out[0] == ("+",)
    body = unescape(out[1][1])
    assert body[:1] == b"l", "the document fits one chunk"
    return body[1:]


def check_against_ref(data: bytes):
    ref = Ref(THREADS, DEAD)
    want = ref.feed(data)
    counts = {}
    got = decode(run_fake(data, counts=counts))
    assert counts == ref.counts()
    assert len(got) == len(want), (got, want)
    doc = None
    for g, w in zip(got, want):
        if w[0] != "packet":
            assert g == w
            continue
        assert g[0] == "packet"
        body, binary = w[1], w[2]
        if binary:
            doc = doc if doc is not None else target_xml()
            _, off, n = body
            chunk = doc[off:off + n]
            more = off + n < len(doc)
            assert unescape(g[1]) == (b"m" if more else b"l") + chunk
        else:
            assert unrle(g[1]) == body, (g, w)


# ---------------------------------------------------------- random packets

hexnum = st.integers(0, 2**64 - 1).map(lambda v: "%x" % v)
small = st.integers(0, 70).map(lambda v: "%x" % v)
near = st.sampled_from([0x0, 0xfff, 0x1000, 0x1010, 0x10ffc, 0x10fff,
                        0x11000, 0x1ffff, 0x20000, 0x20ff8, 0x21000,
                        0xffffffffffffffff])
addr = st.one_of(near, st.integers(0, 2**64 - 1)).flatmap(
    # Leading zeros: 17 digits are one too many even for a small number.
    lambda v: st.sampled_from(["%x" % v, "%016x" % v, "%017x" % v]))
thread = st.sampled_from(["0", "-1", "1", "2", "3", "4", "5", "ff", "101",
                          "zz", ""])
regno = st.integers(0, NREGS + 2)


@st.composite
def reg_value(draw, r):
    size = SIZES[r] if r < NREGS else 8
    if draw(st.booleans()):
        return "xx" * size
    return draw(st.binary(min_size=size, max_size=size)).hex()


@st.composite
def register_packet(draw):
    r = draw(regno)
    kind = draw(st.sampled_from(["p", "P", "G"]))
    if kind == "p":
        return "p%x" % r
    if kind == "P":
        v = draw(reg_value(r))
        return "P%x=%s" % (r, v.replace("x", "0"))
    n = draw(st.integers(0, NREGS + 1))
    return "G" + "".join(draw(reg_value(i if i < NREGS else 0))
                         for i in range(n))


@st.composite
def memory_packet(draw):
    a = draw(addr)
    kind = draw(st.sampled_from(["m", "M", "X"]))
    if kind == "m":
        return "m%s,%s" % (a, draw(st.one_of(small, hexnum)))
    data = draw(st.binary(max_size=24))
    if kind == "M":
        return "M%s,%x:%s" % (a, len(data), data.hex())
    esc = "".join("}" + chr(b ^ 0x20) if chr(b) in "#$}*" else chr(b)
                  for b in data)
    return "X%s,%x:%s" % (a, len(data), esc)


@st.composite
def point_packet(draw):
    return "%s%x,%s,%s" % (draw(st.sampled_from("Zz")),
                           draw(st.integers(0, 6)), draw(addr),
                           draw(st.sampled_from(["1", "2", "4", "8", "3"])))


@st.composite
def resume_packet(draw):
    kind = draw(st.sampled_from(["c", "s", "C05", "S05", "c1010", "vCont",
                                 "D", "k"]))
    if kind != "vCont":
        return kind
    acts = draw(st.lists(st.tuples(st.sampled_from("csCS"), thread),
                         max_size=3))
    return "vCont" + "".join(";%s%s%s" % (a, "05" if a in "CS" else "",
                                          ":" + t if t else "")
                             for a, t in acts)


simple = st.sampled_from([
    "?", "g", "qSupported:multiprocess+;swbreak+", "qfThreadInfo",
    "qsThreadInfo", "qC", "qAttached", "qOffsets", "vCont?", "vMustReplyEmpty",
    "qThreadExtraInfo,1", "qThreadExtraInfo,3", "qThreadExtraInfo,zz",
    "qXfer:features:read:target.xml:0,40", "qXfer:features:read:target.xml:"
    "7f0,200", "qXfer:features:read:other.xml:0,10", "!", "", "Hg2", "Hc-1",
    "Hg3", "Hx1", "T1", "T3", "T-1", "m0,", "Z9,1,1", "p", "P1", "vCont;x",
])
thread_packet = thread.map(lambda t: "Hg" + t) | thread.map(lambda t: "T" + t)
any_packet = st.one_of(simple, register_packet(), memory_packet(),
                       point_packet(), resume_packet(), thread_packet)


@settings(max_examples=150, deadline=None)
@given(st.lists(any_packet, min_size=1, max_size=25),
       st.lists(st.booleans(), max_size=25))
def test_random_packets_match_the_reference(packets, ctrl_c):
    """Valid and malformed packets, with Ctrl-C now and then (which stops
    the fake when it runs and is ignored when it is stopped)."""
    data = b""
    for i, p in enumerate(packets):
        data += frame(p.encode("latin-1"))
        if i < len(ctrl_c) and ctrl_c[i]:
            data += b"\x03"
    check_against_ref(data)


# ------------------------------------------------------------- framing

@st.composite
def damaged_stream(draw):
    """Packets sent whole, with a wrong checksum, with a non-hex checksum,
    cut short by a new '$', longer than PACKET_MAX, or between noise and
    NAKs."""
    out = b""
    for _ in range(draw(st.integers(1, 12))):
        body = draw(st.sampled_from([b"g", b"qC", b"m1000,10", b"?",
                                     b"qfThreadInfo", b"M1000,2:abcd",
                                     b"p10"]))
        how = draw(st.sampled_from(["ok", "sum", "nonhex", "cut", "long",
                                    "noise", "nak"]))
        if how == "ok":
            out += frame(body)
        elif how == "sum":
            out += b"$" + body + b"#%02x" % ((checksum(body) + 1) & 0xff)
        elif how == "nonhex":
            out += b"$" + body + b"#g" + draw(st.sampled_from([b"0", b"$"]))
        elif how == "cut":
            out += b"$" + body[:draw(st.integers(0, len(body)))] + frame(body)
        elif how == "long":
            out += frame(b"m" + b"1" * draw(st.integers(PACKET_MAX - 2,
                                                          PACKET_MAX + 40)))
        elif how == "noise":
            out += draw(st.binary(max_size=20).filter(
                lambda b: b"$" not in b and b"\x03" not in b))
        else:
            out += b"-"
    return out


@settings(max_examples=150, deadline=None)
@given(damaged_stream())
def test_checksum_retry_overlong_and_noise_match_the_reference(data):
    check_against_ref(data)


@pytest.mark.parametrize("pad", [0, 1])
def test_a_packet_of_exactly_the_maximum_length_is_taken(pad):
    """GDB_RSP_PACKET_MAX is the largest body taken (qSupported tells GDB
    so): an M packet of exactly that many bytes writes its data; the same
    packet one byte longer (a leading zero in the address) is acknowledged,
    answered with an error, counted as overlong, and writes nothing."""
    data = bytes(range(1, 256)) * 9
    n = (PACKET_MAX - len("M1000,7fb:")) // 2
    body = b"M%s1000,%x:%s" % (b"0" * pad, n, data[:n].hex().encode())
    assert len(body) == PACKET_MAX + pad
    counts = {}
    out = decode(run_fake(frame(body) + frame(b"m1000,%x" % n),
                          counts=counts))
    assert out[0] == ("+",) and out[2] == ("+",)
    assert out[1] == ("packet", b"E16" if pad else b"OK")
    assert counts["overlong"] == pad
    assert unrle(out[3][1]) == ("00" * n if pad else data[:n].hex())
    check_against_ref(frame(body) + frame(b"m1000,%x" % n))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_garbage_never_crashes_and_every_reply_is_well_formed(data):
    # decode() checks that the output is only acks and packets with good
    # checksums; the fake exits 0 only if the sanitizers found nothing.
    for tok in decode(run_fake(data)):
        if tok[0] == "packet":
            assert b"#" not in tok[1] and b"$" not in tok[1]


@pytest.mark.parametrize("points", [["Z0,1010,1"], ["Z2,1020,4"],
                                    ["Z3,1020,8"], ["Z4,20000,1"],
                                    ["Z1,1030,1", "Z4,1040,2", "Z2,1040,2"]])
def test_each_kind_of_stop_reply(points):
    data = b"".join(frame(p.encode()) for p in points + ["c", "vCont;s:2"])
    check_against_ref(data)


# --------------------------------------------------- encoding, description

def test_long_runs_are_run_length_encoded():
    data = frame(b"m1000,800")
    out = decode(run_fake(data))
    body = out[1][1]
    assert unrle(body) == "00" * 0x800
    assert len(body) < 0x800 // 8, "4096 zeros take a few dozen bytes"


def test_a_nak_resends_an_empty_reply_too():
    out = decode(run_fake(frame(b"qOffsets") + b"-" + b"-"))
    assert out == [("+",), ("packet", b""), ("packet", b""),
                   ("packet", b"")]


def test_target_description_is_gdbs_amd64():
    root = ET.fromstring(target_xml())
    assert root.find("architecture").text == "i386:x86-64"
    feats = {f.get("name"): f for f in root.findall("feature")}
    assert list(feats) == ["org.gnu.gdb.i386.core",
                           "org.gnu.gdb.i386.segments"]
    regs = [r for f in root.findall("feature") for r in f.findall("reg")]
    names = [r.get("name") for r in regs]
    assert names[:24] == ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
                          "rsp", "r8", "r9", "r10", "r11", "r12", "r13",
                          "r14", "r15", "rip", "eflags", "cs", "ss", "ds",
                          "es", "fs", "gs"]
    assert names[24:32] == ["st%d" % i for i in range(8)]
    assert names[32:] == ["fctrl", "fstat", "ftag", "fiseg", "fioff",
                          "foseg", "fooff", "fop", "fs_base", "gs_base"]
    assert [int(r.get("regnum")) for r in regs] == list(range(NREGS))
    assert [int(r.get("bitsize")) // 8 for r in regs] == SIZES
    flags = feats["org.gnu.gdb.i386.core"].find("flags")
    assert flags.get("id") == regs[17].get("type")
    bits = {f.get("name"): int(f.get("start")) for f in flags}
    assert bits["IF"] == 9 and bits["TF"] == 8 and bits["RF"] == 16


# ------------------------------------------------------------ real GDB

def test_a_real_gdb_drives_the_fake(tmp_path):
    script = tmp_path / "s.gdb"
    script.write_text(f"""\
set pagination off
set confirm off
target remote | {host_tool("gdb_rsp_fake")} --threads 4 --dead 3
info threads
info registers rip eflags fs_base
p $st0
set {{int}}0x1000 = 0x11223344
x/4xb 0x1000
python
try:
    gdb.execute("x/x 0x900000", to_string=True)
except gdb.MemoryError as e:
    print("ERR", e)
try:
    gdb.execute("set {{int}}0x20000 = 1")
except gdb.MemoryError as e:
    print("ERR", e)
end
thread 2
set $rax = 0x55
thread 1
p/x $rax
thread 2
p/x $rax
break *0x1010
continue
p/x $pc
stepi
p/x $pc
delete
watch *(char *)0x1020
continue
detach
""")
    proc = subprocess.run(["gdb", "-nx", "-batch", "-x", str(script)],
                          capture_output=True, text=True, timeout=120)
    out = proc.stdout
    assert "Thread 1 (fake cpu 0)" in out and "Thread 4 (fake cpu 3)" in out
    assert "Thread 3 " not in out, out
    assert "rip            0x110000000001234" in out, out
    assert "[ PF AF IF ]" in out, "eflags shown through the flags type"
    assert "$1 = <unavailable>" in out, out
    assert "0x1000:\t0x44\t0x33\t0x22\t0x11" in out, out
    assert "ERR Cannot access memory at address 0x900000" in out, out
    assert "ERR Cannot access memory at address 0x20000" in out, out
    assert "$2 = 0x100000000001234" in out and "$3 = 0x55" in out, out
    assert "Thread 1 hit Breakpoint 1, 0x0000000000001010" in out, out
    assert "$4 = 0x1010" in out and "$5 = 0x1011" in out, out
    assert "Hardware watchpoint 2: *(char *)0x1020" in out, out
    assert "Old value = 0 '\\000'\nNew value = 1 '\\001'" in out, out
    assert "[Inferior 1 (Remote target) detached]" in out, out


@pytest.mark.parametrize("args", [["--threads", "0"], ["--dead", "x"],
                                  ["--bogus"]])
def test_the_fake_names_bad_arguments(args):
    proc = subprocess.run([str(host_tool("gdb_rsp_fake")), *args],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "gdb_rsp_fake:" in proc.stderr or "usage:" in proc.stderr


@pytest.mark.parametrize("code", [0, 1])
def test_gdb_hears_that_the_target_exited(tmp_path, code):
    """A target that ends while GDB waits on a continue sends W and its
    status (gdb_rsp_exited): GDB says the program exited, with the code,
    rather than that the remote connection closed; a target nobody
    attached to sends nothing."""
    script = tmp_path / "s.gdb"
    script.write_text(f"""\
set pagination off
set confirm off
target remote | {host_tool("gdb_rsp_fake")} --exit {code}
continue
""")
    proc = subprocess.run(["gdb", "-nx", "-batch", "-x", str(script)],
                          capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    want = "exited normally" if code == 0 else f"exited with code 0{code}"
    assert f"[Inferior 1 (Remote target) {want}]" in out, out
    assert "Remote connection closed" not in out, out
    assert decode(run_fake(b"c", "--exit", str(code))) == []
