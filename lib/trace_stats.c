/* lib/trace_stats: derived numbers of a trace (docs/trace-format.md). */
#include "trace_stats.h"

#include "fmt.h"
#include "sort.h"

uint64_t trace_cycles_to_ns(uint64_t cycles, uint64_t tsc_khz)
{
	/* ns = cycles * 10^6 / kHz, split so the product cannot overflow. */
	return cycles / tsc_khz * 1000000 + cycles % tsc_khz * 1000000 / tsc_khz;
}

uint64_t trace_cycles_to_us(uint64_t cycles, uint64_t tsc_khz)
{
	return cycles / tsc_khz * 1000 + cycles % tsc_khz * 1000 / tsc_khz;
}

uint64_t trace_boundary(const struct trace_params *p, unsigned k, uint64_t t)
{
	/* Q/M cycles = quantum_us * kHz / (1000 M), kept as a whole part and
	 * a remainder so that n*Q/M is exact however large n grows (the
	 * quantum clock's own rule, kernel/time/quantum_clock.c). */
	uint64_t n = t * p->cpus + (p->staggered ? k : 0);
	uint64_t den = 1000 * (uint64_t)p->cpus;
	uint64_t whole = p->quantum_us * p->tsc_khz / den;
	uint64_t rem = p->quantum_us * p->tsc_khz % den;
	return p->t0 + n * whole + n * rem / den;
}

static const char *const overhead_names[TRACE_OVH_KINDS] = {
	[TRACE_OVH_TICK] = "tick",
	[TRACE_OVH_SCHED] = "sched",
	[TRACE_OVH_CXS] = "cxs",
	[TRACE_OVH_RELEASE] = "release",
	[TRACE_OVH_IPI] = "ipi",
};

const char *trace_overhead_name(enum trace_overhead_kind kind)
{
	return overhead_names[kind];
}

static uint64_t later_minus(uint64_t later, uint64_t earlier)
{
	/* Two clocks (an IPI's sender and receiver, the ideal time and the
	 * TSC) can disagree by a few cycles the wrong way: such a sample is
	 * no delay at all, not a huge unsigned one. */
	return later > earlier ? later - earlier : 0;
}

static int task_ok(const struct trace_params *p, uint32_t task)
{
	return task < p->ntasks || task == TRACE_NO_TASK;
}

/*
 * The records the schedule and run times use: cxs_end records naming a task
 * of the set (or none), each no earlier than the previous one kept on its
 * CPU. Anything else is damage and is left out of every number.
 */
struct cxs_walk {
	uint64_t last;
	int any;
};

static int cxs_end_kept(const struct trace_params *p, struct cxs_walk *w,
			const struct trace_rec *r)
{
	if (!task_ok(p, r->task) || (w->any && r->tsc < w->last))
		return 0;
	w->last = r->tsc;
	w->any = 1;
	return 1;
}

/* Pairs of start and end records, per CPU. */
static const struct {
	uint8_t start, end;
	enum trace_overhead_kind kind;
} pairs[] = {
	{ TRACE_TICK_START, TRACE_TICK_END, TRACE_OVH_TICK },
	{ TRACE_SCHED_START, TRACE_SCHED_END, TRACE_OVH_SCHED },
	{ TRACE_CXS_START, TRACE_CXS_END, TRACE_OVH_CXS },
};
#define NPAIRS (sizeof pairs / sizeof pairs[0])

/* Where a pass puts its samples: counts only (fill == 0), or counts and
 * values into arrays sized by an earlier counting pass. */
struct collect {
	int fill;
	struct trace_samples *ovh;      /* [TRACE_OVH_KINDS] */
	struct trace_samples *gaps;     /* this CPU's hourglass gaps */
	uint64_t ovh_max[TRACE_OVH_KINDS];
};

static void add(struct collect *c, struct trace_samples *s, uint64_t v,
		uint64_t *max, unsigned cpu)
{
	if (c->fill) {
		s->cycles[s->n] = v;
		/* CPUs are walked in order: the first to reach a maximum is
		 * the lowest one holding it. */
		if (s->n == 0 || v > *max) {
			*max = v;
			s->max_cpu = cpu;
		}
	}
	s->n++;
}

static void add_ovh(struct collect *c, enum trace_overhead_kind kind,
		    uint64_t v, unsigned cpu)
{
	add(c, &c->ovh[kind], v, &c->ovh_max[kind], cpu);
}

/*
 * One CPU's overhead and gap samples. An end closes the latest start of its
 * kind (starts of one kind never nest, so a second start means the first
 * lost its end); a gap in seq forgets every open start, since what closed
 * it may be among the missing records.
 */
static void walk_samples(const struct trace_params *p, struct collect *c,
			 unsigned cpu, const struct trace_rec *rec, uint32_t n)
{
	uint64_t open_at[NPAIRS] = { 0 };
	int open[NPAIRS] = { 0 };
	struct cxs_walk w = { 0, 0 };
	uint64_t gap_max = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct trace_rec *r = &rec[i];
		if (i && r->seq != rec[i - 1].seq + 1)
			for (unsigned j = 0; j < NPAIRS; j++)
				open[j] = 0;
		if (r->event == TRACE_CXS_END && !cxs_end_kept(p, &w, r))
			continue;
		for (unsigned j = 0; j < NPAIRS; j++) {
			if (r->event == pairs[j].start) {
				open[j] = 1;
				open_at[j] = r->tsc;
			} else if (r->event == pairs[j].end && open[j]) {
				open[j] = 0;
				add_ovh(c, pairs[j].kind,
					later_minus(r->tsc, open_at[j]), cpu);
			}
		}
		if (r->event == TRACE_RELEASE)
			add_ovh(c, TRACE_OVH_RELEASE, later_minus(r->tsc, r->arg),
				cpu);
		else if (r->event == TRACE_IPI_RECV)
			add_ovh(c, TRACE_OVH_IPI, later_minus(r->tsc, r->arg), cpu);
		else if (r->event == TRACE_HOURGLASS_GAP &&
			 r->flags == TRACE_F_GAP_PURE)
			add(c, c->gaps, later_minus(r->tsc, r->arg), &gap_max, cpu);
	}
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Per-task counts that need no pairing. */
static void walk_tasks(struct trace_stats *st, unsigned cpu,
		       const struct trace_rec *rec, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct trace_rec *r = &rec[i];
		if (r->event == TRACE_HOURGLASS_TOTAL) {
			st->hourglass[cpu].got_cycles =
				max_u64(st->hourglass[cpu].got_cycles, r->arg);
			continue;
		}
		if (r->task >= st->p.ntasks)
			continue;
		struct trace_task_stats *t = &st->task[r->task];
		switch (r->event) {
		case TRACE_COMPLETION:
			t->last_done_at = r->arg;
			if (r->flags == TRACE_F_DONE_BUDGET ||
			    r->flags == TRACE_F_DONE_SLEEP)
				t->jobs++;
			else if (r->flags == TRACE_F_DONE_DROPPED) {
				t->misses++;
				t->dropped++;
			}
			break;
		case TRACE_DEADLINE_MISS:
			/* finish() writes a miss right after its completion,
			 * on the same CPU. */
			if (st->p.slots &&
			    t->last_done_at >= trace_boundary(&st->p, 0,
							      st->p.slots))
				t->misses_at_end++;
			t->misses++;
			t->max_tardiness_cycles =
				max_u64(t->max_tardiness_cycles, r->arg);
			break;
		case TRACE_FAULT:
			t->faults++;
			break;
		case TRACE_SELF:
			/* The task's counter only grows: the largest report
			 * is its latest. */
			t->self_cycles = max_u64(t->self_cycles, r->arg);
			break;
		default:
			break;
		}
	}
}

/* Per-slot tallies while walking one CPU's intervals: how long each task
 * (index ntasks: idle) ran in the slot and the order of its latest
 * interval there, touched[] listing the ones the slot has seen. */
struct slot_tally {
	uint64_t *ran, *order;
	uint32_t *touched;
	unsigned ntouched;
};

static void tally(struct slot_tally *s, uint32_t who, uint64_t cycles,
		  uint64_t order)
{
	if (cycles == 0)
		return;
	if (s->ran[who] == 0)
		s->touched[s->ntouched++] = who;
	s->ran[who] += cycles;
	s->order[who] = order;
}

/* The slot's task: longest run, ties to the later interval; -1 when idle
 * won or nothing ran. Clears the tallies for the next slot. */
static int32_t slot_winner(struct slot_tally *s, uint32_t idle)
{
	uint32_t best = idle;
	uint64_t best_ran = 0, best_order = 0;
	for (unsigned i = 0; i < s->ntouched; i++) {
		uint32_t who = s->touched[i];
		if (s->ran[who] > best_ran ||
		    (s->ran[who] == best_ran && s->order[who] > best_order)) {
			best = who;
			best_ran = s->ran[who];
			best_order = s->order[who];
		}
		s->ran[who] = 0;
	}
	s->ntouched = 0;
	return best == idle ? -1 : (int32_t)best;
}

/* Overlap of [a0, a1) and [b0, b1). */
static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/*
 * One CPU's intervals: the kept cxs_end records cut its time into
 * intervals, each running its record's task until the next one (the last
 * until the run's end; idle before the first). Interval 0 is that idle
 * start; interval j >= 1 begins at record kept[j - 1]. All end at the run's
 * end at the latest.
 */
struct intervals {
	const struct trace_params *p;
	const struct trace_rec *rec;
	const uint32_t *kept;
	uint32_t nk;
};

static uint64_t iv_start(const struct intervals *v, uint32_t j)
{
	return j == 0 ? 0 : v->rec[v->kept[j - 1]].tsc;
}

static uint64_t iv_stop(const struct intervals *v, uint32_t j)
{
	if (j == v->nk)
		return v->p->end;
	uint64_t next = v->rec[v->kept[j]].tsc;
	return next < v->p->end ? next : v->p->end;
}

/* The task index, or ntasks for idle. */
static uint32_t iv_who(const struct intervals *v, uint32_t j)
{
	if (j == 0 || v->rec[v->kept[j - 1]].task == TRACE_NO_TASK)
		return v->p->ntasks;
	return v->rec[v->kept[j - 1]].task;
}

/*
 * One CPU's executed schedule and the tasks' run times. Interval starts
 * never decrease (cxs_end_kept), so one sweep over slots and intervals
 * together visits each interval once per slot it overlaps.
 */
static void walk_schedule(struct trace_stats *st, struct slot_tally *s,
			  uint32_t *kept, unsigned cpu,
			  const struct trace_rec *rec, uint32_t n)
{
	const struct trace_params *p = &st->p;
	struct cxs_walk w = { 0, 0 };
	struct intervals v = { p, rec, kept, 0 };
	for (uint32_t i = 0; i < n; i++)
		if (rec[i].event == TRACE_CXS_END && cxs_end_kept(p, &w, &rec[i]))
			kept[v.nk++] = i;
	for (uint32_t j = 1; j <= v.nk; j++) {
		uint32_t who = iv_who(&v, j);
		if (who != p->ntasks)
			st->task[who].ran_cycles +=
				later_minus(iv_stop(&v, j), iv_start(&v, j));
	}
	uint32_t j = 0;
	for (uint64_t t = 0; t < p->slots; t++) {
		uint64_t b0 = trace_boundary(p, cpu, t);
		uint64_t b1 = trace_boundary(p, cpu, t + 1);
		while (j < v.nk && iv_stop(&v, j) <= b0)
			j++;
		for (uint32_t i = j; i <= v.nk && iv_start(&v, i) < b1; i++)
			tally(s, iv_who(&v, i),
			      overlap(iv_start(&v, i), iv_stop(&v, i), b0, b1), i);
		st->schedule[t * p->cpus + cpu] = slot_winner(s, p->ntasks);
	}
}

static void summarise(struct trace_samples *s, uint64_t tsc_khz)
{
	sort_u64(s->cycles, s->n);
	if (s->n == 0)
		return;
	/* Nearest rank below, docs/trace-format.md: sorted[(n - 1) * q / 100]. */
	s->p50_ns = trace_cycles_to_ns(s->cycles[(s->n - 1) * 50 / 100], tsc_khz);
	s->p99_ns = trace_cycles_to_ns(s->cycles[(s->n - 1) * 99 / 100], tsc_khz);
	s->max_ns = trace_cycles_to_ns(s->cycles[s->n - 1], tsc_khz);
}

/* An array of count items; never a zero-sized request. */
static void *alloc_n(trace_alloc_fn alloc, void *ctx, uint64_t count,
		     size_t size)
{
	return alloc(ctx, (count ? count : 1) * size);
}

static int alloc_samples(struct trace_samples *s, trace_alloc_fn alloc,
			 void *ctx)
{
	s->cycles = alloc_n(alloc, ctx, s->n, sizeof *s->cycles);
	s->n = 0;
	return s->cycles ? 0 : -1;
}

/*
 * Short jobs. Each task's intervals (as for ran_us) and completion records,
 * gathered from every CPU into a bucket per task, intervals by start and
 * completions by job; a job ran what its task's intervals hold between the
 * previous completion of the task (the epoch for the first) and its own.
 */
struct job_span {
	uint64_t key, a, b;     /* interval: start, start, stop; completion:
				 * job, its time, its flags */
};

static int span_before(const struct job_span *x, const struct job_span *y)
{
	return x->key != y->key ? x->key < y->key : x->a < y->a;
}

/* Heapsort of v[0..n) by (key, a). */
static void sort_spans(struct job_span *v, size_t n)
{
	for (size_t end = n, start = n / 2; end > 1;) {
		size_t root;
		if (start > 0) {
			root = --start;
		} else {
			struct job_span t = v[0];
			v[0] = v[--end];
			v[end] = t;
			root = 0;
		}
		for (size_t child; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end && span_before(&v[child], &v[child + 1]))
				child++;
			if (!span_before(&v[root], &v[child]))
				break;
			struct job_span t = v[root];
			v[root] = v[child];
			v[child] = t;
		}
	}
}

struct buckets {
	struct job_span *item;
	uint64_t *at;           /* ntasks + 1 offsets */
};

/* Calls put(ctx, task, span) for every interval of a task (iv != 0) or
 * every completion record (iv == 0) of CPU k. */
typedef void (*span_fn)(void *ctx, uint32_t task, const struct job_span *s);

static void cpu_spans(const struct trace_params *p, const struct trace_rec *rec,
		      uint32_t n, int iv, span_fn put, void *ctx)
{
	struct cxs_walk w = { 0, 0 };
	uint32_t prev = 0;
	int have = 0;
	for (uint32_t i = 0; i <= n; i++) {
		int cut = i == n;
		if (!cut && rec[i].event == TRACE_CXS_END)
			cut = cxs_end_kept(p, &w, &rec[i]);
		if (!iv && i < n && rec[i].event == TRACE_COMPLETION &&
		    rec[i].task < p->ntasks) {
			struct job_span s = { rec[i].job, rec[i].arg, rec[i].flags };
			put(ctx, rec[i].task, &s);
		}
		if (!iv || !cut)
			continue;
		if (have && rec[prev].task < p->ntasks) {
			uint64_t start = rec[prev].tsc;
			uint64_t stop = i < n && rec[i].tsc < p->end ? rec[i].tsc
								      : p->end;
			struct job_span s = { start, start, stop };
			if (stop > start)
				put(ctx, rec[prev].task, &s);
		}
		prev = i;
		have = i < n;
	}
}

static void count_span(void *ctx, uint32_t task, const struct job_span *s)
{
	(void)s;
	((struct buckets *)ctx)->at[task + 1]++;
}

static void place_span(void *ctx, uint32_t task, const struct job_span *s)
{
	struct buckets *b = ctx;
	b->item[b->at[task]++] = *s;
}

/* Fills b with every CPU's intervals (iv) or completions, by task. */
static int gather(struct buckets *b, const struct trace_params *p,
		  const struct trace_rec *const *rec, const uint32_t *n,
		  int iv, trace_alloc_fn alloc, void *ctx)
{
	b->at = alloc_n(alloc, ctx, p->ntasks + 1, sizeof *b->at);
	if (!b->at)
		return -1;
	for (unsigned k = 0; k < p->cpus; k++)
		cpu_spans(p, rec[k], n[k], iv, count_span, b);
	for (unsigned i = 0; i < p->ntasks; i++)
		b->at[i + 1] += b->at[i];
	b->item = alloc_n(alloc, ctx, b->at[p->ntasks], sizeof *b->item);
	if (!b->item)
		return -1;
	for (unsigned k = 0; k < p->cpus; k++)
		cpu_spans(p, rec[k], n[k], iv, place_span, b);
	/* place_span moved each offset to the next bucket's start. */
	for (unsigned i = p->ntasks; i > 0; i--)
		b->at[i] = b->at[i - 1];
	b->at[0] = 0;
	for (unsigned i = 0; i < p->ntasks; i++)
		sort_spans(b->item + b->at[i], b->at[i + 1] - b->at[i]);
	return 0;
}

/* Short jobs of task t, whose intervals are iv[0..niv) and completions
 * done[0..ndone), both sorted. */
static uint64_t short_jobs(const struct trace_params *p, uint32_t e,
			   const struct job_span *iv, uint64_t niv,
			   const struct job_span *done, uint64_t ndone)
{
	/* e * Q * kHz / 1000 cycles, in 128 bits (e may be up to 2^31
	 * quanta, lib/taskset) and without a 128-bit division, which the
	 * kernel has no library for. */
	typedef unsigned __int128 u128;
	uint64_t q = p->quantum_us * p->tsc_khz;
	u128 budget = (u128)e * (q / 1000) + (uint64_t)e * (q % 1000) / 1000;
	uint64_t shorts = 0, lo = p->t0, i = 0;
	for (uint64_t d = 0; d < ndone; d++) {
		uint64_t hi = done[d].a, ran = 0;
		while (i < niv && iv[i].b <= lo)
			i++;
		for (uint64_t j = i; j < niv && iv[j].a < hi; j++)
			ran += overlap(iv[j].a, iv[j].b, lo, hi);
		if (done[d].b == TRACE_F_DONE_BUDGET &&
		    (u128)ran * TRACE_SHORT_DEN < budget * TRACE_SHORT_NUM)
			shorts++;
		lo = hi > lo ? hi : lo;
	}
	return shorts;
}

static int count_short(struct trace_stats *st, const struct trace_params *p,
		       const struct trace_rec *const *rec, const uint32_t *n,
		       const uint32_t *budget, trace_alloc_fn alloc, void *ctx)
{
	struct buckets iv, done;
	if (gather(&iv, p, rec, n, 1, alloc, ctx) ||
	    gather(&done, p, rec, n, 0, alloc, ctx))
		return -1;
	for (unsigned t = 0; t < p->ntasks; t++) {
		if (!budget[t])
			continue;
		uint64_t s = short_jobs(p, budget[t], iv.item + iv.at[t],
					iv.at[t + 1] - iv.at[t],
					done.item + done.at[t],
					done.at[t + 1] - done.at[t]);
		st->task[t].short_jobs = s;
		st->task[t].jobs -= s;
	}
	return 0;
}

int trace_stats_compute(struct trace_stats *st, const struct trace_params *p,
			const struct trace_rec *const *rec, const uint32_t *n,
			const uint32_t *budget, trace_alloc_fn alloc,
			void *alloc_ctx)
{
	*st = (struct trace_stats){ .p = *p };
	if (p->cpus == 0 || p->tsc_khz == 0)
		return -1;
	uint32_t most = 0;
	for (unsigned k = 0; k < p->cpus; k++)
		most = n[k] > most ? n[k] : most;
	st->schedule = alloc_n(alloc, alloc_ctx, p->slots * p->cpus,
			       sizeof *st->schedule);
	st->task = alloc_n(alloc, alloc_ctx, p->ntasks, sizeof *st->task);
	st->hourglass = alloc_n(alloc, alloc_ctx, p->cpus, sizeof *st->hourglass);
	/* Tallies have one more entry than tasks: idle. */
	struct slot_tally s = {
		alloc_n(alloc, alloc_ctx, p->ntasks + 1, sizeof *s.ran),
		alloc_n(alloc, alloc_ctx, p->ntasks + 1, sizeof *s.order),
		alloc_n(alloc, alloc_ctx, p->ntasks + 1, sizeof *s.touched), 0
	};
	uint32_t *kept = alloc_n(alloc, alloc_ctx, most, sizeof *kept);
	if (!st->schedule || !st->task || !st->hourglass || !s.ran ||
	    !s.order || !s.touched || !kept)
		return -1;

	struct collect c = { .fill = 0, .ovh = st->overhead };
	for (unsigned k = 0; k < p->cpus; k++) {
		c.gaps = &st->hourglass[k].gaps;
		walk_samples(p, &c, k, rec[k], n[k]);
	}
	for (unsigned i = 0; i < TRACE_OVH_KINDS; i++)
		if (alloc_samples(&st->overhead[i], alloc, alloc_ctx))
			return -1;
	for (unsigned k = 0; k < p->cpus; k++)
		if (alloc_samples(&st->hourglass[k].gaps, alloc, alloc_ctx))
			return -1;
	c.fill = 1;
	for (unsigned k = 0; k < p->cpus; k++) {
		c.gaps = &st->hourglass[k].gaps;
		walk_samples(p, &c, k, rec[k], n[k]);
		summarise(c.gaps, p->tsc_khz);
		walk_tasks(st, k, rec[k], n[k]);
		walk_schedule(st, &s, kept, k, rec[k], n[k]);
	}
	for (unsigned i = 0; i < TRACE_OVH_KINDS; i++)
		summarise(&st->overhead[i], p->tsc_khz);
	if (budget && count_short(st, p, rec, n, budget, alloc, alloc_ctx))
		return -1;
	return 0;
}

int trace_stats_overhead_line(char *buf, size_t size,
			      const struct trace_stats *st,
			      enum trace_overhead_kind kind)
{
	const struct trace_samples *s = &st->overhead[kind];
	return fmt_snprintf(buf, size, "RESULT overhead event=%s n=%zu "
			    "p50_ns=%llu p99_ns=%llu max_ns=%llu max_cpu=%u",
			    overhead_names[kind], s->n,
			    (unsigned long long)s->p50_ns,
			    (unsigned long long)s->p99_ns,
			    (unsigned long long)s->max_ns, s->max_cpu);
}

int trace_stats_hourglass_line(char *buf, size_t size,
			       const struct trace_stats *st, unsigned cpu)
{
	const struct trace_hourglass *h = &st->hourglass[cpu];
	return fmt_snprintf(buf, size, "RESULT hourglass cpu=%u gaps=%zu "
			    "gap_p50_ns=%llu gap_max_ns=%llu got_us=%llu", cpu,
			    h->gaps.n, (unsigned long long)h->gaps.p50_ns,
			    (unsigned long long)h->gaps.max_ns,
			    (unsigned long long)trace_cycles_to_us(h->got_cycles,
								   st->p.tsc_khz));
}

int trace_stats_task_keys(char *buf, size_t size, const struct trace_stats *st,
			  unsigned task)
{
	const struct trace_task_stats *t = &st->task[task];
	uint64_t khz = st->p.tsc_khz;
	return fmt_snprintf(buf, size, "jobs=%llu short=%llu misses=%llu "
			    "max_tardiness_us=%llu ran_us=%llu self_us=%llu "
			    "faults=%llu", (unsigned long long)t->jobs,
			    (unsigned long long)t->short_jobs,
			    (unsigned long long)t->misses,
			    (unsigned long long)trace_cycles_to_us(
				    t->max_tardiness_cycles, khz),
			    (unsigned long long)trace_cycles_to_us(t->ran_cycles,
								   khz),
			    (unsigned long long)trace_cycles_to_us(t->self_cycles,
								   khz),
			    (unsigned long long)t->faults);
}
