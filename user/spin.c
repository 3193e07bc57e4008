/*
 * user/spin: work=spin. It never completes a job by itself: the kernel
 * ends each job when its e quanta have run, so the schedule that executes
 * is the one the simulator prints. All it does meanwhile is measure the
 * time it gets, hourglass style.
 */
#include "lib/hourglass.h"
#include "lib/start.h"

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	struct hourglass h;
	hourglass_start(&h, ctl);
	for (;;)
		hourglass_step(&h);
}
