/*
 * kernel/run/syscall: the system calls of lib/rt_abi.h. Every pointer a task
 * passes is checked against its own page tables before the kernel touches
 * a byte; a pointer that is not the task's own kills it, as a fault would.
 */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include <stdint.h>

/* Installs the handler (arch/x86/syscall.asm calls it). */
void syscall_setup(void);

/* What the run is, for RT_SYS_TASK_INFO and RT_SYS_JOB_INFO: the plugin's
 * name, its CPUs and its quantum (an event-driven run's clock counts
 * microseconds, not quanta). */
void syscall_describe_run(const char *sched, unsigned cpus,
			  uint64_t quantum_us);

#endif
