/* sched/edf/edf: the global and partitioned EDF engine (see edf.h). */
#include "edf.h"

#include <stddef.h>

#include "../../lib/fmt.h"
#include "../report.h"
#include "cpumask.h"
#include "jobs.h"
#include "rq.h"

struct edf {
	unsigned cpus, ntasks;
	unsigned cluster;            /* CPUs per cluster: M (G-EDF), 1 (P-EDF) */
	int global;                  /* push and pull inside each cluster */
	const struct taskset *ts;
	struct sched_env env;
	struct edf_jobs jobs;
	struct edf_job_task *task;   /* jobs.task */
	int *pos;                    /* per task: place in its queue, or -1 */
	struct edf_rq *rq;           /* per CPU */
	struct edf_push *push;       /* per cluster, when global */
	int *answer;                 /* per CPU: what it was last told to run */
	uint64_t now;                /* the boundary processed last */
	int started;
	uint64_t (*clock)(void);
	struct edf_op_stats ops;
	uint64_t pushes, pulls, reschedules, dropped;
};

static uint64_t clock_now(const struct edf *s)
{
	return s->clock ? s->clock() : 0;
}

static void timed(struct edf *s, enum edf_op op, uint64_t start)
{
	if (!s->clock)
		return;
	s->ops.count[op]++;
	s->ops.cycles[op] += s->clock() - start;
}

/*
 * The CPU's head may have changed: keep the push structure in step (Sec. 5:
 * "if something changes at the top of a runqueue ... the heap must be
 * updated") and ask the CPU to reschedule if it runs something else.
 */
static void head_changed(struct edf *s, unsigned cpu, int old_head)
{
	int head = edf_rq_curr(&s->rq[cpu]);
	if (head == old_head)
		return;
	if (s->global)
		edf_push_update(&s->push[cpu / s->cluster], cpu % s->cluster);
	if (head != s->answer[cpu]) {
		s->reschedules++;
		s->env.resched(s->env.ctx, cpu);
	}
}

static void enqueue(struct edf *s, unsigned cpu, unsigned task)
{
	uint64_t start = clock_now(s);
	int old = edf_rq_curr(&s->rq[cpu]);
	edf_rq_enqueue(&s->rq[cpu], task);
	s->task[task].cpu = cpu;
	head_changed(s, cpu, old);
	timed(s, EDF_OP_ENQUEUE, start);
}

static void dequeue(struct edf *s, unsigned cpu, unsigned task)
{
	uint64_t start = clock_now(s);
	int old = edf_rq_curr(&s->rq[cpu]);
	edf_rq_dequeue(&s->rq[cpu], task);
	head_changed(s, cpu, old);
	timed(s, EDF_OP_DEQUEUE, start);
}

/* The first CPU of cpu's cluster: a job moves among [base, base + K). */
static unsigned cluster_base(const struct edf *s, unsigned cpu)
{
	return cpu - cpu % s->cluster;
}

/*
 * Sec. 4: "A push operation tries to move the first ready and not running
 * task of an overloaded queue to a CPU where it can execute", the CPU
 * running the latest deadline (or an idle one). The job it displaces there
 * becomes that queue's first pushable one and is offered on in turn; the
 * loop stops when the pushable job at hand is later than every running one.
 * Clustered, the CPUs are those of cpu's cluster, whose push structure
 * numbers them from 0.
 */
static void push(struct edf *s, unsigned cpu)
{
	unsigned base = cluster_base(s, cpu);
	const struct edf_push *p = &s->push[cpu / s->cluster];
	for (;;) {
		int task = edf_rq_next(&s->rq[cpu]);
		if (task < 0)
			return;
		uint64_t start = clock_now(s);
		int dst = edf_push_find(p, s->jobs.key[task]);
		timed(s, EDF_OP_PUSH_FIND, start);
		if (dst < 0)
			return;
		dst += (int)base;
		dequeue(s, cpu, (unsigned)task);
		enqueue(s, (unsigned)dst, (unsigned)task);
		s->pushes++;
		if (edf_rq_next(&s->rq[dst]) >= 0)
			cpu = (unsigned)dst;
	}
}

/*
 * Sec. 4: "A pull operation tries to move the most urgent ready and not
 * running tasks among all tasks on all overloaded queues in the current
 * CPU"; Sec. 6.3: it looks at all queues in sequence, through their cached
 * earliest_dl.next (Fig. 2). Clustered: the queues of cpu's cluster.
 */
static void pull(struct edf *s, unsigned cpu)
{
	uint64_t start = clock_now(s);
	unsigned best = cpu, base = cluster_base(s, cpu);
	uint64_t best_key = s->rq[cpu].earliest_curr;
	for (unsigned c = base; c < base + s->cluster; c++)
		if (c != cpu && s->rq[c].earliest_next < best_key) {
			best = c;
			best_key = s->rq[c].earliest_next;
		}
	if (best != cpu) {
		int task = edf_rq_next(&s->rq[best]);
		dequeue(s, best, (unsigned)task);
		enqueue(s, cpu, (unsigned)task);
		s->pulls++;
	}
	timed(s, EDF_OP_PULL, start);
}

/* The task's current job becomes ready: queue it where the task last was. */
static void arrive(struct edf *s, unsigned task)
{
	unsigned cpu = s->task[task].cpu;
	enqueue(s, cpu, task);
	if (s->global)
		push(s, cpu);
}

/* The task's current job stops being ready (done, blocked or gone). */
static void depart(struct edf *s, unsigned task)
{
	if (s->pos[task] < 0)
		return;
	unsigned cpu = s->task[task].cpu;
	int was_head = edf_rq_curr(&s->rq[cpu]) == (int)task;
	dequeue(s, cpu, task);
	if (s->global && was_head)
		pull(s, cpu);
}

static void release(struct edf *s, unsigned i, uint64_t r)
{
	edf_jobs_start(&s->jobs, i, r);
	arrive(s, i);
}

/* Releases due at boundary b; a late task's next job waits for its
 * current one, and comes here again when that completes. */
static void release_due(struct edf *s, uint64_t b)
{
	int i;
	while ((i = edf_jobs_due(&s->jobs, b)) >= 0)
		release(s, (unsigned)i, s->task[i].next_release);
}

static void finish(struct edf *s, unsigned i, uint64_t c)
{
	edf_jobs_finish(&s->jobs, i, c);
	depart(s, i);
	for (unsigned k = 0; k < s->cpus; k++)
		if (s->answer[k] == (int)i)
			s->answer[k] = SCHED_IDLE;
}

#if SCHED_DEBUG
/* The invariant of edf.h in the cluster from CPU base. */
static void check_cluster(const struct edf *s, unsigned base)
{
	uint64_t max_head = 0, min_pushable = EDF_KEY_NONE;
	int idle = 0, waiting = 0;
	for (unsigned c = base; c < base + s->cluster; c++) {
		const struct edf_rq *rq = &s->rq[c];
		if (rq->n == 0)
			idle = 1;
		else if (rq->earliest_curr > max_head)
			max_head = rq->earliest_curr;
		if (rq->n > 1)
			waiting = 1;
		if (rq->earliest_next < min_pushable)
			min_pushable = rq->earliest_next;
	}
	if (s->global && ((idle && waiting) ||
			  (waiting && min_pushable < max_head)))
		__builtin_trap();
	if (s->global && edf_push_check(&s->push[base / s->cluster]))
		__builtin_trap();
}

static void check(const struct edf *s)
{
	for (unsigned base = 0; base < s->cpus; base += s->cluster)
		check_cluster(s, base);
}
#endif

/*
 * Brings the engine to boundary t: charges every slot before t to what each
 * CPU was last told to run (at most once per task and slot), completes the
 * jobs that used their budget, then makes the releases due at the boundary.
 */
static void advance(struct edf *s, uint64_t t)
{
	if (!s->started) {
		s->started = 1;
		s->now = t;
		release_due(s, t);
	}
	while (s->now < t) {
		uint64_t slot = s->now++;
		for (unsigned k = 0; k < s->cpus; k++) {
			int i = s->answer[k];
			if (i == SCHED_IDLE)
				continue;
			struct edf_job_task *tk = &s->task[i];
			if (!tk->present || tk->blocked || tk->rem == 0 ||
			    tk->charged == slot + 1)
				continue;
			tk->charged = slot + 1;
			tk->st.quanta++;
			if (--tk->rem == 0)
				finish(s, (unsigned)i, s->now);
		}
		release_due(s, s->now);
	}
#if SCHED_DEBUG
	check(s);
#endif
}

int edf_schedule(struct edf *s, unsigned cpu, uint64_t t)
{
	advance(s, t);
	s->answer[cpu] = edf_rq_curr(&s->rq[cpu]);
	return s->answer[cpu];
}

/* Between events nothing moves: every CPU runs what it was told, and
 * only a release or a job's last quantum changes a queue. */
uint64_t edf_next_event(const struct edf *s, uint64_t t)
{
	uint64_t next = edf_jobs_next_release(&s->jobs);
	for (unsigned k = 0; k < s->cpus; k++) {
		int i = s->answer[k];
		if (i == SCHED_IDLE)
			continue;
		const struct edf_job_task *tk = &s->task[i];
		if (tk->present && !tk->blocked && tk->rem && t + tk->rem < next)
			next = t + tk->rem;
	}
	return next > t ? next : t + 1;
}

/*
 * How many jobs a late task has released behind its current one by time
 * limit: its periodic releases from next_release up to limit (a blocked
 * task releases nothing, so for it limit is the time it blocked).
 */
static uint64_t behind(const struct edf_job_task *tk, uint64_t limit)
{
	if (tk->next_release > limit)
		return 0;
	return (limit - tk->next_release) / tk->p + 1;
}

int edf_join(struct edf *s, unsigned task, uint64_t t,
	     struct sched_error *err)
{
	advance(s, t);
	struct edf_job_task *tk = &s->task[task];
	if (tk->present) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "task %s joins but is present", s->ts->task[task].name);
		return -1;
	}
	tk->present = 1;
	tk->blocked = 0;
	tk->rem = 0;
	if (tk->next_release < t)
		tk->next_release = t;
	edf_jobs_update_waiting(&s->jobs, task);
	if (tk->next_release == t)
		release(s, task, t);
	return 0;
}

void edf_leave(struct edf *s, unsigned task, uint64_t t)
{
	advance(s, t);
	struct edf_job_task *tk = &s->task[task];
	if (!tk->present)
		return;
	depart(s, task);
	/* A late task's jobs released behind the current one go too. */
	tk->next_release += behind(tk, tk->blocked ? tk->blocked_at : t) * tk->p;
	tk->present = 0;
	tk->blocked = 0;
	tk->rem = 0;
	edf_jobs_update_waiting(&s->jobs, task);
}

void edf_block(struct edf *s, unsigned task, uint64_t t)
{
	advance(s, t);
	struct edf_job_task *tk = &s->task[task];
	if (!tk->present || tk->blocked)
		return;
	tk->blocked = 1;
	tk->blocked_at = t;
	depart(s, task);
	edf_jobs_update_waiting(&s->jobs, task);
}

void edf_wake(struct edf *s, unsigned task, uint64_t w)
{
	advance(s, w);
	struct edf_job_task *tk = &s->task[task];
	if (!tk->present || !tk->blocked)
		return;
	tk->blocked = 0;
	if (tk->rem > 0 && w < tk->deadline) {
		arrive(s, task);
		return;
	}
	if (tk->rem > 0) {
		/* The unfinished job and those released behind it before the
		 * block are dropped (edf.h). */
		uint64_t n = 1 + behind(tk, tk->blocked_at);
		tk->st.misses += n;
		s->dropped += n;
		tk->rem = 0;
	} else if (tk->next_release > w) {
		edf_jobs_update_waiting(&s->jobs, task);        /* waits for its next release */
		return;
	}
	release(s, task, w);
}

void edf_complete(struct edf *s, unsigned task, uint64_t t)
{
	advance(s, t);
	struct edf_job_task *tk = &s->task[task];
	if (!tk->present || tk->rem == 0)
		return;
	finish(s, task, t);
	if (!tk->blocked)
		release_due(s, t);
}

void edf_stats(struct edf *s, unsigned task, struct sched_task_stats *out)
{
	*out = s->task[task].st;
	out->tardiness_den = 1;
}

void edf_summary(struct edf *s, sched_put_fn put, void *ctx)
{
	if (s->global) {
		put(ctx, "pushes", (int64_t)s->pushes, 1);
		put(ctx, "pulls", (int64_t)s->pulls, 1);
	}
	put(ctx, "reschedules", (int64_t)s->reschedules, 1);
	put(ctx, "dropped_jobs", (int64_t)s->dropped, 1);
	if (!s->clock)
		return;
	/* Timed operations (edf_set_clock): count and total clock ticks. */
	static const char *const names[EDF_OPS][2] = {
		[EDF_OP_PUSH_FIND] = { "op_push_find_n", "op_push_find_cycles" },
		[EDF_OP_ENQUEUE] = { "op_enqueue_n", "op_enqueue_cycles" },
		[EDF_OP_DEQUEUE] = { "op_dequeue_n", "op_dequeue_cycles" },
		[EDF_OP_PULL] = { "op_pull_n", "op_pull_cycles" },
	};
	for (unsigned op = 0; op < EDF_OPS; op++) {
		put(ctx, names[op][0], (int64_t)s->ops.count[op], 1);
		put(ctx, names[op][1], (int64_t)s->ops.cycles[op], 1);
	}
}

static void dump_mask(sched_print_fn print, void *ctx, const char *label,
		      const uint64_t *mask, unsigned base, unsigned cpus)
{
	for (unsigned k = 0; k < cpus; k++)
		if (cpumask_test(mask, k))
			sched_report_line(print, ctx, "edf %s %u", label,
					  base + k);
}

/* One cluster's push structure; its CPUs numbered as the machine's. */
static void dump_push(const struct edf *s, unsigned base,
		      sched_print_fn print, void *ctx)
{
	const struct edf_push *p = &s->push[base / s->cluster];
	if (p->mode == EDF_PUSH_HEAP) {
		for (unsigned i = 0; i < p->heap.size; i++) {
			const struct cpudl_item *e = &p->heap.elements[i];
			sched_report_line(print, ctx, "edf cpudl %u cpu=%u %s "
					  "dl=%llu", i, base + e->cpu,
					  s->ts->task[e->key &
						      (EDF_MAX_TASKS - 1)].name,
					  (unsigned long long)(e->key >>
							       EDF_TASK_BITS));
		}
		dump_mask(print, ctx, "free", p->heap.free_cpus, base,
			  s->cluster);
	} else if (p->mode == EDF_PUSH_FMASK) {
		dump_mask(print, ctx, "fmask", p->fmask, base, s->cluster);
	}
}

void edf_dump(const struct edf *s, sched_print_fn print, void *ctx)
{
	/* Partitioned EDF pushes nothing and has no push structure; a
	 * cluster size is shown only between the two ends (P-EDF, G-EDF). */
	if (s->global && s->cluster < s->cpus)
		sched_report_line(print, ctx, "edf global=1 now=%llu push=%s "
				  "cluster=%u", (unsigned long long)s->now,
				  edf_push_mode_name(s->push[0].mode),
				  s->cluster);
	else if (s->global)
		sched_report_line(print, ctx, "edf global=1 now=%llu push=%s",
				  (unsigned long long)s->now,
				  edf_push_mode_name(s->push[0].mode));
	else
		sched_report_line(print, ctx, "edf global=0 now=%llu",
				  (unsigned long long)s->now);
	for (unsigned k = 0; k < s->cpus; k++)
		for (unsigned i = 0; i < s->rq[k].n; i++) {
			unsigned t = s->rq[k].heap[i];
			sched_report_line(print, ctx, "edf rq %u %s dl=%llu", k,
					  s->ts->task[t].name,
					  (unsigned long long)(s->jobs.key[t] >>
							       EDF_TASK_BITS));
		}
	for (unsigned base = 0; s->global && base < s->cpus;
	     base += s->cluster)
		dump_push(s, base, print, ctx);
}

unsigned edf_cluster(const struct edf *s)
{
	return s->cluster;
}

void edf_set_clock(struct edf *s, uint64_t (*clock)(void))
{
	s->clock = clock;
	s->ops = (struct edf_op_stats){ { 0 }, { 0 } };
}

void edf_op_stats(const struct edf *s, struct edf_op_stats *out)
{
	*out = s->ops;
}

struct edf *edf_create(const struct sched_config *cfg,
		       const struct sched_env *env, enum edf_push_mode mode,
		       unsigned cluster, const unsigned *home,
		       struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	/* The plugins have refused weight-only tasks (p = 0) already. */
	if (ts->ntasks > EDF_MAX_TASKS) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "%u tasks: EDF takes at most %u", ts->ntasks,
			     EDF_MAX_TASKS);
		return 0;
	}
	struct edf *s = env->alloc(env->ctx, sizeof *s);
	unsigned n = ts->ntasks;
	s->cpus = cfg->cpus;
	s->ntasks = n;
	s->cluster = cluster ? cluster : 1;
	s->global = cluster != 0;
	s->ts = ts;
	s->env = *env;
	edf_jobs_init(&s->jobs, ts, env);
	s->task = s->jobs.task;
	s->pos = env->alloc(env->ctx, (n ? n : 1) * sizeof *s->pos);
	s->rq = env->alloc(env->ctx, s->cpus * sizeof *s->rq);
	s->answer = env->alloc(env->ctx, s->cpus * sizeof *s->answer);
	for (unsigned c = 0; c < s->cpus; c++) {
		edf_rq_init(&s->rq[c], n, s->jobs.key, s->pos, env);
		s->answer[c] = SCHED_IDLE;
	}
	for (unsigned i = 0; i < n; i++) {
		/* Global: spread the first arrivals; the pushes move them. */
		s->task[i].cpu = home ? home[i] : i % s->cpus;
		s->pos[i] = -1;
	}
	if (s->global) {
		unsigned clusters = s->cpus / cluster;
		s->push = env->alloc(env->ctx, clusters * sizeof *s->push);
		for (unsigned c = 0; c < clusters; c++)
			edf_push_init(&s->push[c], mode, cluster,
				      &s->rq[c * cluster], env);
	}
	return s;
}
