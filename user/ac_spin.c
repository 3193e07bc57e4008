/*
 * user/ac_spin: the spin loop with EFLAGS.AC set. A task may set AC (POPF
 * in ring 3); in ring 0 the same flag lifts SMAP (SDM vol. 3A, 4.6.1), so
 * every entry into the kernel must clear it before the kernel runs on the
 * task's flags. With selftest=smap_run the kernel's quantum interrupt reads
 * the interrupted task's control page by its user address, which SMAP must
 * stop whatever the task did to AC (tests/boot/test_protections.py).
 * Alignment checks stay off: the kernel leaves CR0.AM clear.
 */
#include "lib/hourglass.h"
#include "lib/start.h"

#define RFLAGS_AC (1ull << 18)

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	__asm__ volatile("pushfq\n\t"
			 "orq %0, (%%rsp)\n\t"
			 "popfq"
			 : : "i"(RFLAGS_AC) : "memory", "cc");
	struct hourglass h;
	hourglass_start(&h, ctl);
	for (;;)
		hourglass_step(&h);
}
