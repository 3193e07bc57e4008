/*
 * user/bad_ud: executes UD2, which raises #UD whenever it runs (SDM
 * vol. 2B, UD).
 */
#include "lib/bad.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	bad_announce("bad_ud", "execute ud2");
	__asm__ volatile("ud2");
	return bad_survived("bad_ud", BAD_EXIT_UD);
}
