/*
 * user/bad_umip: reads a descriptor-table register or the machine status
 * word from ring 3 -- SGDT, SIDT or SMSW by its task index modulo 3, so a
 * set of three tasks tries all of them. Where the CPU has UMIP the kernel
 * turns it on (CR4.UMIP) and each is #GP(0) at CPL > 0 (SDM vol. 3A, 2.5):
 * the kernel's addresses stay the kernel's. Without UMIP they succeed.
 */
#include "lib/bad.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	static const char *const what[3] = {
		"read the GDT register (sgdt)",
		"read the IDT register (sidt)",
		"read the machine status word (smsw)",
	};
	unsigned act = ctl->task % 3;
	uint8_t table[10];
	uint64_t msw = 0;
	bad_announce("bad_umip", what[act]);
	if (act == 0)
		__asm__ volatile("sgdt %0" : "=m"(table));
	else if (act == 1)
		__asm__ volatile("sidt %0" : "=m"(table));
	else
		__asm__ volatile("smsw %0" : "=r"(msw));
	(void)msw;
	return bad_survived("bad_umip", BAD_EXIT_UMIP);
}
