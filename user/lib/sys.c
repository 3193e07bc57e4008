/*
 * user/lib/sys: SYSCALL stubs. The number goes in rax, the arguments in
 * rdi and rsi (rdx would be the third; no call has one yet), the result
 * comes back in rax; the CPU itself overwrites rcx (the return rip) and r11
 * (the saved rflags), SDM vol. 2B "SYSCALL". The stubs are functions, not
 * inline code, so the System V arguments already sit in rdi and rsi and
 * tests/host/test_user_programs.py can check each stub's registers in the
 * disassembly. "memory": the kernel reads and writes through the pointers.
 */
#include "sys.h"

static inline int64_t syscall0(uint64_t n)
{
	int64_t ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline int64_t syscall1(uint64_t n, uint64_t a)
{
	int64_t ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline int64_t syscall2(uint64_t n, uint64_t a, uint64_t b)
{
	int64_t ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return ret;
}

void sys_exit(int64_t code)
{
	syscall1(RT_SYS_EXIT, (uint64_t)code);
	/* RT_SYS_EXIT never returns; if it did, a fault ends the task. */
	__builtin_trap();
}

int64_t sys_sleep_next_period(void)
{
	return syscall0(RT_SYS_SLEEP_NEXT_PERIOD);
}

int64_t sys_time(void)
{
	return syscall0(RT_SYS_TIME);
}

int64_t sys_job_info(struct rt_job_info *out)
{
	return syscall1(RT_SYS_JOB_INFO, (uint64_t)out);
}

int64_t sys_write(const void *buf, uint64_t len)
{
	return syscall2(RT_SYS_WRITE, (uint64_t)buf, len);
}

int64_t sys_lock(uint64_t res)
{
	return syscall1(RT_SYS_LOCK, res);
}

int64_t sys_unlock(uint64_t res)
{
	return syscall1(RT_SYS_UNLOCK, res);
}

int64_t sys_wait_release(void)
{
	return syscall0(RT_SYS_WAIT_RELEASE);
}

int64_t sys_end_job(uint64_t job)
{
	return syscall1(RT_SYS_END_JOB, job);
}

int64_t sys_task_info(struct rt_task_info *out)
{
	return syscall1(RT_SYS_TASK_INFO, (uint64_t)out);
}

int64_t sys_trace(uint64_t job, uint64_t value)
{
	return syscall2(RT_SYS_TRACE, job, value);
}
