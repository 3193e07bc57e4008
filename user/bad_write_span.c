/*
 * user/bad_write_span: hands RT_SYS_WRITE a buffer that starts in its own
 * stack page and runs on into the unmapped page above it. The kernel must
 * check the whole buffer, not its start: the task is killed for the
 * pointer and nothing of it reaches its console. Were it let through,
 * what the call returned is printed.
 */
#include "lib/bad.h"
#include "lib/start.h"
#include "lib/sys.h"

#define LEN 64

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	volatile char *tail = (volatile char *)BAD_SPAN_START;
	for (unsigned i = 0; i < RT_STACK_TOP - BAD_SPAN_START; i++)
		tail[i] = 'x';
	bad_announce_at("bad_write_span", "write a buffer that runs past its "
			"stack into an unmapped page", BAD_SPAN_START);
	int64_t rc = sys_write((const void *)BAD_SPAN_START, LEN);
	bad_returned("bad_write_span", "sys_write", rc);
	return bad_survived("bad_write_span", BAD_EXIT_WRITE_SPAN);
}
