/*
 * kernel/run/task_kill: a task that faults or misuses a system call is stopped
 * and named -- `task T3 killed: page fault writing 0x... rip=0x...` -- the
 * plugin is told it left, and the kernel and every other task go on.
 */
#ifndef KERNEL_TASK_KILL_H
#define KERNEL_TASK_KILL_H

#include <stdint.h>

#include "../../arch/x86/trap.h"

struct task;

/* Kills the calling CPU's current task (never returns to it); why says
 * what it did, addr where (CR2 or the bad pointer), vector the exception
 * (0 for a system call). */
void task_kill(struct task *t, const char *why, unsigned vector,
	       uint64_t addr) __attribute__((noreturn));

/* Ends the calling CPU's current task at its own request (exit). */
void task_exit(struct task *t, int64_t code) __attribute__((noreturn));

/* The handler of exceptions taken in ring 3 (kernel/core/panic.c's hook). */
void task_on_user_fault(struct trap_frame *f);

#endif
