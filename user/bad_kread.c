/*
 * user/bad_kread: reads kernel memory. The kernel half of every address
 * space is supervisor-only, so the load must page-fault (SDM vol. 3A,
 * 4.6.1: a user-mode access to a supervisor-mode address) and the task be
 * killed.
 */
#include "lib/bad.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	bad_announce_at("bad_kread", "read kernel memory", BAD_KERNEL_ADDRESS);
	(void)*(volatile uint64_t *)BAD_KERNEL_ADDRESS;
	return bad_survived("bad_kread", BAD_EXIT_KREAD);
}
