; arch/x86/isr.asm: interrupt and exception entry stubs. Each pushes its
; vector (and a zero where the CPU pushes no error code, SDM vol. 3, 6.13),
; then the common path saves the registers as a struct trap_frame
; (arch/x86/trap.h) and calls trap_dispatch(frame).

section .text
bits 64

extern trap_dispatch

%macro STUB_NOERR 1
isr_stub_%1:
	push 0
	push %1
	jmp isr_common
%endmacro

%macro STUB_ERR 1
isr_stub_%1:
	push %1
	jmp isr_common
%endmacro

; Vectors 8, 10-14, 17, 21, 29, 30 push an error code (SDM vol. 3, 6.15).
%assign v 0
%rep 256
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	STUB_ERR v
%else
	STUB_NOERR v
%endif
%assign v v + 1
%endrep

isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	; The ABI wants a 16-byte aligned stack at the call.
	mov rbx, rsp
	and rsp, -16
	cld
	call trap_dispatch
	mov rsp, rbx
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                         ; vector and error code
	iretq

section .rodata
align 8
global isr_stub_table
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep
