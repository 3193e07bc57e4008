"""Boots the kernel ISO in QEMU (BIOS or OVMF) or Bochs and reads its serial
console: the RESULT lines (docs/formats.md, "`RESULT` lines") and
everything else."""
import dataclasses
import json
import os
import pathlib
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
BUILD = ROOT / "build"
ISO = BUILD / "kernel.iso"
OVMF_CODE = pathlib.Path("/usr/share/OVMF/OVMF_CODE.fd")
OVMF_VARS = pathlib.Path("/usr/share/OVMF/OVMF_VARS.fd")

# isa-debug-exit: QEMU exits with (value << 1) | 1.
DEBUG_EXIT = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
# Devices the kernel drives none of, left out of every boot (as in make
# run, scripts/run-qemu.sh): with a network card the firmware initialises
# it (about a second a BIOS boot under -icount), and on the pc machine
# QEMU reports an empty 1.44 MB floppy drive A in the CMOS, whose probe
# by SeaBIOS costs about 1.3 s more (q35 has no floppy controller: the
# settings are then unused).
NO_UNUSED_DEVICES = ["-nic", "none", "-global", "isa-fdc.fdtypeA=none",
                     "-global", "isa-fdc.fdtypeB=none"]


@dataclasses.dataclass
class Boot:
    returncode: int
    serial: str
    timed_out: bool
    # What tools/qemu/insn_count.c wrote (qemu(insn_count=True)), or "".
    marks: str = ""

    def results(self, topic):
        """Every `RESULT topic k=v ...` line as a dict of strings."""
        out = []
        for line in self.serial.splitlines():
            m = re.match(r"RESULT (\S+)(.*)$", line.strip())
            if m and m.group(1) == topic:
                out.append(dict(kv.split("=", 1) for kv in m.group(2).split()))
        return out

    def result(self, topic):
        """The only `RESULT topic` line (fails when there is not exactly one)."""
        r = self.results(topic)
        assert len(r) == 1, f"{len(r)} 'RESULT {topic}' lines:\n{self.tail()}"
        return r[0]

    def last_line(self):
        lines = [l.strip() for l in self.serial.splitlines() if l.strip()]
        return lines[-1] if lines else ""

    @property
    def passed(self):
        return self.last_line() == "RESULT exit status=pass"

    @property
    def late(self):
        """The run completed but its time was not kept (docs/running.md,
        "Statuses and exit codes"): its numbers are what was measured."""
        return self.last_line().startswith("RESULT exit status=late ")

    @property
    def finished(self):
        """A pass or a late run: it reported everything it measured."""
        return self.passed or self.late

    def tail(self, n=60):
        return "\n".join(self.serial.splitlines()[-n:])


def make_iso(out, cmdline=None, tasks=None, entry=0, omit_program=None,
             programs=None, acpi_tables=(), menu_wait=0):
    """An ISO whose default entry (menu entry `entry` of boot/grub.cfg)
    gets the extra command-line words; omit_program: a user/ program left
    off the medium; programs: {name: path} of ELF files that stand in for
    user/NAME on the medium (tests/host/user_build.py builds variants);
    acpi_tables: files GRUB puts in place of the firmware's tables of the
    same signatures; menu_wait: the seconds GRUB shows its menu (0: a
    boot nobody watches; GRUB's second costs 2.5-5 s under -icount)."""
    if (cmdline is None and tasks is None and not entry and not omit_program
            and not programs and not acpi_tables and menu_wait == 1):
        return ISO
    cmd = [str(ROOT / "scripts/mkiso.sh"), str(out), "--entry", str(entry),
           "--menu-wait", str(menu_wait)]
    if omit_program:
        cmd += ["--omit-program", omit_program]
    for name, path in (programs or {}).items():
        cmd += ["--program", f"{name}={path}"]
    for table in acpi_tables:
        cmd += ["--acpi-table", str(table)]
    if cmdline:
        cmd += ["--cmdline", cmdline]
    if tasks:
        cmd += ["--tasks", str(tasks)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"mkiso failed:\n{proc.stdout}{proc.stderr}"
    return out


def qemu_command(iso, serial, smp=2, machine="pc", firmware="bios",
                 icount=None, extra=(), memory="256M", usb_stick=None,
                 vars_copy=None):
    """QEMU's argument list for qemu(): iso the medium, serial the console
    file, usb_stick the copy to attach as a USB disk (else a CD), vars_copy
    the UEFI variables' copy. Work items hash it into their key."""
    cmd = ["qemu-system-x86_64", "-machine", machine, "-smp", str(smp),
           "-m", memory, "-display", "none", "-no-reboot",
           *NO_UNUSED_DEVICES, "-serial", f"file:{serial}",
           "-monitor", "none", *DEBUG_EXIT]
    if usb_stick:
        cmd += ["-device", "qemu-xhci", "-drive",
                f"if=none,id=stick,format=raw,file={usb_stick}",
                "-device", "usb-storage,drive=stick,bootindex=0"]
    else:
        cmd += ["-cdrom", str(iso)]
    if firmware == "uefi":
        cmd += ["-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,file={vars_copy}"]
    if icount:
        cmd += ["-icount", icount]
    return cmd + list(extra)
def user_progs_build(progs):
    """Where make USER_PROGS_DIR=progs builds its programs (mk/user.mk)."""
    return BUILD / "user-dirs" / str(progs.absolute()).lstrip("/")


def drop_user_progs_build(progs):
    """Removes that directory and its parents left empty."""
    path = user_progs_build(progs)
    shutil.rmtree(path, ignore_errors=True)
    try:
        os.removedirs(path.parent)
    except OSError:
        pass        # a parent still holds another's build


# The QEMU plugin that counts each CPU's instructions at the kernel's
# trace records (tools/qemu/insn_count.c; `make host` builds it).
INSN_COUNT = BUILD / "host" / "insn_count.so"


def insn_count_args(path):
    """QEMU's arguments loading the plugin, its counts written to path."""
    return ["-plugin", f"{INSN_COUNT},out={path}"]


def qemu(iso, smp=2, machine="pc", firmware="bios", timeout=240,
         icount=None, extra=(), memory="256M", usb_stick=False,
         insn_count=False):
    """Boots iso and returns the Boot. icount: a `-icount` argument string
    for deterministic virtual time (the TSC then runs on virtual time too).
    usb_stick: the image is a USB mass-storage disk on an xHCI controller
    (as written to a stick with dd) instead of a CD. insn_count: load
    tools/qemu/insn_count.c, whose counts come back as Boot.marks."""
    with tempfile.TemporaryDirectory() as tmp:
        serial = pathlib.Path(tmp) / "serial.log"
        marks = pathlib.Path(tmp) / "marks.txt"
        if insn_count:
            if not INSN_COUNT.exists():
                raise FileNotFoundError(f"{INSN_COUNT} is missing: run "
                                        "`make host` first")
            extra = list(extra) + insn_count_args(marks)
        stick = vars_copy = None
        if usb_stick:
            # Writable like a real stick, so QEMU needs its own copy.
            stick = pathlib.Path(tmp) / "stick.img"
            shutil.copy(iso, stick)
        if firmware == "uefi":
            vars_copy = pathlib.Path(tmp) / "vars.fd"
            shutil.copy(OVMF_VARS, vars_copy)
        cmd = qemu_command(iso, serial, smp=smp, machine=machine,
                           firmware=firmware, icount=icount, extra=extra,
                           memory=memory, usb_stick=stick,
                           vars_copy=vars_copy)
        timed_out = False
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc, timed_out = -1, True
        text = serial.read_text(errors="replace") if serial.exists() else ""
        return Boot(rc, text, timed_out,
                    marks.read_text() if marks.exists() else "")


def parse_event_schedule(lines):
    """Segments (by CPU, in time order), job events and the summary of an
    event-driven schedule (docs/schedulers-event-driven.md)."""
    segs, done, arrive, summary = [], [], [], None
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        elif "from_us" in obj:
            segs.append(obj)
        elif obj.get("event") == "done":
            done.append(obj)
        elif obj.get("event") == "arrive":
            arrive.append(obj)
    segs.sort(key=lambda s: (s["cpu"], s["from_us"]))
    done.sort(key=lambda d: (d["task"], d["job"]))
    arrive.sort(key=lambda d: (d["task"], d["job"]))
    return segs, done, arrive, summary


def qemu_com1(iso, smp, feed, machine="pc", timeout=120, icount=None):
    """Boots with COM1 on a Unix socket this side listens on and reads the
    console to its RESULT exit line. feed(out, typed) is asked after every
    read, with the console so far (bytes) and how many times it answered
    something: bytes to type into COM1 then, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        path = str(pathlib.Path(tmp) / "com1.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        cmd = ["qemu-system-x86_64", "-machine", machine, "-smp", str(smp),
               "-m", "256M", "-display", "none", "-no-reboot",
               *NO_UNUSED_DEVICES, "-chardev", f"socket,id=com1,path={path}",
               "-serial", "chardev:com1", "-monitor", "none", *DEBUG_EXIT,
               "-cdrom", str(iso)]
        if icount:
            cmd += ["-icount", icount]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        out, typed, timed_out = b"", 0, False
        try:
            srv.settimeout(timeout)
            conn, _ = srv.accept()
            with conn:
                while b"RESULT exit" not in out:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        timed_out = True
                        break
                    conn.settimeout(left)
                    try:
                        data = conn.recv(4096)
                    except socket.timeout:
                        timed_out = True
                        break
                    if not data:
                        break
                    out += data
                    more = feed(out, typed)
                    if more:
                        conn.sendall(more)
                        typed += 1
                # The end of the last line.
                conn.settimeout(5)
                try:
                    while not out.endswith(b"\n") and (data := conn.recv(4096)):
                        out += data
                except socket.timeout:
                    pass
        finally:
            srv.close()
            try:
                rc = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = proc.wait()
        text = out.decode(errors="replace").replace("\r\n", "\n")
        return Boot(rc, text, timed_out)


def host_tsc_mhz():
    out = subprocess.run([str(BUILD / "host" / "host_tsc_mhz-fast"), "500"],
                         capture_output=True, text=True, check=True, timeout=60)
    return float(out.stdout)


def icount_tsc_mhz(shift):
    """The guest TSC's rate under `-icount shift=N`: QEMU's TCG answers
    RDTSC with its virtual clock (accel/tcg: get_elapsed_ticks = icount_get),
    which counts qemu_icount << shift nanoseconds. The TSC thus advances 2^N
    per instruction, as virtual time does in nanoseconds: 10^9 a virtual
    second, whatever N."""
    tsc_per_insn = 1 << shift
    ns_per_insn = 1 << shift
    return tsc_per_insn / ns_per_insn * 1e9 / 1e6


def tsc_error_ppm(tsc, want_mhz):
    """How far the kernel's `RESULT tsc` frequency (khz=) is from want_mhz."""
    return (int(tsc["khz"]) / 1000 - want_mhz) / want_mhz * 1e6


def tool_missing(*names):
    return [n for n in names if shutil.which(n) is None]


def cpu_count_ok(boot, n):
    smp = boot.result("smp")
    assert int(smp["cpus_found"]) == n, boot.tail()
    assert int(smp["cpus_online"]) == n, boot.tail()


def extra_madt(entries):
    """A second MADT (ACPI 6.4, 5.2.12) for QEMU's `-acpitable file=`,
    read after the firmware's: header, local APIC address, flags, the
    entries (bytes each). QEMU rewrites the checksum byte."""
    body = struct.pack("<II", 0xFEE00000, 1) + b"".join(entries)
    return (b"APIC" + struct.pack("<IBB", 36 + len(body), 3, 0) + b"TESTOS"
            + b"EXTRMADT" + struct.pack("<III", 1, 1, 1) + body)


def q35_madt(cpu_entries):
    """A whole MADT for GRUB to put in place of QEMU's (mkiso.sh
    --acpi-table): the processor entries given, then what QEMU's q35 MADT
    holds besides its CPUs -- I/O APIC 0 at 0xFEC00000 from GSI 0 (5.2.12.3),
    ISA IRQ 0 on GSI 2 and IRQs 5, 9, 10, 11 level-triggered active-high
    (5.2.12.5), LINT1 of every processor as NMI (5.2.12.7) -- with its
    checksum, as GRUB loads it unchanged."""
    other = (bytes([1, 12, 0, 0]) + struct.pack("<II", 0xFEC00000, 0) +
             bytes([2, 10, 0, 0]) + struct.pack("<IH", 2, 0) +
             b"".join(bytes([2, 10, 0, irq]) + struct.pack("<IH", irq, 0xD)
                      for irq in (5, 9, 10, 11)) +
             bytes([4, 6, 0xFF, 0, 0, 1]))
    body = struct.pack("<II", 0xFEE00000, 1) + b"".join(cpu_entries) + other
    table = bytearray(b"APIC" + struct.pack("<IBB", 36 + len(body), 3, 0) +
                      b"TESTOS" + b"WHOLMADT" + struct.pack("<III", 1, 1, 1)
                      + body)
    table[9] = -sum(table) & 0xFF
    return bytes(table)


def env_with(**kw):
    env = dict(os.environ)
    env.update({k: str(v) for k, v in kw.items()})
    return env


BOCHSRC = """\
megs: 256
cpu: model=corei7_haswell_4770, count=1:{cpus}:1, ips=50000000{cpu_extra}
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev={serial}
display_library: rfb, options="timeout=0"
log: {log}
panic: action=fatal
error: action=report
clock: sync=none, time0=local
port_e9_hack: enabled=1
speaker: enabled=0
sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy
"""


def bochs(iso, cpus=2, timeout=600, strict_msrs=False):
    """Boots iso under Bochs (Debian's build: the rfb display without waiting
    for a viewer, started by an rc file holding `c`; sound drivers set to
    dummy, without which it aborts at start-up on a machine with no sound
    card). The kernel powers Bochs off when it is done. strict_msrs: an MSR
    Bochs does not model raises #GP, as on a real CPU (Bochs's default
    reads it as 0)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        serial = tmp / "serial.log"
        (tmp / "bochsrc").write_text(BOCHSRC.format(
            cpus=cpus, iso=iso, serial=serial, log=tmp / "bochs.log",
            cpu_extra=", ignore_bad_msrs=0" if strict_msrs else ""))
        (tmp / "rc").write_text("c\n")
        timed_out = False
        try:
            proc = subprocess.run(["bochs", "-q", "-f", str(tmp / "bochsrc"),
                                   "-rc", str(tmp / "rc")], cwd=tmp,
                                  capture_output=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc, timed_out = -1, True
        text = serial.read_text(errors="replace") if serial.exists() else ""
        return Boot(rc, text, timed_out)
