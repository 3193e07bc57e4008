"""An independent reading of the ACPI tables the kernel reads -- MADT,
FADT, HPET -- written from the ACPI 6.4 specification (5.2.5 RSDP, 5.2.6
headers, 5.2.9 FADT, 5.2.12 MADT) and the IA-PC HPET specification 1.0a
(3.2.4), not from arch/x86/acpi_tables.c; and the firmware images the host
tests and the fuzz target `acpi` read (tests/host/c/phys_window.h): the
bytes of physical memory from IMAGE_BASE, an RSDP first, then a root table
and the tables it lists.

What the kernel decides beyond the specification is stated in its headers
(arch/x86/acpi.h, acpi_tables.h) and modelled here as stated:
  - of the MADTs, FADTs and HPET tables a root lists, the first that passes
    the header checks (signature, length, checksum) is used, each later one
    is named and ignored;
  - a MADT with an entry shorter than 2 bytes or running past its end is
    refused whole;
  - an entry with a broadcast APIC ID (0xFF local APIC, 0xFFFFFFFF x2APIC)
    is no processor; an enabled processor whose ID was seen is kept once;
    at most MAX_CPUS enabled processors are kept, the rest counted as
    dropped; at most MAX_IOAPICS I/O APICs;
  - interrupt source overrides of bus 0 (ISA) for IRQs below 16, a later one
    for the same IRQ replacing the earlier in its place;
  - with HW_REDUCED_ACPI set, no PM timer, PM1 control or SMI command.
"""
import struct

IMAGE_BASE = 0xE0000
MAX_CPUS = 256
MAX_IOAPICS = 8
TABLE_MAX = 1 << 20

# ACPI 6.4, table 5.10: FADT flags.
TMR_VAL_EXT = 1 << 8
HW_REDUCED_ACPI = 1 << 20


def u8(b, off):
    return b[off]


def u16(b, off):
    return struct.unpack_from("<H", b, off)[0]


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def checksum_ok(b):
    return sum(b) % 256 == 0


def seal(table):
    """table (bytearray) with byte 9 making its sum 0."""
    table[9] = 0
    table[9] = (-sum(table)) % 256
    return table


# ---------------------------------------------------------------- images

def rsdp(revision, rsdt, xsdt):
    """ACPI 6.4, 5.2.5.3: 20 bytes for revision 0, 36 from revision 2."""
    r = bytearray(b"RSD PTR ") + bytearray(1) + b"TESTOS" + bytes([revision])
    r += struct.pack("<I", rsdt)
    if revision >= 2:
        r += struct.pack("<IQ", 36, xsdt) + bytes(4)
    r[8] = (-sum(r[:20])) % 256
    if revision >= 2:
        r[32] = (-sum(r)) % 256
    return bytes(r)


def root_table(sig, addresses):
    width, fmt = (8, "<Q") if sig == b"XSDT" else (4, "<I")
    t = bytearray(sig) + struct.pack("<I", 36 + width * len(addresses))
    t += bytes([1, 0]) + b"TESTOS" + b"TESTROOT" + bytes(12)
    for a in addresses:
        t += struct.pack(fmt, a)
    return bytes(seal(t))


def image(tables, root="XSDT"):
    """The bytes of a firmware image with the tables (bytes, in the root's
    order) behind an XSDT (RSDP revision 2) or an RSDT (revision 0), and
    the physical address of each table."""
    xsdt = root == "XSDT"
    head = 36 if xsdt else 20
    root_at = IMAGE_BASE + 64
    root_len = 36 + (8 if xsdt else 4) * len(tables)
    at, addrs = (root_at + root_len + 15) & ~15, []
    for t in tables:
        addrs.append(at)
        at = (at + len(t) + 15) & ~15
    out = bytearray(at - IMAGE_BASE)
    out[:head] = rsdp(2 if xsdt else 0, 0 if xsdt else root_at, root_at
                      if xsdt else 0)
    r = root_table(b"XSDT" if xsdt else b"RSDT", addrs)
    out[root_at - IMAGE_BASE:root_at - IMAGE_BASE + len(r)] = r
    for a, t in zip(addrs, tables):
        out[a - IMAGE_BASE:a - IMAGE_BASE + len(t)] = t
    return bytes(out), addrs


# ---------------------------------------------------------------- reading

def header_ok(t):
    """ACPI 6.4, 5.2.6: a table is its declared length, summing to 0."""
    return (len(t) >= 36 and 36 <= u32(t, 4) <= min(len(t), TABLE_MAX)
            and checksum_ok(t[:u32(t, 4)]))


def madt_entries(t):
    """ACPI 6.4, 5.2.12: (type, bytes) of each interrupt controller
    structure after the 44-byte head; None when one is shorter than its
    own 2-byte head or runs past the table."""
    out, off, end = [], 44, u32(t, 4)
    while off < end:
        if off + 2 > end or t[off + 1] < 2 or off + t[off + 1] > end:
            return None
        out.append((t[off], t[off:off + t[off + 1]]))
        off += t[off + 1]
    return out


def madt_processors(entries):
    """(apic_id, uid, flags) of each processor structure: type 0 (5.2.12.2)
    and type 9 (5.2.12.12), in table order, broadcast IDs left out."""
    for kind, e in entries:
        if kind == 0 and len(e) >= 8 and e[3] != 0xFF:
            yield e[3], e[2], u32(e, 4)
        elif kind == 9 and len(e) >= 16 and u32(e, 4) != 0xFFFFFFFF:
            yield u32(e, 4), u32(e, 12), u32(e, 8)


class Reading:
    """What the kernel should have after reading a machine's tables."""

    def __init__(self):
        self.revision = 0
        self.lapic_addr = 0
        self.cpus = []          # [apic_id, uid, online_capable]
        self.disabled = self.hotplug = self.dropped = 0
        self.ioapics = []       # [id, address, gsi_base]
        self.overrides = {}     # isa irq -> [irq, gsi, flags], first-seen order
        self.used = {"APIC": 0, "FACP": 0, "HPET": 0}
        self.ignored = []       # (kind, address, the used one's address)
        self.hw_reduced = 0
        self.pm_timer_port = self.pm_timer_32bit = 0
        self.pm1a_cnt = self.pm1b_cnt = self.smi_cmd = self.acpi_enable = 0
        self.hpet_addr = 0

    def as_dict(self):
        return {
            "read": 1, "revision": self.revision,
            "lapic_addr": self.lapic_addr, "cpus": self.cpus,
            "disabled": self.disabled, "hotplug": self.hotplug,
            "dropped": self.dropped, "ioapics": self.ioapics,
            "overrides": list(self.overrides.values()),
            "madt_at": self.used["APIC"], "fadt_at": self.used["FACP"],
            "hpet_at": self.used["HPET"], "ignored": len(self.ignored),
            "hw_reduced": self.hw_reduced,
            "pm_timer_port": self.pm_timer_port,
            "pm_timer_32bit": self.pm_timer_32bit,
            "pm1a_cnt": self.pm1a_cnt, "pm1b_cnt": self.pm1b_cnt,
            "smi_cmd": self.smi_cmd, "acpi_enable": self.acpi_enable,
            "have_s5": 0, "hpet_addr": self.hpet_addr}

    # ---- MADT
    def madt(self, t):
        entries = madt_entries(t) if u32(t, 4) >= 44 else None
        if entries is None:
            return
        self.lapic_addr = u32(t, 36)
        for apic_id, uid, flags in madt_processors(entries):
            self.processor(apic_id, uid, flags)
        for kind, e in entries:
            if kind == 1 and len(e) >= 12 and len(self.ioapics) < MAX_IOAPICS:
                self.ioapics.append([e[2], u32(e, 4), u32(e, 8)])
            elif kind == 2 and len(e) >= 10 and e[2] == 0 and e[3] < 16:
                self.overrides[e[3]] = [e[3], u32(e, 4), u16(e, 8)]
            elif kind == 5 and len(e) >= 12:
                self.lapic_addr = u64(e, 4)

    def processor(self, apic_id, uid, flags):
        enabled, online_capable = flags & 1, (flags >> 1) & 1
        if not enabled:
            if online_capable:
                self.hotplug += 1
            else:
                self.disabled += 1
        elif any(c[0] == apic_id for c in self.cpus):
            pass
        elif len(self.cpus) == MAX_CPUS:
            self.dropped += 1
        else:
            self.cpus.append([apic_id, uid, online_capable])

    # ---- FADT (ACPI 6.4, 5.2.9, table 5.9)
    def fadt(self, t):
        if u32(t, 4) < 116:
            return
        flags = u32(t, 112)
        if flags & HW_REDUCED_ACPI:
            self.hw_reduced = 1
            return
        port = u32(t, 76)                       # PM_TMR_BLK
        # X_PM_TMR_BLK, a Generic Address (5.2.3.2) at 208: address space
        # 1 is system I/O, the address is at +4.
        if u32(t, 4) >= 220 and t[208] == 1 and u64(t, 212):
            port = u64(t, 212)
        self.pm_timer_port = port & 0xFFFF
        self.pm_timer_32bit = int(bool(flags & TMR_VAL_EXT))
        self.pm1a_cnt = u32(t, 64) & 0xFFFF
        self.pm1b_cnt = u32(t, 68) & 0xFFFF
        self.smi_cmd = u32(t, 48) & 0xFFFF
        self.acpi_enable = t[52]

    # ---- HPET (IA-PC HPET 1.0a, 3.2.4: the base address's GAS at 40)
    def hpet(self, t):
        if u32(t, 4) >= 56:
            self.hpet_addr = u64(t, 44)


def read(tables, addrs, revision):
    """The Reading of tables (bytes, the root's order) at addrs."""
    r = Reading()
    r.revision = revision
    for t, a in zip(tables, addrs):
        sig = bytes(t[:4]).decode("latin-1")
        if sig not in r.used or not header_ok(t):
            continue
        if r.used[sig]:
            r.ignored.append((sig, a, r.used[sig]))
            continue
        r.used[sig] = a
        {"APIC": r.madt, "FACP": r.fadt, "HPET": r.hpet}[sig](t)
    return r
