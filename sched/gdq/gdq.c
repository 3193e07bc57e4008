/*
 * sched/gdq/gdq.c: GDQ as a scheduler plugin -- feasibility (Sec. 2.3),
 * grouping (Sec. 2.1), the processor bookkeeping around MFQ (Sec. 2.2.1),
 * arrivals and departures (Sec. 2.4), and the service-error accounting of
 * Sec. 3.1.
 *
 * Mapping onto the driver's calls: schedule(cpu, t) is processor cpu at the
 * quantum boundary t. A non-dedicated processor j (0-based) runs MFQ at
 * t = mT + ceil(jT/P), m >= 1 -- the paper's times T + (j-1)T/P, 2T + ...
 * rounded up to a quantum boundary, as Sec. 2.2.1 allows -- inside its own
 * schedule() call and before picking a process; then every processor picks
 * from its own queue with INTRAGROUP (O(1) amortised). A dedicated
 * processor's turn is a no-op (MFQ line 1).
 */
#include <stdbool.h>

#include "gdq.h"
#include "intra.h"
#include "mfq.h"
#include "../../lib/fmt.h"
#include "../../lib/intmath.h"
#include "../../lib/sort.h"
#include "../report.h"

#define GDQ_ORDERS 32   /* weights are below 2^31 */
#define GDQ_EP_SHIFT 16 /* e/p tasks: weight round(e * 2^16 / p) */

/* A task's state as its events left it (lib/taskset.h). */
enum { GONE, PRESENT, BLOCKED };

__extension__ typedef __int128 s128;

struct gdq {
	unsigned P, n;
	/* Tasks with a phase, as phase << 32 | index in phase order, and the
	 * first not yet reached: a slot costs nothing until the next phase. */
	uint64_t *phased;
	unsigned nphased, next_phased;
	uint64_t T, delta;
	bool track;
	const struct taskset *ts;
	struct gdq_proc *proc;
	unsigned char *state;
	bool *arrived;          /* its phase came, or it joined before */
	uint64_t *w0;           /* weight asked for */
	uint64_t *phi;          /* scratch: weights of the new mix */
	uint64_t *work, *work0; /* work now, and at the last change of mix */
	uint64_t total, total0;
	uint64_t phi_total;
	struct gdq_group grp[GDQ_ORDERS];
	struct gdq_mfq_client cli[GDQ_ORDERS];
	int *cpu_group;
	struct gdq_queue **cpu_q;
	bool *dedicated;
	uint64_t *next_mfq;
	struct gdq_queue **swap_to;     /* see plan_stall() */
	/* Service errors (Sec. 3.1) as num / phi_total, extremes as num/den. */
	int64_t max_num, min_num;
	uint64_t max_den, min_den;
	unsigned nadjusted;
#if SCHED_DEBUG
	uint64_t *ran_at;       /* slot + 1 in which the task last ran */
#endif
};

static unsigned order_of(uint64_t w)
{
	unsigned k = 0;
	while (w >> (k + 1))
		k++;
	return k;
}

/* In the scheduler: what Sec. 2.4's arrivals and departures change. */
static bool runnable(const struct gdq *s, unsigned i)
{
	return s->arrived[i] && s->state[i] == PRESENT;
}

/*
 * Sec. 2.3: an infeasible assignment (some phi > Phi_T / P) becomes the
 * closest feasible one. The paper cites GR3's O(P) algorithm without giving
 * it; we compute the same fixed point directly: the largest weights are all
 * capped to W = (sum of the others) / (P - k), k the number capped, found by
 * repeated passes (at most P, so O(NP) per change of mix). W is rounded
 * down to stay an integer, which keeps the set feasible. With fewer
 * processes than processors every process gets a processor of its own, so
 * all weights are taken equal.
 */
static void adjust_weights(struct gdq *s, uint64_t *phi)
{
	const uint64_t capped = UINT64_MAX;
	unsigned n = 0, k = 0;
	uint64_t w;

	for (unsigned i = 0; i < s->n; i++) {
		phi[i] = runnable(s, i) ? s->w0[i] : 0;
		n += phi[i] != 0;
	}
	s->nadjusted = 0;
	if (n < s->P) {
		for (unsigned i = 0; i < s->n; i++)
			phi[i] = phi[i] ? 1 : 0;
		return;
	}
	/* k < P always: with k = P - 1 capped, the rest sum to w. */
	for (;;) {
		uint64_t rest = 0;
		unsigned newly = 0;
		for (unsigned i = 0; i < s->n; i++)
			if (phi[i] != capped)
				rest += phi[i];
		w = rest / (s->P - k);
		for (unsigned i = 0; i < s->n; i++)
			if (phi[i] != capped && phi[i] > w) {
				phi[i] = capped;
				newly++;
			}
		if (!newly)
			break;
		k += newly;
	}
	for (unsigned i = 0; i < s->n; i++)
		if (phi[i] == capped) {
			phi[i] = w;
			s->nadjusted++;
		}
}

/* A group can feed one more processor (REASSIGN's hand-over, Sec. 2.2.1). */
static bool group_ready(const struct gdq_group *g)
{
	return gdq_min_queue(g) != 0;
}

static void refresh_ready(struct gdq *s)
{
	for (unsigned k = 0; k < GDQ_ORDERS; k++)
		s->cli[k].ready = group_ready(&s->grp[k]);
}

/*
 * Second half of REASSIGN: cpu takes a stalled queue of group k (one with
 * processes first); an empty one pulls a process of least NVT in.
 */
static void bind(struct gdq *s, unsigned cpu, unsigned k)
{
	struct gdq_group *g = &s->grp[k];
	struct gdq_queue *q = 0;

	for (unsigned i = 0; i < g->nq; i++) {
		struct gdq_queue *c = &g->q[i];
		if (c->cpu < 0 && (!q || (!q->n && c->n)))
			q = c;
	}
	s->cpu_group[cpu] = (int)k;
	s->cpu_q[cpu] = q;
	s->cli[k].alloc++;
	if (!q)
		return;
	q->cpu = (int)cpu;
	if (!q->n)
		gdq_refill(g, q);
}

/* First half of REASSIGN: cpu's queue becomes stalled. */
static void unbind(struct gdq *s, unsigned cpu)
{
	int k = s->cpu_group[cpu];

	if (k < 0)
		return;
	if (s->cpu_q[cpu])
		s->cpu_q[cpu]->cpu = -1;
	s->cli[k].alloc--;
	s->cpu_group[cpu] = -1;
	s->cpu_q[cpu] = 0;
}

/* Group parameters and queue membership after a change of mix. */
static void regroup(struct gdq *s, const uint64_t *phi)
{
	uint64_t weight[GDQ_ORDERS] = { 0 };

	s->phi_total = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (phi[i]) {
			weight[order_of(phi[i])] += phi[i];
			s->phi_total += phi[i];
		}
	for (unsigned k = 0; k < GDQ_ORDERS; k++) {
		struct gdq_mfq_client *c = &s->cli[k];
		uint64_t wp = weight[k] * s->P;
		uint64_t fl = s->phi_total ? wp / s->phi_total : 0;
		c->hatw = wp - fl * s->phi_total;       /* Sec. 2.2.1, hat phi */
		c->ceil = (unsigned)fl + (c->hatw != 0);
		/*
		 * The VFT sum over periods of constant weight (Sec. 2.2.1) is
		 * restarted at each change of mix: every group begins again at
		 * 1/hat phi, as at time 0.
		 */
		c->m = 1;
		c->alloc = 0;
	}
	/* Processes leave queues they no longer belong in. */
	for (unsigned i = 0; i < s->n; i++) {
		struct gdq_proc *p = &s->proc[i];
		if (!p->q)
			continue;
		unsigned idx = (unsigned)(p->q - s->grp[p->order].q);
		if (phi[i] != p->phi || idx >= s->cli[p->order].ceil)
			gdq_queue_remove(p);
	}
	for (unsigned k = 0; k < GDQ_ORDERS; k++) {
		struct gdq_group *g = &s->grp[k];
		unsigned nq = s->cli[k].ceil;
		uint64_t nv = 1;
		for (unsigned i = 0; i < g->nq && i < nq; i++)
			if (g->q[i].nv > nv)
				nv = g->q[i].nv;
		for (unsigned i = g->nq; i < nq; i++) {
			g->q[i].cur = 0;
			g->q[i].n = 0;
			g->q[i].weight = 0;
			g->q[i].nv = nv;
		}
		for (unsigned i = 0; i < s->P; i++)
			g->q[i].cpu = -1;
		g->nq = nq;
	}
	/* Arrivals go to the lightest queue of their group (Sec. 2.4). */
	for (unsigned i = 0; i < s->n; i++) {
		struct gdq_proc *p = &s->proc[i];
		if (!phi[i] || p->q)
			continue;
		p->phi = phi[i];
		p->order = order_of(phi[i]);
		struct gdq_group *g = &s->grp[p->order];
		struct gdq_queue *q = gdq_lightest_queue(g);
		gdq_group_add(g, q, p);
		/*
		 * The paper gives an arrival no NVT; we start it at the beginning
		 * of its queue's current round (NVT nv_Q - 1), as all processes
		 * are at time 0 in Appendix A.2.3, so it neither races ahead nor
		 * waits a whole round.
		 */
		p->nvn = (q->nv - 1) * p->phi;
	}
}

/*
 * Rebuilds the processor allocation after a change of mix (Sec. 2.4). We
 * deal processors afresh -- dedicated ones first (highest order first), then
 * the rest by MFQ -- instead of keeping each where it was: simpler, at the
 * cost of locality at the (rare) changes of mix.
 */
static void reallocate(struct gdq *s)
{
	unsigned cpu = 0;

	adjust_weights(s, s->phi);
	regroup(s, s->phi);
	for (unsigned j = 0; j < s->P; j++) {
		s->cpu_group[j] = -1;
		s->cpu_q[j] = 0;
		s->dedicated[j] = false;
		s->swap_to[j] = 0;
	}
	for (unsigned k = GDQ_ORDERS; k-- > 0;) {
		unsigned fl = s->cli[k].ceil - (s->cli[k].hatw != 0);
		for (unsigned d = 0; d < fl; d++, cpu++) {
			s->dedicated[cpu] = true;
			bind(s, cpu, k);
		}
	}
	for (; cpu < s->P; cpu++) {
		refresh_ready(s);
		int k = gdq_mfq_pick(s->cli, GDQ_ORDERS, -1);
		if (k >= 0)
			bind(s, cpu, (unsigned)k);
	}
	for (unsigned i = 0; i < s->n; i++)
		s->work0[i] = s->work[i];
	s->total0 = s->total;
}

static void *gdq_create(const struct sched_config *cfg,
			const struct sched_env *env, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	unsigned P = cfg->cpus, n = ts->ntasks;
	struct gdq *s = env->alloc(env->ctx, sizeof *s);

	s->P = P;
	s->n = n;
	s->ts = ts;
	uint64_t track;
	if (sched_param_in(cfg, "gdq_T", 20, 1, 1u << 30, &s->T, err) ||
	    sched_param_in(cfg, "gdq_delta", 4, 0, 1u << 30, &s->delta, err) ||
	    sched_param_in(cfg, "gdq_err", cfg->simulation != 0, 0, 1, &track,
			   err))
		return 0;
	s->track = track;
	s->proc = env->alloc(env->ctx, (n + 1) * sizeof *s->proc);
	s->state = env->alloc(env->ctx, n + 1);
	s->arrived = env->alloc(env->ctx, (n + 1) * sizeof *s->arrived);
	s->w0 = env->alloc(env->ctx, (n + 1) * sizeof *s->w0);
	s->phased = env->alloc(env->ctx, (n + 1) * sizeof *s->phased);
	s->phi = env->alloc(env->ctx, (n + 1) * sizeof *s->phi);
	s->work = env->alloc(env->ctx, (n + 1) * sizeof *s->work);
	s->work0 = env->alloc(env->ctx, (n + 1) * sizeof *s->work0);
#if SCHED_DEBUG
	s->ran_at = env->alloc(env->ctx, (n + 1) * sizeof *s->ran_at);
#endif
	for (unsigned k = 0; k < GDQ_ORDERS; k++) {
		s->grp[k].q = env->alloc(env->ctx, P * sizeof *s->grp[k].q);
		s->grp[k].delta = s->delta;
	}
	s->cpu_group = env->alloc(env->ctx, P * sizeof *s->cpu_group);
	s->cpu_q = env->alloc(env->ctx, P * sizeof *s->cpu_q);
	s->dedicated = env->alloc(env->ctx, P * sizeof *s->dedicated);
	s->next_mfq = env->alloc(env->ctx, P * sizeof *s->next_mfq);
	s->swap_to = env->alloc(env->ctx, P * sizeof *s->swap_to);
	for (unsigned j = 0; j < P; j++)
		s->next_mfq[j] = s->T + ceil_div_u64(j * s->T, P);
	for (unsigned i = 0; i < n; i++) {
		const struct task_spec *t = &ts->task[i];
		uint64_t w = t->weight;
		if (!w)
			w = (((uint64_t)t->e << GDQ_EP_SHIFT) + t->p / 2) / t->p;
		if (!w) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u): weight e/p = %u/%u rounds "
				     "to 0 in units of 2^-16", t->name, t->line,
				     t->e, t->p);
			return 0;
		}
		s->w0[i] = w;
		s->state[i] = PRESENT;
		s->arrived[i] = !t->phase;
		if (t->phase)
			s->phased[s->nphased++] = (uint64_t)t->phase << 32 | i;
	}
	sort_u64(s->phased, s->nphased);
	s->max_den = s->min_den = 1;
	reallocate(s);
	return s;
}

/* Service error (Sec. 3.1) since the last change of mix, times Phi_T. */
static int64_t error_num(const struct gdq *s, unsigned i)
{
	s128 e = (s128)(s->work[i] - s->work0[i]) * s->phi_total -
		 (s128)s->proc[i].phi * (s->total - s->total0);
	return (int64_t)e;
}

static void track_errors(struct gdq *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		if (!runnable(s, i))
			continue;
		int64_t e = error_num(s, i);
		if ((s128)e * s->max_den > (s128)s->max_num * s->phi_total) {
			s->max_num = e;
			s->max_den = s->phi_total;
		}
		if ((s128)e * s->min_den < (s128)s->min_num * s->phi_total) {
			s->min_num = e;
			s->min_den = s->phi_total;
		}
	}
}

/*
 * The tasks whose phase is t arrive: one change of mix for all of them. One
 * that joined earlier has arrived already; one that left or blocked before
 * its phase arrives gone or blocked, as its events say.
 */
static void start_phases(struct gdq *s, uint64_t t)
{
	bool changed = false;

	while (s->next_phased < s->nphased &&
	       s->phased[s->next_phased] >> 32 <= t) {
		unsigned i = (uint32_t)s->phased[s->next_phased++];
		changed |= !s->arrived[i] && s->state[i] == PRESENT;
		s->arrived[i] = true;
	}
	if (changed)
		reallocate(s);
}

/*
 * Which queue a group stalls when it loses processor cpu. REASSIGN stalls
 * cpu's own queue; we then also hand that queue to the processor on the
 * group's active queue of greatest NVT, which stalls that queue instead
 * when it next picks. Processors are interchangeable inside a group, and
 * otherwise a process alone in a queue whose processor happens to be
 * dedicated runs without a break while the group's other processes share
 * what is left: its error then grows without bound (e.g. weights 4, 7, 7
 * as one group on 3 processors), which Theorem 3.6's analysis of "almost
 * infeasible" processes does not cover. The exchange waits for the other
 * processor's own next pick so that nothing it ran in this slot can be
 * stolen from the stalled queue and run twice.
 */
static void plan_stall(struct gdq *s, unsigned cpu)
{
	struct gdq_queue *mine = s->cpu_q[cpu], *fast = mine;
	int k = s->cpu_group[cpu];

	if (!mine)
		return;
	for (unsigned j = 0; j < s->P; j++) {
		struct gdq_queue *q = s->cpu_q[j];
		if (j != cpu && s->cpu_group[j] == k && q && q->nv > fast->nv)
			fast = q;
	}
	if (fast != mine)
		s->swap_to[fast->cpu] = mine;
}

static void take_planned_stall(struct gdq *s, unsigned cpu)
{
	struct gdq_queue *q = s->swap_to[cpu], *mine = s->cpu_q[cpu];
	int k = s->cpu_group[cpu];

	s->swap_to[cpu] = 0;
	if (!q || !mine || q->cpu >= 0 || k < 0 ||
	    q < s->grp[k].q || q >= s->grp[k].q + s->grp[k].nq)
		return;
	mine->cpu = -1;
	q->cpu = (int)cpu;
	s->cpu_q[cpu] = q;
	if (!q->n)
		gdq_refill(&s->grp[k], q);
}

/*
 * MFQ(p_j) (Sec. 2.2.1); an idle processor looks for work every quantum.
 * A processor's times stay mT + ceil(jT/P) while it is dedicated too, so
 * that one the next change of mix frees waits for its own turn (with its
 * time left stale it would re-decide at once, off the paper's schedule).
 */
static void mfq(struct gdq *s, unsigned cpu, uint64_t t)
{
	bool due = t >= s->next_mfq[cpu];

	while (s->next_mfq[cpu] <= t)
		s->next_mfq[cpu] += s->T;
	if (s->dedicated[cpu] || (!due && s->cpu_group[cpu] >= 0))
		return;                                 /* MFQ lines 1-2 */
	refresh_ready(s);
	int from = s->cpu_group[cpu];
	int to = gdq_mfq_pick(s->cli, GDQ_ORDERS, from);   /* lines 3-7 */
	if (to != from) {                                   /* lines 8-9 */
		plan_stall(s, cpu);
		unbind(s, cpu);
		if (to >= 0)
			bind(s, cpu, (unsigned)to);
	}
}

static int gdq_schedule(void *st, unsigned cpu, uint64_t t)
{
	struct gdq *s = st;
	struct gdq_proc *p = 0;

	if (cpu == 0 && s->next_phased < s->nphased)
		start_phases(s, t);
	mfq(s, cpu, t);
	take_planned_stall(s, cpu);
	/*
	 * Sec. 2.4: a queue that empties and cannot be refilled hands its
	 * processor to another group by MFQ (or leaves it idle). Each group is
	 * tried at most once.
	 */
	for (unsigned tries = 0; tries <= GDQ_ORDERS; tries++) {
		int k = s->cpu_group[cpu];
		if (k < 0)
			break;
		if (s->cpu_q[cpu])
			p = gdq_intragroup(&s->grp[k], s->cpu_q[cpu]);
		if (p)
			break;
		unbind(s, cpu);
		refresh_ready(s);
		int to = gdq_mfq_pick(s->cli, GDQ_ORDERS, -1);
		if (to >= 0)
			bind(s, cpu, (unsigned)to);
	}
	int task = SCHED_IDLE;
	if (p) {
		task = (int)(p - s->proc);
		s->work[task]++;
		s->total++;
#if SCHED_DEBUG
		if (s->ran_at[task] == t + 1)
			__builtin_trap();       /* on two processors at once */
		s->ran_at[task] = t + 1;
#endif
	}
	if (cpu == s->P - 1 && s->track)
		track_errors(s);
	return task;
}

/* An event changes the mix (Sec. 2.4) only if it changes who is runnable:
 * a blocked task that leaves was out of the scheduler already. */
static void set_state(struct gdq *s, unsigned task, int to)
{
	bool was = runnable(s, task);

	s->state[task] = (unsigned char)to;
	if (runnable(s, task) != was)
		reallocate(s);
}

/* A join brings the task in at once, before its phase too. */
static int gdq_join(void *st, unsigned task, uint64_t t,
		    struct sched_error *err)
{
	struct gdq *s = st;
	(void)t;
	(void)err;
	if (s->state[task] == GONE) {
		s->arrived[task] = true;
		set_state(s, task, PRESENT);
	}
	return 0;
}

static void gdq_leave(void *st, unsigned task, uint64_t t)
{
	(void)t;
	set_state(st, task, GONE);
}

static void gdq_block(void *st, unsigned task, uint64_t t)
{
	struct gdq *s = st;
	(void)t;
	if (s->state[task] == PRESENT)
		set_state(s, task, BLOCKED);
}

static void gdq_wake(void *st, unsigned task, uint64_t t)
{
	struct gdq *s = st;
	(void)t;
	if (s->state[task] == BLOCKED)
		set_state(s, task, PRESENT);
}

static void gdq_stats(void *st, unsigned task, struct sched_task_stats *out)
{
	struct gdq *s = st;
	out->quanta = s->work[task];
	out->jobs = 0;
	out->misses = 0;
	out->max_tardiness_num = 0;
	out->tardiness_den = 1;
}

static void gdq_summary(void *st, sched_put_fn put, void *ctx)
{
	struct gdq *s = st;
	char key[TASKSET_NAME_MAX + 16];

	put(ctx, "gdq_T", (int64_t)s->T, 1);
	put(ctx, "gdq_delta", (int64_t)s->delta, 1);
	put(ctx, "weight_total", (int64_t)s->phi_total, 1);
	put(ctx, "adjusted", s->nadjusted, 1);
	if (s->track) {
		put(ctx, "max_error", s->max_num, (int64_t)s->max_den);
		put(ctx, "min_error", s->min_num, (int64_t)s->min_den);
	}
	for (unsigned k = 0; k < GDQ_ORDERS; k++) {
		const struct gdq_mfq_client *c = &s->cli[k];
		if (!c->ceil)
			continue;
		uint64_t fl = c->ceil - (c->hatw != 0);
		fmt_snprintf(key, sizeof key, "group%u_weight", k);
		put(ctx, key, (int64_t)((fl * s->phi_total + c->hatw) / s->P), 1);
		fmt_snprintf(key, sizeof key, "group%u_floor", k);
		put(ctx, key, (int64_t)fl, 1);
		fmt_snprintf(key, sizeof key, "group%u_ceil", k);
		put(ctx, key, c->ceil, 1);
	}
	/* Few tasks: their final weights and errors, by name. */
	for (unsigned i = 0; i < s->n && s->n <= 64; i++) {
		if (!runnable(s, i))
			continue;
		fmt_snprintf(key, sizeof key, "phi_%s", s->ts->task[i].name);
		put(ctx, key, (int64_t)s->proc[i].phi, 1);
		fmt_snprintf(key, sizeof key, "err_%s", s->ts->task[i].name);
		put(ctx, key, error_num(s, i), (int64_t)s->phi_total);
	}
}

/* "a/b" reduced, "a" when b divides a. */
static void ratio(char *buf, unsigned size, uint64_t num, uint64_t den)
{
	uint64_t g = gcd_u64(num, den);
	if (g > 1) {
		num /= g;
		den /= g;
	}
	if (den == 1)
		fmt_snprintf(buf, size, "%llu", (unsigned long long)num);
	else
		fmt_snprintf(buf, size, "%llu/%llu", (unsigned long long)num,
			     (unsigned long long)den);
}

/* Groups with queues, their queues with the processes in round-robin
 * order from C(Q), and the processors (format in docs/debugging.md). */
static void gdq_dump(void *p, sched_print_fn print, void *ctx)
{
	const struct gdq *s = p;
	char a[48];
	sched_report_line(print, ctx, "gdq P=%u T=%llu delta=%llu phi_total=%llu",
			  s->P, (unsigned long long)s->T,
			  (unsigned long long)s->delta,
			  (unsigned long long)s->phi_total);
	for (unsigned k = 0; k < GDQ_ORDERS; k++) {
		const struct gdq_group *g = &s->grp[k];
		const struct gdq_mfq_client *c = &s->cli[k];
		if (!g->nq)
			continue;
		/* VFT = m / (hatw / P) (mfq.h). */
		if (c->hatw)
			ratio(a, sizeof a, c->m * s->P, c->hatw);
		else
			fmt_snprintf(a, sizeof a, "none");
		sched_report_line(print, ctx, "gdq group %u queues=%u alloc=%u "
				  "ceil=%u ready=%d vft=%s", k, g->nq, c->alloc,
				  c->ceil, c->ready, a);
		for (unsigned i = 0; i < g->nq; i++) {
			const struct gdq_queue *q = &g->q[i];
			char cpu[12] = "-";
			if (q->cpu >= 0)
				fmt_snprintf(cpu, sizeof cpu, "%d", q->cpu);
			sched_report_line(print, ctx, "gdq queue %u.%u cpu=%s "
					  "nv=%llu weight=%llu n=%u", k, i, cpu,
					  (unsigned long long)q->nv,
					  (unsigned long long)q->weight, q->n);
			const struct gdq_proc *x = q->cur;
			for (unsigned j = 0; j < q->n; j++, x = x->next) {
				ratio(a, sizeof a, x->nvn, x->phi);
				sched_report_line(print, ctx, "gdq proc %u.%u %s "
						  "phi=%llu nvt=%s", k, i,
						  s->ts->task[x - s->proc].name,
						  (unsigned long long)x->phi, a);
			}
		}
	}
	for (unsigned j = 0; j < s->P; j++) {
		char grp[12] = "-", q[24] = "-";
		int k = s->cpu_group[j];
		if (k >= 0)
			fmt_snprintf(grp, sizeof grp, "%d", k);
		if (k >= 0 && s->cpu_q[j])
			fmt_snprintf(q, sizeof q, "%d.%u", k,
				     (unsigned)(s->cpu_q[j] - s->grp[k].q));
		sched_report_line(print, ctx, "gdq cpu %u group=%s queue=%s "
				  "dedicated=%d next_mfq=%llu", j, grp, q,
				  s->dedicated[j],
				  (unsigned long long)s->next_mfq[j]);
	}
}

static const char *const gdq_params[] = { "gdq_T", "gdq_delta", "gdq_err",
					  0 };

const struct sched_plugin gdq_plugin = {
	.name = "gdq",
	.params = gdq_params,
	.description = "Grouped Distributed Queues (proportional share)",
	.no_deadlines = 1,
	.create = gdq_create,
	.schedule = gdq_schedule,
	.join = gdq_join,
	.leave = gdq_leave,
	.block = gdq_block,
	.wake = gdq_wake,
	.stats = gdq_stats,
	.summary = gdq_summary,
	.dump = gdq_dump,
};
