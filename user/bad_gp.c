/*
 * user/bad_gp: executes HLT in ring 3. HLT is privileged: at CPL > 0 it
 * raises #GP(0) (SDM vol. 2A, HLT, "Protected Mode Exceptions").
 */
#include "lib/bad.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	bad_announce("bad_gp", "execute hlt in ring 3");
	__asm__ volatile("hlt");
	return bad_survived("bad_gp", BAD_EXIT_GP);
}
