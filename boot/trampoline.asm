; boot/trampoline.asm: where each AP starts after the startup IPI (SIPI).
;
; The BSP copies this code to a reserved page below 1 MiB (SMP_TRAMPOLINE in
; arch/x86/smp.c); the SIPI vector is that page's number (MP spec B.4.2),
; so the AP starts in real mode at CS:IP = page:0. It goes to protected
; mode, then long mode with the BSP's page tables, and jumps to
; smp_ap_entry with the stack and CPU index the BSP left in the data block.
; Addresses are relative to the start of the page: the code runs at
; whatever page the BSP chose, with DS = CS.

%include "boot/long_mode.inc"

%define REL(x) ((x) - trampoline)

section .trampoline
bits 16
global trampoline, trampoline_data
trampoline:
	cli
	cld
	mov ax, cs
	mov ds, ax
	; Patch the far-jump targets and the GDT base with this page's linear
	; address (CS * 16), so the code runs wherever it was copied.
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4
	add [REL(gdt_ptr) + 2], ebx
	add [REL(pm_target)], ebx
	add [REL(lm_target)], ebx
	lgdt [REL(gdt_ptr)]
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	jmp dword far [REL(pm_target)]

bits 32
protected:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	ENABLE_LONG_MODE [ebx + REL(data_cr3)]
	jmp far [ebx + REL(lm_target)]

bits 64
long_mode:
	mov ebx, ebx                        ; upper halves are undefined after the switch
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [rbx + REL(data_stack)]
	mov edi, [rbx + REL(data_cpu)]
	mov rax, [rbx + REL(data_entry)]
	xor ebp, ebp
	push 0                              ; a null return address ends traces
	jmp rax

align 8
gdt:
	dq 0
	dq 0x00CF9A000000FFFF               ; 0x08: 32-bit code, flat
	dq 0x00CF92000000FFFF               ; 0x10: data, flat
	dq 0x00209A0000000000               ; 0x18: 64-bit code
gdt_end:
gdt_ptr:
	dw gdt_end - gdt - 1
	dd REL(gdt)
pm_target:
	dd REL(protected)
	dw 0x08
lm_target:
	dd REL(long_mode)
	dw 0x18

align 8
trampoline_data:                        ; filled by the BSP before each SIPI
data_cr3:   dq 0
data_stack: dq 0
data_entry: dq 0
data_cpu:   dq 0
