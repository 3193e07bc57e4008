/* arch/x86/cpu: single instructions the rest of the kernel needs. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include <stdint.h>

#define MSR_APIC_BASE     0x01b       /* SDM vol. 3, 11.4.4 */
#define MSR_TSC_DEADLINE  0x6e0       /* SDM vol. 3, 11.5.4.1 */
#define MSR_EFER          0xc0000080  /* SDM vol. 3, 2.2.1 */
#define MSR_FS_BASE       0xc0000100  /* SDM vol. 4, table 2-2 */
#define MSR_GS_BASE       0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

#define RFLAGS_IF (1ull << 9)

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)) : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* RDTSC that does not run ahead of earlier instructions (SDM vol. 2B,
 * RDTSC: "LFENCE; RDTSC" orders it after everything before). */
static inline uint64_t rdtsc_ordered(void)
{
	__asm__ volatile("lfence" ::: "memory");
	return rdtsc();
}

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline uint64_t irq_save(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF)
		irq_enable();
}

static inline void cpu_halt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

/* Enable interrupts and halt in one step: STI's one-instruction shadow
 * means no interrupt can slip in between (SDM vol. 2B, STI). */
static inline void cpu_wait_for_interrupt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void mfence(void)
{
	__asm__ volatile("mfence" ::: "memory");
}

static inline void lfence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}

#endif
