"""lib/elf64, the checks the kernel makes before it maps a ring-3 program,
through tools/elf64_check (built with ASan and UBSan): the real programs
load and come out as readelf sees them; every refusal names what is wrong;
mutated and synthetic files get the same verdict as the independent model
in elf_ref.py, and never crash the checker."""
import json
import struct
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import host_tool
from elf_ref import EHDR, PHDR, PAGE, check as ref_check
from user_build import PROGRAMS, RT_USER_BASE, RT_WS_BASE, elf, segments

PT_LOAD, PT_GNU_STACK = 1, 0x6474E551


def elf64_check(path):
    proc = subprocess.run([str(host_tool("elf64_check")), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr, \
        proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    if proc.returncode == 0:
        return json.loads(proc.stdout)
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"{path}: "), proc.stderr
    return proc.stderr.strip()


def verdict(data, tmp_path):
    path = tmp_path / "prog.elf"
    path.write_bytes(bytes(data))
    return path, elf64_check(path)


def agree(data, tmp_path):
    """The C checker and the model give the same verdict on data."""
    path, got = verdict(data, tmp_path)
    want = ref_check(bytes(data), RT_USER_BASE, RT_WS_BASE)
    if want[0] == "ok":
        assert isinstance(got, dict), f"refused what the model accepts: {got}"
        assert got["entry"] == want[1] and got["segments"] == want[2]
        assert got["declaration"] == want[3]
        # Whole pages from each segment's first byte to its last.
        assert got["load_bytes"] == sum(
            -(-(s["vaddr"] + s["memsz"]) // PAGE) * PAGE
            - s["vaddr"] // PAGE * PAGE for s in want[2])
    else:
        assert isinstance(got, str), f"accepted what the model refuses ({want[1]})"
        assert want[1] in got, got
        if want[2] is not None:
            assert f"program header {want[2]}" in got, got
    return got


# ---------------------------------------------------------------- editing
class Elf:
    """A file's bytes with its header and program headers as fields."""

    EHDR_FIELDS = {"type": (16, "H"), "machine": (18, "H"),
                   "version": (20, "I"), "entry": (24, "Q"),
                   "phoff": (32, "Q"), "ehsize": (52, "H"),
                   "phentsize": (54, "H"), "phnum": (56, "H")}
    PHDR_FIELDS = {"type": (0, "I"), "flags": (4, "I"), "offset": (8, "Q"),
                   "vaddr": (16, "Q"), "filesz": (32, "Q"), "memsz": (40, "Q")}

    def __init__(self, data):
        self.data = bytearray(data)

    def get(self, field):
        off, fmt = self.EHDR_FIELDS[field]
        return struct.unpack_from("<" + fmt, self.data, off)[0]

    def set(self, field, value):
        off, fmt = self.EHDR_FIELDS[field]
        struct.pack_into("<" + fmt, self.data, off, value % (1 << 8 * struct.calcsize(fmt)))

    def ph_at(self, i, field):
        return self.get("phoff") + i * PHDR.size + self.PHDR_FIELDS[field][0]

    def ph(self, i, field):
        fmt = self.PHDR_FIELDS[field][1]
        return struct.unpack_from("<" + fmt, self.data, self.ph_at(i, field))[0]

    def set_ph(self, i, field, value):
        fmt = self.PHDR_FIELDS[field][1]
        struct.pack_into("<" + fmt, self.data, self.ph_at(i, field),
                         value % (1 << 8 * struct.calcsize(fmt)))

    def loads(self):
        return [i for i in range(self.get("phnum")) if self.ph(i, "type") == PT_LOAD]

    def header_of(self, ptype):
        return next(i for i in range(self.get("phnum")) if self.ph(i, "type") == ptype)


def synthetic(segs, entry=None):
    """An ELF file built here: segs is [(vaddr, memsz, filesz, flags)], each
    given file bytes at an offset congruent to its vaddr."""
    phoff = EHDR.size
    body_at = -(-(phoff + len(segs) * PHDR.size) // PAGE) * PAGE
    phdrs, body = b"", bytearray()
    for vaddr, memsz, filesz, flags in segs:
        offset = body_at + len(body) + (vaddr - len(body) - body_at) % PAGE
        body += bytes(offset - body_at - len(body)) + b"\xc3" * filesz
        phdrs += PHDR.pack(PT_LOAD, flags, offset, vaddr, vaddr, filesz, memsz, PAGE)
    ident = b"\x7fELF\x02\x01\x01" + bytes(9)
    ehdr = EHDR.pack(ident, 2, 62, 1, segs[0][0] if entry is None else entry,
                     phoff, 0, 0, EHDR.size, PHDR.size, len(segs), 64, 0, 0)
    head = ehdr + phdrs
    return head + bytes(body_at - len(head)) + bytes(body)


BASE = "bad_exec_data"   # text, rodata and data: three PT_LOAD segments


@pytest.fixture(scope="module")
def base():
    return elf(BASE).read_bytes()


# ---------------------------------------------------------------- the real programs
@pytest.mark.parametrize("name", PROGRAMS)
def test_real_program_loads_as_readelf_sees_it(name, tmp_path):
    path = elf(name)
    got = elf64_check(path)
    assert isinstance(got, dict), got
    want = [{"vaddr": v, "memsz": m, "offset": o, "filesz": f,
             "flags": {"R E": "r-x", "R": "r--", "RW": "rw-"}[fl]}
            for typ, v, m, o, f, fl, _ in segments(path) if typ == "LOAD"]
    assert got["segments"] == want
    assert got["segments"][0]["vaddr"] == RT_USER_BASE
    agree(path.read_bytes(), tmp_path)


# ---------------------------------------------------------------- each refusal
def edit(fn):
    def apply(data):
        e = Elf(data)
        fn(e)
        return e.data
    return apply


def entry_past_text(e):
    t = e.loads()[0]
    e.set("entry", e.ph(t, "vaddr") + e.ph(t, "filesz"))


CASES = [
    ("short", lambda d: d[:63], "63 bytes, shorter than an ELF64 header", None),
    ("magic", lambda d: b"\x7fELG" + d[4:], "not an ELF file: it starts with 7f 45 4c 47", None),
    ("class", lambda d: d[:4] + b"\x01" + d[5:], "ELF class 1, not ELFCLASS64", None),
    ("endian", lambda d: d[:5] + b"\x02" + d[6:], "data encoding 2, not ELFDATA2LSB", None),
    ("identver", lambda d: d[:6] + b"\x00" + d[7:], "identification version 0", None),
    ("dyn", edit(lambda e: e.set("type", 3)), "ELF type 3 (ET_DYN, position-independent), not ET_EXEC", None),
    ("rel", edit(lambda e: e.set("type", 1)), "ET_REL, an object file", None),
    ("machine", edit(lambda e: e.set("machine", 3)), "machine 3, not EM_X86_64", None),
    ("version", edit(lambda e: e.set("version", 2)), "ELF version 2, not EV_CURRENT", None),
    ("ehsize", edit(lambda e: e.set("ehsize", 52)), "ELF header size 52, not 64", None),
    ("phentsize", edit(lambda e: e.set("phentsize", 32)), "program header entry size 32, not 56", None),
    ("phnum0", edit(lambda e: e.set("phnum", 0)), "no program headers", None),
    ("phoff", edit(lambda e: e.set("phoff", len(e.data) - 8)), "the program header table (offset", None),
    ("phoff_wrap", edit(lambda e: e.set("phoff", 2**64 - 8)), "runs past the end of the file", None),
    ("filesz", edit(lambda e: e.set_ph(0, "filesz", e.ph(0, "memsz") + 1)), "is larger than memsz", 0),
    ("past_end", edit(lambda e: (e.set_ph(1, "filesz", len(e.data)),
                                 e.set_ph(1, "memsz", len(e.data)))),
     "run past the end of the file", 1),
    ("offset_wrap", edit(lambda e: e.set_ph(1, "offset", 2**64 - 16)), "run past the end of the file", 1),
    ("congruence", edit(lambda e: e.set_ph(1, "vaddr", e.ph(1, "vaddr") + 8)), "differ within the 4096-byte page", 1),
    ("below", edit(lambda e: e.set_ph(0, "vaddr", RT_USER_BASE - PAGE)), "do not fit the program area", 0),
    ("above", edit(lambda e: e.set_ph(2, "memsz", RT_WS_BASE)), "do not fit the program area", 2),
    ("wrap", edit(lambda e: e.set_ph(2, "memsz", 2**64 - PAGE)), "do not fit the program area", 2),
    ("wx", edit(lambda e: e.set_ph(2, "flags", 7)), "is both writable and executable", 2),
    ("order", edit(lambda e: (e.set_ph(0, "vaddr", RT_USER_BASE + 16 * PAGE),
                              e.set_ph(0, "offset", 0))),
     "PT_LOAD segments must be in ascending order", 1),
    ("overlap", edit(lambda e: e.set_ph(1, "vaddr", e.ph(0, "vaddr"))),
     "shares a page with program header 0", 1),
    ("stack_x", edit(lambda e: e.set_ph(e.header_of(PT_GNU_STACK), "flags", 7)), "asks for an executable stack", 3),
    ("interp", edit(lambda e: e.set_ph(e.header_of(PT_GNU_STACK), "type", 3)), "PT_INTERP", 3),
    ("dynamic", edit(lambda e: e.set_ph(e.header_of(PT_GNU_STACK), "type", 2)), "PT_DYNAMIC", 3),
    ("tls", edit(lambda e: e.set_ph(e.header_of(PT_GNU_STACK), "type", 7)), "PT_TLS", 3),
    ("no_load", edit(lambda e: [e.set_ph(i, "type", 0) for i in e.loads()]), "no PT_LOAD segment", None),
    ("entry_data", edit(lambda e: e.set("entry", e.ph(2, "vaddr"))), "the entry point 0x", None),
    ("entry_end", edit(entry_past_text), "not in the file bytes of an executable segment", None),
]


@pytest.mark.parametrize("name,mutate,phrase,header", CASES, ids=[c[0] for c in CASES])
def test_refusal_names_what_is_wrong(base, tmp_path, name, mutate, phrase, header):
    got = agree(mutate(base), tmp_path)
    assert isinstance(got, str) and phrase in got, got
    if header is not None:
        assert f"program header {header}" in got, got


def test_sharing_a_page_is_refused_even_without_overlap(tmp_path):
    text = (RT_USER_BASE, 100, 100, 5)
    got = agree(synthetic([text, (RT_USER_BASE + 512, 64, 64, 6)]), tmp_path)
    assert "program header 1 (0x8000000200, 0x40 bytes) shares a page with " \
           "program header 0 (0x8000000000, 0x64 bytes)" in got


def test_more_segments_than_the_loader_keeps(tmp_path):
    segs = [(RT_USER_BASE + 2 * i * PAGE, 64, 64, 5 if i == 0 else 4)
            for i in range(9)]
    assert "more than 8 PT_LOAD segments" in agree(synthetic(segs), tmp_path)
    assert isinstance(agree(synthetic(segs[:8]), tmp_path), dict)


def test_empty_segments_are_left_out_and_bss_is_zero_fill(tmp_path):
    got = agree(synthetic([(RT_USER_BASE, 64, 64, 5), (0, 0, 0, 6),
                           (RT_USER_BASE + PAGE, 3 * PAGE, 16, 6)]), tmp_path)
    assert [(s["vaddr"], s["memsz"], s["filesz"], s["flags"]) for s in got["segments"]] == \
        [(RT_USER_BASE, 64, 64, "r-x"), (RT_USER_BASE + PAGE, 3 * PAGE, 16, "rw-")]


def test_entry_in_zero_fill_is_refused(tmp_path):
    text = (RT_USER_BASE, 2 * PAGE, 64, 5)
    assert isinstance(agree(synthetic([text], RT_USER_BASE + 63), tmp_path), dict)
    got = agree(synthetic([text], RT_USER_BASE + 64), tmp_path)
    assert "the entry point 0x8000000040 is not in the file bytes" in got


def test_last_page_of_the_program_area_fits(tmp_path):
    top = (RT_WS_BASE - PAGE, PAGE, 8, 5)
    assert isinstance(agree(synthetic([top]), tmp_path), dict)
    assert "do not fit" in agree(synthetic([(RT_WS_BASE - PAGE, PAGE + 1, 8, 5)]), tmp_path)


# ---------------------------------------------------------------- properties
def interesting(size, data_len):
    top = (1 << 8 * size) - 1
    values = [0, 1, 2, 3, 7, PAGE - 1, PAGE, PAGE + 1, RT_USER_BASE,
              RT_USER_BASE + PAGE, RT_WS_BASE - PAGE, RT_WS_BASE, data_len,
              data_len + 1, 0x6474E551, 1 << 63, top]
    return st.one_of(st.sampled_from([v & top for v in values]),
                     st.integers(0, top))


@st.composite
def mutated(draw, programs):
    e = Elf(draw(st.sampled_from(programs)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "byte", "ehdr", "phdr",
                                     "overlap", "oversize"]))
        phnum = min(e.get("phnum"), (len(e.data) - 64) // PHDR.size) \
            if len(e.data) >= 64 else 0
        if kind == "truncate":
            e.data = e.data[:draw(st.integers(0, len(e.data)))]
        elif kind == "byte" and e.data:
            at = draw(st.integers(0, min(len(e.data), 64 + 6 * PHDR.size) - 1))
            e.data[at] = draw(st.integers(0, 255))
        elif kind == "ehdr" and len(e.data) >= 64:
            field = draw(st.sampled_from(sorted(Elf.EHDR_FIELDS)))
            size = struct.calcsize(Elf.EHDR_FIELDS[field][1])
            e.set(field, draw(interesting(size, len(e.data))))
        elif kind in ("phdr", "overlap", "oversize") and phnum and \
                e.get("phoff") + phnum * PHDR.size <= len(e.data):
            i = draw(st.integers(0, phnum - 1))
            if kind == "phdr":
                field = draw(st.sampled_from(sorted(Elf.PHDR_FIELDS)))
                size = struct.calcsize(Elf.PHDR_FIELDS[field][1])
                e.set_ph(i, field, draw(interesting(size, len(e.data))))
            elif kind == "overlap" and i > 0:
                shift = draw(st.integers(-2, 1)) * PAGE
                e.set_ph(i, "vaddr", e.ph(i - 1, "vaddr") + e.ph(i - 1, "memsz")
                         + shift)
                e.set_ph(i, "offset", e.ph(i, "offset") + shift)
            elif kind == "oversize":
                e.set_ph(i, "memsz", e.ph(i, "memsz") + draw(interesting(8, len(e.data))))
    return bytes(e.data)


@pytest.fixture(scope="module")
def programs():
    return [elf(p).read_bytes() for p in PROGRAMS]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_mutated_programs_get_the_models_verdict(programs, tmp_path, data):
    agree(data.draw(mutated(programs)), tmp_path)


@st.composite
def layouts(draw):
    """Synthetic programs: a few segments placed near each other and the
    program area's edges, with any permissions and sizes."""
    n = draw(st.integers(1, 9))
    anchor = draw(st.sampled_from([RT_USER_BASE, RT_WS_BASE - 16 * PAGE,
                                   RT_USER_BASE - 2 * PAGE]))
    segs, at = [], anchor
    for _ in range(n):
        at += draw(st.integers(-1, 2)) * PAGE + draw(st.sampled_from([0, 0, 8, PAGE - 8]))
        filesz = draw(st.integers(0, 64))
        memsz = filesz + draw(st.sampled_from([0, 0, 1, PAGE, 3 * PAGE]))
        segs.append((at, memsz, filesz, draw(st.integers(0, 7))))
        at += memsz
    edges = [x for v, m, f, _ in segs for x in (v, v + f - 1, v + f, v + m - 1)]
    entry = draw(st.one_of(st.none(), st.sampled_from(edges),
                           st.integers(*entry_range(segs))))
    return synthetic(segs, entry)


def entry_range(segs):
    """From a page below the lowest segment to a page past the highest end.
    `at` may step back below where the first segment began, so the bounds
    come from the segments themselves: lowest start <= highest end, and the
    interval is never empty."""
    low = min(v for v, _, _, _ in segs)
    high = max(v + m for v, m, _, _ in segs)
    return low - PAGE, high + PAGE


def test_entry_range_is_never_empty_and_spans_every_segment():
    """The generator's interval for entry points, over layouts that step
    back below their anchor (the draw that once made it empty): it holds
    every byte of every segment and a page either side."""
    import itertools
    base = RT_USER_BASE
    for steps in itertools.product([-1, 0, 2], repeat=3):
        segs, at = [], base
        for k in steps:
            at += k * PAGE
            segs.append((at, 8, 8, 5))
        lo, hi = entry_range(segs)
        assert lo <= hi
        assert lo == min(v for v, *_ in segs) - PAGE
        assert all(lo < v and v + m < hi for v, m, *_ in segs)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=layouts())
def test_synthetic_layouts_get_the_models_verdict(tmp_path, data):
    agree(data, tmp_path)


# ---------------------------------------------------------------- declarations
PT_NOTE = 4
NOTE_HEADER = struct.Struct("<III")
# What each program of user/ declares it needs (lib/rt_abi.h, RT_PROG_*;
# docs/user-programs.md lists the same); None: no declaration.
ENDS_JOBS, NEEDS_PERIODS, SYNC_RELEASE, OTHER_PAGE, RELOAD = 1, 2, 4, 8, 16
DECLARED = {"backtest": ENDS_JOBS | NEEDS_PERIODS, "latency": ENDS_JOBS,
            "rtspin": ENDS_JOBS | NEEDS_PERIODS | SYNC_RELEASE,
            "bad_write_other": OTHER_PAGE, "writer": RELOAD,
            "locker": NEEDS_PERIODS, "lockcost": NEEDS_PERIODS}


@pytest.mark.parametrize("name", PROGRAMS)
def test_each_program_declares_what_it_needs(name):
    assert elf64_check(elf(name))["declaration"] == DECLARED.get(name)


def note(name=b"rtk\0", ntype=1, desc=struct.pack("<I", 1), namesz=None,
         descsz=None):
    pad = lambda b: b + bytes(-len(b) % 4)
    return (NOTE_HEADER.pack(len(name) if namesz is None else namesz,
                             len(desc) if descsz is None else descsz, ntype)
            + pad(name) + pad(desc))


def with_notes(data, body, size=None, offset=None):
    """rtspin's file with its PT_NOTE header pointed at body, appended at
    the end of the file (size and offset override the header's)."""
    e = Elf(data + body)
    i = e.header_of(PT_NOTE)
    e.set_ph(i, "offset", len(data) if offset is None else offset)
    e.set_ph(i, "filesz", len(body) if size is None else size)
    return bytes(e.data)


NOTE_CASES = [
    ("second declaration", note() + note(), None, "a second program declaration"),
    ("descriptor of 8 bytes", note(desc=bytes(8)), None, "descriptor bytes, not 4"),
    ("unknown flag", note(desc=struct.pack("<I", 0x100)), None, "are unknown here"),
    ("name past the segment", note(namesz=1 << 20), None, "runs past its segment"),
    ("header cut short", note(), 8, "too few for a note's header"),
    ("past the file", note(), 1 << 30, "(PT_NOTE): its"),
]


@pytest.mark.parametrize("what,body,size,phrase", NOTE_CASES,
                         ids=[c[0] for c in NOTE_CASES])
def test_a_bad_note_is_refused_naming_why(tmp_path, what, body, size, phrase):
    data = elf("rtspin").read_bytes()
    got = agree(with_notes(data, body, size), tmp_path)
    assert isinstance(got, str) and phrase in got, (what, got)


def test_other_notes_are_skipped_and_the_declaration_found(tmp_path):
    data = elf("rtspin").read_bytes()
    body = (note(name=b"GNU\0", ntype=5, desc=bytes(12)) +
            note(name=b"rtk\0", ntype=2, desc=bytes(4)) +
            note(desc=struct.pack("<I", SYNC_RELEASE)))
    got = agree(with_notes(data, body), tmp_path)
    assert got["declaration"] == SYNC_RELEASE


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from([b"rtk\0", b"rtk", b"rtkx", b"", b"GNU\0"]),
       ntype=st.sampled_from([0, 1, 2]),
       desc=st.binary(max_size=12),
       namesz=st.one_of(st.none(), st.integers(0, 64)),
       descsz=st.one_of(st.none(), st.integers(0, 64)),
       cut=st.integers(0, 24), twice=st.booleans())
def test_drawn_notes_get_the_models_verdict(tmp_path, name, ntype, desc,
                                            namesz, descsz, cut, twice):
    body = note(name, ntype, desc, namesz, descsz)
    body = body + body if twice else body
    data = elf("rtspin").read_bytes()
    agree(with_notes(data, body, max(len(body) - cut, 0)), tmp_path)
