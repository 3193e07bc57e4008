"""A QEMU machine with a GDB stub to attach to -- QEMU's own (halted at the
reset vector) or the kernel's (COM2 on a TCP socket) -- and GDB in batch
mode with the kernel's symbols and tools/gdb/rtk.py."""
import fractions
import pathlib
import re
import socket
import subprocess
import tempfile
import time

from harness import DEBUG_EXIT, NO_UNUSED_DEVICES, ROOT, Boot

KERNEL_ELF = ROOT / "build" / "kernel" / "kernel.elf"
RTK_PY = ROOT / "tools" / "gdb" / "rtk.py"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Machine:
    """QEMU booting iso with smp CPUs. stub="qemu": halted, QEMU's stub on
    self.port. stub="kernel": COM2 is a TCP server on self.port, for the
    kernel's stub (boot it with gdb=...). cpu: QEMU's -cpu model."""

    def __init__(self, iso, stub, smp=4, icount=None, cpu=None):
        self.tmp = tempfile.TemporaryDirectory()
        self.serial = pathlib.Path(self.tmp.name) / "serial.log"
        self.port = free_port()
        cmd = ["qemu-system-x86_64", "-machine", "pc", "-smp", str(smp),
               "-m", "256M", "-display", "none", "-no-reboot",
               *NO_UNUSED_DEVICES, "-monitor", "none",
               "-serial", f"file:{self.serial}", "-cdrom", str(iso),
               *DEBUG_EXIT]
        if stub == "qemu":
            cmd += ["-S", "-gdb", f"tcp:127.0.0.1:{self.port}"]
        else:
            cmd += ["-serial",
                    f"tcp:127.0.0.1:{self.port},server=on,wait=off"]
        if icount:
            cmd += ["-icount", icount]
        if cpu:
            cmd += ["-cpu", cpu]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        self.wait_listening()

    def wait_listening(self, timeout=60):
        """Until QEMU accepts connections on the port (it opens it before
        the machine starts)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
            try:
                with socket.create_connection(("127.0.0.1", self.port),
                                              timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("QEMU never opened its port")

    def text(self):
        return self.serial.read_text(errors="replace") \
            if self.serial.exists() else ""

    def wait_for(self, pattern, timeout=300):
        """Until the console has a line matching pattern; returns it."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.M)
        while time.monotonic() < deadline:
            m = rx.search(self.text())
            if m:
                return m.group(0)
            assert self.proc.poll() is None, \
                f"QEMU ended before /{pattern}/:\n{self.text()[-3000:]}"
            time.sleep(0.2)
        raise AssertionError(f"no /{pattern}/ in {timeout} s:\n"
                             f"{self.text()[-3000:]}")

    def finish(self, timeout=300):
        """Waits for the machine to power off; returns the Boot."""
        try:
            rc = self.proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc, timed_out = self.proc.wait(), True
        boot = Boot(rc, self.text(), timed_out)
        self.tmp.cleanup()
        return boot

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def gdb_batch(port, script, timeout=600):
    """Runs GDB on the kernel's symbols against 127.0.0.1:port with the
    project's commands loaded; returns (stdout, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb") as f:
        f.write("set pagination off\nset confirm off\n"
                "set remotetimeout 60\n"
                f"target remote 127.0.0.1:{port}\n" + script)
        f.flush()
        proc = subprocess.run(
            ["gdb", "-nx", "-batch", "-x", str(RTK_PY),
             "-ex", f"file {KERNEL_ELF}", "-x", f.name],
            capture_output=True, text=True, timeout=timeout)
    return proc.stdout, proc.stderr


def between(text, begin, end):
    """The lines strictly between the first line `begin` and the next line
    `end`."""
    lines = text.splitlines()
    i = lines.index(begin)
    return lines[i + 1:lines.index(end, i + 1)]


def lag_problems(lines, taskset, slots, results):
    """`rtk tasks`' lag lines ("lag at=T", "lag NAME L") after a Pfair
    run of `slots` slots on a set without events, against the executed
    schedule: lag = w (slots - phase) minus the quanta the task ran
    (results: RESULT task lines by name). [] when all agree."""
    spec = {m[0]: (int(m[1]), int(m[2]), int(m[3] or 0)) for m in re.findall(
        r"^task (\S+) e=(\d+) p=(\d+)(?:.*phase=(\d+))?", taskset, re.M)}
    if not lines or lines[0] != f"lag at={slots}":
        return [f"no 'lag at={slots}' first: {lines[:1]}"]
    out = []
    for line in lines[1:]:
        _, name, lag = line.split()
        e, p, phase = spec[name]
        want = fractions.Fraction((slots - phase) * e -
                                  int(results[name]["quanta"]) * p, p)
        if fractions.Fraction(lag) != want:
            out.append(f"{line}: want {want}")
    if len(lines) != len(spec) + 1:
        out.append(f"{len(lines) - 1} lag lines for {len(spec)} tasks")
    return out
