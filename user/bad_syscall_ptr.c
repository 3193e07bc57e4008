/*
 * user/bad_syscall_ptr: hands RT_SYS_WRITE a kernel address as its buffer.
 * The kernel checks every user pointer; one outside the task's own pages
 * kills the task (lib/rt_abi.h), so the call must not return. Were it let
 * through, what the call returned is printed too.
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
	bad_announce_at("bad_syscall_ptr", "pass sys_write a kernel buffer",
			BAD_KERNEL_ADDRESS);
	int64_t rc = sys_write((const void *)BAD_KERNEL_ADDRESS, 64);
	struct msg m;
	msg_begin(&m, "bad_syscall_ptr: sys_write returned ");
	if (rc < 0) {
		msg_str(&m, "-");
		rc = -rc;
	}
	msg_dec(&m, (uint64_t)rc);
	msg_send(&m);
	return bad_survived("bad_syscall_ptr", BAD_EXIT_SYSCALL_PTR);
}
