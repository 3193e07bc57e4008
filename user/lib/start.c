/* user/lib/start: the entry point and the control-page check. */
#include "start.h"

#include "msg.h"
#include "sys.h"

/*
 * The kernel enters at _start with rsp at the program's first frame
 * (argc, argv[], lib/rt_abi.h) and no return address; start_main gets
 * that address in rdi. C code expects rsp + 8 to be 16-byte aligned at a
 * function's entry (System V AMD64 ABI 3.2.2; SSE spills rely on it), so
 * rsp is aligned before the call; rbp = 0 ends a debugger's backtrace.
 * .text.start puts _start first in the text (user/user.ld).
 */
__asm__(".section .text.start, \"ax\", @progbits\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call start_main\n"
	"	ud2\n"
	".size _start, . - _start\n"
	".previous\n");

__attribute__((used, noipa, noreturn)) static void
start_main(const uint64_t *frame)
{
	volatile struct rt_control *ctl =
		(volatile struct rt_control *)RT_CONTROL;
	if (ctl->magic != RT_CONTROL_MAGIC ||
	    ctl->version != RT_CONTROL_VERSION) {
		struct msg m;
		msg_begin(&m, "the control page has magic ");
		msg_hex(&m, ctl->magic);
		msg_str(&m, " version ");
		msg_dec(&m, ctl->version);
		msg_str(&m, "; this program was built for magic ");
		msg_hex(&m, RT_CONTROL_MAGIC);
		msg_str(&m, " version ");
		msg_dec(&m, RT_CONTROL_VERSION);
		msg_send(&m);
		sys_exit(START_EXIT_BAD_CONTROL);
	}
	int argc = (int)frame[0];
	char **argv = (char **)(frame + 1);
	sys_exit(user_main(argc, argv, ctl));
}
