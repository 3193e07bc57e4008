/*
 * user/rtspin: work=rtspin, the workload of LITMUS^RT's rtspin built from
 * the task file alone: each job spins for a share of its budget and ends
 * itself (RT_SYS_END_JOB). docs/user-programs.md, "rtspin", has examples.
 *
 *   args="[-f FRACTION | -r LO-HI] [-w BYTES] [-s SEED] [-q]"
 *
 *   -f F      every job runs F times its budget (e quanta) of its own
 *             time, then ends (default 1; above 1 the kernel ends the job
 *             at its budget and the program catches up)
 *   -r LO-HI  every job draws its fraction uniformly from [LO, HI]
 *   -w BYTES  while spinning, writes one byte in each 64-byte line of the
 *             first BYTES of its working set, over and over (at most ws=)
 *   -s SEED   the draws' seed (default: the control page's)
 *   -q        no start-up line
 *
 * Fractions are decimals with up to 6 places. Its own time is measured as
 * the hourglass does (user/lib/hourglass.h): preemptions do not count.
 *
 * With exec=K on its task line the options -f and -r are not used: each
 * job ends at the first instruction it runs after the kernel has counted K
 * quanta for it (rt_job_info.ran_ns >= exec_ns) -- the rule the simulator
 * models for exec= (schedsim), so that a run's schedule is the
 * simulator's.
 *
 * Before its first job it reads its arguments, touches its working set
 * once and waits for the synchronous release (it declares
 * RT_PROG_SYNC_RELEASE). Per job it records the response time (its end
 * minus its release) in resp_*, and after an end that waited for the next
 * release the release latency in lat_*; jobs_seen counts its jobs,
 * iterations its spin steps.
 */
#include "lib/args.h"
#include "lib/cpu.h"
#include "lib/hourglass.h"
#include "lib/measure.h"
#include "lib/msg.h"
#include "lib/rand.h"
#include "lib/start.h"
#include "lib/sys.h"

RT_PROGRAM(RT_PROG_ENDS_JOBS | RT_PROG_NEEDS_PERIODS | RT_PROG_SYNC_RELEASE);

#define RTSPIN_EXIT_USAGE 2
#define RTSPIN_EXIT_WS 3
#define RTSPIN_EXIT_REFUSED 4
#define LINE 64
/* Spin steps between two looks at the kernel's count (exec= mode). */
#define STEPS_PER_LOOK 16
#define SEED_SPREAD 0x9e3779b97f4a7c15ull

struct rtspin {
	uint64_t lo, hi;        /* fraction of the budget, millionths */
	uint64_t ws;            /* bytes to touch */
	uint64_t seed;
	int quiet, has_seed;
	volatile uint8_t *line;
	uint64_t next_line;
};

static int usage(const char *what, const char *arg)
{
	struct msg m;
	msg_begin(&m, "rtspin: ");
	msg_str(&m, what);
	if (arg) {
		msg_str(&m, " ");
		msg_str(&m, arg);
	}
	msg_str(&m, "; usage: [-f FRACTION | -r LO-HI] [-w BYTES] [-s SEED] "
		"[-q]");
	msg_send(&m);
	return -1;
}

static int parse(int argc, char **argv, struct rtspin *o)
{
	*o = (struct rtspin){ ARGS_ONE, ARGS_ONE, 0, 0, 0, 0, 0, 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] == 'q' && !a[2]) {
			o->quiet = 1;
			continue;
		}
		if (a[0] != '-' || !a[1] || a[2] || i + 1 == argc)
			return usage("cannot read", a);
		const char *v = argv[++i];
		int bad;
		switch (a[1]) {
		case 'f':
			bad = args_fraction(v, &o->lo);
			o->hi = o->lo;
			break;
		case 'r':
			bad = args_range(v, &o->lo, &o->hi);
			break;
		case 'w':
			bad = args_u64(v, &o->ws);
			break;
		case 's':
			bad = args_u64(v, &o->seed);
			o->has_seed = 1;
			break;
		default:
			return usage("no option", a);
		}
		if (bad)
			return usage(a, v);
	}
	return 0;
}

/* One step of the spin: the hourglass's, and a line of the working set. */
static void step(struct rtspin *o, struct hourglass *h,
		 volatile struct rt_control *ctl)
{
	hourglass_step(h);
	if (o->ws) {
		o->line[o->next_line] += 1;
		o->next_line += LINE;
		if (o->next_line >= o->ws)
			o->next_line = 0;
	}
	ctl->iterations++;
}

/* Cycles for share millionths of budget_ns at tsc_khz. */
static uint64_t share_cycles(uint64_t budget_ns, uint64_t khz,
			     uint64_t share)
{
	uint64_t cyc = budget_ns / 1000000 * khz +
		       budget_ns % 1000000 * khz / 1000000;
	return cyc / ARGS_ONE * share + cyc % ARGS_ONE * share / ARGS_ONE;
}

static void say_start(const struct rtspin *o, const struct rt_task_info *ti)
{
	struct msg m;
	msg_begin(&m, "rtspin: ");
	if (ti->exec != RT_NOT_GIVEN) {
		msg_str(&m, "each job ends after ");
		msg_dec(&m, ti->exec);
		msg_str(&m, " quanta (exec=)");
	} else {
		msg_str(&m, "each job spins ");
		msg_dec(&m, o->lo);
		if (o->hi != o->lo) {
			msg_str(&m, " to ");
			msg_dec(&m, o->hi);
		}
		msg_str(&m, " millionths of ");
		msg_dec(&m, ti->budget_ns);
		msg_str(&m, " ns");
	}
	msg_str(&m, ", touching ");
	msg_dec(&m, o->ws);
	msg_str(&m, " bytes");
	msg_send(&m);
}

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	struct rtspin o;
	if (parse(argc, argv, &o))
		return RTSPIN_EXIT_USAGE;
	struct rt_task_info ti;
	sys_task_info(&ti);
	if (o.ws > ti.ws_bytes) {
		struct msg m;
		msg_begin(&m, "rtspin: -w ");
		msg_dec(&m, o.ws);
		msg_str(&m, " is more than the working set, ws=");
		msg_dec(&m, ti.ws_bytes);
		msg_send(&m);
		return RTSPIN_EXIT_WS;
	}
	o.line = (volatile uint8_t *)RT_WS_BASE;
	for (uint64_t b = 0; b < o.ws; b += LINE)
		o.line[b] = 0;
	uint64_t state = o.has_seed ? o.seed
				    : ctl->seed ^ SEED_SPREAD * (ti.task + 1ull);
	if (state == 0)
		state = SEED_SPREAD;
	if (!o.quiet)
		say_start(&o, &ti);
	sys_wait_release();

	int exact = ti.exec != RT_NOT_GIVEN;
	struct hourglass h;
	hourglass_start(&h, ctl);
	struct rt_job_info info;
	sys_job_info(&info);
	for (;;) {
		uint64_t job = info.job;
		if (exact) {
			while (info.job == job && info.ran_ns < ti.exec_ns) {
				for (unsigned s = 0; s < STEPS_PER_LOOK; s++)
					step(&o, &h, ctl);
				sys_job_info(&info);
			}
		} else {
			uint64_t share = o.lo;
			if (o.hi > o.lo)
				share += rand_xorshift64(&state) %
					 (o.hi - o.lo + 1);
			uint64_t want = share_cycles(ti.budget_ns, ctl->tsc_khz,
						     share);
			uint64_t from = ctl->self_cycles;
			while (ctl->self_cycles - from < want)
				step(&o, &h, ctl);
		}
		uint64_t now = (uint64_t)sys_time();
		ctl->jobs_seen++;
		measure_record(&ctl->resp_count, &ctl->resp_sum_ns,
			       &ctl->resp_max_ns, now > info.release_ns ?
			       now - info.release_ns : 0);
		int64_t rc = sys_end_job(job);
		uint64_t woke = cpu_rdtsc();
		if (rc < 0) {
			struct msg m;
			msg_begin(&m, "rtspin: end_job returned -");
			msg_dec(&m, (uint64_t)-rc);
			msg_send(&m);
			return RTSPIN_EXIT_REFUSED;
		}
		/* A wake (rc 0) for a job released after this one ended: from
		 * the job the wake is for (rt_abi.h, woke_job). */
		if (rc == 0 && ctl->woke_release_ns >= now)
			measure_release_latency(ctl, woke, ctl->woke_release_ns);
		sys_job_info(&info);
		hourglass_resume(&h);
	}
}
