/* arch/x86/features: CR0/CR4 for ring-3 tasks, and the FPU's first state. */
#include "features.h"

#include "cpu.h"

/* SDM vol. 3, 2.5 (control registers). */
#define CR0_MP (1ull << 1)
#define CR0_EM (1ull << 2)
#define CR0_TS (1ull << 3)
#define CR4_OSFXSR (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define CR4_UMIP (1ull << 11)
#define CR4_SMEP (1ull << 20)
#define CR4_SMAP (1ull << 21)
/* CPUID.(EAX=7,ECX=0) (SDM vol. 2A, CPUID). */
#define CPUID7_EBX_SMEP (1u << 7)
#define CPUID7_EBX_SMAP (1u << 20)
#define CPUID7_ECX_UMIP (1u << 2)
#define MXCSR_DEFAULT 0x1f80

static inline uint64_t read_cr0(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

struct cpu_protections features_available(void)
{
	struct cpu_protections p = { 0 };
	if (cpuid(0, 0).eax >= 7) {
		struct cpuid_regs r = cpuid(7, 0);
		p.smep = !!(r.ebx & CPUID7_EBX_SMEP);
		p.smap = !!(r.ebx & CPUID7_EBX_SMAP);
		p.umip = !!(r.ecx & CPUID7_ECX_UMIP);
	}
	p.nx = !!(rdmsr(MSR_EFER) & (1ull << 11));
	return p;
}

struct cpu_protections features_init_cpu(void)
{
	struct cpu_protections p = features_available();
	write_cr0((read_cr0() | CR0_MP) & ~(CR0_EM | CR0_TS));
	uint64_t cr4 = read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT;
	if (p.smep)
		cr4 |= CR4_SMEP;
	if (p.smap)
		cr4 |= CR4_SMAP;
	if (p.umip)
		cr4 |= CR4_UMIP;
	write_cr4(cr4);
	return p;
}

void fpu_initial(struct fpu_area *a)
{
	uint32_t mxcsr = MXCSR_DEFAULT;
	__asm__ volatile("fninit\n\tldmxcsr %0" : : "m"(mxcsr));
	fpu_save(a);
}
