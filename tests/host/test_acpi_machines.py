"""The kernel's ACPI reader (arch/x86/acpi_tables.c, built for the host as
build/host/acpi_read) on six real machines' tables (tests/host/data/acpi/):
what it finds must equal an independent reading of the same bytes
(tests/host/acpi_ref.py), behind an XSDT and behind an RSDT, and its
messages must be exactly the ones the reading predicts. Issue 24, items 1
(two MADTs: the first is used, the second named) and 2 (hardware-reduced
ACPI: no PM timer)."""
import json
import pathlib
import subprocess

import pytest

import acpi_ref
from conftest import host_tool

DATA = pathlib.Path(__file__).resolve().parent / "data" / "acpi"
MACHINES = sorted(p.name for p in DATA.iterdir() if p.is_dir())
KIND = {"APIC": "MADT", "FACP": "FADT", "HPET": "HPET table"}


def tables_of(machine, madts_reversed=False):
    """The machine's tables in the order a root lists them here: the FADT,
    the MADTs (APIC1 before APIC2, as the firmware lists them), the HPET."""
    files = sorted((DATA / machine).glob("*.dat"))
    madts = [f for f in files if f.name.startswith("APIC")]
    if madts_reversed:
        madts.reverse()
    order = ([f for f in files if f.name.startswith("FACP")] + madts +
             [f for f in files if f.name.startswith("HPET")])
    return [f.read_bytes() for f in order]


def kernel_reading(tables, root, tmp_path):
    img, addrs = acpi_ref.image(tables, root)
    path = tmp_path / f"{root}.img"
    path.write_bytes(img)
    proc = subprocess.run([str(host_tool("acpi_read")), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), addrs


def expected_log(tables, addrs, ref):
    """The reader's messages for these tables: each ignored table named,
    the hardware-reduced notice, and the DSDT out of the image's reach
    (the machines' DSDTs are not in it)."""
    lines = []
    for t, a in zip(tables, addrs):
        sig = t[:4].decode()
        if sig == "FACP" and ref.used["FACP"] == a:
            if ref.hw_reduced:
                lines.append("acpi: hardware-reduced ACPI (FADT flag "
                             "HW_REDUCED_ACPI): its PM timer, PM1 control "
                             "and SMI command fields are ignored")
            x_dsdt = acpi_ref.u64(t, 140) if len(t) >= 148 else 0
            dsdt = x_dsdt or acpi_ref.u32(t, 40)
            lines.append(f"acpi: the DSDT table at {dsdt:#x} is outside the "
                         "mapped 4 GiB; ignored")
        for sig_, addr, first in ref.ignored:
            if addr == a:
                lines.append(f"acpi: a second {KIND[sig_]} ({sig_} table at "
                             f"{addr:#x}) ignored: the first, at {first:#x}, "
                             "is used")
    return lines


@pytest.mark.parametrize("root", ["XSDT", "RSDT"])
@pytest.mark.parametrize("machine", MACHINES)
def test_kernel_reading_equals_the_reference(machine, root, tmp_path):
    tables = tables_of(machine)
    got, addrs = kernel_reading(tables, root, tmp_path)
    ref = acpi_ref.read(tables, addrs, 2 if root == "XSDT" else 0)
    log = got.pop("log").splitlines()
    assert got == ref.as_dict()
    assert log == expected_log(tables, addrs, ref)


# What each machine is, read off its tables by hand (tests/host/data/acpi/
# README.md): the reference above could share a misreading with the kernel;
# these numbers cannot.
#   machine: (CPUs, disabled, I/O APIC IDs, IRQ 0's flags, PM timer port,
#             MADTs ignored)
FACTS = {
    "imac11-3": (4, 4, [2], 0, 0x408, 1),
    "itautec-infoway": (2, 0, [1], 0, 0x1008, 1),
    "ideapad-100s": (4, 0, [2], 0, 0, 0),
    "evga-x299-micro": (20, 0, [8, 9, 10, 11, 12], 0, 0x1808, 0),
    "framework-laptop-13": (22, 0, [2], 0, 0x1808, 0),
    "poweredge-r820": (80, 16, [0, 1, 2, 3, 4], 0, 0x808, 0),
}


@pytest.mark.parametrize("machine", MACHINES)
def test_each_machine_as_read_by_hand(machine, tmp_path):
    cpus, disabled, ioapics, irq0_flags, pm_timer, ignored = FACTS[machine]
    got, _ = kernel_reading(tables_of(machine), "XSDT", tmp_path)
    assert len(got["cpus"]) == cpus
    assert got["disabled"] == disabled and got["hotplug"] == 0
    assert [io[0] for io in got["ioapics"]] == ioapics
    assert got["overrides"][0] == [0, 2, irq0_flags]
    assert got["pm_timer_port"] == pm_timer
    assert got["ignored"] == ignored
    assert got["hpet_addr"] == 0xFED00000


@pytest.mark.parametrize("machine", ["imac11-3", "itautec-infoway"])
def test_the_first_madt_listed_is_the_one_used(machine, tmp_path):
    """Listed the other way round, the machine reads as its second MADT
    alone would: the order of the root decides, not the file's name."""
    swapped = tables_of(machine, madts_reversed=True)
    got, addrs = kernel_reading(swapped, "XSDT", tmp_path)
    alone = [t for t in swapped if t != swapped[2]]
    got_alone, _ = kernel_reading(alone, "RSDT", tmp_path)
    for key in ("cpus", "disabled", "ioapics", "overrides", "lapic_addr"):
        assert got[key] == got_alone[key], key
    assert got["madt_at"] == addrs[1] and got["ignored"] == 1
    if machine == "itautec-infoway":
        # Its second MADT names the I/O APIC 2 and IRQ 0 edge/high (flags 5)
        assert got["ioapics"][0][0] == 2 and got["overrides"][0][2] == 5
