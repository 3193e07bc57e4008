; boot/trampoline.asm: where each AP starts after the startup IPI (SIPI).
;
; kernel/core/smp.c copies this code once to TRAMPOLINE_PAGE below 1 MiB; the
; SIPI vector is that page's number (MP spec B.4.2), so an AP starts in real
; mode at CS:IP = page:0. It goes to protected mode, then long mode with the
; BSP's page tables, finds itself by its APIC ID in the table the BSP left
; in trampoline_data, and jumps to the kernel with that entry's stack and
; CPU index. Every AP runs the same copy at the same time, so nothing here
; is written once the APs are started: the page is fixed (exported to C as
; ap_trampoline_page) and addresses are absolute.

%include "boot/long_mode.inc"

TRAMPOLINE_PAGE     equ 0x8000
; kernel/core/smp.c's struct ap_start: stack top, APIC ID, CPU index.
AP_START_STACK      equ 0
AP_START_APIC_ID    equ 8
AP_START_CPU        equ 12
AP_START_SIZE       equ 16

%define REL(x) ((x) - trampoline)
%define ABS(x) (REL(x) + TRAMPOLINE_PAGE)

global ap_trampoline_page
ap_trampoline_page  equ TRAMPOLINE_PAGE

section .trampoline
bits 16
global trampoline, trampoline_data
trampoline:
	cli
	cld
	mov ax, cs
	mov ds, ax
	lgdt [REL(gdt_ptr)]
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	jmp dword 0x08:ABS(protected)

bits 32
protected:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	ENABLE_LONG_MODE [ABS(data_cr3)]
	jmp 0x18:ABS(long_mode)

bits 64
long_mode:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	; This CPU's APIC ID: the x2APIC ID in CPUID leaf 0xB EDX where the
	; leaf exists (max leaf >= 0xB and subleaf 0 with EBX != 0, SDM vol. 2A,
	; CPUID), which holds IDs above 255 too; else the initial APIC ID in
	; CPUID.1:EBX[31:24].
	xor eax, eax
	cpuid
	cmp eax, 0xb
	jb .initial_id
	mov eax, 0xb
	xor ecx, ecx
	cpuid
	test ebx, ebx
	jz .initial_id
	mov esi, edx
	jmp .find
.initial_id:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov esi, ebx
.find:
	mov rbx, [ABS(data_table)]
	mov rcx, [ABS(data_count)]
.next:
	test rcx, rcx
	jz .not_listed
	cmp [rbx + AP_START_APIC_ID], esi
	je .found
	add rbx, AP_START_SIZE
	dec rcx
	jmp .next
.not_listed:                            ; a CPU the kernel did not start
	cli
	hlt
	jmp .not_listed
.found:
	mov rsp, [rbx + AP_START_STACK]
	mov edi, [rbx + AP_START_CPU]
	mov rax, [ABS(data_entry)]
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
	dd ABS(gdt)

align 8
trampoline_data:                        ; kernel/core/smp.c's struct trampoline_data
data_cr3:   dq 0
data_entry: dq 0
data_table: dq 0                        ; struct ap_start[data_count]
data_count: dq 0
