"""GDB in batch mode against a halted QEMU: break at the AP entry, continue
until two APs have arrived, and check the project's `rtk cpus` command."""
import re

from gdbrun import Machine, gdb_batch


def test_gdb_breaks_at_ap_entry_and_lists_cpus(iso):
    m = Machine(iso, "qemu", smp=3)
    try:
        out, err = gdb_batch(m.port, """
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
rtk cpus
kill
""", timeout=300)
    finally:
        m.kill()
    arrived = re.findall(r"^ARRIVED cpu=(\d+)$", out, re.M)
    assert sorted(arrived) == ["1", "2"], out + err
    assert out.count("smp_ap_main") >= 2, out
    rows = re.findall(r"^cpu (\d+) apic=(\d+) state=(\w+) quantum=(\d+) "
                      r"missed=(\d+)$", out, re.M)
    assert [r[0] for r in rows] == ["0", "1", "2"], out
    states = {int(r[0]): r[2] for r in rows}
    assert states[0] == "online", out
    # Both APs are started together (kernel/core/smp.c): the one stopped at its
    # entry has not checked in; the other may have by then.
    assert states[int(arrived[1])] == "starting", out
    assert states[int(arrived[0])] in ("starting", "online"), out
    assert len({r[1] for r in rows}) == 3, "distinct APIC IDs"
    assert all(r[3] == "0" and r[4] == "0" for r in rows), \
        "no quantum has run yet"
