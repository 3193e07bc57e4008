/*
 * user/fpu: keeps values of its own in all sixteen SSE registers and all
 * eight x87 registers for the whole run and checks after every step that
 * they are still there. The values come from its task index, so two fpu
 * tasks that share a CPU hold different ones: what one loads must never
 * show in the other, which holds only if the kernel saves each task's FPU
 * state when it switches away and restores it when it switches back
 * (kernel/run/dispatch.c, FXSAVE/FXRSTOR). The check compares the FXSAVE
 * image of the registers with the one taken when they were loaded; a
 * difference is reported and ends the task with FPU_EXIT_CHANGED. Like
 * spin it never ends a job itself; ctl->iterations counts the checks, and
 * it measures its time hourglass style, a step being one check (a step
 * longer than the threshold plus twice the quickest check is a gap).
 *
 * Between the loads and the end, only this file's own code runs, and it
 * is compiled to use no SSE register itself (general-regs-only).
 */
#include "lib/msg.h"
#include "lib/start.h"
#include "lib/sys.h"

#define FPU_EXIT_CHANGED 120
/* The FXSAVE image up to the end of XMM15 (SDM vol. 1, 10.5.1, table
 * 10-2): control, status and tag words, opcode and pointers, MXCSR, ST0-7
 * and XMM0-15. */
#define IMAGE_CHECKED 416

struct fxsave_area {
	uint8_t b[512];
} __attribute__((aligned(16)));

static struct fxsave_area loaded, now;
static uint64_t values[2 * 16 + 8];

#define GENERAL __attribute__((target("general-regs-only")))

static GENERAL void load(uint64_t seed)
{
	for (unsigned i = 0; i < sizeof values / sizeof values[0]; i++)
		values[i] = seed * 0x9e3779b97f4a7c15ull + i * 0x0101010101010101ull;
	const uint64_t *v = values;
	__asm__ volatile(
		"movdqu 0x00(%1), %%xmm0\n\tmovdqu 0x10(%1), %%xmm1\n\t"
		"movdqu 0x20(%1), %%xmm2\n\tmovdqu 0x30(%1), %%xmm3\n\t"
		"movdqu 0x40(%1), %%xmm4\n\tmovdqu 0x50(%1), %%xmm5\n\t"
		"movdqu 0x60(%1), %%xmm6\n\tmovdqu 0x70(%1), %%xmm7\n\t"
		"movdqu 0x80(%1), %%xmm8\n\tmovdqu 0x90(%1), %%xmm9\n\t"
		"movdqu 0xa0(%1), %%xmm10\n\tmovdqu 0xb0(%1), %%xmm11\n\t"
		"movdqu 0xc0(%1), %%xmm12\n\tmovdqu 0xd0(%1), %%xmm13\n\t"
		"movdqu 0xe0(%1), %%xmm14\n\tmovdqu 0xf0(%1), %%xmm15\n\t"
		"fninit\n\t"
		"fildll 0x100(%1)\n\tfildll 0x108(%1)\n\tfildll 0x110(%1)\n\t"
		"fildll 0x118(%1)\n\tfildll 0x120(%1)\n\tfildll 0x128(%1)\n\t"
		"fildll 0x130(%1)\n\tfildll 0x138(%1)\n\t"
		"fxsave64 %0"
		: "=m"(loaded) : "r"(v) : "memory");
}

/* The first byte of the image that differs from the one loaded, or -1. */
static GENERAL int changed(void)
{
	__asm__ volatile("fxsave64 %0" : "=m"(now) : : "memory");
	for (int i = 0; i < IMAGE_CHECKED; i++)
		if (now.b[i] != loaded.b[i])
			return i;
	return -1;
}

static GENERAL uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

int64_t GENERAL user_main(int argc, char **argv,
			  volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	load(ctl->task + 1);
	int pause = (ctl->flags & RT_CONTROL_PAUSE) != 0;
	uint64_t quickest = ~0ull, last = rdtsc();
	int at = -1;
	for (unsigned i = 0; i < 8 && at < 0; i++) {
		at = changed();
		uint64_t t = rdtsc();
		if (t - last < quickest)
			quickest = t - last;
		last = t;
	}
	uint64_t threshold = ctl->gap_threshold_cycles + 2 * quickest;
	while (at < 0) {
		if (pause)
			__asm__ volatile("pause" ::: "memory");
		if ((at = changed()) >= 0)
			break;
		ctl->iterations++;
		uint64_t t = rdtsc(), step = t - last;
		last = t;
		if (step <= threshold)
			ctl->self_cycles += step;
		else
			ctl->gaps++;
	}
	struct msg m;
	msg_begin(&m, "fpu: its FPU state changed at byte ");
	msg_dec(&m, (uint64_t)at);
	msg_str(&m, " of the FXSAVE image after ");
	msg_dec(&m, ctl->iterations);
	msg_str(&m, " checks and ");
	msg_dec(&m, ctl->dispatches);
	msg_str(&m, " dispatches");
	msg_send(&m);
	return FPU_EXIT_CHANGED;
}
