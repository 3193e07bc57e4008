# tools/gdb/kernel.gdb: the project's GDB commands (source it, or use
# `make debug`). The kernel is linked for 64-bit; QEMU's stub speaks 64-bit
# registers from the first instruction, so the architecture is fixed here
# rather than guessed from the 32-bit multiboot entry. Break in 64-bit code
# with hardware breakpoints (`hbreak smp_ap_main`): software breakpoints
# set before paging is on would be written to the wrong addresses.
set architecture i386:x86-64
set disassembly-flavor intel

# `cpus`: one line per CPU from percpu[] (arch/x86/percpu.h): logical index,
# APIC ID, state; and from the quantum clock (kernel/quantum_clock.c,
# qclock.cpu[]): boundaries serviced in the current run, missed boundaries.
define cpus
  set $n = cpu_count
  set $i = 0
  while $i < $n
    set $s = percpu[$i].state
    if $s == 0
      set $name = "absent"
    end
    if $s == 1
      set $name = "starting"
    end
    if $s == 2
      set $name = "online"
    end
    if $s == 3
      set $name = "measuring"
    end
    if $s == 4
      set $name = "done"
    end
    if $s == 5
      set $name = "halted"
    end
    set $q = 0
    set $m = 0
    if qclock.cpu != 0 && $i < qclock.cpu_capacity
      set $q = qclock.cpu[$i].serviced
      set $m = qclock.cpu[$i].missed
    end
    printf "cpu %d apic=%d state=%s quantum=%d missed=%d\n", $i, percpu[$i].apic_id, $name, $q, $m
    set $i = $i + 1
  end
end
document cpus
Each CPU's APIC ID, state (absent, starting, online, measuring, done,
halted), current quantum (boundaries serviced) and missed boundaries.
end
