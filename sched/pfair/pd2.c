/* sched/pfair/pd2: aligned master/slave PD2. */
#include "pd2.h"

#include "pfair.h"
#include "../report.h"

struct pd2 {
	struct pfair pf;          /* first: the plugin state is a struct pfair */
	struct pfair_task **chosen;
	int *assign;              /* per CPU: task index or SCHED_IDLE */
	int64_t decided;          /* last slot decided */
};

static void pd2_activate(struct pfair *pf, struct pfair_task *t)
{
	pfair_queue_put(&pf->q, t);
}

static void pd2_deactivate(struct pfair *pf, struct pfair_task *t)
{
	if (t->queued)
		pfair_queue_remove(&pf->q, t);
}

static const struct pfair_ops pd2_ops = { pd2_activate, pd2_deactivate };

static void *pd2_create(const struct sched_config *cfg,
			const struct sched_env *env, struct sched_error *err)
{
	struct pd2 *s = env->alloc(env->ctx, sizeof *s);
	if (!pfair_init(&s->pf, cfg, env, &pd2_ops, err))
		return NULL;
	s->chosen = env->alloc(env->ctx, cfg->cpus * sizeof *s->chosen);
	s->assign = env->alloc(env->ctx, cfg->cpus * sizeof *s->assign);
	s->decided = -1;
	return s;
}

static void decide(struct pd2 *s, uint64_t t)
{
	struct pfair *pf = &s->pf;
	unsigned m = pf->m, n = 0;

	pf->next_slot = t;
	pfair_tick(pf, t);
	pfair_queue_advance(&pf->q, t);
	while (n < m && (s->chosen[n] = pfair_queue_extract(&pf->q)))
		n++;

	for (unsigned k = 0; k < m; k++)
		s->assign[k] = SCHED_IDLE;
	/* Back-to-back tasks first, on the CPU they hold (Sec. 3). */
	for (unsigned i = 0; i < n; i++) {
		struct pfair_task *x = s->chosen[i];
		if (x->ran_slot == (int64_t)t - 1)
			s->assign[x->ran_cpu] = (int)x->id;
		else
			x->ran_cpu = m;
	}
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++) {
		struct pfair_task *x = s->chosen[i];
		if (x->ran_cpu == m) {
			while (s->assign[k] != SCHED_IDLE)
				k++;
			s->assign[k] = (int)x->id;
			x->ran_cpu = k;
		}
	}
	/* UpdatePriority and requeue only now, so nothing is picked twice. */
	for (unsigned i = 0; i < n; i++)
		pfair_ran(pf, s->chosen[i], t, s->chosen[i]->ran_cpu);
	s->decided = (int64_t)t;
	pf->next_slot = t + 1;
}

static int pd2_schedule(void *p, unsigned cpu, uint64_t t)
{
	struct pd2 *s = p;
	if (cpu == 0 && s->decided < (int64_t)t)
		decide(s, t);
	return s->decided == (int64_t)t ? s->assign[cpu] : SCHED_IDLE;
}

static void pd2_dump(void *p, sched_print_fn print, void *ctx)
{
	const struct pd2 *s = p;
	const struct pfair *pf = &s->pf;
	sched_report_line(print, ctx, "pfair pd2 decided=%lld horizon=%llu",
			  (long long)s->decided, (unsigned long long)pf->q.h);
	for (unsigned k = 0; k < pf->m; k++)
		sched_report_line(print, ctx, "pfair cpu %u %s", k,
				  s->assign[k] == SCHED_IDLE ? "-" :
				  pf->ts->task[s->assign[k]].name);
	pfair_dump(pf, print, ctx);
}

const struct sched_plugin pd2 = {
	.name = "pd2",
	.description = "PD2, aligned quanta, master/slave (one call decides "
		       "all CPUs)",
	.create = pd2_create,
	.schedule = pd2_schedule,
	.dump = pd2_dump,
	PFAIR_PLUGIN_EVENTS,
};
