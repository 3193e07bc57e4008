/* sched/pfair/pfair: shared set-up, admission and task events. */
#include "pfair.h"

#include "../../lib/fmt.h"
#include "../../lib/intmath.h"
#include "../report.h"

static uint64_t effective(const struct pfair *pf, uint64_t tau)
{
	return tau > pf->next_slot ? tau : pf->next_slot;
}

static bool check_task(const struct task_spec *ts, struct sched_error *err)
{
	const char *why = NULL;
	if (ts->weight || !ts->p)
		why = "has only weight=; Pfair needs e= and p=";
	else if (ts->d != ts->p)
		why = "has d != p; Pfair windows assume deadline = period";
	if (why)
		fmt_snprintf(err->msg, sizeof err->msg, "task %s (line %u) %s",
			     ts->name, ts->line, why);
	return why == NULL;
}

const char *const pfair_params[] = { "pfair_er", 0 };

/*
 * Whether t's weight fits beside the reserved weights (less those of
 * leaving tasks unless with_leaving): sum of e/p <= M, by lib/ratsum's
 * bounds or, when they cannot tell, exactly over the tasks holding weight.
 */
static bool weight_fits(struct pfair *pf, const struct pfair_task *t,
			bool with_leaving)
{
	enum ratsum_answer a = ratsum_bound(&pf->held,
					    with_leaving ? NULL : &pf->leaving,
					    t->e, t->p, pf->m);
	if (a != RATSUM_UNSURE)
		return a == RATSUM_FITS;
	size_t n = 0;
	for (unsigned i = 0; i < pf->n; i++) {
		const struct pfair_task *x = &pf->task[i];
		if (x->state == PFAIR_ACTIVE || x->state == PFAIR_BLOCKED ||
		    (with_leaving && x->state == PFAIR_LEAVING))
			pf->terms[n++] = ratsum_term(x->e, x->p);
	}
	pf->terms[n++] = ratsum_term(t->e, t->p);
	return ratsum_exact_fits(pf->terms, n, pf->m, pf->scratch);
}

bool pfair_init(struct pfair *pf, const struct sched_config *cfg,
		const struct sched_env *env, const struct pfair_ops *ops,
		struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	unsigned n = ts->ntasks;
	pf->m = cfg->cpus;
	pf->n = n;
	pf->ts = ts;
	pf->staggered = cfg->staggered != 0;
	uint64_t er;
	if (sched_param_in(cfg, "pfair_er", 0, 0, 1, &er, err))
		return false;
	pf->early_release = er;
	pf->ops = ops;
	pf->next_free = UINT64_MAX;
	pf->joins_dirty = false;
	pf->task = env->alloc(env->ctx, (n ? n : 1) * sizeof *pf->task);
	pf->terms = env->alloc(env->ctx, (n + 1) * sizeof *pf->terms);
	pf->scratch = env->alloc(env->ctx, ratsum_exact_words(n + 1) *
					   sizeof *pf->scratch);

	uint64_t max_gap = 1;
	for (unsigned i = 0; i < n; i++) {
		const struct task_spec *s = &ts->task[i];
		if (!check_task(s, err))
			return false;
		pf->task[i].e = s->e;
		pf->task[i].p = s->p;
		pf->task[i].state = PFAIR_GONE;
		uint64_t gap = ceil_div_u64(s->p, s->e);
		if (gap > max_gap)
			max_gap = gap;
	}
	/* Admission: sum of e/p <= M (Sec. 2.1), exactly, in file order. */
	for (unsigned i = 0; i < n; i++) {
		const struct task_spec *s = &ts->task[i];
		if (!weight_fits(pf, &pf->task[i], true)) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u): total weight exceeds %u "
				     "processors (Pfair needs sum of e/p <= M)",
				     s->name, s->line, pf->m);
			return false;
		}
		ratsum_add(&pf->held, s->e, s->p);
		pf->task[i].state = PFAIR_ACTIVE;
	}

	uint64_t w = pfair_queue_wheel_size(max_gap);
	pfair_queue_init(&pf->q, env->alloc(env->ctx, w * sizeof(struct heap)),
			 w);
	for (unsigned i = 0; i < n; i++) {
		struct pfair_task *t = &pf->task[i];
		t->id = i;
		t->theta = ts->task[i].phase;
		t->k = 1;
		t->sel_slot = t->ran_slot = PFAIR_NO_SLOT;
		pfair_task_update(t, pf->early_release);
		pfair_queue_put(&pf->q, t);
	}
	return true;
}

void pfair_charge(struct pfair *pf, struct pfair_task *t, uint64_t slot,
		  unsigned cpu, bool ran)
{
	pfair_task_charge(t, slot, ran, pf->staggered ? cpu : 0,
			  pf->staggered ? pf->m : 1, pf->early_release);
}

void pfair_ran(struct pfair *pf, struct pfair_task *t, uint64_t slot,
	       unsigned cpu)
{
	t->ran_slot = (int64_t)slot;
	t->ran_cpu = cpu;
	pfair_charge(pf, t, slot, cpu, true);
	pfair_queue_put(&pf->q, t);
}

static void release_weight(struct pfair *pf, struct pfair_task *t)
{
	ratsum_sub(&pf->held, t->e, t->p);
	ratsum_sub(&pf->leaving, t->e, t->p);
	pf->n_leaving--;
	t->state = PFAIR_GONE;
	pf->joins_dirty = true;
}

/* Restarts t at slot (subtask 1 released then) if its weight fits now. */
static void try_join(struct pfair *pf, struct pfair_task *t, uint64_t slot)
{
	if (t->state != PFAIR_GONE || !weight_fits(pf, t, true))
		return;
	ratsum_add(&pf->held, t->e, t->p);
	t->join_pending = false;
	pf->n_pending--;
	pf->joins++;
	if (slot > t->join_at)
		pf->deferred_joins++;
	t->theta = slot;
	t->job = 0;
	t->k = 1;
	t->not_before = 0;
	t->leave_ok = slot;
	pfair_task_update(t, pf->early_release);
	if (t->join_blocked) {
		t->join_blocked = false;
		t->state = PFAIR_BLOCKED;
		return;
	}
	t->state = PFAIR_ACTIVE;
	pf->ops->activate(pf, t);
}

/*
 * O(1) in most slots: the tasks are scanned only when a reserved weight is
 * due (next_free) and pending joins retried only when the reserved weight
 * went down or a join arrived (joins_dirty) -- nothing else can let one in.
 */
void pfair_tick(struct pfair *pf, uint64_t slot)
{
	if (pf->n_leaving && pf->next_free <= slot) {
		pf->next_free = UINT64_MAX;
		for (unsigned i = 0; i < pf->n; i++) {
			struct pfair_task *t = &pf->task[i];
			if (t->state != PFAIR_LEAVING)
				continue;
			if (t->free_at <= slot)
				release_weight(pf, t);
			else if (t->free_at < pf->next_free)
				pf->next_free = t->free_at;
		}
	}
	if (pf->n_pending && pf->joins_dirty) {
		pf->joins_dirty = false;
		for (unsigned i = 0; i < pf->n; i++)
			if (pf->task[i].join_pending)
				try_join(pf, &pf->task[i], slot);
	}
}

int pfair_join(void *s, unsigned task, uint64_t tau, struct sched_error *err)
{
	struct pfair *pf = s;
	struct pfair_task *t = &pf->task[task];
	if ((t->state != PFAIR_LEAVING && t->state != PFAIR_GONE) ||
	    t->join_pending) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "join: task %s has not left", pf->ts->task[task].name);
		return -1;
	}
	if (!weight_fits(pf, t, false)) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "join refused: task %s would make the total weight "
			     "exceed %u processors", pf->ts->task[task].name,
			     pf->m);
		return -1;
	}
	t->join_pending = true;
	t->join_at = effective(pf, tau);
	pf->n_pending++;
	pf->joins_dirty = true;
	return 0;
}

void pfair_leave(void *s, unsigned task, uint64_t tau)
{
	struct pfair *pf = s;
	struct pfair_task *t = &pf->task[task];
	if (t->join_pending) {
		t->join_pending = t->join_blocked = false;
		pf->n_pending--;
		return;
	}
	if (t->state == PFAIR_ACTIVE)
		pf->ops->deactivate(pf, t);
	if (t->state != PFAIR_ACTIVE && t->state != PFAIR_BLOCKED)
		return;
	uint64_t now = effective(pf, tau);
	t->state = PFAIR_LEAVING;
	t->free_at = t->leave_ok > now ? t->leave_ok : now;
	if (!pf->n_leaving || t->free_at < pf->next_free)
		pf->next_free = t->free_at;
	ratsum_add(&pf->leaving, t->e, t->p);
	pf->n_leaving++;
}

void pfair_block(void *s, unsigned task, uint64_t tau)
{
	struct pfair *pf = s;
	struct pfair_task *t = &pf->task[task];
	(void)tau;
	if (t->join_pending)
		t->join_blocked = true;
	if (t->state != PFAIR_ACTIVE)
		return;
	pf->ops->deactivate(pf, t);
	t->state = PFAIR_BLOCKED;
}

void pfair_wake(void *s, unsigned task, uint64_t tau)
{
	struct pfair *pf = s;
	struct pfair_task *t = &pf->task[task];
	if (t->join_pending)
		t->join_blocked = false;
	if (t->state != PFAIR_BLOCKED)
		return;
	uint64_t now = effective(pf, tau);
	/* IS (Sec. 2.2): right-shift the pending window to the wake-up. */
	if (t->release < now)
		t->theta += now - t->release;
	t->not_before = now;
	pfair_task_update(t, pf->early_release);
	t->state = PFAIR_ACTIVE;
	pf->ops->activate(pf, t);
}

void pfair_complete(void *s, unsigned task, uint64_t tau)
{
	struct pfair *pf = s;
	struct pfair_task *t = &pf->task[task];
	(void)tau;
	if (t->state != PFAIR_ACTIVE || t->k == 1)
		return;
	pf->ops->deactivate(pf, t);
	/*
	 * GIS (Sec. 2.2): the job's remaining subtasks are omitted. Deactivate
	 * may itself have charged the last of them (Fig. 7 line 37).
	 */
	if (t->k != 1) {
		t->k = 1;
		t->job++;
		t->jobs_done++;
		pfair_task_update(t, pf->early_release);
	}
	pf->ops->activate(pf, t);
}

void pfair_stats(void *s, unsigned task, struct sched_task_stats *out)
{
	struct pfair *pf = s;
	const struct pfair_task *t = &pf->task[task];
	out->quanta = t->quanta;
	out->jobs = t->jobs_done;
	out->misses = t->misses;
	out->max_tardiness_num = t->max_tardiness;
	out->tardiness_den = pf->staggered ? pf->m : 1;
}

void pfair_summary(void *s, sched_put_fn put, void *ctx)
{
	struct pfair *pf = s;
	uint64_t wasted = 0, lag = 0, lag_den = 1;
	for (unsigned i = 0; i < pf->n; i++) {
		const struct pfair_task *t = &pf->task[i];
		wasted += t->wasted;
		/* p |lag| < 2^32 while |lag| < 2, p < 2^31: no overflow. */
		if (t->max_abs_lag * lag_den > lag * t->p) {
			lag = t->max_abs_lag;
			lag_den = t->p;
		}
	}
	put(ctx, "wasted_quanta", (int64_t)wasted, 1);
	put(ctx, "max_abs_lag", (int64_t)lag, (int64_t)lag_den);
	put(ctx, "joins", (int64_t)pf->joins, 1);
	put(ctx, "deferred_joins", (int64_t)pf->deferred_joins, 1);
}

/* ---------------------------------------------------------------- dump */

/*
 * The members are printed highest priority first by choosing, each time,
 * the highest one below the last printed (pfair_higher is a strict total
 * order): O(n^2) for a set, no memory, which a dump can afford.
 */
void pfair_dump_set(const struct pfair *pf, const char *label,
		    pfair_member_fn member, const void *arg,
		    sched_print_fn print, void *ctx)
{
	const struct pfair_task *prev = NULL;
	for (;;) {
		const struct pfair_task *best = NULL;
		for (unsigned i = 0; i < pf->n; i++) {
			const struct pfair_task *t = &pf->task[i];
			if (!member(t, arg) || (prev && !pfair_higher(prev, t)))
				continue;
			if (!best || pfair_higher(t, best))
				best = t;
		}
		if (!best)
			return;
		sched_report_line(print, ctx, "pfair %s %s", label,
				  pf->ts->task[best->id].name);
		prev = best;
	}
}

/* Where the queue keeps a task: Eligible holds every queued task with
 * elig <= h, except one still in the far heap (pfair_queue.h). */
static bool eligible(const struct pfair_task *t, const void *arg)
{
	const struct pfair_queue *q = arg;
	return t->queued && !t->far && t->elig <= q->h;
}

struct incoming_at {
	const struct pfair_queue *q;
	uint64_t slot;
};

static bool incoming_at(const struct pfair_task *t, const void *arg)
{
	const struct incoming_at *in = arg;
	return t->queued && !eligible(t, in->q) && t->elig == in->slot;
}

void pfair_dump(const struct pfair *pf, sched_print_fn print, void *ctx)
{
	static const char *const state_names[] = {
		[PFAIR_ACTIVE] = "active", [PFAIR_BLOCKED] = "blocked",
		[PFAIR_LEAVING] = "leaving", [PFAIR_GONE] = "gone",
	};
	pfair_dump_set(pf, "Eligible", eligible, &pf->q, print, ctx);
	/* Incoming[x] for each slot x that has tasks waiting, in order. */
	struct incoming_at in = { &pf->q, 0 };
	for (bool first = true;; first = false) {
		bool found = false;
		uint64_t next = 0;
		for (unsigned i = 0; i < pf->n; i++) {
			const struct pfair_task *t = &pf->task[i];
			if (!t->queued || eligible(t, &pf->q) ||
			    (!first && t->elig <= in.slot) ||
			    (found && t->elig >= next))
				continue;
			next = t->elig;
			found = true;
		}
		if (!found)
			break;
		in.slot = next;
		char label[32];
		fmt_snprintf(label, sizeof label, "Incoming %llu",
			     (unsigned long long)next);
		pfair_dump_set(pf, label, incoming_at, &in, print, ctx);
	}
	for (unsigned i = 0; i < pf->n; i++) {
		const struct pfair_task *t = &pf->task[i];
		sched_report_line(print, ctx, "pfair task %s state=%s job=%llu "
				  "k=%u release=%llu deadline=%llu b=%d gd=%llu "
				  "elig=%llu", pf->ts->task[i].name,
				  state_names[t->state],
				  (unsigned long long)t->job, t->k,
				  (unsigned long long)t->release,
				  (unsigned long long)t->deadline, t->b,
				  (unsigned long long)t->group_deadline,
				  (unsigned long long)t->elig);
	}
}
