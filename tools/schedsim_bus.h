/*
 * tools/schedsim_bus.h: schedsim's --bus WSS_BYTES[,LINE_BYTES[,Q_BUS_CYCLES]]
 * -- the schedule's quantum starts fed to sched/bus_model (bus contention
 * at the boundaries, staggered Pfair Sec. 5.1) and its per-task completion
 * delays printed as extra JSON lines before the summary
 * (docs/bus-model.md).
 */
#ifndef TOOLS_SCHEDSIM_BUS_H
#define TOOLS_SCHEDSIM_BUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/parse_num.h"
#include "../lib/taskset.h"
#include "../sched/bus_model.h"

/* The defaults of tools/experiments/exp_bus_contention.py's model. */
#define SIM_BUS_LINE_DEFAULT 32
#define SIM_BUS_Q_DEFAULT 20000

struct sim_bus {
	int on;
	uint64_t wss, line, q, lines;
	int staggered;
	int *prev;              /* per CPU: the task of its previous quantum */
	struct bus_model m;
};

/* One comma-separated field of --bus, or exit 2 naming it. */
static uint64_t sim_bus_field(const char *arg, const char *what,
			      const char *s, size_t n, uint64_t min,
			      uint64_t max)
{
	uint64_t v;
	enum parse_num_status st = parse_u64(s, n, max, &v);
	if (st != PARSE_NUM_OK || v < min) {
		fprintf(stderr, "schedsim: --bus %s: %s %.*s: %s (expected "
			"%llu..%llu)\n", arg, what, (int)n, s,
			st != PARSE_NUM_OK ? parse_num_reason(st) : "too small",
			(unsigned long long)min, (unsigned long long)max);
		exit(2);
	}
	return v;
}

static void sim_bus_parse(struct sim_bus *b, const char *arg)
{
	static const char *const what[] = { "WSS_BYTES", "LINE_BYTES",
					    "Q_BUS_CYCLES" };
	static const uint64_t lo[] = { 1, 1, 1 };
	static const uint64_t hi[] = { 1u << 30, 4096, 100000000 };
	uint64_t v[3] = { 0, SIM_BUS_LINE_DEFAULT, SIM_BUS_Q_DEFAULT };
	const char *s = arg;
	for (unsigned f = 0;; f++) {
		if (f == 3) {
			fprintf(stderr, "schedsim: --bus %s: more than three "
				"fields (WSS_BYTES[,LINE_BYTES[,Q_BUS_CYCLES]])"
				"\n", arg);
			exit(2);
		}
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		v[f] = sim_bus_field(arg, what[f], s, n, lo[f], hi[f]);
		if (!comma)
			break;
		s = comma + 1;
	}
	b->on = 1;
	b->wss = v[0];
	b->line = v[1];
	b->q = v[2];
	/* A partial line is still a whole line's fetch. */
	b->lines = (b->wss + b->line - 1) / b->line;
}

/* Before the run: exits 2 if the run does not fit the model's clock. */
static void sim_bus_start(struct sim_bus *b, unsigned cpus,
			  const struct taskset *ts, uint64_t slots,
			  int staggered,
			  void *(*alloc)(void *ctx, size_t size))
{
	if (slots >= bus_model_max_slots(cpus, b->q) ||
	    bus_model_init(&b->m, cpus, ts, b->lines, b->q, alloc, NULL)) {
		fprintf(stderr, "schedsim: --bus: %llu slots of %llu bus cycles "
			"with %llu-line bursts on %u CPUs do not fit the model's "
			"clock (2^52 units of 1/%u cycle per CPU)\n",
			(unsigned long long)slots, (unsigned long long)b->q,
			(unsigned long long)b->lines, cpus, BUS_MODEL_SUB);
		exit(2);
	}
	b->staggered = staggered;
	b->prev = alloc(NULL, sizeof(int) * cpus);
	for (unsigned k = 0; k < cpus; k++)
		b->prev[k] = -1;
}

/* Slot t's choices, CPU 0 to M - 1 (their boundaries' order). */
static int sim_bus_slot(struct sim_bus *b, uint64_t t, const int *choice)
{
	for (unsigned k = 0; k < b->m.cpus; k++) {
		int task = choice[k];
		/* Reload: it did not run on this CPU in its previous quantum. */
		int reload = task >= 0 && task != b->prev[k];
		b->prev[k] = task;
		if (bus_model_quantum(&b->m, bus_model_boundary(&b->m, t, k,
								b->staggered),
				      k, task < 0 ? -1 : task, reload)) {
			fprintf(stderr, "schedsim: --bus: %s\n", b->m.err);
			return -1;
		}
	}
	return 0;
}

static double sim_bus_cycles(const struct sim_bus *b, uint64_t units)
{
	return (double)units / (double)b->m.unit;
}

/* After the run: one {"bus": ...} line per task and one "bus_summary". */
static void sim_bus_print(struct sim_bus *b, const struct taskset *ts)
{
	bus_model_finish(&b->m);
	struct bus_model_task all = { 0 };
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct bus_model_task *x = &b->m.task[i];
		printf("{\"bus\": {\"task\": \"%s\", \"quanta\": %llu, "
		       "\"bursts\": %llu, \"cut\": %llu, \"jobs\": %llu, "
		       "\"delay_total_cycles\": %.3f, \"delay_max_cycles\": %.3f, "
		       "\"wait_cycles\": %.3f, \"served_lines\": %.3f}}\n",
		       ts->task[i].name, (unsigned long long)x->quanta,
		       (unsigned long long)x->bursts,
		       (unsigned long long)x->cut, (unsigned long long)x->jobs,
		       sim_bus_cycles(b, x->delay_total),
		       sim_bus_cycles(b, x->delay_max),
		       sim_bus_cycles(b, x->wait), sim_bus_cycles(b, x->served));
		all.quanta += x->quanta;
		all.bursts += x->bursts;
		all.cut += x->cut;
		all.jobs += x->jobs;
		all.delay_total += x->delay_total;
		all.wait += x->wait;
		if (x->delay_max > all.delay_max)
			all.delay_max = x->delay_max;
	}
	printf("{\"bus_summary\": {\"ticks\": \"%s\", \"cpus\": %u, "
	       "\"wss_bytes\": %llu, \"line_bytes\": %llu, \"lines\": %llu, "
	       "\"q_bus_cycles\": %llu, \"quanta\": %llu, \"bursts\": %llu, "
	       "\"cut\": %llu, \"jobs\": %llu, \"delay_mean_cycles\": %.3f, "
	       "\"delay_max_cycles\": %.3f, \"wait_per_burst_cycles\": %.3f}}\n",
	       b->staggered ? "staggered" : "aligned", b->m.cpus,
	       (unsigned long long)b->wss, (unsigned long long)b->line,
	       (unsigned long long)b->lines, (unsigned long long)b->q,
	       (unsigned long long)all.quanta, (unsigned long long)all.bursts,
	       (unsigned long long)all.cut, (unsigned long long)all.jobs,
	       all.jobs ? sim_bus_cycles(b, all.delay_total) / (double)all.jobs
			: 0.0,
	       sim_bus_cycles(b, all.delay_max),
	       all.bursts ? sim_bus_cycles(b, all.wait) / (double)all.bursts
			  : 0.0);
}

#endif
