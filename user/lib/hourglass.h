/*
 * user/lib/hourglass: a program measuring its own execution (the hourglass
 * technique of the sporadic-server paper, Sec. 3, after Regehr): it reads
 * the TSC in its loop; a step no longer than ctl->gap_threshold_cycles was
 * its own run time, a longer one is time it did not get (a preemption, an
 * interrupt, a quantum of another task). The totals go straight into the
 * control page, which the kernel reads after the run: through a volatile
 * pointer, so the stores happen at every step even in a loop that never
 * ends (the compiler could otherwise keep them in registers for ever).
 */
#ifndef USER_LIB_HOURGLASS_H
#define USER_LIB_HOURGLASS_H

#include <stdint.h>

#include "../../lib/rt_abi.h"
#include "cpu.h"

struct hourglass {
	volatile struct rt_control *ctl;
	uint64_t last;       /* the TSC at the previous step */
	uint64_t threshold;
	int pause;           /* RT_CONTROL_PAUSE */
};

static inline void hourglass_start(struct hourglass *h,
				   volatile struct rt_control *ctl)
{
	h->ctl = ctl;
	h->threshold = ctl->gap_threshold_cycles;
	h->pause = (ctl->flags & RT_CONTROL_PAUSE) != 0;
	h->last = cpu_rdtsc();
}

/* Returns the step's length: above h->threshold it was a gap. */
static inline uint64_t hourglass_step(struct hourglass *h)
{
	if (h->pause)
		cpu_pause();
	uint64_t now = cpu_rdtsc();
	uint64_t step = now - h->last;
	h->last = now;
	if (step <= h->threshold) {
		h->ctl->self_cycles += step;
		return step;
	}
	h->ctl->gaps++;
	if (step > h->ctl->gap_max_cycles)
		h->ctl->gap_max_cycles = step;
	return step;
}

/*
 * After a system call that slept: the time asleep was neither the task's
 * own run time nor a preemption, so the next step starts from here.
 */
static inline void hourglass_resume(struct hourglass *h)
{
	h->last = cpu_rdtsc();
}

#endif
