/* sched/lock/lpfp: pfp with pcp and mpcp (lpfp.h). */
#include "lpfp.h"

#include "../../lib/fmt.h"
#include "../report.h"
#include "lock.h"

struct lp_task {
	uint64_t phase, p, d;        /* microseconds */
	uint64_t next_release, released, done;
	unsigned cpu;
	uint32_t prio;
	int cat;                     /* enum lock_cat until the next call */
	struct sched_task_stats st;
};

struct lp_cpu {
	int answer;
	uint64_t at;                 /* accounted up to */
};

struct lpfp {
	unsigned cpus, ntasks;
	struct sched_env env;
	const struct taskset *ts;
	struct lock_set ls;
	struct lp_task *t;
	struct lp_cpu *cpu;
	uint64_t requests, forced;
};

#define IDX_BITS 24

static int pending(const struct lpfp *s, unsigned i)
{
	return s->t[i].released > s->t[i].done;
}

static int suspended(const struct lpfp *s, unsigned i)
{
	return s->ls.task[i].waiting != LOCK_NONE;
}

static uint64_t base_key(const struct lpfp *s, unsigned i)
{
	return (uint64_t)s->t[i].prio << IDX_BITS | i;
}

static int global(const struct lpfp *s, unsigned r)
{
	return s->ls.res[r].home == LOCK_NONE;
}

/* A global resource's ceiling on CPU c: the highest priority (smallest
 * prio=) of its users on other CPUs. */
static uint32_t global_ceiling(const struct lpfp *s, unsigned r, unsigned c)
{
	uint32_t ceil = UINT32_MAX;
	for (unsigned i = 0; i < s->ntasks; i++)
		if ((s->ls.task[i].uses >> r & 1) && s->t[i].cpu != c &&
		    s->t[i].prio < ceil)
			ceil = s->t[i].prio;
	return ceil;
}

/* pcp: whether job i may lock local resource r now. */
static int can_lock(const struct lpfp *s, unsigned i, unsigned r)
{
	if (s->ls.res[r].holder != LOCK_NONE)
		return 0;
	for (unsigned q = 0; q < s->ls.nres; q++) {
		const struct lock_res *lr = &s->ls.res[q];
		if (lr->holder != LOCK_NONE && lr->holder != (int)i &&
		    !global(s, q) && s->t[lr->holder].cpu == s->t[i].cpu &&
		    s->t[i].prio >= lr->ceil_prio)
			return 0;
	}
	return 1;
}

/* pcp: the job a waiter is blocked by -- the holder of what it wants, or
 * of the resource of highest ceiling held by another job of its CPU. */
static int blocker(const struct lpfp *s, unsigned w)
{
	int r = s->ls.task[w].waiting;
	if (r == LOCK_NONE || global(s, (unsigned)r))
		return LOCK_NONE;
	if (s->ls.res[r].holder != LOCK_NONE)
		return s->ls.res[r].holder;
	int best = LOCK_NONE;
	uint32_t ceil = UINT32_MAX;
	for (unsigned q = 0; q < s->ls.nres; q++) {
		const struct lock_res *lr = &s->ls.res[q];
		if (lr->holder != LOCK_NONE && lr->holder != (int)w &&
		    !global(s, q) && s->t[lr->holder].cpu == s->t[w].cpu &&
		    lr->ceil_prio <= s->t[w].prio && lr->ceil_prio < ceil) {
			ceil = lr->ceil_prio;
			best = lr->holder;
		}
	}
	return best;
}

/* Who runs first: a global section's level, then priority with pcp's
 * inheritance, then index; smaller first. */
static uint64_t eff_key(const struct lpfp *s, unsigned i)
{
	const struct lock_task *lt = &s->ls.task[i];
	uint32_t boost = UINT32_MAX;
	for (unsigned r = 0; r < s->ls.nres; r++)
		if ((lt->held >> r & 1) && global(s, r)) {
			uint32_t g = global_ceiling(s, r, s->t[i].cpu);
			if (g < boost)
				boost = g;
		}
	if (boost != UINT32_MAX)
		return (uint64_t)boost << IDX_BITS | i;
	uint32_t prio = s->t[i].prio;
	for (unsigned w = 0; w < s->ntasks; w++)
		if (s->t[w].cpu == s->t[i].cpu && blocker(s, w) == (int)i &&
		    s->t[w].prio < prio)
			prio = s->t[w].prio;
	return 1ull << 63 | (uint64_t)prio << IDX_BITS | i;
}

/*
 * The category of each pending job of CPU c for the time ahead. A job
 * suspended for a global resource waits all the while (remote blocking);
 * one suspended by pcp waits while a job of lower priority runs (the one
 * it is blocked by), and is interfered with while a higher one does, as a
 * ready job would be.
 */
static void categorise(struct lpfp *s, unsigned c)
{
	int run = s->cpu[c].answer;
	for (unsigned i = 0; i < s->ntasks; i++) {
		struct lp_task *x = &s->t[i];
		if (x->cpu != c)
			continue;
		int lower = run != SCHED_IDLE &&
			    base_key(s, (unsigned)run) > base_key(s, i);
		int w = s->ls.task[i].waiting;
		if (!pending(s, i))
			x->cat = LOCK_CAT_IDLE;
		else if (run == (int)i)
			x->cat = LOCK_CAT_RUN;
		else if (w != LOCK_NONE && (global(s, (unsigned)w) || lower))
			x->cat = LOCK_CAT_WAIT;
		else if (w == LOCK_NONE && lower)
			x->cat = LOCK_CAT_PI;
		else
			x->cat = LOCK_CAT_INTF;
	}
}

/* CPU c's time from its last account to `to`: charged to what it ran and
 * to every pending job's category. */
static void account(struct lpfp *s, unsigned c, uint64_t to)
{
	struct lp_cpu *cp = &s->cpu[c];
	if (to <= cp->at)
		return;
	uint64_t dt = to - cp->at;
	for (unsigned i = 0; i < s->ntasks; i++)
		if (s->t[i].cpu == c && pending(s, i) &&
		    s->t[i].cat != LOCK_CAT_IDLE)
			s->ls.task[i].cat[s->t[i].cat] += dt;
	if (cp->answer != SCHED_IDLE)
		s->t[cp->answer].st.run_us += dt;
	cp->at = to;
}

/* Brings CPU c to `now`: its releases in time order, each job's category
 * charged up to each. */
static void sync(struct lpfp *s, unsigned c, uint64_t now)
{
	for (;;) {
		uint64_t next = UINT64_MAX;
		for (unsigned i = 0; i < s->ntasks; i++)
			if (s->t[i].cpu == c && s->t[i].next_release < next)
				next = s->t[i].next_release;
		if (next > now)
			break;
		account(s, c, next);
		for (unsigned i = 0; i < s->ntasks; i++) {
			struct lp_task *x = &s->t[i];
			if (x->cpu == c && x->next_release == next) {
				x->released++;
				x->next_release += x->p;
			}
		}
		categorise(s, c);
	}
	account(s, c, now);
}

static uint64_t job_of(const struct lpfp *s, unsigned i)
{
	return s->t[i].done;
}

static void acquire(struct lpfp *s, unsigned i, unsigned r, uint64_t now)
{
	lock_take(&s->ls, i, r, job_of(s, i), now);
}

/* The queue of a global resource, by base priority. */
static void pq_insert(struct lpfp *s, struct lock_res *lr, unsigned i)
{
	unsigned k = lr->npq;
	while (k > 0 && base_key(s, lr->pq[k - 1]) > base_key(s, i)) {
		lr->pq[k] = lr->pq[k - 1];
		k--;
	}
	lr->pq[k] = i;
	lr->npq++;
}

static void pq_remove(struct lock_res *lr, unsigned i)
{
	unsigned k = 0;
	while (k < lr->npq && lr->pq[k] != i)
		k++;
	if (k == lr->npq)
		return;
	for (; k + 1 < lr->npq; k++)
		lr->pq[k] = lr->pq[k + 1];
	lr->npq--;
}

/* Something changed on CPU c: it decides again. */
static void touched(struct lpfp *s, unsigned c, uint64_t now)
{
	sync(s, c, now);
	s->env.resched(s->env.ctx, c);
}

static void request(struct lpfp *s, unsigned i, unsigned r, uint64_t now)
{
	struct lock_res *lr = &s->ls.res[r];
	s->ls.task[i].st.requests++;
	s->requests++;
	lock_emit(&s->ls, SCHED_LOCK_REQUEST, i, r, job_of(s, i), now);
	if (global(s, r) ? lr->holder == LOCK_NONE : can_lock(s, i, r)) {
		acquire(s, i, r, now);
		return;
	}
	if (global(s, r))
		pq_insert(s, lr, i);
	s->ls.task[i].waiting = (int)r;
	lock_emit(&s->ls, SCHED_LOCK_SUSPEND, i, r, job_of(s, i), now);
}

/* pcp: the waiters of CPU c, highest priority first, get what they wait
 * for while the rule allows. */
static void retry_local(struct lpfp *s, unsigned c, uint64_t now)
{
	for (;;) {
		int best = LOCK_NONE;
		for (unsigned w = 0; w < s->ntasks; w++) {
			int r = s->ls.task[w].waiting;
			if (s->t[w].cpu != c || r == LOCK_NONE ||
			    global(s, (unsigned)r) || !can_lock(s, w, (unsigned)r))
				continue;
			if (best == LOCK_NONE ||
			    base_key(s, w) < base_key(s, (unsigned)best))
				best = (int)w;
		}
		if (best == LOCK_NONE)
			return;
		acquire(s, (unsigned)best, (unsigned)s->ls.task[best].waiting,
			now);
	}
}

static void release(struct lpfp *s, unsigned i, unsigned r, uint64_t now,
		    int forced)
{
	struct lock_res *lr = &s->ls.res[r];
	lock_drop(&s->ls, i, r, job_of(s, i), now, forced);
	s->forced += (uint64_t)forced;
	if (!global(s, r)) {
		retry_local(s, s->t[i].cpu, now);
		return;
	}
	if (lr->npq) {
		unsigned j = lr->pq[0];
		pq_remove(lr, j);
		touched(s, s->t[j].cpu, now);
		acquire(s, j, r, now);
		categorise(s, s->t[j].cpu);
	}
}

static int pick(const struct lpfp *s, unsigned c)
{
	int best = SCHED_IDLE;
	uint64_t key = UINT64_MAX;
	for (unsigned i = 0; i < s->ntasks; i++) {
		if (s->t[i].cpu != c || !pending(s, i) || suspended(s, i))
			continue;
		uint64_t k = eff_key(s, i);
		if (k < key) {
			key = k;
			best = (int)i;
		}
	}
	return best;
}

static int schedule(void *p, unsigned cpu, uint64_t now)
{
	struct lpfp *s = p;
	sync(s, cpu, now);
	s->cpu[cpu].answer = pick(s, cpu);
	categorise(s, cpu);
	return s->cpu[cpu].answer;
}

static uint64_t next_call(void *p, unsigned cpu)
{
	struct lpfp *s = p;
	uint64_t next = SCHED_NEVER;
	for (unsigned i = 0; i < s->ntasks; i++)
		if (s->t[i].cpu == cpu && s->t[i].next_release < next)
			next = s->t[i].next_release;
	return next;
}

static void complete(void *p, unsigned task, uint64_t now)
{
	struct lpfp *s = p;
	struct lp_task *x = &s->t[task];
	struct lock_task *lt = &s->ls.task[task];
	sync(s, x->cpu, now);
	if (!pending(s, task))
		return;
	if (lt->waiting != LOCK_NONE) {
		pq_remove(&s->ls.res[lt->waiting], task);
		lt->waiting = LOCK_NONE;
	}
	while (lt->nstack)
		release(s, task, lt->stack[lt->nstack - 1], now, 1);
	lt->npend = 0;
	lock_job_end(&s->ls, task, job_of(s, task), now);
	uint64_t deadline = x->phase + x->done * x->p + x->d;
	x->done++;
	x->st.jobs++;
	if (now > deadline) {
		x->st.misses++;
		if (now - deadline > x->st.max_tardiness_num)
			x->st.max_tardiness_num = now - deadline;
	}
	categorise(s, x->cpu);
	s->env.resched(s->env.ctx, x->cpu);
}

static int lock_op(void *p, unsigned task, int unlock, unsigned res,
		   uint64_t now, struct sched_error *err)
{
	struct lpfp *s = p;
	struct lock_task *lt = &s->ls.task[task];
	int rc = lock_program_op(&s->ls, task, unlock, res, now, err);
	if (rc)
		return rc;
	lt->npend = 0;          /* taken at once */
	unsigned c = s->t[task].cpu;
	sync(s, c, now);
	if (unlock)
		release(s, task, res, now, 0);
	else
		request(s, task, res, now);
	categorise(s, c);
	s->env.resched(s->env.ctx, c);
	return 0;
}

static void stats(void *p, unsigned task, struct sched_task_stats *out)
{
	struct lpfp *s = p;
	*out = s->t[task].st;
	out->tardiness_den = 1;
}

static void lock_stats(void *p, unsigned task, struct sched_lock_stats *out)
{
	struct lpfp *s = p;
	*out = s->ls.task[task].st;
}

static void summary(void *p, sched_put_fn put, void *ctx)
{
	struct lpfp *s = p;
	put(ctx, "lock_requests", (int64_t)s->requests, 1);
	put(ctx, "lock_forced", (int64_t)s->forced, 1);
}

static int check(const struct sched_config *cfg, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		const char *why = 0;
		if (t->server.kind)
			why = "is a server: pfp's lock variant takes none";
		else if (t->p == 0)
			why = "has only weight=: pfp needs e= and p=";
		else if (!t->has_prio)
			why = "has no prio=: pfp needs a priority for every task";
		else if (t->cpu >= cfg->cpus)
			why = "is on a CPU this run does not have";
		for (unsigned k = 0; !why && k < t->ncs; k++)
			if (t->cs[k].at + t->cs[k].len >= t->e)
				why = "has a section that ends with its job's "
				      "work; under pfp a section ends before the "
				      "last quantum of e (its program unlocks "
				      "while the job still runs)";
		if (why) {
			fmt_snprintf(err->msg, sizeof err->msg, "%s (line %u) %s",
				     t->name, t->line, why);
			return -1;
		}
	}
	return 0;
}

static void *create(const struct sched_config *cfg,
		    const struct sched_env *env, struct sched_error *err)
{
	if (check(cfg, err))
		return 0;
	const struct taskset *ts = cfg->tasks;
	uint64_t q = cfg->quantum_us ? cfg->quantum_us
				     : SCHED_QUANTUM_US_DEFAULT;
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	struct lpfp *s = env->alloc(env->ctx, sizeof *s);
	s->cpus = cfg->cpus;
	s->ntasks = ts->ntasks;
	s->env = *env;
	s->ts = ts;
	s->t = env->alloc(env->ctx, n * sizeof *s->t);
	s->cpu = env->alloc(env->ctx, s->cpus * sizeof *s->cpu);
	unsigned *home = env->alloc(env->ctx, n * sizeof *home);
	for (unsigned i = 0; i < ts->ntasks; i++)
		home[i] = ts->task[i].cpu;
	lock_set_init(&s->ls, cfg, env);
	if (lock_set_place(&s->ls, home, 1, "pfp", err))
		return 0;
	for (unsigned k = 0; k < s->cpus; k++)
		s->cpu[k].answer = SCHED_IDLE;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		struct lp_task *x = &s->t[i];
		x->phase = (uint64_t)t->phase * q;
		x->p = (uint64_t)t->p * q;
		x->d = (uint64_t)t->d * q;
		x->next_release = x->phase;
		x->cpu = t->cpu;
		x->prio = t->prio;
		x->cat = LOCK_CAT_IDLE;
	}
	return s;
}

static void dump(void *p, sched_print_fn print, void *ctx)
{
	struct lpfp *s = p;
	for (unsigned r = 0; r < s->ls.nres; r++)
		sched_report_line(print, ctx, "lock res %s holder=%s queued=%u",
				  s->ts->res[r].name,
				  s->ls.res[r].holder == LOCK_NONE ? "-" :
				  s->ts->task[s->ls.res[r].holder].name,
				  s->ls.res[r].npq);
}

static const char *const no_params[] = { 0 };

const struct sched_plugin pfp_locks = {
	.name = "pfp",
	.description = "partitioned fixed priority with pcp or mpcp "
		       "(sched/lock/lpfp.h), event-driven in microseconds",
	.create = create,
	.schedule = schedule,
	.complete = complete,
	.stats = stats,
	.summary = summary,
	.dump = dump,
	.event_us = 1,
	.next_call = next_call,
	.params = no_params,
	.protocols = 1u << PROTO_PCP | 1u << PROTO_MPCP,
	.lock_op = lock_op,
	.lock_stats = lock_stats,
};
