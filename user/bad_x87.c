/*
 * user/bad_x87: divides by zero on the x87 with its zero-divide exception
 * unmasked. With CR0.NE set the pending error is raised as #MF at the next
 * waiting x87 instruction (SDM vol. 1, 8.7, "native mode"), and the task
 * is killed for it, as an unmasked SSE exception is (#XM, CR4.OSXMMEXCPT);
 * with NE clear it would go to the old FERR# line and the task run on.
 */
#include "lib/bad.h"
#include "lib/start.h"

/* FNINIT's control word with ZM (bit 2) clear (SDM vol. 1, 8.1.5). */
#define FCW_ZERO_DIVIDE_UNMASKED (0x037f & ~0x4)

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	bad_announce("bad_x87", "divide by zero on the x87 with the "
		     "zero-divide exception unmasked");
	uint16_t fcw = FCW_ZERO_DIVIDE_UNMASKED;
	__asm__ volatile("fldcw %0\n\t"
			 "fld1\n\t"
			 "fldz\n\t"
			 "fdivrp\n\t"           /* st(1) = 1 / 0 */
			 "fwait"
			 : : "m"(fcw) : "memory", "st", "st(1)");
	return bad_survived("bad_x87", BAD_EXIT_X87);
}
