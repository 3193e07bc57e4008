/*
 * tools/edf_bench: times the global EDF plugin's push decision, enqueue and
 * dequeue in TSC cycles, in the setting of the global EDF paper's Sec. 6.2:
 * N = 3M tasks, total utilisation U = R * M, utilisations uniform over
 * {sum = U, each in (0, 1)} (the distribution randfixedsum draws from; we
 * draw it by UUniFast with rejection), periods log-uniform in [10, 100]
 * quanta (the paper's 10-100 ms at a 1 ms quantum), e = round(u * p) >= 1.
 *
 *   edf_bench --cpus M --load R_PERCENT --mode 0|1|2 --slots T [--seed S]
 *             [--reps N]
 *
 * Prints one JSON object: the set's real utilisation and, per operation
 * (push decision, enqueue, dequeue, and the pull the paper leaves alone),
 * the count and the mean cycles with the cost of reading the TSC removed,
 * from the least disturbed of N runs of the same set (default 3).
 * Host-only (floating point, libc).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/parse_num.h"
#include "../lib/taskset.h"
#include "../lib/xorshift.h"
#include "../sched/edf/plugin.h"
#include "../sched/sched.h"
#include "bench_env.h"

static uint64_t tsc(void)
{
	return __builtin_ia32_rdtsc();
}

static uint64_t rng_state;

static double uniform(void)
{
	return xorshift64_unit(&rng_state);
}

/* UUniFast (Bini and Buttazzo), retried until every u_i <= 1. */
static void utilisations(double *u, unsigned n, double total)
{
	for (;;) {
		double left = total;
		int ok = 1;
		for (unsigned i = 0; i + 1 < n; i++) {
			double next = left * pow(uniform(), 1.0 / (double)(n - 1 - i));
			u[i] = left - next;
			left = next;
			ok &= u[i] <= 1.0;
		}
		u[n - 1] = left;
		if (ok && left <= 1.0)
			return;
	}
}

/* One timed run of slots slots; returns the idle CPU-slots. */
static uint64_t run_once(const struct sched_config *cfg, uint64_t slots,
			 struct edf_op_stats *ops)
{
	struct sched_env env = { .alloc = bench_alloc,
				 .resched = bench_no_resched };
	struct sched_error err = { { 0 } };
	const struct sched_plugin *gedf = sched_find("gedf");
	void *s = gedf->create(cfg, &env, &err);
	if (!s) {
		fprintf(stderr, "edf_bench: %s\n", err.msg);
		exit(1);
	}
	struct edf *engine = edf_plugin_engine(s);
	edf_set_clock(engine, tsc);
	uint64_t idle = 0;
	for (uint64_t t = 0; t < slots; t++)
		for (unsigned k = 0; k < cfg->cpus; k++)
			idle += gedf->schedule(s, k, t) == SCHED_IDLE;
	edf_op_stats(engine, ops);
	return idle;
}

static uint64_t arg(int argc, char **argv, const char *name, int need,
		    uint64_t def)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], name))
			continue;
		uint64_t v;
		const char *s = argv[i + 1];
		enum parse_num_status st = parse_u64(s, strlen(s), UINT32_MAX, &v);
		if (st != PARSE_NUM_OK) {
			fprintf(stderr, "edf_bench: %s %s: %s\n", name, s,
				parse_num_reason(st));
			exit(2);
		}
		return v;
	}
	if (need) {
		fprintf(stderr, "usage: edf_bench --cpus M --load R_PERCENT "
			"--mode 0|1|2 --slots T [--seed S] [--reps N]\n");
		exit(2);
	}
	return def;
}

int main(int argc, char **argv)
{
	unsigned cpus = (unsigned)arg(argc, argv, "--cpus", 1, 0);
	unsigned load = (unsigned)arg(argc, argv, "--load", 1, 0);
	uint64_t mode = arg(argc, argv, "--mode", 1, 0);
	uint64_t slots = arg(argc, argv, "--slots", 1, 0);
	unsigned reps = (unsigned)arg(argc, argv, "--reps", 0, 3);
	rng_state = arg(argc, argv, "--seed", 0, 1) * 2654435761u + 1;
	if (cpus == 0 || cpus > 4096 || load == 0 || load > 100 || mode > 2 ||
	    reps == 0) {
		fprintf(stderr, "edf_bench: need 1 <= --cpus <= 4096, "
			"1 <= --load <= 100, --mode 0, 1 or 2, --reps >= 1\n");
		return 2;
	}

	unsigned n = 3 * cpus;
	double *u = calloc(n, sizeof *u);
	struct taskset ts = { .task = calloc(n, sizeof(struct task_spec)),
			      .max_tasks = n };
	utilisations(u, n, cpus * load / 100.0);
	/* Rounding e can lift U above M at 100 %: take a quantum back from
	 * one task after another until it fits. */
	double real_u = 0;
	for (unsigned i = 0; i < n; i++) {
		struct task_spec *t = &ts.task[i];
		snprintf(t->name, sizeof t->name, "T%u", i);
		t->p = (uint32_t)lround(exp(log(10.0) + uniform() * log(10.0)));
		long e = lround(u[i] * t->p);
		t->e = (uint32_t)(e < 1 ? 1 : e > t->p ? t->p : e);
		t->d = t->p;
		t->line = i + 1;
		real_u += (double)t->e / t->p;
	}
	for (unsigned i = 0; real_u > cpus && i < n; i++)
		if (ts.task[i].e > 1) {
			real_u -= 1.0 / ts.task[i].p;
			ts.task[i].e--;
		}
	ts.ntasks = n;

	struct sched_param param = { "edf_cpudl", mode };
	struct sched_config cfg = { .cpus = cpus, .tasks = &ts, .params = &param,
				    .nparams = 1, .seed = 1 };

	/* What one timed section costs with nothing in it. */
	uint64_t empty = UINT64_MAX;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = tsc(), b = tsc();
		if (b - a < empty)
			empty = b - a;
	}
	/* Interrupts and other processes land inside some timed sections and
	 * inflate a run's means: keep each operation's least disturbed run. */
	double best[EDF_OPS];
	struct edf_op_stats ops;
	uint64_t idle = 0;
	for (unsigned r = 0; r < reps; r++) {
		idle = run_once(&cfg, slots, &ops);
		for (unsigned op = 0; op < EDF_OPS; op++) {
			double mean = ops.count[op]
				? (double)ops.cycles[op] / (double)ops.count[op] -
				  (double)empty : 0.0;
			if (mean < 0)
				mean = 0;
			if (r == 0 || mean < best[op])
				best[op] = mean;
		}
	}

	static const char *const names[EDF_OPS] = { "push_find", "enqueue",
						    "dequeue", "pull" };
	printf("{\"cpus\": %u, \"load\": %.2f, \"utilisation\": %.4f, "
	       "\"mode\": \"%s\", \"slots\": %llu, \"idle_fraction\": %.4f, "
	       "\"tsc_overhead\": %llu", cpus, load / 100.0, real_u,
	       edf_push_mode_name((enum edf_push_mode)mode),
	       (unsigned long long)slots,
	       slots ? (double)idle / ((double)slots * cpus) : 0.0,
	       (unsigned long long)empty);
	for (unsigned op = 0; op < EDF_OPS; op++)
		printf(", \"%s_count\": %llu, \"%s_cycles\": %.1f", names[op],
		       (unsigned long long)ops.count[op], names[op], best[op]);
	printf("}\n");

	bench_free();
	free(ts.task);
	free(u);
	return 0;
}
