; boot/boot.asm: the multiboot2 header, the 32-bit entry GRUB jumps to, and
; the switch to 64-bit long mode with the boot page tables.
;
; Multiboot2 spec 3.1: GRUB enters in 32-bit protected mode, paging off,
; EAX = 0x36d76289, EBX = physical address of the boot information.

KERNEL_VMA          equ 0xFFFFFFFF80000000
MB2_MAGIC           equ 0xE85250D6      ; multiboot2 spec 3.1.1
MB2_ARCH_I386       equ 0
MB2_TAG_END         equ 0
MB2_TAG_FRAMEBUFFER equ 5               ; spec 3.1.10
MB2_TAG_MODULE_ALIGN equ 6              ; spec 3.1.11
MB2_TAG_OPTIONAL    equ 1               ; flags bit 0: the loader may ignore it

PTE_PRESENT         equ 1 << 0
PTE_WRITE           equ 1 << 1
PTE_PWT             equ 1 << 3
PTE_PCD             equ 1 << 4
PTE_HUGE            equ 1 << 7          ; a 2 MiB page in a PD entry
COM1                equ 0x3F8

%include "boot/long_mode.inc"

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
align 8
	; Framebuffer request (spec 3.1.10), optional and without a preferred
	; size: the loader picks the mode. boot/grub.cfg keeps BIOS machines in
	; VGA text mode unless a menu entry asks for graphics (GRUB 2.06 under
	; Bochs crashes setting a VBE mode); UEFI has only the framebuffer.
	dw MB2_TAG_FRAMEBUFFER, MB2_TAG_OPTIONAL
	dd 20
	dd 0, 0, 0
align 8
	; Modules (the task set) page-aligned.
	dw MB2_TAG_MODULE_ALIGN, 0
	dd 8
align 8
	dw MB2_TAG_END, 0
	dd 8
mb2_header_end:

section .boot.bss nobits
align 4096
global boot_pml4, boot_pdpt_low, boot_pdpt_high, boot_pd
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4096 * 4       ; identity map of the first 4 GiB
boot_stack32:   resb 1024
boot_stack32_top:

section .boot.data
align 8
global mb2_boot_magic, mb2_boot_info
mb2_boot_magic: dd 0
mb2_boot_info:  dd 0
align 8
gdt64:
	dq 0
	dq 0x00209A0000000000               ; 0x08: 64-bit code, DPL 0
	dq 0x0000920000000000               ; 0x10: data
gdt64_end:
gdt64_ptr:
	dw gdt64_end - gdt64 - 1
	dd gdt64
no_lm_msg: db "boot: this CPU has no long mode (x86-64); stopping", 13, 10, 0

section .boot.text
bits 32
global _start
_start:
	cli
	cld
	mov esp, boot_stack32_top
	mov [mb2_boot_magic], eax
	mov [mb2_boot_info], ebx

	; CPUID 0x80000001 EDX bit 29: long mode (SDM vol. 2A, CPUID).
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	; Identity map 0..4 GiB with 2 MiB pages; the top 1 GiB (MMIO: local
	; APIC, I/O APIC, HPET) uncached. Map the kernel's -2 GiB window onto
	; physical 0..2 GiB.
	mov edi, boot_pd
	xor ecx, ecx
.fill_pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_PRESENT | PTE_WRITE | PTE_HUGE
	cmp ecx, 3 * 512
	jb .cached
	or eax, PTE_PCD | PTE_PWT
.cached:
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 4 * 512
	jb .fill_pd

	mov ecx, 0
.fill_pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pdpt_low + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jb .fill_pdpt
	mov eax, boot_pd + PTE_PRESENT + PTE_WRITE
	mov [boot_pdpt_high + 510 * 8], eax
	mov eax, boot_pd + 4096 + PTE_PRESENT + PTE_WRITE
	mov [boot_pdpt_high + 511 * 8], eax

	mov eax, boot_pdpt_low + PTE_PRESENT + PTE_WRITE
	mov [boot_pml4], eax
	mov eax, boot_pdpt_high + PTE_PRESENT + PTE_WRITE
	mov [boot_pml4 + 511 * 8], eax

	ENABLE_LONG_MODE boot_pml4

	lgdt [gdt64_ptr]
	jmp 0x08:long_mode_entry

.no_long_mode:
	mov esi, no_lm_msg
.putc:
	mov dx, COM1 + 5                    ; line status: wait for THR empty
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	lodsb
	test al, al
	jz .halt
	mov dx, COM1
	out dx, al
	jmp .putc
.halt:
	hlt
	jmp .halt

bits 64
long_mode_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rsp, bsp_stack_top
	xor ebp, ebp
	mov edi, [mb2_boot_magic]
	mov esi, [mb2_boot_info]
	mov rax, kernel_main
	call rax
.hang:
	cli
	hlt
	jmp .hang

extern kernel_main
section .bss
align 16
global bsp_stack_bottom
bsp_stack_bottom:
	resb 16384
bsp_stack_top:
