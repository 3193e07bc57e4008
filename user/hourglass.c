/*
 * user/hourglass: work=hourglass, the measuring task itself (the
 * sporadic-server paper, Sec. 3): a tight loop around the TSC that never
 * sleeps. Besides the gaps and its own time it counts its clock reads in
 * ctl->iterations, so self_cycles / iterations is the loop's resolution:
 * a preemption shorter than gap_threshold_cycles is invisible to it.
 */
#include "lib/hourglass.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	struct hourglass h;
	hourglass_start(&h, ctl);
	for (;;) {
		hourglass_step(&h);
		ctl->iterations++;
	}
}
