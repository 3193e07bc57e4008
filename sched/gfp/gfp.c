/*
 * sched/gfp/gfp: global fixed priority, the `gfp` plugin -- the worked
 * example of docs/writing-a-scheduler.md, which builds it step by step.
 *
 * Priorities are rate-monotonic: the task with the shorter period first,
 * of two with the same period the one declared first. At every boundary
 * the (at most) M highest-priority tasks that have a job to run are the
 * ones that run; the others wait.
 *
 * Which CPU runs what: a chosen task that ran in the slot before keeps its
 * CPU; the chosen tasks that did not run take the CPUs left free, the
 * lowest-numbered CPU first, in priority order. A job that comes back to
 * another CPU than the one it last ran on has migrated.
 *
 * The job model is the one the EDF plugins use and the kernel accounts
 * (sched/edf/edf.h, kernel/jobs.h): task i releases job k at phase + k*p,
 * needing e quanta by its release + d; a job completes at the end of the
 * slot in which its last quantum ran, or when the driver says so
 * (complete()); it missed its deadline if it completed after it, by its
 * tardiness. A late task's next job is released at its periodic time but
 * waits for the previous one. A task that leaves (`at T leave`, or the
 * kernel stopping its thread) drops its job and releases no more; gfp
 * takes no other `at` event (join, block, wake): the driver refuses them,
 * naming the line.
 *
 * Admission: total utilisation at most M, the exact sum of the EDF family
 * (edf_admit_global). No scheduler can do with more; global fixed priority
 * may still miss deadlines below it (the tests' sets show it does).
 * Aligned quanta only; tasks need e= and p=.
 *
 * Cost: each decision walks the tasks in priority order until it has M
 * with work, O(N) at worst; next_event() looks at every task, O(N).
 */
#include "../../lib/fmt.h"
#include "../edf/plugin.h"
#include "../report.h"
#include "../sched.h"

struct gfp_task {
	uint32_t e, p, d;
	uint64_t next_release;    /* of the job after the current one */
	uint64_t deadline;        /* of the current job, while rem > 0 */
	uint32_t rem;             /* quanta its current job still needs */
	int present;              /* 0 once it left */
	int last_cpu;             /* where it last ran, -1 before */
	uint8_t chosen;           /* assign()'s mark */
	struct sched_task_stats st;
};

struct gfp {
	unsigned cpus, ntasks;
	const struct taskset *ts;       /* the names, for dump() */
	struct sched_env env;
	struct gfp_task *task;
	unsigned *by_priority;          /* task indices, highest first */
	int *running;                   /* per CPU: what it was told to run */
	unsigned *pick;                 /* assign()'s chosen tasks */
	uint64_t now;                   /* slots before it are charged */
	int started;
	uint64_t preemptions, migrations;
};

/* Task a before task b: the shorter period, then the earlier line. */
static int higher(const struct gfp *s, unsigned a, unsigned b)
{
	const struct gfp_task *x = &s->task[a], *y = &s->task[b];
	return x->p < y->p || (x->p == y->p && a < b);
}

/* The jobs due by boundary b start; a late task's waits for its current
 * one, and comes here again at the boundary where that one completes. */
static void release_due(struct gfp *s, uint64_t b)
{
	for (unsigned i = 0; i < s->ntasks; i++) {
		struct gfp_task *tk = &s->task[i];
		if (!tk->present || tk->rem > 0 || tk->next_release > b)
			continue;
		tk->deadline = tk->next_release + tk->d;
		tk->rem = tk->e;
		tk->next_release += tk->p;
	}
}

/* Task i's current job completed at time c. */
static void finish(struct gfp *s, unsigned i, uint64_t c)
{
	struct gfp_task *tk = &s->task[i];
	tk->rem = 0;
	tk->st.jobs++;
	if (c > tk->deadline) {
		tk->st.misses++;
		if (c - tk->deadline > tk->st.max_tardiness_num)
			tk->st.max_tardiness_num = c - tk->deadline;
	}
}

/*
 * Brings the plugin to boundary t: each slot before it is charged to what
 * each CPU was told to run -- between the calls the driver makes, nothing
 * but that runs (next_event below) -- then the jobs that used their budget
 * complete and the releases due at the slot's end are made.
 */
static void advance(struct gfp *s, uint64_t t)
{
	if (!s->started) {
		s->started = 1;
		s->now = t;
		release_due(s, t);
	}
	while (s->now < t) {
		s->now++;
		for (unsigned k = 0; k < s->cpus; k++) {
			int i = s->running[k];
			if (i == SCHED_IDLE || s->task[i].rem == 0)
				continue;
			s->task[i].st.quanta++;
			if (--s->task[i].rem == 0)
				finish(s, (unsigned)i, s->now);
		}
		release_due(s, s->now);
	}
}

/* CPU k now runs task i (or idles); a CPU whose answer changed is asked
 * again if it already had its answer for this slot. */
static void set_cpu(struct gfp *s, unsigned k, int i)
{
	if (s->running[k] == i)
		return;
	s->running[k] = i;
	s->env.resched(s->env.ctx, k);
	if (i == SCHED_IDLE)
		return;
	struct gfp_task *tk = &s->task[i];
	if (tk->rem < tk->e && tk->last_cpu >= 0 && tk->last_cpu != (int)k)
		s->migrations++;
	tk->last_cpu = (int)k;
}

/* The M highest-priority tasks with work run: those already on a CPU
 * stay there, the others take the free CPUs in order. */
static void assign(struct gfp *s)
{
	unsigned n = 0;
	for (unsigned j = 0; j < s->ntasks && n < s->cpus; j++) {
		unsigned i = s->by_priority[j];
		if (s->task[i].present && s->task[i].rem > 0) {
			s->task[i].chosen = 1;
			s->pick[n++] = i;
		}
	}
	for (unsigned k = 0; k < s->cpus; k++) {
		int i = s->running[k];
		if (i == SCHED_IDLE)
			continue;
		if (!s->task[i].chosen) {
			/* Its job ran and has quanta left (a job released
			 * behind a completed one has not run yet). */
			if (s->task[i].rem > 0 && s->task[i].rem < s->task[i].e)
				s->preemptions++;
			set_cpu(s, k, SCHED_IDLE);
		} else {
			s->task[i].chosen = 2;     /* placed: it stays */
		}
	}
	unsigned k = 0;
	for (unsigned j = 0; j < n; j++) {
		unsigned i = s->pick[j];
		if (s->task[i].chosen == 1) {
			while (s->running[k] != SCHED_IDLE)
				k++;
			set_cpu(s, k, (int)i);
		}
		s->task[i].chosen = 0;
	}
}

static int schedule(void *p, unsigned cpu, uint64_t t)
{
	struct gfp *s = p;
	if (!s->started || t > s->now) {
		advance(s, t);
		assign(s);
	}
	return s->running[cpu];
}

/* Answers change only when a job is released or a running job's last
 * quantum ends: the first of those after t. */
static uint64_t next_event(void *p, uint64_t t)
{
	struct gfp *s = p;
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < s->ntasks; i++) {
		const struct gfp_task *tk = &s->task[i];
		if (tk->present && tk->rem == 0 && tk->next_release < next)
			next = tk->next_release;
	}
	for (unsigned k = 0; k < s->cpus; k++) {
		int i = s->running[k];
		if (i != SCHED_IDLE && s->task[i].rem > 0 &&
		    t + s->task[i].rem < next)
			next = t + s->task[i].rem;
	}
	return next > t ? next : t + 1;
}

/* The task's job ended before its budget (the kernel: its thread said
 * so): its CPU takes the next job from now. */
static void complete(void *p, unsigned task, uint64_t t)
{
	struct gfp *s = p;
	advance(s, t);
	if (s->task[task].rem == 0)
		return;
	finish(s, task, t);
	release_due(s, t);
	assign(s);
}

static void leave(void *p, unsigned task, uint64_t t)
{
	struct gfp *s = p;
	advance(s, t);
	s->task[task].present = 0;
	s->task[task].rem = 0;
	assign(s);
}

static void stats(void *p, unsigned task, struct sched_task_stats *out)
{
	struct gfp *s = p;
	*out = s->task[task].st;
	out->tardiness_den = 1;
}

static void summary(void *p, sched_put_fn put, void *ctx)
{
	struct gfp *s = p;
	put(ctx, "preemptions", (int64_t)s->preemptions, 1);
	put(ctx, "migrations", (int64_t)s->migrations, 1);
}

/* docs/debugging.md: what each CPU runs, then the jobs that wait, highest
 * priority first; deadlines absolute, in quanta. */
static void dump(void *p, sched_print_fn print, void *ctx)
{
	const struct gfp *s = p;
	sched_report_line(print, ctx, "gfp now=%llu",
			  (unsigned long long)s->now);
	for (unsigned k = 0; k < s->cpus; k++) {
		int i = s->running[k];
		if (i == SCHED_IDLE)
			sched_report_line(print, ctx, "gfp cpu %u -", k);
		else
			sched_report_line(print, ctx, "gfp cpu %u %s rem=%u "
					  "dl=%llu", k, s->ts->task[i].name,
					  s->task[i].rem, (unsigned long long)
					  s->task[i].deadline);
	}
	for (unsigned j = 0; j < s->ntasks; j++) {
		unsigned i = s->by_priority[j];
		const struct gfp_task *tk = &s->task[i];
		int runs = 0;
		for (unsigned k = 0; k < s->cpus; k++)
			runs |= s->running[k] == (int)i;
		if (tk->present && tk->rem > 0 && !runs)
			sched_report_line(print, ctx, "gfp wait %s rem=%u "
					  "dl=%llu", s->ts->task[i].name,
					  tk->rem,
					  (unsigned long long)tk->deadline);
	}
}

static void *create(const struct sched_config *cfg,
		    const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	if (edf_check_set(cfg, "gfp", err) ||
	    edf_admit_global(ts, cfg->cpus, env, err))
		return 0;
	unsigned n = ts->ntasks;
	struct gfp *s = env->alloc(env->ctx, sizeof *s);
	s->cpus = cfg->cpus;
	s->ntasks = n;
	s->ts = ts;
	s->env = *env;
	s->task = env->alloc(env->ctx, (n ? n : 1) * sizeof *s->task);
	s->by_priority = env->alloc(env->ctx, (n ? n : 1) * sizeof(unsigned));
	s->running = env->alloc(env->ctx, s->cpus * sizeof *s->running);
	s->pick = env->alloc(env->ctx, s->cpus * sizeof *s->pick);
	for (unsigned k = 0; k < s->cpus; k++)
		s->running[k] = SCHED_IDLE;
	for (unsigned i = 0; i < n; i++) {
		const struct task_spec *sp = &ts->task[i];
		s->task[i] = (struct gfp_task){ .e = sp->e, .p = sp->p,
						.d = sp->d, .present = 1,
						.next_release = sp->phase,
						.last_cpu = -1 };
		/* Insertion sort into priority order, once. */
		unsigned j = i;
		while (j > 0 && higher(s, i, s->by_priority[j - 1])) {
			s->by_priority[j] = s->by_priority[j - 1];
			j--;
		}
		s->by_priority[j] = i;
	}
	return s;
}

const struct sched_plugin gfp = {
	.name = "gfp",
	.description = "global fixed priority, rate-monotonic (shorter period "
		       "first, ties by line): the M highest-priority jobs run",
	.create = create,
	.schedule = schedule,
	.next_event = next_event,
	.complete = complete,
	.leave = leave,
	.stats = stats,
	.summary = summary,
	.dump = dump,
};
