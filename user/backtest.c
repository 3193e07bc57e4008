/*
 * user/backtest: work=backtest, BACKTEST of LITMUS^RT (Fig. 11, Sec. 4.3).
 * Each iteration draws M1 = RAND mod size, reads iArray[M1] and
 * iArray[M2 = size - M1 - 1] and adds their difference to T (Fig. 11 lines
 * 5-8); iArray is an array of 32-bit integers filling the working set.
 *
 * Scaling. In the paper the tasks are continuously backlogged and each runs
 * 5,000,000 * wt iterations in all, "so in an 'ideal' system, all tasks
 * would complete at the same time"; its measure is the task's completion
 * time. Here tasks are periodic, so the measure is per job: every job runs
 * BACKTEST_ITERATIONS * e / p iterations (rounded up), the paper's scaling
 * by the weight wt = e / p applied to each job. A job then needs the same
 * time in a fluid (ideal) schedule whatever its weight -- it runs at rate
 * wt -- so response times compare directly across tasks, and what differs
 * is the scheduler's doing (and the cache's). A job fits its budget of e
 * quanta when BACKTEST_ITERATIONS iterations take at most p quanta. A task
 * given as weight= has no e / p and runs the full count.
 *
 * Per job it records its response time (RT_SYS_TIME at the end minus the
 * release RT_SYS_JOB_INFO reported) in resp_*, completes the job with
 * RT_SYS_SLEEP_NEXT_PERIOD, and on its return records its release latency
 * (the TSC read by its first instruction after the call, minus the new
 * job's release) in lat_*. iterations counts Fig. 11's loop iterations
 * (two accesses each), jobs_seen the jobs it worked on. The hourglass
 * measurement runs throughout, one step per iteration.
 */
#include "lib/hourglass.h"
#include "lib/measure.h"
#include "lib/msg.h"
#include "lib/rand.h"
#include "lib/start.h"
#include "lib/sys.h"

/* Its jobs end by sleep_next_period, and their size comes from e/p. */
RT_PROGRAM(RT_PROG_ENDS_JOBS | RT_PROG_NEEDS_PERIODS);

/* Iterations per job at weight 1. On hardware an iteration costs two
 * cache misses at worst (a few hundred ns with both going to DRAM), so
 * even then a job fits a period of one 1 ms quantum. */
#define BACKTEST_ITERATIONS 2048u

#define BACKTEST_EXIT_NO_ARRAY 1
#define BACKTEST_EXIT_SLEEP_REFUSED 2

/* 2^64 / golden ratio: spreads task indices over the seed's bits. */
#define SEED_SPREAD 0x9e3779b97f4a7c15ull

static int64_t say_sleep_refused(int64_t rc)
{
	struct msg m;
	msg_begin(&m, "backtest: sleep_next_period returned -");
	msg_dec(&m, (uint64_t)-rc);
	msg_str(&m, "; a task without periods cannot run backtest");
	msg_send(&m);
	return BACKTEST_EXIT_SLEEP_REFUSED;
}

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	volatile uint32_t *array = (volatile uint32_t *)RT_WS_BASE;
	uint64_t size = ctl->ws_bytes / sizeof(*array);
	if (size == 0) {
		struct msg m;
		msg_begin(&m, "backtest: ws=");
		msg_dec(&m, ctl->ws_bytes);
		msg_str(&m, " holds no 4-byte integer");
		msg_send(&m);
		return BACKTEST_EXIT_NO_ARRAY;
	}
	uint64_t n = BACKTEST_ITERATIONS;
	if (ctl->p)
		n = ((uint64_t)BACKTEST_ITERATIONS * ctl->e + ctl->p - 1) / ctl->p;
	uint64_t state = ctl->seed ^ SEED_SPREAD * (ctl->task + 1ull);
	if (state == 0)
		state = SEED_SPREAD;

	struct rt_job_info info;
	sys_job_info(&info);
	struct hourglass h;
	hourglass_start(&h, ctl);
	for (;;) {
		uint32_t t = 0;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t m1 = rand_xorshift64(&state) % size;
			uint64_t m2 = size - m1 - 1;
			t += array[m1] - array[m2];
			hourglass_step(&h);
		}
		/* T is the loop's result in Fig. 11; keeping it alive keeps
		 * the subtraction the paper's loop does. */
		__asm__ volatile("" : : "r"(t));
		ctl->iterations += n;
		ctl->jobs_seen++;
		uint64_t now = (uint64_t)sys_time();
		measure_record(&ctl->resp_count, &ctl->resp_sum_ns,
			       &ctl->resp_max_ns,
			       now > info.release_ns ? now - info.release_ns : 0);

		int64_t rc = sys_sleep_next_period();
		uint64_t woke = cpu_rdtsc();
		if (rc < 0)
			return say_sleep_refused(rc);
		/* From the job the wake is for (rt_abi.h, woke_job). */
		measure_release_latency(ctl, woke, ctl->woke_release_ns);
		sys_job_info(&info);
		hourglass_resume(&h);
	}
}
