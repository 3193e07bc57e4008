/* arch/x86/syscall: the SYSCALL instruction's entry, set up per CPU. */
#ifndef ARCH_X86_SYSCALL_H
#define ARCH_X86_SYSCALL_H

#include "trap.h"

/* The trap_frame.vector of a system call (above the 256 vectors). */
#define SYSCALL_VECTOR 0x100

/*
 * The kernel's handler, called with interrupts off and the task's
 * registers in f (number in rax, arguments in rdi, rsi, rdx); it returns
 * the result in f->rax. It may switch threads and come back later.
 */
void syscall_set_handler(trap_handler h);

/* IA32_STAR, LSTAR, FMASK and EFER.SCE on the calling CPU. */
void syscall_init_cpu(void);

#endif
