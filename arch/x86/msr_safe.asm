; arch/x86/msr_safe.asm: RDMSR of an MSR that may not exist. A CPU without
; it raises #GP (SDM vol. 2B, RDMSR); arch/x86/trap.c sends a #GP at
; msr_read_safe_insn to msr_read_safe_fault instead of the kernel's
; handlers, so the read returns -1.

section .text
bits 64

; int msr_read_safe(uint32_t msr, uint64_t *value): 0 and *value, or -1
; (and *value untouched) when the read faulted.
global msr_read_safe
global msr_read_safe_insn
global msr_read_safe_fault
msr_read_safe:
	mov ecx, edi
msr_read_safe_insn:
	rdmsr
	shl rdx, 32
	mov eax, eax
	or rax, rdx
	mov [rsi], rax
	xor eax, eax
	ret
msr_read_safe_fault:
	mov eax, -1
	ret
