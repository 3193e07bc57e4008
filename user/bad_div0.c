/*
 * user/bad_div0: divides by zero, which raises #DE (SDM vol. 2A, DIV). The
 * divisor is volatile so the compiler must emit the division.
 */
#include "lib/bad.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	volatile uint64_t divisor = 0;
	bad_announce("bad_div0", "divide by zero");
	ctl->iterations = ctl->task / divisor;
	return bad_survived("bad_div0", BAD_EXIT_DIV0);
}
