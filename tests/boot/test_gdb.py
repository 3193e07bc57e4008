"""GDB in batch mode against a halted QEMU: break at the AP entry, continue
until two APs have arrived, and check the project's `cpus` command."""
import re
import socket
import subprocess

from harness import DEBUG_EXIT, ROOT

KERNEL_ELF = ROOT / "build" / "kernel" / "kernel.elf"
GDB_SCRIPT = ROOT / "tools" / "gdb" / "kernel.gdb"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gdb_breaks_at_ap_entry_and_lists_cpus(iso, tmp_path):
    port = free_port()
    qemu = subprocess.Popen(
        ["qemu-system-x86_64", "-machine", "pc", "-smp", "3", "-m", "256M",
         "-display", "none", "-no-reboot", "-monitor", "none",
         "-serial", f"file:{tmp_path / 'serial.log'}", "-cdrom", str(iso),
         *DEBUG_EXIT, "-S", "-gdb", f"tcp:127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        commands = tmp_path / "commands.gdb"
        commands.write_text(f"""\
set pagination off
set confirm off
source {GDB_SCRIPT}
target remote 127.0.0.1:{port}
hbreak smp_ap_main
python
# QEMU's stub may report a vCPU's stop at the breakpoint again after the
# resume (several vCPU threads): go on until two different APs arrived.
seen = []
for _ in range(12):
    gdb.execute("continue")
    cpu = int(gdb.parse_and_eval("cpu"))
    if cpu not in seen:
        seen.append(cpu)
        print("ARRIVED cpu=%d" % cpu)
    if len(seen) == 2:
        break
end
cpus
kill
""")
        gdb = subprocess.run(
            ["gdb", "-nx", "-batch", "-ex", "set architecture i386:x86-64",
             "-ex", f"file {KERNEL_ELF}", "-x", str(commands)],
            capture_output=True, text=True, timeout=300)
    finally:
        qemu.kill()
        qemu.wait()
    out = gdb.stdout
    arrived = re.findall(r"^ARRIVED cpu=(\d+)$", out, re.M)
    assert sorted(arrived) == ["1", "2"], out + gdb.stderr
    assert out.count("smp_ap_main") >= 2, out
    rows = re.findall(r"^cpu (\d+) apic=(\d+) state=(\w+) quantum=(\d+) "
                      r"missed=(\d+)$", out, re.M)
    assert [r[0] for r in rows] == ["0", "1", "2"], out
    states = {int(r[0]): r[2] for r in rows}
    assert states[0] == "online", out
    # Both APs are started together (kernel/smp.c): the one stopped at its
    # entry has not checked in; the other may have by then.
    assert states[int(arrived[1])] == "starting", out
    assert states[int(arrived[0])] in ("starting", "online"), out
    assert len({r[1] for r in rows}) == 3, "distinct APIC IDs"
    assert all(r[3] == "0" and r[4] == "0" for r in rows), \
        "no quantum has run yet"
