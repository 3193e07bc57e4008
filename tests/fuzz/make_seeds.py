#!/usr/bin/env python3
"""Writes the seed corpus files of the fuzz targets that are made from
other files of the repository (tests/fuzz/corpus/README.md lists every
seed and where it comes from):

  acpi      firmware images (tests/host/acpi_ref.py) of the six machines'
            tables in tests/host/data/acpi/, behind an XSDT, and two behind
            an RSDT; QEMU's own tables (tests/fuzz/data/qemu-pc/) with its
            DSDT in the image, so that the \\_S5 search runs
  mptable   QEMU's (SeaBIOS's) MP floating pointer and configuration table
            (tests/fuzz/data/qemu-pc-acpi-off/), the table after the pointer
  elf64     three of the ISO's ring-3 programs (build/user/*.elf, `make
            host` first), stripped

Run from the repository root: build/venv/bin/python tests/fuzz/make_seeds.py
"""
import pathlib
import struct
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "host"))
import acpi_ref  # noqa: E402

CORPUS = ROOT / "tests" / "fuzz" / "corpus"
DATA = ROOT / "tests" / "fuzz" / "data"
SEAL = b"\x01"      # the targets' flag byte: make the checksums hold
ELF_SEEDS = ("backtest", "latency", "bad_exec_data")


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def machine_tables(folder):
    files = sorted(folder.glob("*.dat"))
    order = ([f for f in files if f.name.startswith("FACP")] +
             [f for f in files if f.name.startswith("APIC")] +
             [f for f in files if f.name.startswith("HPET")])
    return [f.read_bytes() for f in order]


def qemu_image():
    """QEMU's tables, its FADT's DSDT pointer moved to the DSDT's place in
    the image (ACPI 6.4, 5.2.9: DSDT at offset 40) and re-sealed."""
    listed = [p.read_bytes() for p in sorted((DATA / "qemu-pc").glob("[0-9]-*"))]
    dsdt = (DATA / "qemu-pc" / "DSDT.dat").read_bytes()
    _, addrs = acpi_ref.image(listed + [dsdt], "RSDT")
    fadt = bytearray(listed[0])
    assert fadt[:4] == b"FACP"
    struct.pack_into("<I", fadt, 40, addrs[-1])
    listed[0] = bytes(acpi_ref.seal(fadt))
    img, _ = acpi_ref.image(listed + [dsdt], "RSDT")
    return img


def acpi():
    machines = ROOT / "tests" / "host" / "data" / "acpi"
    for m in sorted(p for p in machines.iterdir() if p.is_dir()):
        img, _ = acpi_ref.image(machine_tables(m), "XSDT")
        write("acpi", f"{m.name}-xsdt", SEAL + img)
    for m in ("itautec-infoway", "ideapad-100s"):
        img, _ = acpi_ref.image(machine_tables(machines / m), "RSDT")
        write("acpi", f"{m}-rsdt", SEAL + img)
    write("acpi", "qemu-pc-rsdt-dsdt", SEAL + qemu_image())


def mptable():
    fp = bytearray((DATA / "qemu-pc-acpi-off" / "MPFP.dat").read_bytes())
    table = (DATA / "qemu-pc-acpi-off" / "PCMP.dat").read_bytes()
    # MP spec 1.4, 4.1: the configuration table's address at offset 4,
    # the checksum at 10.
    struct.pack_into("<I", fp, 4, acpi_ref.IMAGE_BASE + 16)
    fp[10] = 0
    fp[10] = (-sum(fp)) % 256
    write("mptable", "qemu-pc-acpi-off-smp4", SEAL + bytes(fp) + table)


def elf64():
    for name in ELF_SEEDS:
        src = ROOT / "build" / "user" / f"{name}.elf"
        if not src.exists():
            sys.exit(f"{src} is missing: run `make host` first")
        out = CORPUS / "elf64" / name
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["objcopy", "--strip-all", str(src), str(out)],
                       check=True)


if __name__ == "__main__":
    acpi()
    mptable()
    elf64()
