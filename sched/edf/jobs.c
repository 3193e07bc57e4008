/* sched/edf/jobs: the periodic job model of the EDF plugins (jobs.h). */
#include "jobs.h"

#include <stddef.h>

static struct edf_job_task *waiting_task(const struct heap_node *n)
{
	return (struct edf_job_task *)((const char *)n -
				       offsetof(struct edf_job_task, wnode));
}

static bool releases_before(const struct heap_node *a,
			    const struct heap_node *b)
{
	const struct edf_job_task *x = waiting_task(a), *y = waiting_task(b);
	return x->next_release < y->next_release ||
	       (x->next_release == y->next_release && x->id < y->id);
}

void edf_jobs_update_waiting(struct edf_jobs *j, unsigned i)
{
	struct edf_job_task *tk = &j->task[i];
	if (tk->waiting) {
		heap_delete(&j->waiting, &tk->wnode);
		tk->waiting = 0;
	}
	if (tk->present && !tk->blocked && tk->rem == 0) {
		heap_insert(&j->waiting, &tk->wnode);
		tk->waiting = 1;
	}
}

void edf_jobs_init(struct edf_jobs *j, const struct taskset *ts,
		   const struct sched_env *env)
{
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	j->task = env->alloc(env->ctx, n * sizeof *j->task);
	j->key = env->alloc(env->ctx, n * sizeof *j->key);
	heap_init(&j->waiting, releases_before);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *sp = &ts->task[i];
		struct edf_job_task *tk = &j->task[i];
		tk->e = sp->e;
		tk->p = sp->p;
		tk->d = sp->d;
		tk->next_release = sp->phase;
		tk->present = 1;
		tk->id = i;
		edf_jobs_update_waiting(j, i);
	}
}

void edf_jobs_start(struct edf_jobs *j, unsigned i, uint64_t r)
{
	struct edf_job_task *tk = &j->task[i];
	tk->deadline = r + tk->d;
	tk->rem = tk->e;
	tk->next_release = r + tk->p;
	j->key[i] = tk->deadline << EDF_TASK_BITS | i;
	edf_jobs_update_waiting(j, i);
}

uint64_t edf_jobs_next_release(const struct edf_jobs *j)
{
	struct heap_node *n = heap_peek(&j->waiting);
	return n ? waiting_task(n)->next_release : UINT64_MAX;
}

int edf_jobs_due(const struct edf_jobs *j, uint64_t b)
{
	struct heap_node *n = heap_peek(&j->waiting);
	if (!n || waiting_task(n)->next_release > b)
		return -1;
	return (int)waiting_task(n)->id;
}

void edf_jobs_finish(struct edf_jobs *j, unsigned i, uint64_t c)
{
	struct edf_job_task *tk = &j->task[i];
	tk->st.jobs++;
	if (c > tk->deadline) {
		tk->st.misses++;
		if (c - tk->deadline > tk->st.max_tardiness_num)
			tk->st.max_tardiness_num = c - tk->deadline;
	}
	tk->rem = 0;
	edf_jobs_update_waiting(j, i);
}
