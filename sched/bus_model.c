/*
 * sched/bus_model: the fluid round-robin bus of bus_model.h (staggered
 * Pfair, Sec. 5.1).
 */
#include "bus_model.h"

uint64_t bus_model_max_slots(unsigned cpus, uint64_t q_cycles)
{
	uint64_t per = q_cycles * cpus * BUS_MODEL_SUB;
	return per ? BUS_MODEL_MAX_UNITS / per : 0;
}

int bus_model_init(struct bus_model *b, unsigned cpus,
		   const struct taskset *ts, uint64_t lines, uint64_t q_cycles,
		   void *(*alloc)(void *ctx, size_t size), void *alloc_ctx)
{
	*b = (struct bus_model){ 0 };
	b->cpus = cpus;
	b->ntasks = ts->ntasks;
	b->unit = (uint64_t)cpus * BUS_MODEL_SUB;
	/* lines * unit * cpus (a burst's time at k = M) must fit. */
	if (!cpus || !q_cycles || q_cycles > BUS_MODEL_MAX_UNITS / b->unit ||
	    lines > BUS_MODEL_MAX_UNITS / b->unit / cpus) {
		b->err = "burst or quantum too long for the model's clock";
		return -1;
	}
	b->q = q_cycles * b->unit;
	b->burst = lines * b->unit;
	b->alone = (lines < q_cycles ? lines : q_cycles) * b->unit;
	b->job_quanta = alloc(alloc_ctx, sizeof(uint32_t) * (b->ntasks + 1));
	b->task = alloc(alloc_ctx, sizeof(*b->task) * (b->ntasks + 1));
	b->open = alloc(alloc_ctx, sizeof(*b->open) *
			(b->ntasks * BUS_MODEL_OPEN_JOBS + 1));
	b->cpu = alloc(alloc_ctx, sizeof(*b->cpu) * cpus);
	for (unsigned i = 0; i < b->ntasks; i++)
		b->job_quanta[i] = ts->task[i].e ? ts->task[i].e : 1;
	return 0;
}

uint64_t bus_model_boundary(const struct bus_model *b, uint64_t t, unsigned k,
			    int staggered)
{
	/* q / M is exact: q is a multiple of unit = M * BUS_MODEL_SUB. */
	return t * b->q + (staggered ? k * (b->q / b->cpus) : 0);
}

/* Counts job j of task i once all its quanta started and bursts ended. */
static void job_close(struct bus_model *b, unsigned i, struct bus_model_job *j)
{
	if (j->started < b->job_quanta[i] || j->open)
		return;
	struct bus_model_task *x = &b->task[i];
	x->jobs++;
	x->delay_total += j->delay;
	if (j->delay > x->delay_max)
		x->delay_max = j->delay;
	j->used = 0;
}

static struct bus_model_job *job_slot(struct bus_model *b, unsigned i,
				      uint64_t job)
{
	return &b->open[i * BUS_MODEL_OPEN_JOBS + job % BUS_MODEL_OPEN_JOBS];
}

/* CPU k's burst ends at time end, done or cut off. */
static void burst_end(struct bus_model *b, unsigned k, uint64_t end)
{
	struct bus_model_cpu *c = &b->cpu[k];
	struct bus_model_task *x = &b->task[c->task];
	uint64_t took = end - c->start, served = b->burst - c->rem;
	if (c->rem)
		x->cut++;
	x->served += served;
	x->wait += took - served;
	struct bus_model_job *j = job_slot(b, c->task, c->job);
	/* Alone it takes at least `alone`: rounding down progress only ever
	 * makes a burst longer, so took >= alone. */
	j->delay += took - b->alone;
	j->open--;
	c->busy = 0;
	job_close(b, c->task, j);
}

/*
 * Runs the bus to time until: between events the k pending bursts each
 * progress (time / k); an event is a burst done (rem reaches 0) or cut off
 * (its CPU's next boundary). Events at until itself are handled.
 */
static void advance(struct bus_model *b, uint64_t until)
{
	for (;;) {
		unsigned k = 0;
		uint64_t next = UINT64_MAX;
		for (unsigned c = 0; c < b->cpus; c++)
			if (b->cpu[c].busy)
				k++;
		if (!k)
			break;
		for (unsigned c = 0; c < b->cpus; c++) {
			const struct bus_model_cpu *p = &b->cpu[c];
			if (!p->busy)
				continue;
			uint64_t done = b->now + p->rem * k;
			uint64_t ev = done < p->cut_at ? done : p->cut_at;
			if (ev < next)
				next = ev;
		}
		uint64_t to = next < until ? next : until;
		uint64_t share = (to - b->now) / k;
		for (unsigned c = 0; c < b->cpus; c++) {
			struct bus_model_cpu *p = &b->cpu[c];
			if (!p->busy)
				continue;
			/* The burst that finishes exactly at `to` gets its
			 * whole remainder, whatever the rounding. */
			if (b->now + p->rem * k == to || p->rem < share)
				p->rem = 0;
			else
				p->rem -= share;
		}
		b->now = to;
		if (next > until)
			break;
		for (unsigned c = 0; c < b->cpus; c++) {
			struct bus_model_cpu *p = &b->cpu[c];
			if (p->busy && (!p->rem || p->cut_at == to))
				burst_end(b, c, to);
		}
	}
	if (until > b->now)
		b->now = until;
}

int bus_model_quantum(struct bus_model *b, uint64_t at, unsigned cpu,
		      int task, int reload)
{
	if (at < b->now || cpu >= b->cpus ||
	    (task >= 0 && (unsigned)task >= b->ntasks)) {
		b->err = "quantum start out of order or out of range";
		return -1;
	}
	advance(b, at);
	if (b->cpu[cpu].busy) {
		b->err = "quantum start inside the CPU's previous quantum";
		return -1;
	}
	if (task < 0)
		return 0;
	unsigned i = (unsigned)task;
	struct bus_model_task *x = &b->task[i];
	uint64_t job = x->quanta / b->job_quanta[i];
	x->quanta++;
	struct bus_model_job *j = job_slot(b, i, job);
	if (j->used && j->job != job) {
		/* A task's quanta do not overlap by more than one, so its
		 * bursts end long before this many jobs are open. */
		b->err = "too many open jobs of one task";
		return -1;
	}
	if (!j->used)
		*j = (struct bus_model_job){ .job = job, .used = 1 };
	j->started++;
	if (reload && b->burst) {
		struct bus_model_cpu *c = &b->cpu[cpu];
		*c = (struct bus_model_cpu){ .busy = 1, .task = i, .job = job,
					     .start = at, .cut_at = at + b->q,
					     .rem = b->burst };
		x->bursts++;
		j->open++;
	}
	job_close(b, i, j);
	return 0;
}

void bus_model_finish(struct bus_model *b)
{
	advance(b, UINT64_MAX);
}
