/*
 * kernel/run/syscall: the system calls of lib/rt_abi.h. Every pointer a task
 * passes is checked against its own page tables before the kernel touches
 * a byte; a pointer that is not the task's own kills it, as a fault would.
 */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

/* Installs the handler (arch/x86/syscall.asm calls it). */
void syscall_setup(void);

#endif
