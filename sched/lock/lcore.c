/* sched/lock/lcore: EDF with critical sections, in quanta (lcore.h). */
#include "lcore.h"

#include "../../lib/fmt.h"
#include "../report.h"
#include "lock.h"

struct lc_task {
	uint64_t next_release;       /* of the job after the current one */
	uint64_t deadline, key;      /* of the current job, while rem > 0 */
	uint32_t e, p, d;
	uint32_t rem, pos;           /* quanta of work left, and done */
	uint8_t present, started;
	unsigned home;               /* CPU, or cluster */
	int cat;                     /* enum lock_cat for the slots ahead */
	uint64_t last_work;          /* 1 + the last slot charged as work */
	struct sched_task_stats st;
};

struct lcore {
	unsigned cpus, ntasks, cluster;
	enum lcore_mode mode;
	const struct taskset *ts;
	struct sched_env env;
	struct lock_set ls;
	struct lc_task *t;
	int *answer;                 /* per CPU: its job for the slot */
	int *next;                   /* scratch, per CPU */
	unsigned *order;             /* scratch, per task */
	uint64_t now;
	int started;
	uint64_t requests, forced;
};

#define TASK_BITS 20

static int pending(const struct lcore *c, unsigned i)
{
	return c->t[i].present && c->t[i].rem > 0;
}

static int suspended(const struct lcore *c, unsigned i)
{
	const struct lock_task *lt = &c->ls.task[i];
	return lt->waiting != LOCK_NONE && !lt->spinning;
}

static int ready(const struct lcore *c, unsigned i)
{
	return pending(c, i) && !suspended(c, i);
}

static uint64_t job_of(const struct lcore *c, unsigned i)
{
	return c->t[i].st.jobs;
}

/* The job runs non-preemptively (msrp: spinning, or holding a global
 * resource). */
static int nonpreemptive(const struct lcore *c, unsigned i)
{
	const struct lock_task *lt = &c->ls.task[i];
	if (c->ls.protocol != PROTO_MSRP)
		return 0;
	if (lt->spinning)
		return 1;
	for (unsigned r = 0; r < c->ls.nres; r++)
		if ((lt->held >> r & 1) && c->ls.res[r].home == LOCK_NONE)
			return 1;
	return 0;
}

/* ---- the protocols' queues ---- */

static void acquire(struct lcore *c, unsigned i, unsigned r, uint64_t t)
{
	lock_take(&c->ls, i, r, job_of(c, i), t);
}

static void wait_for(struct lcore *c, unsigned i, unsigned r, int spin,
		     uint64_t t)
{
	struct lock_task *lt = &c->ls.task[i];
	lt->waiting = (int)r;
	lt->spinning = (uint8_t)spin;
	lock_emit(&c->ls, spin ? SCHED_LOCK_SPIN : SCHED_LOCK_SUSPEND, i, r,
		  job_of(c, i), t);
}

/* OMLP's priority queue, by base priority. */
static void pq_insert(struct lcore *c, struct lock_res *lr, unsigned i)
{
	unsigned k = lr->npq;
	while (k > 0 && c->t[lr->pq[k - 1]].key > c->t[i].key) {
		lr->pq[k] = lr->pq[k - 1];
		k--;
	}
	lr->pq[k] = i;
	lr->npq++;
}

static int pq_remove(struct lock_res *lr, unsigned i)
{
	unsigned k = 0;
	while (k < lr->npq && lr->pq[k] != i)
		k++;
	if (k == lr->npq)
		return 0;
	for (; k + 1 < lr->npq; k++)
		lr->pq[k] = lr->pq[k + 1];
	lr->npq--;
	return 1;
}

static void request(struct lcore *c, unsigned i, unsigned r, uint64_t t)
{
	struct lock_res *lr = &c->ls.res[r];
	c->ls.task[i].st.requests++;
	c->requests++;
	lock_emit(&c->ls, SCHED_LOCK_REQUEST, i, r, job_of(c, i), t);
	if (c->ls.protocol == PROTO_OMLP) {
		if (lr->fifo.n < c->cluster) {
			lock_fifo_push(&lr->fifo, i);
			if (lr->fifo.n == 1)
				acquire(c, i, r, t);
			else
				wait_for(c, i, r, 0, t);
		} else {
			pq_insert(c, lr, i);
			wait_for(c, i, r, 0, t);
		}
		return;
	}
	int global = c->ls.protocol == PROTO_MSRP && lr->home == LOCK_NONE;
	if (lr->holder == LOCK_NONE && lr->fifo.n == 0) {
		acquire(c, i, r, t);
		return;
	}
	/* A global msrp resource: spin in FIFO order. An srp (local)
	 * resource is free at every request (SRP's theorem); should it not
	 * be, the job waits suspended for it in FIFO order. */
	lock_fifo_push(&lr->fifo, i);
	wait_for(c, i, r, global, t);
}

static void release(struct lcore *c, unsigned i, unsigned r, uint64_t t,
		    int forced)
{
	struct lock_res *lr = &c->ls.res[r];
	lock_drop(&c->ls, i, r, job_of(c, i), t, forced);
	c->forced += (uint64_t)forced;
	if (c->ls.protocol == PROTO_OMLP) {
		lock_fifo_remove(&lr->fifo, i);
		if (lr->npq) {
			unsigned j = lr->pq[0];
			pq_remove(lr, j);
			lock_fifo_push(&lr->fifo, j);
		}
		if (lr->fifo.n)
			acquire(c, lock_fifo_at(&lr->fifo, 0), r, t);
		return;
	}
	if (lr->fifo.n)
		acquire(c, lock_fifo_pop(&lr->fifo), r, t);
}

/* A job that stops while waiting leaves the queue. */
static void cancel_wait(struct lcore *c, unsigned i)
{
	struct lock_task *lt = &c->ls.task[i];
	if (lt->waiting == LOCK_NONE)
		return;
	struct lock_res *lr = &c->ls.res[lt->waiting];
	lock_fifo_remove(&lr->fifo, i);
	pq_remove(lr, i);
	lt->waiting = LOCK_NONE;
	lt->spinning = 0;
}

/* ---- jobs ---- */

static void start_job(struct lcore *c, unsigned i)
{
	struct lc_task *k = &c->t[i];
	uint64_t r = k->next_release;
	k->deadline = r + k->d;
	k->key = k->deadline << TASK_BITS | i;
	k->rem = k->e;
	k->pos = 0;
	k->started = 0;
	k->next_release = r + k->p;
	c->ls.task[i].next_op = 0;
}

static void releases_due(struct lcore *c, uint64_t t)
{
	for (unsigned i = 0; i < c->ntasks; i++) {
		struct lc_task *k = &c->t[i];
		if (k->present && k->rem == 0 && k->next_release <= t)
			start_job(c, i);
	}
}

/* The job's end (its work done, or the kernel says so): what it holds is
 * released for it, its blocking reported, its deadline checked. */
static void end_job(struct lcore *c, unsigned i, uint64_t t)
{
	struct lc_task *k = &c->t[i];
	struct lock_task *lt = &c->ls.task[i];
	cancel_wait(c, i);
	/* Its program's calls not in effect yet (made in the quantum it
	 * ends in): an unlock takes effect now, as the job ends; a lock ends
	 * with the job. Left queued they took effect in the task's next job,
	 * where the unlock let go of what another task held by then. */
	for (unsigned n = 0; n < lt->npend; n++)
		if (lt->pend[n].kind == LOCK_OP_RELEASE &&
		    (lt->held >> lt->pend[n].res & 1))
			release(c, i, lt->pend[n].res, t, 0);
	lt->npend = 0;
	while (lt->nstack)
		release(c, i, lt->stack[lt->nstack - 1], t, 1);
	lock_job_end(&c->ls, i, job_of(c, i), t);
	k->st.jobs++;
	if (t > k->deadline) {
		k->st.misses++;
		if (t - k->deadline > k->st.max_tardiness_num)
			k->st.max_tardiness_num = t - k->deadline;
	}
	k->rem = 0;
	k->started = 0;
	k->cat = LOCK_CAT_IDLE;
}

/* The releases due at boundary t: those the quantum of work that ended
 * here reached. Requests wait for the decision (make_requests). */
static void apply_releases(struct lcore *c, uint64_t t)
{
	for (unsigned i = 0; i < c->ntasks; i++) {
		struct lc_task *k = &c->t[i];
		struct lock_task *lt = &c->ls.task[i];
		/* Pending, or its work just ended here (it releases before it
		 * completes). */
		if (!k->present || (k->rem == 0 && k->cat == LOCK_CAT_IDLE))
			continue;
		if (c->ls.program_locks) {
			/* Due once a quantum of work from pend_from on ended
			 * here; the others wait. */
			if (k->last_work != t)
				continue;
			unsigned kept = 0;
			for (unsigned n = 0; n < lt->npend; n++) {
				struct lock_op o = lt->pend[n];
				uint64_t from = lt->pend_from[n];
				if (o.kind != LOCK_OP_RELEASE || t - 1 < from) {
					lt->pend[kept] = o;
					lt->pend_from[kept++] = from;
				} else {
					release(c, i, o.res, t, 0);
				}
			}
			lt->npend = kept;
			continue;
		}
		while (lt->next_op < lt->nops &&
		       lt->ops[lt->next_op].at <= k->pos &&
		       lt->ops[lt->next_op].kind == LOCK_OP_RELEASE)
			release(c, i, lt->ops[lt->next_op++].res, t, 0);
	}
}

/* Job i, about to run from t (or ending at t), makes the requests its
 * work has reached, in order, until one leaves it waiting: a request is
 * the first thing done in the quantum its section begins with, so a job
 * preempted where one section ends and the next begins makes the second
 * request only when it runs again. Returns 1 when i is now suspended. */
static int make_requests(struct lcore *c, unsigned i, uint64_t t)
{
	struct lc_task *k = &c->t[i];
	struct lock_task *lt = &c->ls.task[i];
	if (c->ls.program_locks) {
		/* Due once a quantum of work from pend_from on ended. */
		unsigned kept = 0;
		for (unsigned n = 0; n < lt->npend; n++) {
			struct lock_op o = lt->pend[n];
			uint64_t from = lt->pend_from[n];
			if (o.kind == LOCK_OP_REQUEST && k->last_work > from &&
			    lt->waiting == LOCK_NONE && kept == 0) {
				request(c, i, o.res, t);
			} else {
				lt->pend[kept] = o;
				lt->pend_from[kept++] = from;
			}
		}
		lt->npend = kept;
	} else {
		while (lt->waiting == LOCK_NONE && lt->next_op < lt->nops &&
		       lt->ops[lt->next_op].at <= k->pos &&
		       lt->ops[lt->next_op].kind == LOCK_OP_REQUEST)
			request(c, i, lt->ops[lt->next_op++].res, t);
	}
	return suspended(c, i);
}

/*
 * Brings the core to boundary t: the slots since the last one charged to
 * what each CPU ran (work, or spinning), the blocking of every pending job
 * counted in the category it was given, then the boundary's operations,
 * completions and releases (lcore.h, steps 1 to 3).
 */
static void advance(struct lcore *c, uint64_t t)
{
	if (!c->started) {
		c->started = 1;
		c->now = t;
		releases_due(c, t);
		return;
	}
	if (t <= c->now)
		return;
	uint64_t span = t - c->now;
	for (unsigned i = 0; i < c->ntasks; i++)
		if (pending(c, i) && c->t[i].cat != LOCK_CAT_IDLE)
			c->ls.task[i].cat[c->t[i].cat] += span;
	for (unsigned k = 0; k < c->cpus; k++) {
		int i = c->answer[k];
		if (i == SCHED_IDLE || !pending(c, (unsigned)i) ||
		    c->ls.task[i].spinning)
			continue;
		struct lc_task *tk = &c->t[i];
		uint32_t w = span < tk->rem ? (uint32_t)span : tk->rem;
		tk->pos += w;
		tk->rem -= w;
		tk->st.quanta += w;
		tk->last_work = t;
	}
	c->now = t;
	apply_releases(c, t);
	/* A job whose work ends here makes what its program asked for
	 * before it ends (end_job then releases it, reported as forced). */
	for (unsigned i = 0; i < c->ntasks; i++)
		if (c->t[i].present && c->t[i].rem == 0 &&
		    c->t[i].cat != LOCK_CAT_IDLE) {
			make_requests(c, i, t);
			end_job(c, i, t);
		}
	releases_due(c, t);
}

/* ---- who runs ---- */

/* The smallest relative deadline that may start on cpu: below the ceilings
 * of the local resources held there (srp, msrp's local ones). */
static uint32_t cpu_ceiling(const struct lcore *c, unsigned cpu)
{
	uint32_t ceil = UINT32_MAX;
	for (unsigned r = 0; r < c->ls.nres; r++) {
		const struct lock_res *lr = &c->ls.res[r];
		if (lr->holder != LOCK_NONE && lr->home == (int)cpu &&
		    lr->ceil_d < ceil)
			ceil = lr->ceil_d;
	}
	return ceil;
}

static int pick_partitioned(const struct lcore *c, unsigned cpu)
{
	int prev = c->answer[cpu];
	if (prev != SCHED_IDLE && pending(c, (unsigned)prev) &&
	    nonpreemptive(c, (unsigned)prev))
		return prev;
	int best = SCHED_IDLE, best_started = SCHED_IDLE;
	for (unsigned i = 0; i < c->ntasks; i++) {
		if (c->t[i].home != cpu || !ready(c, i))
			continue;
		if (best == SCHED_IDLE || c->t[i].key < c->t[best].key)
			best = (int)i;
		if (c->t[i].started && (best_started == SCHED_IDLE ||
					c->t[i].key < c->t[best_started].key))
			best_started = (int)i;
	}
	if (best == SCHED_IDLE || c->t[best].started ||
	    c->t[best].d < cpu_ceiling(c, cpu) || best_started == SCHED_IDLE)
		return best;
	return best_started;
}

/* Its priority with inheritance (omlp): the smallest key of itself and of
 * the jobs waiting for a resource it holds. */
static uint64_t eff_key(const struct lcore *c, unsigned i)
{
	uint64_t key = c->t[i].key;
	uint64_t held = c->ls.task[i].held;
	for (unsigned r = 0; held && r < c->ls.nres; r++) {
		if (!(held >> r & 1))
			continue;
		const struct lock_res *lr = &c->ls.res[r];
		for (unsigned n = 0; n < lr->fifo.n; n++) {
			unsigned j = lock_fifo_at(&lr->fifo, n);
			if (j != i && c->t[j].key < key)
				key = c->t[j].key;
		}
		for (unsigned n = 0; n < lr->npq; n++)
			if (c->t[lr->pq[n]].key < key)
				key = c->t[lr->pq[n]].key;
	}
	return key;
}

/* Cluster `cl`'s K CPUs: the K ready jobs of highest priority. */
static void pick_global(struct lcore *c, unsigned cl, int *out)
{
	unsigned base = cl * c->cluster, n = 0;
	unsigned *ord = c->order;
	for (unsigned i = 0; i < c->ntasks; i++)
		if (c->t[i].home == cl && ready(c, i))
			ord[n++] = i;
	/* Selection of the K smallest effective keys (K <= 64). */
	unsigned take = n < c->cluster ? n : c->cluster;
	for (unsigned a = 0; a < take; a++) {
		unsigned best = a;
		uint64_t bk = eff_key(c, ord[a]);
		for (unsigned b = a + 1; b < n; b++) {
			uint64_t k = eff_key(c, ord[b]);
			if (k < bk) {
				best = b;
				bk = k;
			}
		}
		unsigned x = ord[a];
		ord[a] = ord[best];
		ord[best] = x;
	}
	for (unsigned k = 0; k < c->cluster; k++)
		out[base + k] = SCHED_IDLE;
	uint8_t placed[64] = { 0 };
	for (unsigned a = 0; a < take; a++)
		for (unsigned k = 0; k < c->cluster; k++)
			if (c->answer[base + k] == (int)ord[a]) {
				out[base + k] = (int)ord[a];
				placed[a] = 1;
			}
	for (unsigned a = 0; a < take; a++) {
		if (placed[a])
			continue;
		unsigned k = 0;
		while (out[base + k] != SCHED_IDLE)
			k++;
		out[base + k] = (int)ord[a];
	}
}

/* The category of every pending job for the slots from t on. */
static void categorise(struct lcore *c)
{
	for (unsigned i = 0; i < c->ntasks; i++) {
		struct lc_task *k = &c->t[i];
		if (!pending(c, i)) {
			k->cat = LOCK_CAT_IDLE;
			continue;
		}
		int cpu = -1;
		for (unsigned q = 0; q < c->cpus; q++)
			if (c->answer[q] == (int)i)
				cpu = (int)q;
		if (cpu >= 0) {
			k->cat = c->ls.task[i].spinning ? LOCK_CAT_SPIN
							: LOCK_CAT_RUN;
			continue;
		}
		int pi;
		if (c->mode == LCORE_PARTITIONED) {
			int run = c->answer[k->home];
			pi = !suspended(c, i) && run != SCHED_IDLE &&
			     c->t[run].key > k->key;
		} else {
			/* Among the K highest base priorities of the pending
			 * jobs of its cluster. */
			unsigned above = 0;
			for (unsigned j = 0; j < c->ntasks; j++)
				if (j != i && c->t[j].home == k->home &&
				    pending(c, j) && c->t[j].key < k->key)
					above++;
			pi = above < c->cluster;
		}
		k->cat = pi ? LOCK_CAT_PI
			    : suspended(c, i) ? LOCK_CAT_WAIT : LOCK_CAT_INTF;
	}
}

/* Who runs from c->now (lcore.h, step 4): a choice, then the requests of
 * the jobs chosen (by task index); while one of them leaves its job
 * suspended, the choice again. Each round suspends a job, which no
 * release can wake before the next boundary: at most ntasks rounds. */
static void decide(struct lcore *c)
{
	int *out = c->next;
	unsigned *chosen = c->order;
	for (int again = 1; again;) {
		if (c->mode == LCORE_PARTITIONED)
			for (unsigned k = 0; k < c->cpus; k++)
				out[k] = pick_partitioned(c, k);
		else
			for (unsigned cl = 0; cl < c->cpus / c->cluster; cl++)
				pick_global(c, cl, out);
		for (unsigned i = 0; i < c->ntasks; i++)
			chosen[i] = 0;
		for (unsigned k = 0; k < c->cpus; k++)
			if (out[k] != SCHED_IDLE)
				chosen[out[k]] = 1;
		again = 0;
		for (unsigned i = 0; i < c->ntasks; i++)
			if (chosen[i] && make_requests(c, i, c->now))
				again = 1;
	}
	for (unsigned k = 0; k < c->cpus; k++) {
		if (out[k] != c->answer[k])
			c->env.resched(c->env.ctx, k);
		c->answer[k] = out[k];
		if (out[k] != SCHED_IDLE)
			c->t[out[k]].started = 1;
	}
	categorise(c);
}

int lcore_schedule(struct lcore *c, unsigned cpu, uint64_t t)
{
	if (!c->started || t > c->now) {
		advance(c, t);
		decide(c);
	}
	return c->answer[cpu];
}

uint64_t lcore_next_event(const struct lcore *c, uint64_t t)
{
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < c->ntasks; i++) {
		const struct lc_task *k = &c->t[i];
		if (k->present && k->rem == 0 && k->next_release < next)
			next = k->next_release;
	}
	for (unsigned q = 0; q < c->cpus; q++) {
		int i = c->answer[q];
		if (i == SCHED_IDLE || !pending(c, (unsigned)i))
			continue;
		const struct lc_task *k = &c->t[i];
		const struct lock_task *lt = &c->ls.task[i];
		if (lt->spinning)
			continue;
		if (t + k->rem < next)
			next = t + k->rem;
		if (lt->next_op < lt->nops && lt->ops[lt->next_op].at > k->pos &&
		    t + (lt->ops[lt->next_op].at - k->pos) < next)
			next = t + (lt->ops[lt->next_op].at - k->pos);
		for (unsigned n = 0; n < lt->npend; n++) {
			uint64_t from = lt->pend_from[n];
			uint64_t due = (from > t ? from : t) + 1;
			if (due < next)
				next = due;
		}
	}
	return next > t ? next : t + 1;
}

void lcore_leave(struct lcore *c, unsigned task, uint64_t t)
{
	advance(c, t);
	struct lc_task *k = &c->t[task];
	if (!k->present)
		return;
	struct lock_task *lt = &c->ls.task[task];
	cancel_wait(c, task);
	while (lt->nstack)
		release(c, task, lt->stack[lt->nstack - 1], t, 1);
	lt->npend = 0;
	if (pending(c, task))
		lock_job_end(&c->ls, task, job_of(c, task), t);
	k->present = 0;
	k->rem = 0;
	k->cat = LOCK_CAT_IDLE;
	decide(c);
}

void lcore_complete(struct lcore *c, unsigned task, uint64_t t)
{
	advance(c, t);
	if (!pending(c, task))
		return;
	end_job(c, task, t);
	releases_due(c, t);
	decide(c);
}

void lcore_stats(struct lcore *c, unsigned task, struct sched_task_stats *out)
{
	*out = c->t[task].st;
	out->tardiness_den = 1;
}

void lcore_lock_stats(struct lcore *c, unsigned task,
		      struct sched_lock_stats *out)
{
	*out = c->ls.task[task].st;
}

int lcore_lock_op(struct lcore *c, unsigned task, int unlock, unsigned res,
		  uint64_t t, struct sched_error *err)
{
	if (!c->ls.program_locks) {
		fmt_snprintf(err->msg, sizeof err->msg, "the set's cs= runs the "
			     "locks (not a program)");
		return -SCHED_LOCK_EBUSY;
	}
	/* A call that reaches the plugin after the job that made it ended at
	 * its budget: its CPU was behind (a call made before that boundary,
	 * taken after it). Queued, it would take effect in the task's next
	 * job and refuse that job's own call. */
	if (!pending(c, task) && res < c->ls.nres) {
		fmt_snprintf(err->msg, sizeof err->msg, "%s %s %s: the job that "
			     "made the call had ended at its budget by slot %llu, "
			     "when the call reached the scheduler",
			     c->ts->task[task].name, unlock ? "unlock" : "lock",
			     c->ts->res[res].name, (unsigned long long)t);
		return -SCHED_LOCK_EENDED;
	}
	return lock_program_op(&c->ls, task, unlock, res, t, err);
}

void lcore_summary(struct lcore *c, sched_put_fn put, void *ctx)
{
	put(ctx, "lock_requests", (int64_t)c->requests, 1);
	put(ctx, "lock_forced", (int64_t)c->forced, 1);
}

void lcore_dump(const struct lcore *c, sched_print_fn print, void *ctx)
{
	sched_report_line(print, ctx, "lock %s now=%llu",
			  taskset_protocol_name(c->ls.protocol),
			  (unsigned long long)c->now);
	for (unsigned r = 0; r < c->ls.nres; r++) {
		const struct lock_res *lr = &c->ls.res[r];
		sched_report_line(print, ctx, "lock res %s holder=%s queued=%u",
				  c->ts->res[r].name,
				  lr->holder == LOCK_NONE ? "-" :
				  c->ts->task[lr->holder].name,
				  lr->fifo.n + lr->npq);
	}
}

struct lcore *lcore_create(const struct sched_config *cfg,
			   const struct sched_env *env, enum lcore_mode mode,
			   unsigned cluster, const unsigned *home,
			   const char *plugin, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	if (cluster > 64) {
		fmt_snprintf(err->msg, sizeof err->msg, "%s with resources takes "
			     "clusters of at most 64 CPUs", plugin);
		return 0;
	}
	for (unsigned e = 0; e < ts->nevents; e++)
		if (ts->event[e].action != TASKSET_LEAVE) {
			fmt_snprintf(err->msg, sizeof err->msg, "line %u: a set "
				     "with resources takes only 'leave' events "
				     "(%s's lock variant)", ts->event[e].line,
				     plugin);
			return 0;
		}
	struct lcore *c = env->alloc(env->ctx, sizeof *c);
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	c->cpus = cfg->cpus;
	c->ntasks = ts->ntasks;
	c->mode = mode;
	c->cluster = mode == LCORE_PARTITIONED ? 1 : cluster;
	c->ts = ts;
	c->env = *env;
	lock_set_init(&c->ls, cfg, env);
	if (lock_set_place(&c->ls, home, 1, plugin, err))
		return 0;
	if (c->ls.protocol == PROTO_OMLP)
		for (unsigned r = 0; r < ts->nres; r++)
			if (c->ls.res[r].home == LOCK_NONE &&
			    c->cluster < c->cpus) {
				fmt_snprintf(err->msg, sizeof err->msg,
					     "resource %s (line %u): used in "
					     "two clusters; omlp here inherits "
					     "priorities inside a cluster only",
					     ts->res[r].name, ts->res[r].line);
				return 0;
			}
	c->t = env->alloc(env->ctx, n * sizeof *c->t);
	c->answer = env->alloc(env->ctx, c->cpus * sizeof *c->answer);
	c->next = env->alloc(env->ctx, c->cpus * sizeof *c->next);
	c->order = env->alloc(env->ctx, n * sizeof *c->order);
	for (unsigned k = 0; k < c->cpus; k++)
		c->answer[k] = SCHED_IDLE;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *sp = &ts->task[i];
		struct lc_task *k = &c->t[i];
		k->e = sp->e;
		k->p = sp->p;
		k->d = sp->d;
		k->next_release = sp->phase;
		k->present = 1;
		k->home = home[i];
		k->cat = LOCK_CAT_IDLE;
	}
	return c;
}
