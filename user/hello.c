/*
 * user/hello: work=hello, the smallest program that reads its arguments
 * (args="..." on its task line, argv here): it writes one console line
 * with its name and each argument in brackets, then spins, PAUSE in its
 * loop as busy loops should (lib/rt_abi.h, RT_CONTROL_PAUSE); the kernel
 * ends its jobs at their budget. docs/user-programs.md starts from it.
 */
#include "lib/cpu.h"
#include "lib/msg.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	struct msg m;
	msg_begin(&m, "hello: argc=");
	msg_dec(&m, (uint64_t)argc);
	for (int i = 0; i < argc; i++) {
		msg_str(&m, " [");
		msg_str(&m, argv[i]);
		msg_str(&m, "]");
	}
	msg_send(&m);
	int pause = (ctl->flags & RT_CONTROL_PAUSE) != 0;
	for (;;)
		if (pause)
			cpu_pause();
}
