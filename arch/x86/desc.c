/* arch/x86/desc: the GDT with a TSS per CPU, and the shared IDT. */
#include "desc.h"

#include "trap.h"

/* SDM vol. 3, 6.14.1: a 64-bit interrupt gate. */
struct idt_entry {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#define IDT_INTERRUPT_GATE 0x8e   /* present, DPL 0, type 14 */

extern const uint64_t isr_stub_table[256];
static struct idt_entry idt[256] __attribute__((aligned(16)));

static void set_gate(unsigned vector, uint64_t handler, uint8_t ist)
{
	struct idt_entry *e = &idt[vector];
	e->offset_low = (uint16_t)handler;
	e->selector = GDT_KERNEL_CODE;
	e->ist = ist;
	e->type_attr = IDT_INTERRUPT_GATE;
	e->offset_mid = (uint16_t)(handler >> 16);
	e->offset_high = (uint32_t)(handler >> 32);
	e->reserved = 0;
}

void desc_init_idt(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0);
	/* Faults that may come with a bad stack get stacks of their own. */
	set_gate(VEC_NMI, isr_stub_table[VEC_NMI], IST_NMI);
	set_gate(VEC_DOUBLE_FAULT, isr_stub_table[VEC_DOUBLE_FAULT],
		 IST_DOUBLE_FAULT);
	set_gate(VEC_MACHINE_CHECK, isr_stub_table[VEC_MACHINE_CHECK],
		 IST_MACHINE_CHECK);
	set_gate(VEC_DEBUG, isr_stub_table[VEC_DEBUG], IST_DEBUG);
}

void desc_load_cpu(struct gdt *gdt, struct tss *tss, uint8_t *ist_stacks,
		   unsigned ist_size)
{
	for (int i = 0; i < 3; i++)
		tss->ist[i] = (uint64_t)(ist_stacks + (uint64_t)(i + 1) * ist_size);
	tss->ist[IST_DEBUG - 1] = (uint64_t)(ist_stacks + (uint64_t)(3 +
					     IST_DEBUG_LEVELS) * ist_size);
	tss->iomap_base = sizeof *tss;
	uint64_t base = (uint64_t)tss, limit = sizeof *tss - 1;
	gdt->entry[0] = 0;
	gdt->entry[1] = 0x00209a0000000000ull;    /* 64-bit code, DPL 0 */
	gdt->entry[2] = 0x0000920000000000ull;    /* data, DPL 0 */
	gdt->entry[3] = 0x00cffa000000ffffull;    /* 32-bit code, DPL 3 */
	gdt->entry[4] = 0x0000f20000000000ull;    /* data, DPL 3 */
	gdt->entry[5] = 0x0020fa0000000000ull;    /* 64-bit code, DPL 3 */
	/* SDM vol. 3, 8.2.3: a 16-byte available 64-bit TSS descriptor. */
	gdt->entry[6] = (limit & 0xffff) | (base & 0xffffff) << 16 |
			0x89ull << 40 | ((limit >> 16) & 0xf) << 48 |
			((base >> 24) & 0xff) << 56;
	gdt->entry[7] = base >> 32;
	struct desc_ptr gp = { sizeof gdt->entry - 1, (uint64_t)gdt->entry };
	struct desc_ptr ip = { sizeof idt - 1, (uint64_t)idt };
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %2\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w3, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w4\n\t"
		"lidt %1"
		:
		: "m"(gp), "m"(ip), "i"(GDT_KERNEL_CODE), "r"(GDT_KERNEL_DATA),
		  "r"(GDT_TSS)
		: "rax", "memory");
}
