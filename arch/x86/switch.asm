; arch/x86/switch.asm: changing threads. Each thread has a kernel stack of
; its own; switching saves the callee-saved registers on the old stack,
; keeps that stack pointer, and returns on the new one. Everything else
; (the caller-saved registers, the interrupted frame, the FPU state) is
; already saved by the code that called the switch.

section .text
bits 64

extern trap_return

; void *context_switch(uint64_t *save_rsp, uint64_t load_rsp, void *prev)
; Returns prev, in the thread switched to: the thread that ran before it.
global context_switch
context_switch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	mov rax, rdx
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; A new thread's first return from context_switch lands here, with the
; entry function in r12 and its argument in r13 (arch/x86/context.h):
; entry(prev, arg), which never returns.
global context_first
context_first:
	mov rdi, rax
	mov rsi, r13
	call r12
	ud2

; void context_enter_user(struct trap_frame *f): to ring 3 through the
; interrupt return path, f as if ring 3 had been interrupted.
global context_enter_user
context_enter_user:
	mov rsp, rdi
	mov r12d, 1                         ; trap_return: swap GS on the way out
	jmp trap_return
