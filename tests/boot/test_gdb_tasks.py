"""The task layer through the kernel's GDB stub (kernel/debug/gdbstub.c, COM2)
under QEMU with 4 CPUs and `-cpu max`, whose TCG has SMAP: thread names
say what each CPU runs, a task's control page reads the same through its
user address (SMAP lifted by the stub) as through the kernel's pointer,
and `rtk trace save` writes the dump the kernel then prints (trace=events),
which tools/rtk-trace decodes."""
import json
import re
import subprocess
import sys

from conftest import ROOT, parse_schedule
from gdbrun import Machine, gdb_batch

RT_CONTROL = 0x000000f000100000     # lib/rt_abi.h
RT_CONTROL_MAGIC = 0x72746b63
SLOTS = 30
# Utilisation 4 once F's phase has come: every CPU runs a task in every
# slot from then on (Pfair wastes no processor), so CPU 0 at boundary
# BOUNDARY is in a task's address space.
SET = """\
task A e=1 p=2
task B e=1 p=2
task C e=2 p=3
task D e=1 p=3
task E e=3 p=5
task F e=2 p=5 phase=6
task G e=3 p=4
task H e=1 p=4
"""
BOUNDARY = 12


def script(saved):
    return f"""
break dumpstate_print
continue
python
print("BOUNDARY thread=%d" % gdb.selected_thread().num)
print(gdb.execute("info threads", to_string=True))
t = gdb.parse_and_eval("cpu_scheds[3].current")
n = gdb.lookup_type("struct rt_control").sizeof
mem = gdb.selected_inferior()
user = bytes(mem.read_memory({RT_CONTROL:#x}, n))
kern = bytes(mem.read_memory(int(t["control"]), n))
print("CONTROL task=%s same=%d magic=%#x index=%d" % (
      t["name"].string(), user == kern, int.from_bytes(user[:4], "little"),
      int.from_bytes(user[8:12], "little")))
end
delete
break trace_dump
continue
rtk trace save {saved}
delete
continue
"""


def decode(log, out):
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "rtk-trace"),
                           "decode", str(log), "--out", str(out),
                           "--no-pictures"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return (out / "schedule.jsonl").read_text()


def test_tasks_threads_control_page_and_trace(iso_with, tmp_path):
    f = tmp_path / "set.tasks"
    f.write_text(SET)
    iso = iso_with(f"sched=spd2 slots={SLOTS} dumpstate={BOUNDARY} "
                   "trace=events "
                   "gdb=wait", tasks=f)
    saved = tmp_path / "saved.log"
    # Virtual time, so that the run before the stop keeps its quanta on a
    # loaded host (the TCG round robin alone misses most 1 ms boundaries).
    m = Machine(iso, "kernel", cpu="max", icount="shift=3,sleep=off")
    try:
        m.wait_for(r"^gdb: waiting for GDB on COM2")
        out, err = gdb_batch(m.port, script(saved))
        boot = m.finish()
    finally:
        m.kill()
    text = out + err
    # Stopped in GDB, the run's clock went on: it ends late
    # (docs/running.md, "Debugging"), its numbers still all reported.
    assert boot.finished, boot.tail() + text
    serial = boot.serial.replace("\r", "")
    names = re.findall(r"^task (\S+)", SET, re.M)

    # The last CPU (3) at its boundary BOUNDARY, where dumpstate= stops, has
    # decided but not yet switched: its thread is named after the task that
    # ran there in the slot before, as the executed schedule has it, and
    # its CR3 is that task's.
    rows, _ = parse_schedule("\n".join(
        l.strip() for l in serial.splitlines() if l.strip().startswith("{")))
    assert "BOUNDARY thread=4" in out, text
    threads = dict(re.findall(r"^\*?\s+(\d+)\s+Thread \d+ \(cpu \d+: (\S+)\)",
                              out, re.M))
    assert threads.get("4") == rows[BOUNDARY - 1][3], text
    assert sorted(threads) == ["1", "2", "3", "4"], text
    assert set(threads.values()) <= set(names) | {"idle"}, text

    # The control page of the task CPU 3 runs, in whose address space the
    # stub reads: the same bytes at RT_CONTROL as at the kernel's pointer,
    # and they are that task's.
    c = re.search(r"^CONTROL task=(\S+) same=(\d) magic=(\S+) index=(\d+)$",
                  out, re.M)
    assert c, text
    assert c[2] == "1" and int(c[3], 16) == RT_CONTROL_MAGIC, c[0]
    assert names[int(c[4])] == c[1], c[0]

    # rtk trace save: the lines the kernel then dumped, byte for byte, and
    # the decoder reads the file as it reads the console.
    dumped = [l[l.index("TRACE-"):] for l in serial.splitlines()
              if "TRACE-" in l]
    assert saved.read_text().splitlines() == dumped
    console = tmp_path / "console.log"
    console.write_text(serial)
    assert decode(saved, tmp_path / "from_gdb") == \
        decode(console, tmp_path / "from_console")
    assert json.loads(decode(saved, tmp_path / "again").splitlines()[-1])[
        "summary"]["tasks"].keys() == set(names)


# H counts its loop in its control page (user/hourglass.c), the others
# never write theirs.
RING3_SET = SET.replace("task H e=1 p=4", "task H e=1 p=4 work=hourglass")


def test_ring3_stops_are_gdbs_and_a_tasks_own_traps_kill_it(iso_with,
                                                           tmp_path):
    """A watchpoint on the control page's iteration count (the same user
    address in every task) stops the machine in ring 3 when H writes it:
    the CPU's registers are H's (user CS and SS, GS base 0) and its thread
    is named H. The trap flag then set in H's frame is H's own: the #DB it
    takes in ring 3 kills H (kernel/run/task_kill.c) instead of stopping, and
    the run goes on to its end."""
    f = tmp_path / "set.tasks"
    f.write_text(RING3_SET)
    # Long quanta: virtual time runs on while the stub waits for GDB, and
    # H must still have slots after the stop.
    iso = iso_with(f"sched=spd2 slots={SLOTS} quantum_us=100000 gdb=wait",
                   tasks=f)
    m = Machine(iso, "kernel", cpu="max", icount="shift=3,sleep=off")
    try:
        m.wait_for(r"^gdb: waiting for GDB on COM2")
        # Set at the boot's stop, before any task exists: the address
        # is no one's yet (GDB cannot read its value), the debug registers
        # take it all the same.
        out, err = gdb_batch(m.port, f"""
awatch -l ((struct rt_control *){RT_CONTROL:#x})->iterations
continue
python
th = gdb.selected_thread()
name = gdb.execute("info threads", to_string=True)
print("RING3 thread=%d cs=%#x ss=%#x gs_base=%#x" % (
      th.num, int(gdb.parse_and_eval("$cs")), int(gdb.parse_and_eval("$ss")),
      int(gdb.parse_and_eval("$gs_base"))))
print(name)
end
delete
set var $eflags = $eflags | 0x100
continue
""")
        boot = m.finish()
    finally:
        m.kill()
    text = out + err
    # Stopped in GDB, the run's clock went on: it ends late
    # (docs/running.md, "Debugging"), its numbers still all reported.
    assert boot.finished, boot.tail() + text
    r = re.search(r"^RING3 thread=(\d+) cs=(\S+) ss=(\S+) gs_base=(\S+)$",
                  out, re.M)
    assert r, text
    assert int(r[2], 16) & 3 == 3 and int(r[3], 16) & 3 == 3, r[0]
    assert int(r[4], 16) == 0, r[0]
    assert re.search(rf"^\*\s+{r[1]}\s+Thread {r[1]} \(cpu \d+: H\)", out,
                     re.M), text
    # GDB saw no stop after the watchpoint's: the step was H's.
    assert "SIGTRAP" not in text, text
    h = {x["name"]: x for x in boot.results("task")}["H"]
    assert h["state"] == "killed", (h, text)
    assert re.search(r"task H killed: exception 1 \(#DB\) rip=0x",
                     boot.serial), boot.tail()
