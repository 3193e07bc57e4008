/* arch/x86/desc: the GDT with a TSS per CPU, and the shared IDT. */
#ifndef ARCH_X86_DESC_H
#define ARCH_X86_DESC_H

#include <stdint.h>

/*
 * The GDT's layout is what SYSCALL and SYSRET require (SDM vol. 2B,
 * SYSCALL/SYSRET): the kernel's data right after its code (SYSCALL loads
 * SS = STAR[47:32] + 8), and from the user base STAR[63:48] the 32-bit
 * code, then data (SYSRET loads SS = base + 8), then 64-bit code (CS =
 * base + 16). The 32-bit user code segment is never used.
 */
#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define GDT_USER_BASE 0x18
#define GDT_USER_DATA (0x20 | 3)
#define GDT_USER_CODE (0x28 | 3)
#define GDT_TSS 0x30

/* Interrupt stack table slots (SDM vol. 3, 6.14.5): every exception that
 * may come while the stack pointer is not the kernel's -- ring 3's, left
 * by SYSCALL until the entry's third instruction (arch/x86/syscall.asm) --
 * or not usable gets a stack of its own. */
#define IST_NMI 1
#define IST_DOUBLE_FAULT 2
#define IST_MACHINE_CHECK 3
#define IST_DEBUG 4
/* #DB's stack holds this many nested #DBs (arch/x86/isr.asm). */
#define IST_DEBUG_LEVELS 2

/* SDM vol. 3, 8.7: the 64-bit TSS. */
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct gdt {
	/* null, kernel code, kernel data, user code32, user data, user code,
	 * TSS (two slots) */
	uint64_t entry[8];
};

/* Loads a GDT and TSS built in gdt/tss, with IST stacks from ist_stacks
 * (3 + IST_DEBUG_LEVELS stacks of ist_size bytes: NMI, #DF, #MC, then #DB
 * with room for its nesting), then the shared IDT. */
void desc_load_cpu(struct gdt *gdt, struct tss *tss, uint8_t *ist_stacks,
		   unsigned ist_size);

/* Builds the IDT once, on the boot CPU. */
void desc_init_idt(void);

/* The stack the CPU switches to when an interrupt arrives in ring 3. */
static inline void desc_set_kernel_stack(struct tss *tss, uint64_t top)
{
	tss->rsp[0] = top;
}

#endif
