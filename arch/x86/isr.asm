; arch/x86/isr.asm: interrupt and exception entry stubs. Each pushes its
; vector (and a zero where the CPU pushes no error code, SDM vol. 3, 6.13),
; then the common path saves the registers as a struct trap_frame
; (arch/x86/trap.h) and calls trap_dispatch(frame).

section .text
bits 64

extern trap_dispatch

%include "arch/x86/marks.inc"
%include "arch/x86/hold.inc"

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

; Vectors 8, 10-14, 17, 21, 29, 30 push an error code (SDM vol. 3, 6.15);
; #DB (1) has an entry of its own below.
%assign v 0
%rep 256
%if v == 1
%elif v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
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
; struct percpu (arch/x86/percpu.h, checked there by _Static_assert): the
; running task's kernel stack top, and #DB's IST slot in the TSS.
PERCPU_SYSCALL_RSP0  equ 8
PERCPU_TSS_IST_DEBUG equ 180
DEBUG_IST_NEST       equ 8192           ; IST_STACK_SIZE

; #DB comes on a stack of its own (IST_DEBUG, arch/x86/desc.c): it may come
; at the SYSCALL entry's first instruction, before the entry has a stack
; (a hardware breakpoint there, or the trap of a task's TF after SYSCALL),
; with ring 3's rsp still loaded -- any value a task likes. From ring 3,
; where the CPU would have used the task's kernel stack, the frame moves
; there: the handler may kill the task and switch away, which must leave
; nothing behind on the shared stack. From ring 0 it stays, and isr_common
; moves the IST slot down while the handler runs, so that a #DB inside it
; (the GDB stub reading a watched variable) gets a stack of its own.
isr_stub_1:
	test qword [rsp + 8], 3             ; the interrupted CS
	jz .stay
	swapgs                              ; the kernel's GS, for rsp0
	push rax
	push rcx
	mov rax, [gs:PERCPU_SYSCALL_RSP0]
	mov rcx, [rsp + 48]                 ; ss
	mov [rax - 8], rcx
	mov rcx, [rsp + 40]                 ; rsp
	mov [rax - 16], rcx
	mov rcx, [rsp + 32]                 ; rflags
	mov [rax - 24], rcx
	mov rcx, [rsp + 24]                 ; cs
	mov [rax - 32], rcx
	mov rcx, [rsp + 16]                 ; rip
	mov [rax - 40], rcx
	pop rcx
	sub rax, 40
	xchg rax, [rsp]                     ; rax back, the new rsp in its place
	mov rsp, [rsp]
	swapgs                              ; as it came: isr_common swaps
.stay:
	push 0
	push 1
	jmp isr_common

; GS base holds the kernel's per-CPU record in ring 0 and the task's value in
; ring 3; SWAPGS exchanges it with IA32_KERNEL_GS_BASE (SDM vol. 2B,
; SWAPGS). An entry from ring 3 swaps, and so does its return. NMI, #DB,
; #DF and #MC may also arrive in ring 0 before the SYSCALL entry has
; swapped (arch/x86/syscall.asm), so for them the GS base itself decides:
; the kernel's is a per-CPU record, never 0, and a task's is always 0 (no
; task can set it: CR4.FSGSBASE stays clear, the MSRs are privileged, and a
; segment load gives the descriptor's base, 0).
isr_common:
	KERNEL_IN_MARK
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
	; A #DB from ring 0 runs on its IST stack: the next one goes below it
	; until this one returns (r13 = 1: moved). GS is the kernel's here.
	xor r13d, r13d
	cmp qword [rsp + FRAME_VECTOR], 1
	jne .call
	test qword [rsp + FRAME_CS], 3
	jnz .call
	sub qword [gs:PERCPU_TSS_IST_DEBUG], DEBUG_IST_NEST
	mov r13d, 1
.call:
	mov rdi, rsp
	; The ABI wants a 16-byte aligned stack at the call.
	mov rbx, rsp
	and rsp, -16
	cld
	call trap_dispatch
	mov rsp, rbx
	test r13d, r13d
	jz trap_return
	add qword [gs:PERCPU_TSS_IST_DEBUG], DEBUG_IST_NEST
; The way back, also taken by a task's first entry into ring 3
; (kernel/task/task.c): rsp at a struct trap_frame, r12 = 1 to swap GS.
global trap_return
trap_return:
	test r12d, r12d
	jz .restore
	HOLD_TO_BOUNDARY                    ; rax, rcx, rdx: popped below
	swapgs
	KERNEL_OUT_MARK                     ; to ring 3 (marks.inc)
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
