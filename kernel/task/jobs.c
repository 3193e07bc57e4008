/* kernel/task/jobs: releases, completions and misses from what ran. */
#include "jobs.h"

#include "../../lib/trace_rec.h"
#include "../time/quantum_clock.h"
#include "task.h"
#include "../trace/trace.h"

static struct {
	struct task *tasks;
	unsigned n;
	const struct taskset *ts;
	/* The release queue, by next release slot. Lock order: this lock,
	 * then a task's. */
	struct heap releases;
	struct spinlock lock;
} jb;

uint64_t jobs_slot_time(uint64_t r)
{
	return qclock_ideal(0, r);
}

uint64_t jobs_release_slot(const struct task *t, uint64_t j)
{
	const struct task_jobs *s = &t->jobs;
	return s->anchor_slot + (j - s->anchor_job) * t->spec->p;
}

uint64_t jobs_deadline_slot(const struct task *t, uint64_t j)
{
	return jobs_release_slot(t, j) + t->spec->d;
}

static uint64_t next_release(const struct task *t)
{
	return jobs_release_slot(t, t->jobs.released);
}

static bool release_before(const struct heap_node *a,
			   const struct heap_node *b)
{
	const struct task *x = (const struct task *)((const char *)a -
		__builtin_offsetof(struct task, jobs.node));
	const struct task *y = (const struct task *)((const char *)b -
		__builtin_offsetof(struct task, jobs.node));
	uint64_t rx = next_release(x), ry = next_release(y);
	return rx != ry ? rx < ry : x->index < y->index;
}

static struct task *of(struct heap_node *n)
{
	return (struct task *)((char *)n -
			       __builtin_offsetof(struct task, jobs.node));
}

static void enqueue(struct task *t)
{
	struct task_jobs *s = &t->jobs;
	if (s->periodic && s->present && !s->blocked && !s->queued) {
		heap_insert(&jb.releases, &s->node);
		s->queued = 1;
	}
}

static void dequeue(struct task *t)
{
	if (t->jobs.queued) {
		heap_delete(&jb.releases, &t->jobs.node);
		t->jobs.queued = 0;
	}
}

void jobs_setup(const struct taskset *ts, struct task *all, unsigned n)
{
	jb.ts = ts;
	jb.tasks = all;
	jb.n = n;
	jb.lock.locked = 0;
	heap_init(&jb.releases, release_before);
	for (unsigned i = 0; i < n; i++) {
		struct task *t = &all[i];
		struct task_jobs *s = &t->jobs;
		*s = (struct task_jobs){ 0 };
		s->periodic = t->spec->p > 0;
		s->present = 1;
		s->anchor_slot = t->spec->phase;
		enqueue(t);
	}
}

/* Jobs `done` up to `released` end unfinished: dropped, each a miss when
 * counted (a wake after the deadline), else quietly (a leave). */
static void drop_unfinished(struct task *t, int counted)
{
	struct task_jobs *s = &t->jobs;
	for (; s->done < s->released; s->done++)
		if (counted)
			trace_emit(TRACE_COMPLETION, TRACE_F_DONE_DROPPED,
				   (uint32_t)t->index, (uint32_t)s->done,
				   qclock_now());
	s->ran = 0;
}

/* With jb.lock held. */
static void event(struct task *t, enum taskset_action a, uint64_t w)
{
	struct task_jobs *s = &t->jobs;
	spin_lock(&s->lock);
	switch (a) {
	case TASKSET_BLOCK:
		s->blocked = 1;
		dequeue(t);
		trace_emit(TRACE_BLOCK, 0, (uint32_t)t->index, 0, w);
		break;
	case TASKSET_WAKE:
		s->blocked = 0;
		if (s->periodic &&
		    ((s->done < s->released &&
		      jobs_deadline_slot(t, s->done) <= w) ||
		     next_release(t) < w)) {
			drop_unfinished(t, 1);
			s->anchor_job = s->released;
			s->anchor_slot = w;
		}
		enqueue(t);
		trace_emit(TRACE_WAKE, 0, (uint32_t)t->index, 0, w);
		break;
	case TASKSET_LEAVE:
		s->present = 0;
		dequeue(t);
		drop_unfinished(t, 0);
		trace_emit(TRACE_LEAVE, 0, (uint32_t)t->index, 0, w);
		break;
	case TASKSET_JOIN:
		s->present = 1;
		s->blocked = 0;
		if (s->periodic && next_release(t) < w) {
			s->anchor_job = s->released;
			s->anchor_slot = w;
		}
		enqueue(t);
		trace_emit(TRACE_JOIN, 0, (uint32_t)t->index, 0, w);
		break;
	case TASKSET_ARRIVE:    /* a server's job: not a periodic release */
		break;
	}
	spin_unlock(&s->lock);
}

void jobs_boundary(uint64_t t, unsigned *next_event)
{
	uint64_t flags = spin_lock_irqsave(&jb.lock);
	struct heap_node *n;
	while ((n = heap_peek(&jb.releases)) && next_release(of(n)) <= t) {
		struct task *k = of(heap_extract(&jb.releases));
		struct task_jobs *s = &k->jobs;
		spin_lock(&s->lock);
		trace_emit(TRACE_RELEASE, 0, (uint32_t)k->index,
			   (uint32_t)s->released,
			   jobs_slot_time(next_release(k)));
		s->released++;
		s->queued = 0;
		enqueue(k);
		spin_unlock(&s->lock);
	}
	const struct taskset *ts = jb.ts;
	while (*next_event < ts->nevents && ts->event[*next_event].t <= t) {
		const struct taskset_event *ev = &ts->event[(*next_event)++];
		event(&jb.tasks[ev->task], ev->action, ev->t);
	}
	spin_unlock_irqrestore(&jb.lock, flags);
}

/* Job `done` of t ends at `when`: a completion, and a miss if late. */
static void finish(struct task *t, unsigned flag, uint64_t when)
{
	struct task_jobs *s = &t->jobs;
	trace_emit(TRACE_COMPLETION, (uint8_t)flag, (uint32_t)t->index,
		   (uint32_t)s->done, when);
	uint64_t due = jobs_slot_time(jobs_deadline_slot(t, s->done));
	if (when > due)
		trace_emit(TRACE_DEADLINE_MISS, 0, (uint32_t)t->index,
			   (uint32_t)s->done, when - due);
	s->done++;
	s->ran = 0;
}

/* Slot `slot` was spent spinning. Charges come in slot order, so the
 * intervals that ended before it are done with. With s->lock. */
static int spun(struct task_jobs *s, uint64_t slot)
{
	while (s->spin_n && s->spin_to[s->spin_first] <= slot) {
		s->spin_first = (s->spin_first + 1) % TASK_SPINS;
		s->spin_n--;
	}
	return s->spin_n && s->spin_from[s->spin_first] <= slot;
}

void jobs_spin(struct task *t, uint64_t from)
{
	struct task_jobs *s = &t->jobs;
	uint64_t flags = spin_lock_irqsave(&s->lock);
	if (s->spin_n == TASK_SPINS) {       /* the oldest: long charged */
		s->spin_first = (s->spin_first + 1) % TASK_SPINS;
		s->spin_n--;
	}
	unsigned k = (s->spin_first + s->spin_n++) % TASK_SPINS;
	s->spin_from[k] = from;
	s->spin_to[k] = UINT64_MAX;
	spin_unlock_irqrestore(&s->lock, flags);
}

void jobs_spin_end(struct task *t, uint64_t to)
{
	struct task_jobs *s = &t->jobs;
	uint64_t flags = spin_lock_irqsave(&s->lock);
	if (s->spin_n)
		s->spin_to[(s->spin_first + s->spin_n - 1) % TASK_SPINS] = to;
	spin_unlock_irqrestore(&s->lock, flags);
}

void jobs_charge(struct task *t, unsigned cpu, uint64_t from, uint64_t to)
{
	struct task_jobs *s = &t->jobs;
	if (!s->periodic || from >= to)
		return;
	uint64_t flags = spin_lock_irqsave(&s->lock);
	for (uint64_t slot = from; slot < to; slot++)
		if (!spun(s, slot) && ++s->ran >= t->spec->e)
			finish(t, TRACE_F_DONE_BUDGET, qclock_ideal(cpu, slot + 1));
	spin_unlock_irqrestore(&s->lock, flags);
}

void jobs_complete(struct task *t, uint64_t now)
{
	struct task_jobs *s = &t->jobs;
	if (!s->periodic)
		return;
	uint64_t flags = spin_lock_irqsave(&s->lock);
	finish(t, TRACE_F_DONE_SLEEP, now);
	spin_unlock_irqrestore(&s->lock, flags);
}

void jobs_stop(struct task *t, uint64_t slot)
{
	uint64_t flags = spin_lock_irqsave(&jb.lock);
	event(t, TASKSET_LEAVE, slot);
	spin_unlock_irqrestore(&jb.lock, flags);
}
