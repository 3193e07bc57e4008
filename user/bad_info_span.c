/*
 * user/bad_info_span: asks RT_SYS_JOB_INFO to write its record at the top
 * of its stack, so that it runs on into the unmapped page above. The
 * kernel must check the whole destination before it writes any of it:
 * the task is killed for the pointer and the bytes below the top keep the
 * pattern it put there (tests/boot/test_gdb_hostile.py looks at them).
 */
#include "lib/bad.h"
#include "lib/start.h"
#include "lib/sys.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	volatile uint8_t *tail = (volatile uint8_t *)BAD_SPAN_START;
	for (unsigned i = 0; i < RT_STACK_TOP - BAD_SPAN_START; i++)
		tail[i] = 0x5a;
	bad_announce_at("bad_info_span", "have job_info write past its stack "
			"into an unmapped page", BAD_SPAN_START);
	int64_t rc = sys_job_info((struct rt_job_info *)BAD_SPAN_START);
	bad_returned("bad_info_span", "sys_job_info", rc);
	return bad_survived("bad_info_span", BAD_EXIT_INFO_SPAN);
}
