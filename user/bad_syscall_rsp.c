/*
 * user/bad_syscall_rsp: ends itself through RT_SYS_EXIT with its stack
 * pointer in the kernel's text. SYSCALL does not switch stacks (SDM vol.
 * 2B, SYSCALL): the kernel's entry must take its own before it uses one,
 * and so must anything that can arrive before that -- a debug exception
 * at the entry's first instruction (a GDB hardware breakpoint there), an
 * NMI -- or it runs on whatever rsp ring 3 left. The call itself is fine:
 * the task exits with code 0. Were the call to return, it says so.
 */
#include "lib/bad.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	bad_announce_at("bad_syscall_rsp", "exit with its stack pointer in the "
			"kernel's text", BAD_KERNEL_ADDRESS);
	/* rbx keeps the stack pointer: the kernel preserves every register
	 * but rcx and r11 (lib/rt_abi.h). */
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %0, %%rsp\n\t"
			 "syscall\n\t"
			 "mov %%rbx, %%rsp"
			 : : "r"(BAD_KERNEL_ADDRESS), "a"((uint64_t)RT_SYS_EXIT),
			   "D"(0ull)
			 : "rbx", "rcx", "r11", "memory");
	return bad_survived("bad_syscall_rsp", BAD_EXIT_SYSCALL_RSP);
}
