/*
 * tools/gdq_bench: TSC cycles per GDQ scheduling decision (one schedule()
 * call for one processor at one quantum) for N processes of random integer
 * weights on P processors -- the GDQ paper's claim is that this stays flat
 * as N grows. Error tracking (an O(N) pass kept for the simulator) is off.
 *
 *   gdq_bench --procs N --cpus P --slots T [--seed S] [--T T] [--delta D]
 *
 * Prints one JSON object: mean and median cycles per decision, with the
 * cost of reading the TSC removed. Host-only (libc).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/taskset.h"
#include "../lib/xorshift.h"
#include "../sched/gdq/gdq.h"
#include "../sched/sched.h"
#include "bench_env.h"

static uint64_t tsc(void)
{
	return __builtin_ia32_rdtsc();
}

static uint64_t rng = 88172645463325252ull;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static unsigned long arg(int argc, char **argv, const char *name,
			 unsigned long def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtoul(argv[i + 1], NULL, 10);
	return def;
}

int main(int argc, char **argv)
{
	unsigned n = (unsigned)arg(argc, argv, "--procs", 100);
	unsigned p = (unsigned)arg(argc, argv, "--cpus", 4);
	unsigned long slots = arg(argc, argv, "--slots", 2000);
	rng ^= arg(argc, argv, "--seed", 1) * 0x9e3779b97f4a7c15ull;
	if (!n || !p || !slots) {
		fprintf(stderr, "usage: gdq_bench --procs N --cpus P --slots T "
			"[--seed S] [--T T] [--delta D]\n");
		return 2;
	}
	struct task_spec *tasks = calloc(n, sizeof *tasks);
	for (unsigned i = 0; i < n; i++) {
		snprintf(tasks[i].name, sizeof tasks[i].name, "P%u", i);
		tasks[i].weight = 1 + (uint32_t)(xorshift64(&rng) % 1000);
	}
	struct taskset ts = { .task = tasks, .ntasks = n, .max_tasks = n };
	struct sched_param params[3] = {
		{ "gdq_T", arg(argc, argv, "--T", 20) },
		{ "gdq_delta", arg(argc, argv, "--delta", 4) },
		{ "gdq_err", 0 },
	};
	struct sched_config cfg = { .cpus = p, .tasks = &ts, .params = params,
				    .nparams = 3, .seed = 1 };
	struct sched_env env = { .alloc = bench_alloc,
				 .resched = bench_no_resched };
	struct sched_error err = { { 0 } };
	void *s = gdq_plugin.create(&cfg, &env, &err);
	if (!s) {
		fprintf(stderr, "gdq_bench: %s\n", err.msg);
		return 1;
	}
	/* The cost of the two TSC reads themselves. */
	uint64_t overhead = ~0ull;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = tsc(), b = tsc();
		if (b - a < overhead)
			overhead = b - a;
	}
	/* Warm up (caches, the first round of every queue). */
	for (unsigned long t = 0; t < slots / 4 + 1; t++)
		for (unsigned k = 0; k < p; k++)
			gdq_plugin.schedule(s, k, t);
	uint64_t *samples = malloc(slots * p * sizeof *samples);
	size_t ns = 0;
	for (unsigned long t = slots / 4 + 1; t < slots / 4 + 1 + slots; t++)
		for (unsigned k = 0; k < p; k++) {
			uint64_t a = tsc();
			gdq_plugin.schedule(s, k, t);
			uint64_t b = tsc();
			samples[ns++] = b - a > overhead ? b - a - overhead : 0;
		}
	long double sum = 0;
	for (size_t i = 0; i < ns; i++)
		sum += samples[i];
	qsort(samples, ns, sizeof *samples, cmp_u64);
	printf("{\"procs\": %u, \"cpus\": %u, \"decisions\": %zu, "
	       "\"mean_cycles\": %.1Lf, \"median_cycles\": %llu, "
	       "\"p99_cycles\": %llu}\n", n, p, ns, sum / ns,
	       (unsigned long long)samples[ns / 2],
	       (unsigned long long)samples[ns * 99 / 100]);
	bench_free();
	free(samples);
	free(tasks);
	return 0;
}
