/*
 * arch/x86/context: a thread's saved kernel context and the switch between
 * two (arch/x86/switch.asm).
 */
#ifndef ARCH_X86_CONTEXT_H
#define ARCH_X86_CONTEXT_H

#include <stdint.h>

#include "trap.h"

/* Saves the callee-saved registers on the current stack, stores the stack
 * pointer in *save_rsp and continues on load_rsp. Returns, in the thread
 * switched to, the prev that the switch into it was given. Interrupts off. */
void *context_switch(uint64_t *save_rsp, uint64_t load_rsp, void *prev);

/* A thread's first run: context_switch "returns" into
 * entry(prev, arg) on its own stack; entry never returns. */
typedef void (*context_entry)(void *prev, void *arg) __attribute__((noreturn));

void context_first(void);

/* The initial stack pointer of a new thread whose stack ends at top
 * (16-byte aligned), for context_switch to load. */
static inline uint64_t context_new(uint8_t *top, context_entry entry,
				   void *arg)
{
	uint64_t *sp = (uint64_t *)top;
	*--sp = (uint64_t)context_first;        /* context_switch's ret */
	*--sp = 0;                              /* rbp: ends stack traces */
	*--sp = 0;                              /* rbx */
	*--sp = (uint64_t)entry;                /* r12 */
	*--sp = (uint64_t)arg;                  /* r13 */
	*--sp = 0;                              /* r14 */
	*--sp = 0;                              /* r15 */
	return (uint64_t)sp;
}

/* Leaves for ring 3 as if returning from an interrupt that came from there:
 * f holds the registers, rip, cs, rflags, rsp and ss. */
void context_enter_user(struct trap_frame *f) __attribute__((noreturn));

#endif
