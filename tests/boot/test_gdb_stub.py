"""The kernel's own GDB stub (kernel/debug/gdbstub.c) on COM2 under QEMU with 4
CPUs: a real GDB attaches at boot (gdb=wait), and a raw client speaks the
protocol byte by byte for what GDB does not show (Ctrl-C, a resent reply,
checksum errors, an attach while the scheduler runs)."""
import re
import socket
import subprocess

import pytest

from conftest import ROOT
from gdbrun import KERNEL_ELF, Machine, free_port, gdb_batch
from harness import env_with, qemu

TASKS = ROOT / "tasks" / "default.tasks"


def test_gdb_session_against_the_kernel_stub(iso_with):
    iso = iso_with("gdb=wait sched=spd2 slots=400", tasks=TASKS)
    m = Machine(iso, "kernel")
    try:
        m.wait_for(r"^gdb: waiting for GDB on COM2")
        out, err = gdb_batch(m.port, r"""
info threads
python
try:
    gdb.execute("x/2x 0x700000000000", to_string=True)
    print("BADADDR readable")
except gdb.MemoryError as e:
    print("BADADDR error: %s" % e)
try:
    gdb.execute("x/x 0x8000000000000000", to_string=True)
    print("NONCANON readable")
except gdb.MemoryError as e:
    print("NONCANON error: %s" % e)
end
print options.slots
set var options.slots = 123
print options.slots
break spd2_schedule
python
for _ in range(3):
    gdb.execute("continue")
    print("HIT thread=%d cpu=%d" % (gdb.selected_thread().num,
                                    int(gdb.parse_and_eval("cpu"))))
end
bt 6
python
line0 = gdb.decode_line()[1][0].line
gdb.execute("next")
line1 = gdb.decode_line()[1][0].line
pc0 = int(gdb.parse_and_eval("$pc"))
gdb.execute("stepi")
pc1 = int(gdb.parse_and_eval("$pc"))
print("NEXT %d -> %d" % (line0, line1))
print("STEPI %#x -> %#x" % (pc0, pc1))
end
delete
watch -l ((struct spd2 *)sched_run_driver->s)->t
python
old = int(gdb.parse_and_eval("((struct spd2 *)sched_run_driver->s)->t"))
gdb.execute("continue")
new = int(gdb.parse_and_eval("((struct spd2 *)sched_run_driver->s)->t"))
print("WATCH thread=%d old=%d new=%d" % (gdb.selected_thread().num,
                                         old, new))
end
bt 2
delete
awatch -l ((struct spd2 *)sched_run_driver->s)->running[2]
continue
python
# Only CPU 2 touches Running[2] (Fig. 5 line 18): the watchpoint set while
# CPU 0 was stopped reached CPU 2's debug registers. Then a read with the
# watchpoint still armed on the stopped CPU: the stub's own read must not
# stop it again.
gdb.parse_and_eval("((struct spd2 *)sched_run_driver->s)->running[2]")
print("AWATCH thread=%d" % gdb.selected_thread().num)
end
delete
continue
""")
        boot = m.finish()
    finally:
        m.kill()
    text = out + err
    threads = re.findall(r"^\*?\s+(\d+)\s+Thread (\d+) \(cpu (\d+): (\w+)\)",
                         out, re.M)
    assert [(t[1], t[2]) for t in threads] == \
        [("1", "0"), ("2", "1"), ("3", "2"), ("4", "3")], text
    assert {t[3] for t in threads} == {"online"}, text
    assert "BADADDR error: Cannot access memory at address 0x700000000000" \
        in out, text
    assert "NONCANON error: Cannot access memory at address " \
        "0x8000000000000000" in out, text
    assert re.search(r"^\$1 = 400$", out, re.M), text
    assert re.search(r"^\$2 = 123$", out, re.M), text
    # Each stop at the plugin's entry is on the CPU the call is for (GDB
    # thread n is CPU n - 1), in boundary order.
    hits = [tuple(map(int, h)) for h in
            re.findall(r"^HIT thread=(\d+) cpu=(\d+)$", out, re.M)]
    assert len(hits) == 3 and all(t == c + 1 for t, c in hits), text
    assert [c for _, c in hits] == [0, 1, 2], text
    frames = re.findall(r"^#(\d) .*? in (\w+) |^#(\d)  (\w+) ", out, re.M)
    names = [f[1] or f[3] for f in frames]
    assert names[:5] == ["spd2_schedule", "choose", "sched_driver_boundary",
                         "call", "boundary_ordered"], text
    step = re.search(r"^NEXT (\d+) -> (\d+)$", out, re.M)
    assert step and int(step.group(2)) > int(step.group(1)), text
    pcs = re.search(r"^STEPI (0x\w+) -> (0x\w+)$", out, re.M)
    assert pcs and pcs.group(1) != pcs.group(2), text
    # t moves on at CPU 0's call of each slot (Fig. 5 line 8).
    w = re.search(r"^WATCH thread=(\d+) old=(-?\d+) new=(-?\d+)$", out, re.M)
    assert w and w.group(1) == "1" and \
        int(w.group(3)) == int(w.group(2)) + 1, text
    assert "Hardware watchpoint 2" in out, text
    assert re.search(r"^Hardware access \(read/write\) watchpoint 3: ", out,
                     re.M), text
    assert re.search(r"^AWATCH thread=3$", out, re.M), text
    # Stopped in GDB, the run's clock went on: it ends late
    # (docs/running.md, "Debugging"), its numbers still all reported.
    assert boot.finished, boot.tail()
    # The write to options.slots took effect: the run was 123 slots long.
    assert boot.result("sched")["slots"] == "123", boot.tail()


def checksum(body):
    return "%02x" % (sum(body.encode()) & 0xff)


def packet(body):
    return ("$%s#%s" % (body, checksum(body))).encode()


class Client:
    """GDB's side of the protocol, byte by byte."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def read_until(self, pred):
        while not pred(self.buf):
            chunk = self.s.recv(4096)
            assert chunk, "the stub closed the connection"
            self.buf += chunk

    def ack(self):
        """The next acknowledgement character."""
        self.read_until(lambda b: b[:1] in (b"+", b"-"))
        c, self.buf = self.buf[:1], self.buf[1:]
        return c

    def reply(self):
        """The next packet's body; checks its checksum and acks it."""
        self.read_until(lambda b: re.search(rb"\$[^#]*#..", b))
        m = re.search(rb"\$([^#]*)#(..)", self.buf)
        assert self.buf[:m.start()] == b"", self.buf
        self.buf = self.buf[m.end():]
        body = m.group(1).decode()
        assert checksum(body) == m.group(2).decode(), m.group(0)
        return body

    def close(self):
        self.s.close()


def test_raw_protocol_ctrl_c_retries_and_attach_while_running(iso_with):
    # Long enough that the Ctrl-C after `c` finds the run still going: the
    # boundaries that passed while the CPUs were stopped are counted as
    # missed in one go when they resume, and on a loaded host the packets
    # before `c` take seconds.
    iso = iso_with("gdb=on sched=spd2 slots=10000", tasks=TASKS)
    m = Machine(iso, "kernel")
    try:
        m.wait_for(r"^sched: spd2 on 4 CPUs")
        c = Client(m.port)
        # A packet while the machine runs stops it at a quantum boundary.
        c.send(packet("?"))
        assert c.ack() == b"+"
        first = c.reply()
        assert re.fullmatch(r"T05thread:[1-4];", first), first
        # '-' asks for the last reply again.
        c.send(b"-")
        assert c.reply() == first
        # A bad checksum is refused, so GDB sends it again.
        c.send(b"$qC#00")
        assert c.ack() == b"-"
        c.send(packet("qC"))
        assert c.ack() == b"+"
        assert re.fullmatch(r"QC[1-4]", c.reply())
        # Garbage between packets is ignored; an overlong packet is
        # acknowledged and refused.
        c.send(b"\x00\xffgarbage#zz}}**")
        c.send(packet("m" + "1" * 5000))
        assert c.ack() == b"+"
        assert c.reply() == "E16"
        c.send(packet("qfThreadInfo"))
        assert c.ack() == b"+"
        assert c.reply() == "m1,2,3,4"
        c.send(packet("c"))
        assert c.ack() == b"+"
        # Ctrl-C: stopped again, SIGINT.
        c.send(b"\x03")
        assert re.fullmatch(r"T02thread:[1-4];", c.reply())
        c.send(packet("D"))
        assert c.ack() == b"+"
        assert c.reply() == "OK"
        c.close()
        m.wait_for(r"^RESULT sched ")
        boot = m.finish()
    finally:
        m.kill()
    # Stopped in GDB, the run's clock went on: it ends late
    # (docs/running.md, "Debugging"), its numbers still all reported.
    assert boot.finished, boot.tail()


def test_panic_stops_in_the_stub(iso_with):
    iso = iso_with("gdb=panic selftest=pf_ap")
    m = Machine(iso, "kernel")
    try:
        m.wait_for(r"^PANIC cpu=1 vector=14")
        out, err = gdb_batch(m.port, """
info threads
info program
bt 1
detach
""")
        boot = m.finish()
    finally:
        m.kill()
    text = out + err
    assert "It stopped with signal SIGSEGV" in out, text
    assert re.search(r"^\* 2\s+Thread 2 \(cpu 1: ", out, re.M), text
    assert re.search(r"^#0 .*fault_on_ap", out, re.M), text
    lines = [l for l in boot.serial.splitlines() if l.strip()]
    assert lines[-1].strip() == "RESULT exit status=fail reason=exception", \
        boot.tail()



def test_bad_gdb_and_dumpstate_words_are_named(iso_with):
    boot = qemu(iso_with("gdb=maybe dumpstate=soon slots=50 ticks=aligned"),
                smp=2)
    assert "cmdline: bad value 'gdb=maybe' (off, on, panic or wait); " \
        "using default off" in boot.serial, boot.tail()
    assert "cmdline: bad value 'dumpstate=soon' (a slot number or end); " \
        "using default none" in boot.serial, boot.tail()
    assert "gdb: stub" not in boot.serial, "the stub stays off"
    assert boot.passed, boot.tail()


@pytest.mark.parametrize("stub", ["kernel", "qemu"])
def test_make_debug_script_attaches_gdb(iso_with, stub):
    """scripts/debug.sh, as `make debug STUB=...` runs it: GDB attached
    with the rtk commands, fed on stdin as a person would type them."""
    iso = iso_with("gdb=wait slots=50" if stub == "kernel" else "slots=50")
    proc = subprocess.run(
        [str(ROOT / "scripts" / "debug.sh"), str(iso), str(KERNEL_ELF)],
        input="info threads\nrtk cpus\nkill\nquit\n",
        env=env_with(STUB=stub, SMP=2, GDB_PORT=free_port()),
        capture_output=True, text=True, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    # Each command's first line follows GDB's prompt.
    rows = re.findall(r"cpu (\d) apic=\d+ state=(\w+)", out)
    if stub == "kernel":
        assert "Stopped in gdbstub_init" in out, out[-3000:]
        assert re.search(r"Thread 2 \(cpu 1: online\)", out), out[-3000:]
        assert rows == [("0", "online"), ("1", "online")], out[-3000:]
    else:
        # Nothing has run: no CPU is counted yet.
        assert "Halted at the reset vector" in out, out[-3000:]
        assert re.search(r"Thread 1\.2 \(CPU#1", out), out[-3000:]
        assert rows == [], out[-3000:]


def test_make_debug_kernel_stub_then_continue_runs_the_plugins_schedule(
        iso_with, tmp_path):
    """`make debug STUB=kernel`, then `continue`, as a person types it:
    the boot waits for GDB, GDB lets it go, and the run is spd2's, slot for
    slot. make debug boots on virtual time (ICOUNT, as the make target
    passes it: tests/host/test_make_front.py); on plain TCG a 50-slot run
    on a busy two-core host had every CPU's first boundary come after the
    run's end, and every slot printed idle."""
    slots = 50
    iso = iso_with(f"sched=spd2 slots={slots} timing=virtual gdb=wait",
                   tasks=TASKS)
    proc = subprocess.run(
        [str(ROOT / "scripts" / "debug.sh"), str(iso), str(KERNEL_ELF)],
        input="continue\nquit\n",
        env=env_with(STUB="kernel", SMP=2, GDB_PORT=free_port(),
                     ICOUNT="shift=3,sleep=off", RUN_DIR=tmp_path),
        capture_output=True, text=True, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert "Stopped in gdbstub_init" in out, out[-3000:]
    # The terminal has GDB's lines and the console's, from two processes
    # into one pipe, so a GDB line can land inside a console line ("RESULT
    # exit status[Inferior 1 (Remote target) exited normally]=pass" in
    # one make test); run-qemu.sh's console.log has the console alone.
    out = (tmp_path / "console.log").read_text(errors="replace")
    got = [l.strip() for l in out.splitlines() if l.startswith('{"t": ')]
    want = subprocess.run(
        [str(ROOT / "build/host/schedsim"), "--sched", "spd2", "--cpus", "2",
         "--slots", str(slots), str(TASKS)],
        capture_output=True, text=True, check=True, timeout=120).stdout
    assert got == [l for l in want.splitlines() if l.startswith('{"t": ')]
    assert "RESULT exit status=pass" in out, out[-3000:]
