"""Many CPUs (issue 15): bring-up with every waiting CPU halted."""
from harness import cpu_count_ok, qemu

ICOUNT = "shift=3,sleep=off"


def test_tsc_handshake_with_every_wait_halted(iso_with):
    # spin_us=0: each side of the TSC handshake halts at once in every
    # round and is woken by the other's IPI (kernel/smp.c) -- the path a
    # busy emulator host takes. Under -icount the clock is virtual, so the
    # offsets must still be good enough that no boundary is missed.
    boot = qemu(iso_with("spin_us=0 slots=200"), smp=8, machine="q35",
                icount=ICOUNT)
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 8)
    for t in boot.results("ticks"):
        assert t["missed"] == "0", t
