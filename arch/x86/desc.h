/* arch/x86/desc: the GDT with a TSS per CPU, and the shared IDT. */
#ifndef ARCH_X86_DESC_H
#define ARCH_X86_DESC_H

#include <stdint.h>

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define GDT_TSS 0x18

/* Interrupt stack table slots (SDM vol. 3, 6.14.5). */
#define IST_NMI 1
#define IST_DOUBLE_FAULT 2
#define IST_MACHINE_CHECK 3

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
	uint64_t entry[5];  /* null, code, data, TSS (two slots) */
};

/* Loads a GDT and TSS built in gdt/tss, with IST stacks from ist_stacks
 * (3 stacks of ist_size bytes), then the shared IDT. */
void desc_load_cpu(struct gdt *gdt, struct tss *tss, uint8_t *ist_stacks,
		   unsigned ist_size);

/* Builds the IDT once, on the boot CPU. */
void desc_init_idt(void);

#endif
