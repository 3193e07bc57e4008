/* kernel/events/event_plan: the plan of an event run (event_plan.h). */
#include "event_plan.h"

#include "../../sched/evsim.h"
#include "../core/bootmem.h"
#include "../core/options.h"

/* A generous bound on what the simulated machine keeps per job (its queue
 * entry, a response time, a span, the plugin's replenishments), with its
 * arrays doubling as they grow. */
#define PLAN_BYTES_PER_JOB 1024
#define PLAN_BYTES_BASE (1u << 20)

static void *plan_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return bootmem_alloc(size);
}

/* The jobs a run of end_us releases and the arrivals it has, at most. */
static uint64_t jobs_of(const struct taskset *ts, uint64_t end_us,
			uint64_t quantum_us)
{
	uint64_t n = ts->nevents;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		if (t->p)
			n += end_us / ((uint64_t)t->p * quantum_us) + 1;
		if (t->server.kind) {
			n += (uint64_t)t->server.rate_hz * end_us / 1000000 + 1;
			n += end_us / t->server.period_us + 1;
		}
	}
	return n;
}

int evplan_run(const struct sched_plugin *plugin, const struct taskset *ts,
	       unsigned cpus, uint64_t end_us, uint64_t quantum_us,
	       struct evplan *out, const char **why)
{
	if (options.arrivals == ARRIVALS_UART) {
		*why = "arrivals=uart: the typed jobs are in no plan";
		return -1;
	}
	uint64_t need = PLAN_BYTES_BASE +
			jobs_of(ts, end_us, quantum_us) * PLAN_BYTES_PER_JOB;
	if (need > bootmem_free_bytes() / 2) {
		*why = "the plan would not fit the memory left";
		return -1;
	}
	struct sched_config cfg = { .cpus = cpus, .tasks = ts,
				    .params = options.params,
				    .nparams = options.nparams, .seed = 1,
				    .quantum_us = quantum_us };
	struct sched_evsim_out none = { 0 };
	struct sched_error err = { { 0 } };
	unsigned line;
	struct sched_evsim *m = sched_evsim_create(plugin, &cfg, end_us, 0,
						   plan_alloc, 0, &none, &err,
						   &line);
	if (!m || sched_evsim_run(m, &err)) {
		*why = "the simulated machine refused the set";
		return -1;
	}
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	out->misses = bootmem_alloc(n * sizeof *out->misses);
	out->window_over = bootmem_alloc(n * sizeof *out->window_over);
	void *s = sched_evsim_plugin_state(m);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct sched_task_stats st = { 0 };
		plugin->stats(s, i, &st);
		out->misses[i] = st.misses;
		const struct sched_measure *x = sched_evsim_measure(m, i);
		out->window_over[i] = ts->task[i].server.kind && x->top &&
				      x->window.max_us > ts->task[i].server.budget_us;
	}
	return 0;
}
