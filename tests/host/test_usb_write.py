"""scripts/usb-write.sh (make usb DEV=...): every refusal, without a real
stick. lsblk and findmnt are stand-ins on PATH that answer from a made-up
machine; dd is one that records what it was asked. The device path is a
loop device node, a block device that is no disk of this machine. One
test writes a real loop device backed by a file and compares the bytes."""
import json
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "usb-write.sh"

FAKE_LSBLK = r'''#!PYTHON
"""lsblk as scripts/usb-write.sh calls it, from $FAKE_BLOCK."""
import json, os, sys
db = json.load(open(os.environ["FAKE_BLOCK"]))
args = sys.argv[1:]
dev, cols = args[-1], args[-2].split(",")
flags = "".join(a[1:] for a in args[:-2] if a.startswith("-"))
if dev not in db["devices"]:
    print(f"lsblk: {dev}: not a block device", file=sys.stderr)
    sys.exit(32)
if "s" in flags:
    rows = db.get("inverse", {}).get(dev, [])
elif "d" in flags:
    rows = [db["devices"][dev]]
else:
    rows = db.get("tree", {}).get(dev, [db["devices"][dev]])
for r in rows:
    print(" ".join(str(r.get(c, "")) for c in cols).rstrip())
'''
FAKE_FINDMNT = r'''#!PYTHON
"""findmnt -no SOURCE --target MNT, from $FAKE_BLOCK."""
import json, os, sys
db = json.load(open(os.environ["FAKE_BLOCK"]))
src = db.get("mounts", {}).get(sys.argv[-1])
if not src:
    sys.exit(1)
print(src)
'''
FAKE_DD = '#!/bin/sh\necho "$@" >> "$FAKE_DD_LOG"\n'


def loop_node():
    for i in range(7, -1, -1):
        p = pathlib.Path(f"/dev/loop{i}")
        if p.exists() and stat.S_ISBLK(p.stat().st_mode):
            return str(p)
    return None


LOOP = loop_node()
needs_loop = pytest.mark.skipif(LOOP is None,
                                reason="no /dev/loopN block device node")


def stick(name, **over):
    d = {"NAME": name, "TYPE": "disk", "RM": "1", "HOTPLUG": "1",
         "SIZE": "14.9G", "TRAN": "usb", "VENDOR": "Test", "MODEL": "Stick"}
    d.update(over)
    return d


@pytest.fixture
def machine(tmp_path):
    """run(db, dev, answer) -> (CompletedProcess, dd calls)."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name, text in (("lsblk", FAKE_LSBLK), ("findmnt", FAKE_FINDMNT),
                       ("dd", FAKE_DD)):
        p = bin_ / name
        p.write_text(text.replace("#!PYTHON", f"#!{sys.executable}"))
        p.chmod(0o755)
    iso = tmp_path / "usb.iso"
    iso.write_bytes(b"ISO" * 1000)

    def run(db, dev, answer="", real_dd=False):
        (tmp_path / "db.json").write_text(json.dumps(db))
        log = tmp_path / "dd.log"
        log.write_text("")
        path = f"{bin_}:{os.environ['PATH']}"
        if real_dd:
            (bin_ / "dd").unlink()
        env = dict(os.environ, PATH=path, FAKE_BLOCK=str(tmp_path / "db.json"),
                   FAKE_DD_LOG=str(log))
        proc = subprocess.run(["bash", str(SCRIPT), dev, str(iso)],
                              input=answer, capture_output=True, text=True,
                              env=env, timeout=60)
        return proc, log.read_text().splitlines()
    run.iso = iso
    return run


def refused(proc, calls, message):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert message in proc.stderr, proc.stderr
    assert calls == [], "dd ran after a refusal"


def test_a_missing_path_and_a_file_are_refused(machine, tmp_path):
    refused(*machine({"devices": {}}, "/dev/no-such-disk"),
            "/dev/no-such-disk does not exist")
    refused(*machine({"devices": {}}, str(machine.iso)),
            f"{machine.iso} is not a block device")
    refused(*machine({"devices": {}}, "/dev/null"),
            "/dev/null is not a block device")


@needs_loop
def test_a_partition_is_refused(machine):
    db = {"devices": {LOOP: stick("loop7p1", TYPE="part")}}
    refused(*machine(db, LOOP), f"{LOOP} is a partition")


@needs_loop
def test_the_system_disk_is_refused(machine):
    name = pathlib.Path(LOOP).name
    # / is on a partition of the device; lsblk's inverse tree leads there.
    db = {"devices": {LOOP: stick(name, RM="0", HOTPLUG="0"),
                      "/dev/fakeroot1": stick("fakeroot1", TYPE="part")},
          "inverse": {"/dev/fakeroot1": [{"NAME": "fakeroot1",
                                          "TYPE": "part"},
                                         {"NAME": name, "TYPE": "disk"}]},
          "mounts": {"/": "/dev/fakeroot1"}}
    refused(*machine(db, LOOP), f"{LOOP} holds / of the running system")
    # Through LVM: /home on a volume whose physical volume is on the disk.
    db["mounts"] = {"/home": "/dev/mapper/vg-home"}
    db["devices"]["/dev/mapper/vg-home"] = stick("vg-home", TYPE="lvm")
    db["inverse"] = {"/dev/mapper/vg-home": [
        {"NAME": "vg-home", "TYPE": "lvm"}, {"NAME": name + "p2",
                                            "TYPE": "part"},
        {"NAME": name, "TYPE": "disk"}]}
    refused(*machine(db, LOOP), f"{LOOP} holds /home of the running system")


@needs_loop
def test_a_mounted_stick_is_refused(machine):
    name = pathlib.Path(LOOP).name
    db = {"devices": {LOOP: stick(name)},
          "tree": {LOOP: [{"NAME": name, "MOUNTPOINT": ""},
                          {"NAME": name + "p1",
                           "MOUNTPOINT": "/media/user/STICK"}]}}
    refused(*machine(db, LOOP),
            f"{LOOP} is mounted (/dev/{name}p1 on /media/user/STICK)")


@needs_loop
def test_an_internal_disk_is_refused(machine):
    name = pathlib.Path(LOOP).name
    db = {"devices": {LOOP: stick(name, RM="0", HOTPLUG="0")}}
    refused(*machine(db, LOOP),
            f"{LOOP} is not removable (lsblk: RM=0 HOTPLUG=0)")


@needs_loop
def test_nothing_is_written_unless_the_name_is_typed_back(machine):
    name = pathlib.Path(LOOP).name
    db = {"devices": {LOOP: stick(name)}}
    for answer in ("", "y\n", "yes\n", "/dev/sdb\n"):
        refused(*machine(db, LOOP, answer), "not confirmed")
    proc, calls = machine(db, LOOP, LOOP + "\n")
    assert proc.returncode == 0, proc.stderr
    assert "everything on it will be overwritten" in proc.stdout
    assert calls == [f"if={machine.iso} of={LOOP} bs=4M conv=fsync "
                     "status=progress"]
    # A hot-pluggable disk that is not removable (a USB SSD) is a stick too.
    db = {"devices": {LOOP: stick(name, RM="0")}}
    assert machine(db, LOOP, LOOP + "\n")[0].returncode == 0


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("losetup") or
                    not os.path.exists("/dev/loop-control"),
                    reason="needs root and loop devices")
def test_the_image_reaches_the_device(machine, tmp_path):
    """A real loop device over a file, described as a stick: dd writes the
    image onto it byte for byte."""
    backing = tmp_path / "stick.img"
    backing.write_bytes(b"\0" * (1 << 20))
    dev = subprocess.run(["losetup", "-f", "--show", str(backing)],
                         capture_output=True, text=True)
    if dev.returncode != 0:
        pytest.skip(f"losetup: {dev.stderr.strip()}")
    dev = dev.stdout.strip()
    try:
        db = {"devices": {dev: stick(pathlib.Path(dev).name)}}
        proc, _ = machine(db, dev, dev + "\n", real_dd=True)
        assert proc.returncode == 0, proc.stderr
    finally:
        subprocess.run(["losetup", "-d", dev], check=True)
    data = backing.read_bytes()
    iso = machine.iso.read_bytes()
    assert data[:len(iso)] == iso


def test_make_usb_wants_a_device():
    proc = subprocess.run(["make", "-s", "usb"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "usb: name the stick: make usb DEV=/dev/sdX" in proc.stderr


def test_the_stick_boots_the_hardware_report():
    """mk/hardware.mk's USB_ENTRY is boot/grub.cfg's report entry (menu
    entries count from 0)."""
    entry = int(re.search(r"^USB_ENTRY \?= (\d+)$", (ROOT / "mk/hardware.mk")
                          .read_text(), re.M).group(1))
    entries = re.findall(r'^menuentry "([^"]*)" \{\n\s*multiboot2 (.*)$',
                         (ROOT / "boot/grub.cfg").read_text(), re.M)
    title, line = entries[entry]
    assert "hardware report" in title and "hwreport=on" in line.split()
