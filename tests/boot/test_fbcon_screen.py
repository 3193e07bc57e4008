"""The framebuffer console (issue 2, item 4): under UEFI OVMF hands GRUB's
GOP framebuffer to the kernel; under BIOS the graphics menu entry lets GRUB
honour the kernel's framebuffer request with a VBE mode. The kernel must
draw the results on it. It runs with end=halt so the last screen stays up;
QEMU's monitor then dumps it and the test looks for the final RESULT line
drawn in the project's font, rendered here independently from the glyph
pictures in drivers/fb/font.c."""
import pathlib
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from harness import DEBUG_EXIT, OVMF_CODE, OVMF_VARS, ROOT

FONT_C = ROOT / "drivers/fb/font.c"
GLYPH_COLS, GLYPH_ROWS = 5, 7
# A glyph sits one row below the top of a cell one column and two rows
# larger (drivers/fb/fbcon.h), scaled by a whole factor.
CELL_COLS, CELL_ROWS = GLYPH_COLS + 1, GLYPH_ROWS + 2


def load_font():
    """{char: 7 strings of 5 '.'/'#'} from the font's source pictures."""
    rows = re.findall(r'\{((?:\s*"[.#]{5}",?){7})\s*\}', FONT_C.read_text())
    glyphs = [re.findall(r'"([.#]{5})"', r) for r in rows]
    assert len(glyphs) == 95, "font.c should hold printable ASCII"
    return {chr(32 + i): g for i, g in enumerate(glyphs)}


def text_mask(font, text, scale):
    """The ink of one console line, as a list of pixel rows of 0/1."""
    w = len(text) * CELL_COLS * scale
    mask = [[0] * w for _ in range(CELL_ROWS * scale)]
    for i, ch in enumerate(text):
        for r, row in enumerate(font[ch]):
            for k, dot in enumerate(row):
                if dot != "#":
                    continue
                for dy in range(scale):
                    for dx in range(scale):
                        y = (r + 1) * scale + dy
                        mask[y][(i * CELL_COLS + k) * scale + dx] = 1
    return mask


def read_ppm(path):
    data = path.read_bytes()
    magic, dims, maxval, pixels = data.split(b"\n", 3)
    assert magic == b"P6" and maxval == b"255"
    w, h = map(int, dims.split())
    return w, h, pixels


def ink(width, pixels, x, y):
    o = (y * width + x) * 3
    return int(sum(pixels[o:o + 3]) > 3 * 96)


def find_line(width, height, pixels, mask, cell_h):
    """Text rows (cell-aligned, column 0) whose pixels equal the mask."""
    hits = []
    for top in range(0, height - len(mask) + 1, cell_h):
        if all(ink(width, pixels, x, top + y) == bit
               for y, row in enumerate(mask) for x, bit in enumerate(row)):
            hits.append(top // cell_h)
    return hits


def monitor(sock_path, command):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(30)
        s.connect(str(sock_path))
        buf = b""
        while b"(qemu)" not in buf:
            buf += s.recv(4096)
        s.sendall(command.encode() + b"\n")
        buf = b""
        while b"(qemu)" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk


def screen(iso, tmp, vga, uefi=True, timeout=300):
    """Boots iso (under OVMF, or SeaBIOS) until `RESULT exit`; returns
    (serial, ppm path)."""
    serial, sock, shot = tmp / "serial.log", tmp / "mon.sock", tmp / "screen.ppm"
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-smp", "2", "-m", "256M",
           "-display", "none", "-no-reboot", "-serial", f"file:{serial}",
           "-monitor", f"unix:{sock},server,nowait", "-cdrom", str(iso),
           "-vga", vga, *DEBUG_EXIT]
    if uefi:
        vars_copy = tmp / "vars.fd"
        shutil.copy(OVMF_VARS, vars_copy)
        cmd += ["-drive",
                f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,file={vars_copy}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + timeout
        text = ""
        # The kernel halts for good after this line (end=halt): polling
        # only decides when to look, not what is seen.
        while "RESULT exit" not in text:
            assert proc.poll() is None, f"QEMU ended early:\n{text[-3000:]}"
            assert time.monotonic() < end, f"no RESULT exit:\n{text[-3000:]}"
            time.sleep(0.2)
            text = serial.read_text(errors="replace") if serial.exists() else ""
        monitor(sock, f"screendump {shot}")
        return text, shot
    finally:
        proc.kill()
        proc.wait()


# UEFI: std gives GOP at 24 bits per pixel, 3-byte pitch; virtio 32 bits
# per pixel. BIOS: the multiboot2 framebuffer request with boot/grub.cfg's
# graphics entry (entry 3) gets a 1024x768x32 VBE mode.
@pytest.mark.parametrize("vga,uefi,entry,mode", [
    ("std", True, 0, None),
    ("virtio", True, 0, None),
    ("std", False, 3, (1024, 768, 32)),
])
def test_framebuffer_shows_the_results(iso_with, vga, uefi, entry, mode):
    iso = iso_with("slots=100 end=halt", entry=entry)
    with tempfile.TemporaryDirectory() as tmp:
        serial, shot = screen(iso, pathlib.Path(tmp), vga, uefi)
        m = re.search(r"fb: (\d+)x(\d+)x(\d+), pitch (\d+)", serial)
        assert m, serial[-3000:]
        if mode:
            assert tuple(map(int, m.group(1, 2, 3))) == mode, m.group(0)
        assert "RESULT exit status=pass" in serial
        width, height, pixels = read_ppm(shot)
        assert (width, height) == (int(m.group(1)), int(m.group(2)))
        font = load_font()
        # The kernel picks the scale from the width; any whole scale that
        # fits 20 columns is tried, and exactly one row must match.
        found = {}
        for scale in range(1, 4):
            if width // (CELL_COLS * scale) < 20:
                continue
            mask = text_mask(font, "RESULT exit status=pass", scale)
            hits = find_line(width, height, pixels, mask, CELL_ROWS * scale)
            if hits:
                found[scale] = hits
        assert len(found) == 1 and len(next(iter(found.values()))) == 1, found
        scale, (row,) = next(iter(found.items()))
        # The lines before it are there too: the staggered RESULT line,
        # wrapped at the console's width, ends one blank row above.
        stag = next(l for l in serial.splitlines()
                    if l.startswith("RESULT ticks mode=staggered"))
        cols = width // (CELL_COLS * scale)
        start = row - 1 - -(-len(stag) // cols)
        prefix = text_mask(font, stag[:cols], scale)
        assert start in find_line(width, height, pixels, prefix,
                                  CELL_ROWS * scale), (scale, row, start)
