/*
 * user/bad_info_text: asks RT_SYS_JOB_INFO to write into its own text,
 * which it may read but not write. The kernel must check that its
 * destination is writable, not only readable: the task is killed for the
 * pointer and its text stays as it was. Were it let through, the program
 * says whether its text changed.
 */
#include "lib/bad.h"
#include "lib/msg.h"
#include "lib/start.h"
#include "lib/sys.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	volatile const uint8_t *text = (volatile const uint8_t *)user_main;
	uint8_t before[sizeof(struct rt_job_info)];
	for (unsigned i = 0; i < sizeof before; i++)
		before[i] = text[i];
	bad_announce_at("bad_info_text", "have job_info write into its text",
			(uint64_t)text);
	int64_t rc = sys_job_info((struct rt_job_info *)(uintptr_t)text);
	unsigned changed = 0;
	for (unsigned i = 0; i < sizeof before; i++)
		changed += text[i] != before[i];
	bad_returned("bad_info_text", "sys_job_info", rc);
	struct msg m;
	msg_begin(&m, "bad_info_text: bytes of its text changed: ");
	msg_dec(&m, changed);
	msg_send(&m);
	return bad_survived("bad_info_text", BAD_EXIT_INFO_TEXT);
}
