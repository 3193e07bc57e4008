/* sched/pfair/spd2: staggered Pfair, Figs. 5 and 7. */
#include "spd2.h"

#include "../report.h"
#include "pfair.h"
#include "pfair_selq.h"

struct spd2 {
	struct pfair pf;          /* Eligible and Incoming are pf.q */
	int64_t t;
	unsigned sched_count;
	struct pfair_task **running;
	struct pfair_selq sel[4];
	struct pfair_selq *sched_now, *resched_now, *sched_next, *resched_next;
};

/* Set membership in O(1) (Sec. 3.1): sel_slot says which pair of heaps. */
static bool in_next(const struct spd2 *s, const struct pfair_task *x)
{
	return x->sel_slot == s->t + 1;
}

static bool in_now(const struct spd2 *s, const struct pfair_task *x)
{
	return x->sel_slot == s->t;
}

#if SCHED_DEBUG
#include <stdio.h>
#include <stdlib.h>

/* I1 or I2 (Sec. 3.2) must hold after every procedure. */
static void check_invariants(struct spd2 *s, const char *where)
{
	size_t next = pfair_selq_size(s->sched_next) +
		      pfair_selq_size(s->resched_next);
	size_t elig = heap_size(&s->pf.q.eligible);
	bool ok;
	if (next == s->sched_count) {
		struct heap_node *top = heap_peek(&s->pf.q.eligible);
		struct pfair_task *a = pfair_selq_peek(s->sched_next);
		struct pfair_task *b = pfair_selq_peek(s->resched_next);
		ok = true;
		if (top && a)
			ok = ok && pfair_higher(a, pfair_task_of(top));
		if (top && b)
			ok = ok && pfair_higher(b, pfair_task_of(top));
	} else {
		ok = next < s->sched_count && elig == 0;
	}
	if (!ok) {
		fprintf(stderr, "spd2: I1/I2 violated after %s at t=%lld "
			"(|Next|=%zu, SchedCount=%u, |Eligible|=%zu)\n", where,
			(long long)s->t, next, s->sched_count, elig);
		abort();
	}
}
#define CHECK_INVARIANTS(s, where) check_invariants(s, where)
#else
#define CHECK_INVARIANTS(s, where) ((void)0)
#endif

/*
 * Fig. 5 lines 4-6. "T in S_t" is read as: T was granted a processor in
 * slot t. That is what back-to-back safety needs, and it differs from
 * "selected for slot t" only when Deactivate nullified the selection
 * (Fig. 7 line 37), in which case T does not run in t and may take any CPU.
 */
static void select_task(struct spd2 *s, struct pfair_task *x)
{
	x->sel_slot = s->t + 1;
	x->resched = x->ran_slot == s->t;
	pfair_selq_insert(x->resched ? s->resched_next : s->sched_next, x);
}

static void spd2_activate(struct pfair *pf, struct pfair_task *x);
static void spd2_deactivate(struct pfair *pf, struct pfair_task *x);
static const struct pfair_ops spd2_ops = { spd2_activate, spd2_deactivate };

/* Fig. 5 lines 1-3 (Incoming[0] is already in Eligible: pfair_init). */
static void initialize(struct spd2 *s)
{
	struct pfair_task *x;
	while (pfair_selq_size(s->sched_next) < s->pf.m &&
	       (x = pfair_queue_extract(&s->pf.q)))
		select_task(s, x);
	CHECK_INVARIANTS(s, "Initialize");
}

static void *spd2_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	struct spd2 *s = env->alloc(env->ctx, sizeof *s);
	if (!pfair_init(&s->pf, cfg, env, &spd2_ops, err))
		return NULL;
	s->t = -1;
	s->sched_count = cfg->cpus;
	s->running = env->alloc(env->ctx, cfg->cpus * sizeof *s->running);
	struct pfair_task **slots = env->alloc(env->ctx,
					       4 * cfg->cpus * sizeof *slots);
	for (unsigned i = 0; i < 4; i++)
		pfair_selq_init(&s->sel[i], slots + i * cfg->cpus);
	s->sched_now = &s->sel[0];
	s->resched_now = &s->sel[1];
	s->sched_next = &s->sel[2];
	s->resched_next = &s->sel[3];
	s->pf.next_slot = 0;
	initialize(s);
	return s;
}

/* Fig. 5, Schedule(p). */
static int spd2_schedule(void *p, unsigned cpu, uint64_t slot)
{
	struct spd2 *s = p;
	struct pfair *pf = &s->pf;
	struct pfair_task *x;

	if (s->sched_count == pf->m) {                        /* line 7 */
		/* Deferred events take effect "within slot t" (Fig. 7). */
		pfair_tick(pf, (uint64_t)(s->t + 1));
		s->t++;                                        /* line 8 */
		pfair_queue_advance(&pf->q, (uint64_t)s->t + 1); /* line 9 */
		pfair_selq_swap(s->sched_now, s->sched_next);  /* line 10 */
		pfair_selq_swap(s->resched_now, s->resched_next); /* 11 */
		pf->next_slot = (uint64_t)s->t + 1;
	}
#if SCHED_DEBUG
	if ((int64_t)slot != s->t || cpu != s->sched_count % pf->m) {
		fprintf(stderr, "spd2: Schedule(%u) for slot %llu out of "
			"order (at slot %lld, call %u)\n", cpu,
			(unsigned long long)slot, (long long)s->t,
			s->sched_count % pf->m);
		abort();
	}
#else
	(void)slot;
#endif
	x = s->running[cpu];
	if (x && in_now(s, x) && x->resched) {                 /* line 12 */
		pfair_selq_delete(s->resched_now, x);          /* lines 13-14 */
	} else if (pfair_selq_size(s->sched_now) > 0) {        /* line 15 */
		x = pfair_selq_extract(s->sched_now);          /* line 16 */
	} else {
		x = NULL;                                      /* line 17 */
	}
	s->running[cpu] = x;                                   /* line 18 */
	if (x) {                                               /* line 19 */
		x->sel_slot = PFAIR_NO_SLOT;
		pfair_ran(pf, x, (uint64_t)s->t, cpu);         /* lines 20-23 */
	}
	if ((x = pfair_queue_extract(&pf->q)))                 /* line 24 */
		select_task(s, x);                             /* line 25 */
	/* line 26, SchedCount := (SchedCount mod M) + 1, without a division */
	s->sched_count = s->sched_count == pf->m ? 1 : s->sched_count + 1;
	CHECK_INVARIANTS(s, "Schedule");
	return s->running[cpu] ? (int)s->running[cpu]->id : SCHED_IDLE;
}

/* Fig. 7, Deactivate(T). */
static void spd2_deactivate(struct pfair *pf, struct pfair_task *x)
{
	struct spd2 *s = (struct spd2 *)pf;
	struct pfair_task *y;
	if (in_next(s, x)) {                                   /* line 27 */
		pfair_selq_delete(x->resched ? s->resched_next : s->sched_next,
				  x);                          /* lines 28-30 */
		x->sel_slot = PFAIR_NO_SLOT;
		if ((y = pfair_queue_extract(&pf->q)))         /* line 31 */
			select_task(s, y);                     /* line 32 */
	} else if (in_now(s, x)) {                             /* line 33 */
		pfair_selq_delete(x->resched ? s->resched_now : s->sched_now,
				  x);                          /* lines 34-36 */
		x->sel_slot = PFAIR_NO_SLOT;
		/* Charged for the quantum it was promised (line 37). */
		pfair_charge(pf, x, (uint64_t)s->t, 0, false);
	} else if (x->queued) {
		pfair_queue_remove(&pf->q, x);                 /* lines 38-40 */
	}
	CHECK_INVARIANTS(s, "Deactivate");
}

/* Fig. 7, Activate(T). */
static void spd2_activate(struct pfair *pf, struct pfair_task *x)
{
	struct spd2 *s = (struct spd2 *)pf;
	if (x->elig <= (uint64_t)(s->t + 1)) {                 /* line 41 */
		size_t next = pfair_selq_size(s->sched_next) +
			      pfair_selq_size(s->resched_next);
		if (next < s->sched_count) {                   /* line 42 */
			select_task(s, x);                     /* line 43 */
		} else {
			/* H: the Next heap holding the lowest-priority task. */
			struct pfair_task *a = pfair_selq_peek(s->sched_next);
			struct pfair_task *b = pfair_selq_peek(s->resched_next);
			struct pfair_selq *h = !a || (b && pfair_higher(a, b))
					       ? s->resched_next
					       : s->sched_next; /* lines 44-46 */
			if (pfair_higher(x, pfair_selq_peek(h))) { /* line 47 */
				select_task(s, x);             /* line 48 */
				x = pfair_selq_extract(h);     /* line 49 */
				x->sel_slot = PFAIR_NO_SLOT;
			}
			pfair_queue_put(&pf->q, x);            /* line 50 */
		}
	} else {
		pfair_queue_put(&pf->q, x);                    /* line 51 */
	}
	CHECK_INVARIANTS(s, "Activate");
}

#if SCHED_DEBUG
const char *spd2_where_name(enum spd2_where w)
{
	static const char *const names[] = {
		"none", "SchedNow", "ReschedNow", "SchedNext", "ReschedNext",
		"Eligible", "Incoming",
	};
	return names[w];
}

enum spd2_where spd2_where(void *p, unsigned task)
{
	struct spd2 *s = p;
	const struct pfair_task *x = &s->pf.task[task];
	if (in_next(s, x))
		return x->resched ? SPD2_RESCHED_NEXT : SPD2_SCHED_NEXT;
	if (in_now(s, x))
		return x->resched ? SPD2_RESCHED_NOW : SPD2_SCHED_NOW;
	if (!x->queued)
		return SPD2_NONE;
	return !x->far && x->elig <= s->pf.q.h ? SPD2_ELIGIBLE : SPD2_INCOMING;
}

uint64_t spd2_incoming_slot(void *p, unsigned task)
{
	struct spd2 *s = p;
	return s->pf.task[task].elig;
}
#endif

/* Fig. 5's heaps by the O(1) membership test of Sec. 3.1, not by walking
 * them: GDB's `rtk pfair` walks them, and the tests compare the two. */
struct spd2_heap {
	const struct spd2 *s;
	bool next, resched;
};

static bool in_heap(const struct pfair_task *x, const void *arg)
{
	const struct spd2_heap *h = arg;
	return (h->next ? in_next(h->s, x) : in_now(h->s, x)) &&
	       x->resched == h->resched;
}

static void spd2_dump(void *p, sched_print_fn print, void *ctx)
{
	const struct spd2 *s = p;
	const struct pfair *pf = &s->pf;
	static const char *const names[] = {
		"SchedNow", "ReschedNow", "SchedNext", "ReschedNext",
	};
	sched_report_line(print, ctx, "pfair spd2 t=%lld sched_count=%u "
			  "horizon=%llu", (long long)s->t, s->sched_count,
			  (unsigned long long)pf->q.h);
	for (unsigned i = 0; i < 4; i++) {
		struct spd2_heap h = { s, i >= 2, i & 1 };
		pfair_dump_set(pf, names[i], in_heap, &h, print, ctx);
	}
	for (unsigned k = 0; k < pf->m; k++)
		sched_report_line(print, ctx, "pfair cpu %u %s", k,
				  s->running[k] ?
				  pf->ts->task[s->running[k]->id].name : "-");
	pfair_dump(pf, print, ctx);
}

const struct sched_plugin spd2 = {
	.name = "spd2",
	.description = "staggered Pfair: distributed PD2, each CPU schedules "
		       "itself in O(log N) (Figs. 5 and 7)",
	.staggered = 1,
	.ordered = 1,
	.create = spd2_create,
	.schedule = spd2_schedule,
	.dump = spd2_dump,
	PFAIR_PLUGIN_EVENTS,
};
