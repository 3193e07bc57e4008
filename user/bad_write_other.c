/*
 * user/bad_write_other: writes another task's page, at the kernel address
 * the kernel put in ctl->other_page. That address is in the supervisor-only
 * kernel half, so the store must page-fault (SDM vol. 3A, 4.6.1) and
 * leave the other task's page as it was.
 */
#include "lib/bad.h"
#include "lib/msg.h"
#include "lib/start.h"

/* Its victim: the next task's control page, by its kernel address. */
RT_PROGRAM(RT_PROG_OTHER_PAGE);

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	uint64_t target = ctl->other_page;
	if (target == 0) {
		struct msg m;
		msg_begin(&m, "bad_write_other: ctl->other_page is 0: no other "
			  "task's page to write");
		msg_send(&m);
		return BAD_EXIT_NO_OTHER_PAGE;
	}
	bad_announce_at("bad_write_other", "write another task's page", target);
	*(volatile uint64_t *)target = 0xbadbadbadbadbadull;
	return bad_survived("bad_write_other", BAD_EXIT_WRITE_OTHER);
}
