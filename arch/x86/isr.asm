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

; struct trap_frame offsets (arch/x86/trap.h).
FRAME_VECTOR    equ 120
FRAME_CS        equ 144
MSR_GS_BASE     equ 0xc0000101
RFLAGS_AC       equ 1 << 18

; GS base holds the kernel's per-CPU record in ring 0 and the task's value in
; ring 3; SWAPGS exchanges it with IA32_KERNEL_GS_BASE (SDM vol. 2B,
; SWAPGS). An entry from ring 3 swaps, and so does its return. NMI, #DB,
; #DF and #MC may also arrive in ring 0 before the SYSCALL entry has
; swapped (arch/x86/syscall.asm), so for them the GS base itself decides:
; the kernel's is a per-CPU record, never 0, and a task's is always 0 (no
; task can set it: CR4.FSGSBASE stays clear, the MSRs are privileged, and a
; segment load gives the descriptor's base, 0).
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
	; EFLAGS.AC off: a task can set it with POPF, and with it SMAP would
	; not stop the kernel's handlers touching user pages (SDM vol. 3,
	; 4.6). CLAC would #UD without SMAP; IRETQ restores the task's flags.
	pushfq
	and dword [rsp], ~RFLAGS_AC
	popfq
	xor r12d, r12d                      ; r12 = 1: swapped on the way in
	mov rax, [rsp + FRAME_VECTOR]
	cmp rax, 1                          ; #DB
	je .paranoid
	cmp rax, 2                          ; NMI
	je .paranoid
	cmp rax, 8                          ; #DF
	je .paranoid
	cmp rax, 18                         ; #MC
	je .paranoid
	test qword [rsp + FRAME_CS], 3
	jz .dispatch
	swapgs
	mov r12d, 1
	jmp .dispatch
.paranoid:
	mov ecx, MSR_GS_BASE
	rdmsr
	or eax, edx
	jnz .dispatch                       ; not 0: the kernel's already
	swapgs
	mov r12d, 1
.dispatch:
	mov rdi, rsp
	; The ABI wants a 16-byte aligned stack at the call.
	mov rbx, rsp
	and rsp, -16
	cld
	call trap_dispatch
	mov rsp, rbx
; The way back, also taken by a task's first entry into ring 3
; (kernel/task/task.c): rsp at a struct trap_frame, r12 = 1 to swap GS.
global trap_return
trap_return:
	test r12d, r12d
	jz .restore
	swapgs
.restore:
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
