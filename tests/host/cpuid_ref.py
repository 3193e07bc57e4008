"""An independent reading of CPUID, written from the manuals (Intel SDM
vol. 2A, "CPUID"; vol. 3A, 10.9 "Identifying the topology"; AMD APM vol. 3,
appendix E), for the tests of arch/x86/cpuinfo.c.

A table is {(leaf, subleaf): (eax, ebx, ecx, edx)}; a pair not in it reads
as `fill`, which is what an Intel CPU answers for a leaf above its maximum
(the highest basic leaf's data): a decoder that reads such a leaf sees
garbage, and its answer then differs from this one's."""

FEATURES = ["x2apic", "tsc_deadline", "invtsc", "arat", "smep", "smap",
            "umip", "nx", "pcid", "xsave"]

# (name, leaf, register index: eax 0, ebx 1, ecx 2, edx 3, bit)
_FEATURE_BITS = [
    ("x2apic", 0x1, 2, 21), ("tsc_deadline", 0x1, 2, 24),
    ("invtsc", 0x80000007, 3, 8), ("arat", 0x6, 0, 2),
    ("smep", 0x7, 1, 7), ("smap", 0x7, 1, 20), ("umip", 0x7, 2, 2),
    ("nx", 0x80000001, 3, 20), ("pcid", 0x1, 2, 17), ("xsave", 0x1, 2, 26),
]

AMD_VENDORS = ("AuthenticAMD", "HygonGenuine")


def _text(words):
    raw = b"".join(w.to_bytes(4, "little") for w in words)
    return raw


def _printable(raw):
    return "".join(chr(b) if 0x20 <= b < 0x7f else "?" for b in raw)


def _bits_for(count):
    """Bits needed to number `count` things: log2 rounded up."""
    return max(0, (count - 1).bit_length()) if count > 0 else 0


class _Cpu:
    def __init__(self, table, fill):
        self.table, self.fill = table, fill
        self.max_basic = self.raw(0, 0)[0]
        top = self.raw(0x80000000, 0)[0]
        self.max_ext = top if top >> 16 == 0x8000 else 0

    def raw(self, leaf, sub):
        return self.table.get((leaf, sub), self.fill)

    def get(self, leaf, sub=0):
        """A leaf's registers when the CPU reports it, else zeros."""
        if leaf >= 0x80000000:
            ok = self.max_ext and leaf <= self.max_ext
        else:
            ok = leaf <= self.max_basic
        return self.raw(leaf, sub) if ok else (0, 0, 0, 0)


def decode(table, fill=(0, 0, 0, 0), apic_ids=()):
    cpu = _Cpu(table, fill)
    ebx, ecx, edx = cpu.raw(0, 0)[1:4]
    vendor = _printable(_text([ebx, edx, ecx]))
    amd = vendor in AMD_VENDORS

    sig = cpu.get(1)[0]
    stepping = sig & 0xF
    fam_id = (sig >> 8) & 0xF
    model_id = (sig >> 4) & 0xF
    ext_fam = (sig >> 20) & 0xFF
    ext_model = (sig >> 16) & 0xF
    # SDM: DisplayFamily adds the extended family only for family 0FH;
    # DisplayModel adds the extended model for families 06H and 0FH.
    # APM: extended model and family apply when BaseFamily is 0Fh.
    family = fam_id + ext_fam if fam_id == 0xF else fam_id
    if amd:
        model = (ext_model << 4) + model_id if fam_id == 0xF else model_id
    else:
        model = (ext_model << 4) + model_id if fam_id in (6, 0xF) \
            else model_id

    brand = ""
    if cpu.max_ext >= 0x80000004:
        words = []
        for leaf in (0x80000002, 0x80000003, 0x80000004):
            words += list(cpu.get(leaf))
        raw = _text(words).split(b"\0", 1)[0]
        brand = _printable(raw.strip(b" "))

    features = []
    for name, leaf, reg, b in _FEATURE_BITS:
        if leaf == 0x7:
            value = cpu.get(7, 0)[reg]
        else:
            value = cpu.get(leaf)[reg]
        if value >> b & 1:
            features.append(name)

    topo = _topology(cpu, amd, family)
    split = []
    for a in apic_ids:
        smt, core = topo["smt_bits"], topo["core_bits"]
        split.append([a >> (smt + core), (a >> smt) & ((1 << core) - 1),
                      a & ((1 << smt) - 1)])
    return {"vendor": vendor, "brand": brand, "max_leaf": cpu.max_basic,
            "max_ext_leaf": cpu.max_ext, "family": family, "model": model,
            "stepping": stepping,
            "features": [f for f in FEATURES if f in features],
            "topo": topo, "split": split}


def _levels(cpu, leaf):
    """(type, shift) of each level CPUID 0BH/1FH lists, or None when the
    leaf is absent (SDM: present when the maximum leaf reaches it and
    subleaf 0 has EBX != 0)."""
    if cpu.max_basic < leaf or cpu.get(leaf, 0)[1] == 0:
        return None
    out = []
    for sub in range(8):
        eax, _, ecx, _ = cpu.get(leaf, sub)
        kind = (ecx >> 8) & 0xFF
        if kind == 0:
            break
        out.append((kind, eax & 0x1F))
    return out or None


def _topology(cpu, amd, family):
    for leaf, name in ((0x1F, "leaf1f"), (0xB, "leaf0b")):
        levels = _levels(cpu, leaf)
        if levels:
            package_shift = levels[-1][1]
            smt = [s for k, s in levels if k == 1]
            smt = smt[-1] if smt else 0
            smt = min(smt, package_shift)
            return {"source": name, "smt_bits": smt,
                    "core_bits": package_shift - smt}
    if amd and cpu.max_ext >= 0x80000008:
        ecx = cpu.get(0x80000008)[2]
        size = (ecx >> 12) & 0xF
        width = size if size else _bits_for((ecx & 0xFF) + 1)
        smt = 0
        topoext = cpu.get(0x80000001)[2] >> 22 & 1
        if family >= 0x17 and topoext and cpu.max_ext >= 0x8000001E:
            threads = ((cpu.get(0x8000001E)[1] >> 8) & 0xFF) + 1
            smt = _bits_for(threads)
        smt = min(smt, width)
        return {"source": "amd", "smt_bits": smt, "core_bits": width - smt}
    _, ebx, _, edx = cpu.get(1)
    if not edx >> 28 & 1:
        return {"source": "none", "smt_bits": 0, "core_bits": 0}
    logical_bits = _bits_for((ebx >> 16) & 0xFF)
    if amd:
        core_bits = logical_bits
    else:
        eax4 = cpu.get(4, 0)[0]
        core_bits = _bits_for((eax4 >> 26) + 1) if eax4 & 0x1F else 0
    core_bits = min(core_bits, logical_bits)
    return {"source": "legacy", "smt_bits": logical_bits - core_bits,
            "core_bits": core_bits}
