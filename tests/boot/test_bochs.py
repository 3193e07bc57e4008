"""Bochs with two CPUs of a model with x2APIC and the TSC-deadline timer:
QEMU 7.2's TCG has no x2APIC, so this is the x2APIC path's test."""
from harness import ROOT, bochs, cpu_count_ok
from test_sched_in_kernel import kernel_schedule, simulator_schedule


def test_bochs_two_cpus_x2apic(iso_with):
    boot = bochs(iso_with("slots=100"), cpus=2)
    assert boot.passed, boot.tail()
    cpu_count_ok(boot, 2)
    assert boot.result("smp")["apic"] == "x2apic", boot.tail()
    assert boot.result("tsc")["deadline"] == "1", boot.tail()
    assert len(boot.results("ticks")) == 2


def test_bochs_scheduler_over_x2apic_ipis(iso_with):
    """Tasks on the TSC-deadline quantum clock, with every wait for a turn
    halted and woken by an x2APIC IPI (spin_us=0): the executed schedule
    (from the context switches) is the simulator's."""
    tasks = ROOT / "tasks" / "default.tasks"
    slots = 60
    boot = bochs(iso_with(f"sched=spd2 slots={slots} spin_us=0",
                          tasks=tasks), cpus=2)
    assert boot.passed, boot.tail()
    assert boot.result("smp")["apic"] == "x2apic", boot.tail()
    assert boot.serial.count("RESULT task ") == 6, boot.tail()
    assert kernel_schedule(boot.serial) == \
        simulator_schedule("spd2", 2, slots, tasks)
