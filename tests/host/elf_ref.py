"""An independent model of the checks lib/elf64 makes on a ring-3 program,
written from the System V gABI's layouts (struct.unpack, not the C code's
byte reader) and the rules of lib/elf64.h, in the same order, so that the
first rule a file breaks is the one both name.

check(data) returns ("ok", entry, [segment dicts], declaration) or
("refused", phrase, header) where phrase is a piece of text the C message
must contain and header the program header it names (or None). The
declaration is the flags of the program's note (lib/rt_abi.h: name "rtk",
type 1, a 4-byte descriptor), or None without one."""
import struct

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
PAGE = 4096
PF_X, PF_W, PF_R = 1, 2, 4
MAX_SEGMENTS = 8
PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_NOTE, PT_TLS = 1, 2, 3, 4, 7
PT_GNU_STACK = 0x6474E551
NOTE = struct.Struct("<III")   # namesz, descsz, type (gABI, "Note Section")
DECL_NAME, DECL_TYPE, DECL_KNOWN = b"rtk\0", 1, 0x1F


class Refused(Exception):
    def __init__(self, phrase, header=None):
        super().__init__(phrase)
        self.phrase, self.header = phrase, header


def _header(data):
    if len(data) < EHDR.size:
        raise Refused("shorter than an ELF64 header")
    (ident, etype, machine, version, entry, phoff, _shoff, _flags, ehsize,
     phentsize, phnum, _shentsize, _shnum, _shstrndx) = EHDR.unpack_from(data)
    if ident[:4] != b"\x7fELF":
        raise Refused("not an ELF file")
    if ident[4] != 2:
        raise Refused("ELF class")
    if ident[5] != 1:
        raise Refused("data encoding")
    if ident[6] != 1:
        raise Refused("identification version")
    if etype != 2:
        raise Refused("not ET_EXEC")
    if machine != 62:
        raise Refused("not EM_X86_64")
    if version != 1:
        raise Refused("ELF version")
    if ehsize != 64:
        raise Refused("ELF header size")
    if phentsize != PHDR.size:
        raise Refused("program header entry size")
    if phnum == 0:
        raise Refused("no program headers")
    if phoff + phnum * PHDR.size > len(data):
        raise Refused("program header table")
    return entry, phoff, phnum


def _pad4(n):
    return (n + 3) // 4 * 4


def _notes(data, i, offset, size, decl):
    """The notes of PT_NOTE header i; returns the declaration so far."""
    if offset + size > len(data):
        raise Refused("(PT_NOTE): its", i)
    at, end = offset, offset + size
    while at < end:
        if end - at < NOTE.size:
            raise Refused("too few for a note's header", i)
        namesz, descsz, ntype = NOTE.unpack_from(data, at)
        if _pad4(namesz) + _pad4(descsz) > end - at - NOTE.size:
            raise Refused("runs past its segment", i)
        name = data[at + NOTE.size:at + NOTE.size + namesz]
        if name == DECL_NAME and ntype == DECL_TYPE:
            if decl is not None:
                raise Refused("a second program declaration")
            if descsz != 4:
                raise Refused("descriptor bytes, not 4")
            (flags,) = struct.unpack_from(
                "<I", data, at + NOTE.size + _pad4(namesz))
            if flags & ~DECL_KNOWN:
                raise Refused("are unknown here")
            decl = flags
        at += NOTE.size + _pad4(namesz) + _pad4(descsz)
    return decl


def check(data, user_base, ws_base):
    try:
        entry, phoff, phnum = _header(data)
        segs, last, decl = [], None, None
        for i in range(phnum):
            (ptype, flags, offset, vaddr, _paddr, filesz, memsz,
             _align) = PHDR.unpack_from(data, phoff + i * PHDR.size)
            if ptype == PT_INTERP:
                raise Refused("PT_INTERP", i)
            if ptype == PT_DYNAMIC:
                raise Refused("PT_DYNAMIC", i)
            if ptype == PT_TLS:
                raise Refused("PT_TLS", i)
            if ptype == PT_GNU_STACK and flags & PF_X:
                raise Refused("executable stack", i)
            if ptype == PT_NOTE:
                decl = _notes(data, i, offset, filesz, decl)
            if ptype != PT_LOAD or (memsz == 0 and filesz == 0):
                continue
            if filesz > memsz:
                raise Refused("is larger than memsz", i)
            if offset + filesz > len(data):
                raise Refused("past the end of the file", i)
            if vaddr % PAGE != offset % PAGE:
                raise Refused("differ within", i)
            if not (user_base <= vaddr and vaddr + memsz <= ws_base):
                raise Refused("do not fit the program area", i)
            if flags & PF_W and flags & PF_X:
                raise Refused("both writable and executable", i)
            if last is not None:
                prev = segs[-1]
                if vaddr < prev["vaddr"]:
                    raise Refused("ascending order", i)
                prev_end = -(-(prev["vaddr"] + prev["memsz"]) // PAGE) * PAGE
                if vaddr // PAGE * PAGE < prev_end:
                    raise Refused(f"shares a page with program header {last}", i)
            if len(segs) == MAX_SEGMENTS:
                raise Refused("more than 8 PT_LOAD segments")
            segs.append({"vaddr": vaddr, "memsz": memsz, "offset": offset,
                         "filesz": filesz,
                         "flags": ("r" if flags & PF_R else "-") +
                                  ("w" if flags & PF_W else "-") +
                                  ("x" if flags & PF_X else "-")})
            last = i
        if not segs:
            raise Refused("no PT_LOAD segment")
        if not any("x" in s["flags"] and
                   s["vaddr"] <= entry < s["vaddr"] + s["filesz"] for s in segs):
            raise Refused("entry point")
        return ("ok", entry, segs, decl)
    except Refused as r:
        return ("refused", r.phrase, r.header)
