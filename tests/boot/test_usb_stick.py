"""The ISO written to a USB stick (issue 2, item 2): grub-mkrescue's image is
hybrid, so the same bytes boot from a USB disk under BIOS (MBR) and UEFI
(its EFI system partition). No CD drive is attached here."""
import pytest

from harness import cpu_count_ok, qemu


@pytest.mark.parametrize("firmware", ["bios", "uefi"])
def test_boots_from_a_usb_stick(iso_with, firmware):
    boot = qemu(iso_with("slots=100"), smp=2, machine="q35",
                firmware=firmware, usb_stick=True, timeout=400)
    assert boot.passed, boot.tail()
    want = "UEFI" if firmware == "uefi" else "BIOS"
    assert f"boot: {want} firmware" in boot.serial, boot.tail()
    cpu_count_ok(boot, 2)
