/* arch/x86/syscall: the SYSCALL MSRs (SDM vol. 3, 5.8.8). */
#include "syscall.h"

#include "cpu.h"
#include "desc.h"

#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define EFER_SCE (1ull << 0)
/* Flags cleared on entry: IF (the handler runs with interrupts off), TF,
 * DF (the ABI wants it clear), AC (SMAP must stay in force), NT. */
#define SYSCALL_FMASK ((1ull << 9) | (1ull << 8) | (1ull << 10) | \
		       (1ull << 18) | (1ull << 14))

/* Called from syscall.asm through this pointer, so that arch/ names no
 * kernel function. */
trap_handler syscall_handler;

extern char syscall_entry[];

void syscall_set_handler(trap_handler h)
{
	syscall_handler = h;
}

void syscall_init_cpu(void)
{
	wrmsr(MSR_STAR, (uint64_t)GDT_USER_BASE << 48 |
			(uint64_t)GDT_KERNEL_CODE << 32);
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, SYSCALL_FMASK);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}
