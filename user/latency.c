/*
 * user/latency: work=latency, release latency and nothing else -- the
 * counterpart of cyclictest's measuring thread (rt-tests), which sleeps to
 * an absolute time and measures how late it woke. Each job here completes
 * at once with RT_SYS_SLEEP_NEXT_PERIOD; the TSC read right after the call
 * returns, minus the new job's release (the control page's woke_release_ns,
 * written on the way back), is one sample in lat_*, and goes into the
 * trace as a `user` record of that job (sys_trace), where every sample can
 * be checked against the job's release and the switch that ran it. The
 * first job is not a sample: nothing released it after a sleep. jobs_seen
 * counts the jobs it began.
 */
#include "lib/cpu.h"
#include "lib/measure.h"
#include "lib/msg.h"
#include "lib/start.h"
#include "lib/sys.h"

/* Every job ends at once, by sleep_next_period. */
RT_PROGRAM(RT_PROG_ENDS_JOBS);

#define LATENCY_EXIT_SLEEP_REFUSED 2

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	ctl->jobs_seen = 1;
	for (;;) {
		int64_t rc = sys_sleep_next_period();
		uint64_t woke = cpu_rdtsc();
		if (rc < 0) {
			struct msg m;
			msg_begin(&m, "latency: sleep_next_period returned -");
			msg_dec(&m, (uint64_t)-rc);
			msg_str(&m, "; a task without periods has no release to "
				"measure from");
			msg_send(&m);
			return LATENCY_EXIT_SLEEP_REFUSED;
		}
		/* The job this wake is for, as the kernel wrote it on the
		 * way back: a job_info call now could name a later one, if
		 * the kernel ended jobs while this CPU stalled in it. */
		sys_trace(ctl->woke_job,
			  measure_release_latency(ctl, woke,
						  ctl->woke_release_ns));
		ctl->jobs_seen++;
	}
}
