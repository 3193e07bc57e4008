"""Hostile tasks under the kernel's GDB stub (kernel/debug/gdbstub.c, COM2):
a hardware breakpoint on the SYSCALL entry, where ring 3's stack pointer
is still loaded (SDM vol. 2B, SYSCALL), stops the machine on the debug
exception's own stack whatever that pointer is -- a task's ordinary stack
is left untouched, and a task whose rsp is in the kernel's text does not
hang the machine; a task killed for a job_info record that runs past its
stack leaves its memory as it was; and when the run ends GDB hears that
the program exited."""
import re

from gdbrun import Machine, gdb_batch

RT_STACK_TOP = 0xF000000000          # lib/rt_abi.h
SPAN_START = RT_STACK_TOP - 16       # BAD_SPAN_START (user/lib/bad.h)
KERNEL_TEXT = 0xFFFFFFFF80100000     # BAD_KERNEL_ADDRESS
# R and I on one CPU, in quanta of 100 ms: virtual time runs on while the
# stub waits for GDB (a stop and a step take some 60 ms of it), so the
# quanta are long and every stop is looked at as it comes.
TASKS = """\
task R e=1 p=2 work=bad_syscall_rsp
task I e=1 p=4 phase=1 work=bad_info_span
"""

SCRIPT = f"""
hbreak syscall_entry
break task_kill
python
U64 = 2**64 - 1
entry = int(gdb.parse_and_eval("(long)syscall_entry")) & U64
kill = int(gdb.parse_and_eval("(long)task_kill")) & U64
def reg(name):
    return int(gdb.parse_and_eval(name)) & U64
def look(label):
    rsp = reg("$rsp")
    below = bytes(gdb.selected_inferior().read_memory(rsp - 512, 512))
    words = [int.from_bytes(below[i:i + 8], "little")
             for i in range(0, 512, 8)]
    # A frame the CPU pushed here for the #DB, and the stub's calls below
    # it, would leave kernel addresses.
    kernel = sum(1 for w in words if w >> 47 == 0x1ffff)
    print("%s rsp=%#x pc_is_entry=%d kernel_words_below=%d" % (
          label, rsp, reg("$pc") - entry, kernel))
stepped = hostile = killed = False
for _ in range(12):
    gdb.execute("continue")
    pc = reg("$pc")
    if pc == kill and gdb.parse_and_eval("t->name").string() == "I":
        span = bytes(gdb.selected_inferior().read_memory({SPAN_START:#x},
                                                         16))
        print("KILLED I span=%s" % span.hex())
        killed = True
    elif pc == entry and reg("$rsp") == {KERNEL_TEXT:#x}:
        print("HOSTILE rsp=%#x" % reg("$rsp"))
        hostile = True
    elif pc == entry and not stepped:
        look("ENTRY")
        gdb.execute("stepi")
        look("STEPPED")
        stepped = True
    if stepped and hostile and killed:
        break
gdb.execute("delete")
end
continue
"""


def test_debug_exception_at_the_syscall_entry_and_the_runs_end(iso_with,
                                                                tmp_path):
    """R announces itself with sys_write from its ordinary stack: the
    stop at syscall_entry (rip is the entry's first instruction) leaves the
    512 bytes below the task's rsp without a kernel address, and so does
    the stop after one step (SWAPGS). R then exits with rsp in the kernel's
    text: the machine stops there too (where it used to hang, the #DB's
    frame pushed onto kernel text) and goes on, and R ends exited. I is killed for a job_info
    record that runs from 16 bytes below its stack's top into the unmapped
    page above: at the kill, the 16 bytes still hold the 0x5a it wrote --
    nothing of the record was written. The run then ends -- late, its
    clock having gone on while GDB held it -- and GDB says the program
    exited with the late status, 2 (the stub's W packet)."""
    f = tmp_path / "hostile.tasks"
    f.write_text(TASKS)
    iso = iso_with("sched=gedf slots=30 quantum_us=100000 gdb=wait",
                   tasks=f)
    m = Machine(iso, "kernel", smp=1, icount="shift=3,sleep=off")
    try:
        m.wait_for(r"^gdb: waiting for GDB on COM2")
        out, err = gdb_batch(m.port, SCRIPT, timeout=300)
        boot = m.finish()
    finally:
        m.kill()
    text = out + err
    for label in ("ENTRY", "STEPPED"):
        r = re.search(rf"^{label} rsp=(0x[0-9a-f]+) pc_is_entry=(-?\d+) "
                      r"kernel_words_below=(\d+)$", out, re.M)
        assert r, text
        assert RT_STACK_TOP - 65536 < int(r[1], 16) < RT_STACK_TOP, r[0]
        assert int(r[3]) == 0, r[0]
        assert (int(r[2]) == 0) == (label == "ENTRY"), r[0]
    assert re.search(rf"^HOSTILE rsp={KERNEL_TEXT:#x}$", out, re.M), text
    assert re.search(r"^KILLED I span=(5a){16}$", out, re.M), text
    # Stopped in GDB, the run's clock went on: it ends late, and says so.
    assert "[Inferior 1 (Remote target) exited with code 02]" in text, text
    assert boot.late, boot.tail() + text
    r = {t["name"]: t for t in boot.results("task")}
    assert (r["R"]["state"], r["I"]["state"]) == ("exited", "killed"), r
