/*
 * sched/edf/ngedf: non-preemptive global EDF, the `ngedf` plugin
 * (LITMUS^RT, Sec. 2 and Fig. 3).
 *
 * "In NG-EDF, tasks may migrate, but once a job commences execution on a
 * processor, it will run to completion on that processor without
 * preemption" (Sec. 2). Jobs wait in one global ready queue in EDF order;
 * a CPU takes the queue's head only when it has no job, i.e. when its job
 * exhausted its budget (Fig. 3, MAKE SCHED DECISION lines 4-8: "Reschedule
 * is called only when a job exhausts its exec. budget") or ended early
 * (complete()). A released job never displaces a running one.
 *
 * The job model, time in quanta and statistics are the EDF engine's
 * (jobs.h): each slot a CPU runs its job charges that job one quantum
 * (Fig. 3, SCHEDULER TICK lines 1-5), the releases due at a boundary are
 * merged into the ready queue (line 7), and a job that used its budget
 * frees its CPU at the boundary that ends its last slot.
 *
 * Ties, decided here (Sec. 2 breaks them "arbitrarily"): the queue orders
 * jobs by (absolute deadline, task index), the EDF engine's key, so of two
 * jobs with the same deadline the task declared first runs first. CPUs
 * that are free at one boundary take jobs in CPU order -- CPU 0 the
 * earliest -- because the driver calls them in that order.
 *
 * Events (`at` join/leave/block/wake) are not supported; the set is
 * admitted when its total utilisation is at most M, the condition under
 * which NG-EDF's tardiness is bounded (Sec. 4.2).
 */
#include "../../lib/fmt.h"
#include "../report.h"
#include "jobs.h"
#include "plugin.h"
#include "rq.h"

struct ngedf {
	unsigned cpus;
	const struct taskset *ts;  /* for the names in dump() */
	struct sched_env env;
	struct edf_jobs jobs;
	int *pos;                  /* per task: place in the ready queue */
	struct edf_rq ready;       /* jobs released and not started */
	int *running;              /* per CPU: the task whose job it runs */
	uint64_t now;              /* the boundary processed last */
	int started;
};

static void release_due(struct ngedf *s, uint64_t b)
{
	int i;
	while ((i = edf_jobs_due(&s->jobs, b)) >= 0) {
		edf_jobs_start(&s->jobs, (unsigned)i,
			       s->jobs.task[i].next_release);
		edf_rq_enqueue(&s->ready, (unsigned)i);
	}
}

/* Brings the plugin to boundary t: every slot before it charged to the
 * job each CPU runs, completions freeing their CPUs, releases queued. */
static void advance(struct ngedf *s, uint64_t t)
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
			if (i == SCHED_IDLE)
				continue;
			struct edf_job_task *tk = &s->jobs.task[i];
			tk->st.quanta++;
			if (--tk->rem == 0) {
				edf_jobs_finish(&s->jobs, (unsigned)i, s->now);
				s->running[k] = SCHED_IDLE;
			}
		}
		release_due(s, s->now);
	}
}

static int schedule(void *p, unsigned cpu, uint64_t t)
{
	struct ngedf *s = p;
	advance(s, t);
	int next = edf_rq_curr(&s->ready);
	if (s->running[cpu] == SCHED_IDLE && next >= 0) {
		edf_rq_dequeue(&s->ready, (unsigned)next);
		s->running[cpu] = next;
		s->jobs.task[next].cpu = cpu;
	}
	return s->running[cpu];
}

/* A running job holds its CPU until its last quantum; only that or a
 * release gives a CPU something new. */
static uint64_t next_event(void *p, uint64_t t)
{
	struct ngedf *s = p;
	uint64_t next = edf_jobs_next_release(&s->jobs);
	for (unsigned k = 0; k < s->cpus; k++) {
		int i = s->running[k];
		if (i != SCHED_IDLE && t + s->jobs.task[i].rem < next)
			next = t + s->jobs.task[i].rem;
	}
	return next > t ? next : t + 1;
}

/* The job ended before its budget: its CPU takes the next one now. */
static void complete(void *p, unsigned task, uint64_t t)
{
	struct ngedf *s = p;
	advance(s, t);
	struct edf_job_task *tk = &s->jobs.task[task];
	if (tk->rem == 0 || s->running[tk->cpu] != (int)task)
		return;
	edf_jobs_finish(&s->jobs, task, t);
	s->running[tk->cpu] = SCHED_IDLE;
	release_due(s, t);
	s->env.resched(s->env.ctx, tk->cpu);
}

static void stats(void *p, unsigned task, struct sched_task_stats *out)
{
	struct ngedf *s = p;
	*out = s->jobs.task[task].st;
	out->tardiness_den = 1;
}

/* What each CPU runs, then the ready queue in heap-array order (its head is
 * the next job a free CPU takes), deadlines absolute (docs/debugging.md). */
static void dump(void *p, sched_print_fn print, void *ctx)
{
	const struct ngedf *s = p;
	sched_report_line(print, ctx, "edf ngedf now=%llu",
			  (unsigned long long)s->now);
	for (unsigned k = 0; k < s->cpus; k++) {
		int i = s->running[k];
		if (i == SCHED_IDLE)
			sched_report_line(print, ctx, "edf cpu %u -", k);
		else
			sched_report_line(print, ctx, "edf cpu %u %s dl=%llu", k,
					  s->ts->task[i].name,
					  (unsigned long long)
					  s->jobs.task[i].deadline);
	}
	for (unsigned j = 0; j < s->ready.n; j++) {
		unsigned i = s->ready.heap[j];
		sched_report_line(print, ctx, "edf ready %s dl=%llu",
				  s->ts->task[i].name,
				  (unsigned long long)(s->jobs.key[i] >>
						       EDF_TASK_BITS));
	}
}

static void *create(const struct sched_config *cfg,
		    const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	if (edf_check_set(cfg, "ngedf", err) ||
	    edf_admit_global(ts, cfg->cpus, env, err))
		return 0;
	if (ts->ntasks > EDF_MAX_TASKS) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "%u tasks: EDF takes at most %u", ts->ntasks,
			     EDF_MAX_TASKS);
		return 0;
	}
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	struct ngedf *s = env->alloc(env->ctx, sizeof *s);
	s->cpus = cfg->cpus;
	s->ts = ts;
	s->env = *env;
	edf_jobs_init(&s->jobs, ts, env);
	s->pos = env->alloc(env->ctx, n * sizeof *s->pos);
	for (unsigned i = 0; i < n; i++)
		s->pos[i] = -1;
	edf_rq_init(&s->ready, n, s->jobs.key, s->pos, env);
	s->running = env->alloc(env->ctx, s->cpus * sizeof *s->running);
	for (unsigned k = 0; k < s->cpus; k++)
		s->running[k] = SCHED_IDLE;
	return s;
}

const struct sched_plugin ngedf = {
	.name = "ngedf",
	.description = "non-preemptive global EDF (LITMUS^RT Fig. 3): a "
		       "started job runs to completion on its CPU",
	.create = create,
	.schedule = schedule,
	.next_event = next_event,
	.complete = complete,
	.stats = stats,
	.dump = dump,
};
