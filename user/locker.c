/*
 * user/locker: work=locker. Runs its task's critical sections (cs=, which
 * the kernel copies into the control page): in each job it locks a
 * section's resource during the quantum of work whose end is where the
 * section begins, and unlocks it during the section's last quantum;
 * otherwise it spins, measuring itself as work=spin does. The kernel ends
 * every job after e quanta of work (time spent spinning for a lock is not
 * work), and an unlock takes effect where the quantum of work in
 * progress ends, a lock as the job runs on from there (at that boundary
 * if it is chosen to, else when it next runs) -- so the schedule that
 * runs is the one schedsim prints for the same set (docs/locking.md).
 *
 * Where its job is comes from the control page (job_index, job_work,
 * work_slot: written at every dispatch and when lock returns) and the TSC:
 * every slot it has run through since work_slot is one more quantum of
 * work; past e quanta it is in its next job. In an event-driven run
 * (RT_CONTROL_EVENTS: pfp) the work is job_work_ns plus its time since
 * work_tsc, and a call takes effect when it is made: it locks or unlocks
 * when its work reaches the section's point.
 *
 * With args="sleep" (quantum-driven runs) a job ends as soon as its last
 * section is let go: sleep_next_period right after that unlock, in the
 * same quantum, before the unlock has taken effect -- a program that does
 * its critical work and sleeps.
 */
#include "lib/hourglass.h"
#include "lib/msg.h"
#include "lib/start.h"
#include "lib/sys.h"

/* Its sections are points in its jobs' e quanta. */
RT_PROGRAM(RT_PROG_NEEDS_PERIODS);

struct op {
	uint32_t point;      /* quanta of work done when it takes effect */
	uint32_t res, len;
	uint32_t index;      /* in cs= */
	int unlock;
};

/* In the order a job meets them (as sched/lock/lock.h has it): by point;
 * unlocks before locks; of two unlocks the section begun last first, of
 * two locks the one that encloses the other first. */
static int before(const struct op *a, const struct op *b)
{
	if (a->point != b->point)
		return a->point < b->point;
	if (a->unlock != b->unlock)
		return a->unlock;
	if (a->len != b->len)
		return a->unlock ? a->len < b->len : a->len > b->len;
	return a->unlock ? a->index > b->index : a->index < b->index;
}

static unsigned build(volatile struct rt_control *ctl, struct op *ops)
{
	unsigned n = 0;
	for (uint32_t k = 0; k < ctl->ncs && k < RT_CS_MAX; k++) {
		uint32_t at = ctl->cs_at[k], len = ctl->cs_len[k];
		ops[n++] = (struct op){ at, ctl->cs_res[k], len, k, 0 };
		ops[n++] = (struct op){ at + len, ctl->cs_res[k], len, k, 1 };
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && before(&ops[j], &ops[j - 1]); j--) {
			struct op o = ops[j];
			ops[j] = ops[j - 1];
			ops[j - 1] = o;
		}
	return n;
}

/* The slot the TSC value now is in: the largest i with the kernel's
 * boundary T0 + floor(i Q khz / 1000) at or before it (aligned quanta). */
static uint64_t slot_of(volatile struct rt_control *ctl, uint64_t now)
{
	uint64_t t0 = ctl->epoch_tsc;
	if (now <= t0)
		return 0;
	uint64_t per = ctl->quantum_ns * ctl->tsc_khz;     /* cycles * 10^6 */
	uint64_t i = (now - t0) / (per / 1000000 ? per / 1000000 : 1);
	while (i > 0 && t0 + i * per / 1000000 > now)
		i--;
	while (t0 + (i + 1) * per / 1000000 <= now)
		i++;
	return i;
}

struct where {
	uint64_t job;        /* the job it works on */
	uint64_t done;       /* quanta of that job's work done */
	uint64_t done_ns;    /* event-driven: its work in ns */
};

static struct where where_now(volatile struct rt_control *ctl)
{
	uint64_t d, job, work, from, work_ns, from_tsc, now;
	do {
		d = ctl->dispatches;
		job = ctl->job_index;
		work = ctl->job_work;
		from = ctl->work_slot;
		work_ns = ctl->job_work_ns;
		from_tsc = ctl->work_tsc;
		now = cpu_rdtsc();
	} while (d != ctl->dispatches);
	uint64_t e = ctl->e ? ctl->e : 1;
	if (ctl->flags & RT_CONTROL_EVENTS) {
		uint64_t ns = work_ns + (now > from_tsc ? (now - from_tsc) *
						       1000000 / ctl->tsc_khz
							: 0);
		uint64_t per_job = e * ctl->quantum_ns;
		return (struct where){ job + ns / per_job,
				       ns % per_job / ctl->quantum_ns,
				       ns % per_job };
	}
	uint64_t slot = slot_of(ctl, now);
	uint64_t total = work + (slot > from ? slot - from : 0);
	return (struct where){ job + total / e, total % e, 0 };
}

/* The next operation is due: in quanta, during the quantum whose end is
 * its point; event-driven, once the work reaches it. */
static int due(volatile struct rt_control *ctl, const struct op *o,
	       struct where w)
{
	if (ctl->flags & RT_CONTROL_EVENTS)
		return w.done_ns >= o->point * ctl->quantum_ns;
	return o->point == w.done + 1;
}

/* Its point has passed without the call. */
static int missed(volatile struct rt_control *ctl, const struct op *o,
		  struct where w)
{
	if (ctl->flags & RT_CONTROL_EVENTS)
		return 0;
	return o->point <= w.done;
}

static void complain(const char *what, uint64_t res, int64_t rc,
		     struct where w)
{
	struct msg m;
	msg_begin(&m, "locker: ");
	msg_str(&m, what);
	msg_str(&m, " resource ");
	msg_dec(&m, res);
	msg_str(&m, " in job ");
	msg_dec(&m, w.job);
	msg_str(&m, " after ");
	msg_dec(&m, w.done);
	msg_str(&m, " quanta: error ");
	msg_dec(&m, (uint64_t)-rc);
	msg_send(&m);
}

static int is_sleep(const char *a)
{
	const char *w = "sleep";
	while (*a && *a == *w) {
		a++;
		w++;
	}
	return *a == 0 && *w == 0;
}

/* args= other than "sleep": the program says so and exits. */
#define LOCKER_EXIT_USAGE 2

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	int sleep_after = argc > 1 && is_sleep(argv[1]);
	if (argc > 2 || (argc == 2 && !sleep_after)) {
		struct msg m;
		msg_begin(&m, "locker: cannot read ");
		msg_str(&m, argv[argc > 2 && sleep_after ? 2 : 1]);
		msg_str(&m, "; usage: [sleep]");
		msg_send(&m);
		return LOCKER_EXIT_USAGE;
	}
	struct op ops[2 * RT_CS_MAX];
	unsigned nops = build(ctl, ops), next = 0;
	uint64_t job = ~0ull;
	struct hourglass h;
	hourglass_start(&h, ctl);
	for (;;) {
		struct where w = where_now(ctl);
		if (w.job != job) {
			job = w.job;
			next = 0;
		}
		/* An operation takes effect where the quantum in progress
		 * ends: it is made while the done count is one below its
		 * point. One whose point has passed was missed. */
		while (next < nops && missed(ctl, &ops[next], w)) {
			complain("missed the point of", ops[next].res, 0, w);
			next++;
		}
		if (next < nops && due(ctl, &ops[next], w)) {
			const struct op *o = &ops[next++];
			int64_t rc = o->unlock ? sys_unlock(o->res)
					       : sys_lock(o->res);
			if (rc)
				complain(o->unlock ? "unlock of" : "lock of",
					 o->res, rc, w);
			if (sleep_after && o->unlock && next == nops) {
				rc = sys_sleep_next_period();
				if (rc < 0) {
					complain("sleep after the unlock of",
						 o->res, rc, w);
					sleep_after = 0;
				}
			}
			hourglass_resume(&h);
			continue;
		}
		hourglass_step(&h);
	}
}
