/* kernel/events/event_work: jobs' work from their threads' CPU time
 * (event_work.h). */
#include "event_work.h"

#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../sched/sched.h"
#include "../core/bootmem.h"
#include "../run/dispatch.h"
#include "../time/quantum_clock.h"
#include "../task/task.h"

struct job {
	uint64_t arrival_us;
	uint64_t cost_cycles;
};

struct work {
	uint64_t cost_cycles;      /* periodic: what a job needs */
	uint64_t job_from;         /* its CPU time when the current job (a
				    * server's head job) began, cycles */
	/* Its thread's CPU time when its CPU's answer last moved away from
	 * it: until the switch that follows, it runs as no job's work. */
	uint64_t cut;
	int cut_set;
	uint64_t done, arrived, dropped;
	struct job *q;             /* servers: ring of EVWORK_QUEUE_MAX */
	uint32_t head, len;
};

static struct work *w;
static const struct taskset *set;

void evwork_setup(const struct taskset *ts, uint64_t quantum_us)
{
	set = ts;
	w = bootmem_alloc((ts->ntasks ? ts->ntasks : 1) * sizeof *w);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *sp = &ts->task[i];
		uint64_t q = sp->has_exec ? sp->exec : sp->e;
		w[i].cost_cycles = tsc_from_us(q * quantum_us);
		if (sp->server.kind)
			w[i].q = bootmem_alloc(EVWORK_QUEUE_MAX * sizeof *w[i].q);
	}
}

uint64_t evwork_cpu_cycles(unsigned i)
{
	const struct task *t = &tasks[i];
	int on = t->scheduled_on;
	if (on == TASK_NONE || (unsigned)on == this_cpu()->cpu ||
	    cpu_scheds[on].current != t)
		return dispatch_cpu_cycles(t);
	return t->run_cycles + (qclock_now() - t->run_since);
}

uint64_t evwork_remaining(unsigned i)
{
	const struct work *x = &w[i];
	uint64_t cost = x->cost_cycles;
	if (set->task[i].server.kind) {
		if (!x->len)
			return UINT64_MAX;
		cost = x->q[x->head].cost_cycles;
	}
	uint64_t got = evwork_cpu_cycles(i) - x->job_from;
	return got >= cost ? 0 : cost - got;
}

uint64_t evwork_job(unsigned i, uint64_t *ran, uint64_t *arrival_us)
{
	const struct work *x = &w[i];
	uint64_t now = evwork_cpu_cycles(i);
	*ran = now > x->job_from ? now - x->job_from : 0;
	*arrival_us = set->task[i].server.kind && x->len ?
		      x->q[x->head].arrival_us : 0;
	return x->done;
}

uint64_t evwork_finish(unsigned i, uint64_t now, uint64_t *job)
{
	struct work *x = &w[i];
	uint64_t resp = 0;
	x->job_from = evwork_cpu_cycles(i);
	if (set->task[i].server.kind && x->len) {
		const struct job *j = &x->q[x->head];
		resp = now > j->arrival_us ? now - j->arrival_us : 0;
		x->head = (x->head + 1) % EVWORK_QUEUE_MAX;
		x->len--;
	}
	*job = x->done++;
	return resp;
}

int64_t evwork_push(unsigned i, uint32_t cost_us, uint64_t arrival_us)
{
	struct work *x = &w[i];
	if (x->len == EVWORK_QUEUE_MAX) {
		x->dropped++;
		return -1;
	}
	if (!x->len) {
		/* Its thread's time until now was no job's. */
		x->job_from = evwork_cpu_cycles(i);
		x->cut = x->job_from;
	}
	x->q[(x->head + x->len++) % EVWORK_QUEUE_MAX] =
		(struct job){ arrival_us, tsc_from_us(cost_us) };
	return (int64_t)x->arrived++;
}

void evwork_move(int from, int to)
{
	if (from != SCHED_IDLE) {
		w[from].cut = evwork_cpu_cycles((unsigned)from);
		w[from].cut_set = 1;
	}
	if (to != SCHED_IDLE && w[to].cut_set) {
		struct work *x = &w[to];
		x->job_from += evwork_cpu_cycles((unsigned)to) - x->cut;
		x->cut_set = 0;
	}
}

uint64_t evwork_queued(unsigned i)
{
	return w[i].len;
}

uint64_t evwork_dropped(unsigned i)
{
	return w[i].dropped;
}
