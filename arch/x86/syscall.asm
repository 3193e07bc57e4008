; arch/x86/syscall.asm: the SYSCALL entry (SDM vol. 2B, SYSCALL). The CPU
; has put the return address in rcx and the flags in r11, loaded the
; kernel's CS and SS from IA32_STAR and masked the flags in IA32_FMASK
; (interrupts off); rsp is still the task's. The entry takes the kernel
; stack from the per-CPU record, saves the registers as a struct trap_frame
; (arch/x86/trap.h) so the kernel sees a task the same way whether it
; trapped or called, and calls the handler the kernel installed.
;
; Until its third instruction has loaded the kernel's stack, the entry
; runs on ring 3's rsp, which the task chose: nothing before it may touch
; the stack.
; IA32_FMASK keeps maskable interrupts out; what can still come -- #DB (a
; hardware breakpoint on the entry, or the trap of a TF the task set
; before SYSCALL), NMI, #MC, #DF -- comes on a stack of its own (IST,
; arch/x86/desc.c), and arch/x86/isr.asm decides by the GS base, not by
; CS, whether SWAPGS has happened yet.

section .text
bits 64

; struct percpu (arch/x86/percpu.h), checked there by _Static_assert.
PERCPU_SYSCALL_RSP0     equ 8
PERCPU_SYSCALL_USER_RSP equ 16
USER_DATA               equ 0x20 | 3    ; GDT_USER_DATA (arch/x86/desc.h)
USER_CODE               equ 0x28 | 3    ; GDT_USER_CODE
SYSCALL_VECTOR          equ 0x100       ; trap_frame.vector of a system call
; The highest address SYSRET may return to: SYSRET to a non-canonical rip
; faults in ring 0 on the task's stack (Intel; AMD faults in ring 3), so
; such a return takes IRET.
; AMD's SYSRET loads SS's selector but keeps its hidden attributes: after
; an interrupt from ring 3 (which leaves SS NULL) and a switch to a thread
; that returns here, ring 3 runs with a NULL SS's attributes. 64-bit code
; does not use them, and the tasks are 64-bit (docs/hardware.md, limits).
USER_RIP_LIMIT          equ 0x00007ffffffff000

extern syscall_handler

%include "arch/x86/marks.inc"
%include "arch/x86/hold.inc"

global syscall_entry
syscall_entry:
	KERNEL_IN_MARK
	swapgs
	mov [gs:PERCPU_SYSCALL_USER_RSP], rsp
	mov rsp, [gs:PERCPU_SYSCALL_RSP0]
	push USER_DATA                      ; ss
	push qword [gs:PERCPU_SYSCALL_USER_RSP]
	push r11                            ; rflags
	push USER_CODE                      ; cs
	push rcx                            ; rip
	push 0                              ; error
	push SYSCALL_VECTOR
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
	cld
	call [rel syscall_handler]          ; the stack is 16-byte aligned here
	HOLD_TO_BOUNDARY                    ; rax, rcx, rdx: popped below
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
	add rsp, 16                         ; vector and error
	; [rsp] rip, cs, rflags, rsp, ss: as the handler left them.
	mov rcx, USER_RIP_LIMIT
	cmp [rsp], rcx
	jae .by_iret
	mov rcx, [rsp]
	mov r11, [rsp + 16]
	mov rsp, [rsp + 24]
	swapgs
	KERNEL_OUT_MARK
	o64 sysret
.by_iret:
	swapgs
	KERNEL_OUT_MARK
	iretq
