/*
 * tools/pfair_overhead: staggered Pfair, Sec. 5.3 (warm cache). For each
 * N and M, random task sets; per set, after a warm-up, the TSC cycles of
 * each of `slots` master/slave PD2 slots (one call decides all M CPUs) and
 * of each slot's M staggered Schedule(p) calls over the same slots, as a
 * mean over the middle 80% of the slots (trimmed_mean). Prints one CSV
 * line per (N, M):
 *
 *   n,m,sets,pd2_cycles_per_slot,spd2_cycles_per_call,ratio
 *
 *   pfair_overhead --n 10,20,... --m 2,4,8,16 --sets S --slots T
 *                  [--warmup W] [--seed X] [--cold 1]
 *
 * --cold 1: Fig. 11(b)'s cold cache. Before each timed call (each master/
 * slave slot, each Schedule(p) call) the scheduler's memory and the task
 * set are flushed from every cache level (bench_flush_all), as if another
 * task had run since; each staggered call is then timed alone, since on a
 * machine each would run on its own CPU after its own quantum of work.
 *
 * Task sets: N weights drawn uniformly and scaled to a total of
 * min(M, N/2), periods uniform in 1000..10000, e = max(1, floor(w p)),
 * rescaled down until the exact admission test of the plugins passes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/parse_num.h"
#include "../lib/sort.h"
#include "../lib/taskset.h"
#include "../lib/xorshift.h"
#include "../sched/sched.h"
#include "bench_env.h"

#define MAX_LIST 64

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	return xorshift64_unit(&rng);
}

static uint64_t tsc(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * Mean cycles per sample, less the cost of reading the TSC, over the middle
 * 80% of the n samples: on a shared host a slot that was preempted costs a
 * whole time slice, and a few of them would otherwise be most of the mean.
 */
static double trimmed_mean(uint64_t *v, uint64_t n, uint64_t tsc_cost)
{
	sort_u64(v, n);
	double sum = 0;
	uint64_t lo = n / 10, hi = n - n / 10;
	for (uint64_t i = lo; i < hi; i++)
		sum += (double)(v[i] > tsc_cost ? v[i] - tsc_cost : 0);
	return sum / (double)(hi - lo);
}

static void make_set(struct taskset *ts, unsigned n, unsigned m, double *raw)
{
	double sum = 0, target = n / 2.0 < m ? n / 2.0 : m;
	for (unsigned i = 0; i < n; i++)
		sum += raw[i] = uniform() + 1e-3;
	ts->ntasks = n;
	for (unsigned i = 0; i < n; i++) {
		struct task_spec *t = &ts->task[i];
		double w = raw[i] * target / sum;
		uint32_t p = 1000 + (uint32_t)(xorshift64(&rng) % 9001);
		uint32_t e = (uint32_t)(w * p);
		if (e < 1)
			e = 1;
		if (e > p)
			e = p;
		memset(t, 0, sizeof *t);
		snprintf(t->name, sizeof t->name, "T%u", i);
		t->e = e;
		t->p = t->d = p;
	}
}

static void *create(const struct sched_plugin *pl, struct taskset *ts,
		    unsigned m, int staggered)
{
	struct sched_env env = { .alloc = bench_alloc,
				 .resched = bench_no_resched };
	struct sched_config cfg = { .cpus = m, .staggered = staggered,
				    .tasks = ts };
	struct sched_error err;
	return pl->create(&cfg, &env, &err);
}

/* Cold cache: the plugins' memory and the task set they read. */
static void flush_sched(const struct taskset *ts)
{
	bench_flush_range(ts->task, ts->ntasks * sizeof *ts->task);
	bench_flush_all();
}

int main(int argc, char **argv)
{
	uint64_t ns[MAX_LIST], ms[MAX_LIST], sets = 10, slots = 1000,
		 warmup = 200, seed = 1, cold = 0;
	unsigned nn = 0, nm = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		uint64_t *dst = NULL;
		if (!strcmp(a, "--n"))
			nn = bench_list("pfair_overhead", v, ns, MAX_LIST,
						1u << 20);
		else if (!strcmp(a, "--m"))
			nm = bench_list("pfair_overhead", v, ms, MAX_LIST,
						1u << 20);
		else if (!strcmp(a, "--sets"))
			dst = &sets;
		else if (!strcmp(a, "--slots"))
			dst = &slots;
		else if (!strcmp(a, "--warmup"))
			dst = &warmup;
		else if (!strcmp(a, "--seed"))
			dst = &seed;
		else if (!strcmp(a, "--cold"))
			dst = &cold;
		else {
			fprintf(stderr, "pfair_overhead: unknown option %s\n", a);
			return 2;
		}
		if (dst && parse_u64(v, strlen(v), UINT32_MAX, dst) !=
		    PARSE_NUM_OK) {
			fprintf(stderr, "pfair_overhead: bad %s %s\n", a, v);
			return 2;
		}
	}
	if (!nn || !nm || !sets || !slots) {
		fprintf(stderr, "usage: pfair_overhead --n LIST --m LIST "
			"[--sets S] [--slots T] [--warmup W] [--seed X] "
			"[--cold 1]\n");
		return 2;
	}
	rng ^= seed * 0x2545f4914f6cdd1dull;
	const struct sched_plugin *pd2 = sched_find("pd2");
	const struct sched_plugin *spd2 = sched_find("spd2");
	uint64_t nmax = 0;
	for (unsigned i = 0; i < nn; i++)
		nmax = ns[i] > nmax ? ns[i] : nmax;
	struct task_spec *spec = calloc(nmax, sizeof *spec);
	double *raw = calloc(nmax, sizeof *raw);
	struct taskset ts = { .task = spec, .max_tasks = (unsigned)nmax };
	uint64_t *sample = calloc(slots, sizeof *sample);
	uint64_t tsc_cost = UINT64_MAX;
	for (int i = 0; i < 1000; i++) {
		uint64_t c0 = tsc(), c1 = tsc();
		tsc_cost = c1 - c0 < tsc_cost ? c1 - c0 : tsc_cost;
	}

	printf("n,m,sets,pd2_cycles_per_slot,spd2_cycles_per_call,ratio\n");
	for (unsigned a = 0; a < nn; a++)
		for (unsigned b = 0; b < nm; b++) {
			unsigned n = (unsigned)ns[a], m = (unsigned)ms[b];
			double master = 0, stag = 0;
			for (uint64_t s = 0; s < sets; s++) {
				void *x, *y;
				for (int tries = 0;; tries++) {
					make_set(&ts, n, m, raw);
					x = create(pd2, &ts, m, 0);
					y = x ? create(spd2, &ts, m, 1) : NULL;
					if (y)
						break;
					bench_free();
					if (tries == 100) {
						fprintf(stderr, "pfair_overhead: no "
							"admissible set\n");
						return 1;
					}
				}
				uint64_t t = 0;
				for (; t < warmup; t++) {
					pd2->schedule(x, 0, t);
					for (unsigned p = 0; p < m; p++)
						spd2->schedule(y, p, t);
				}
				for (uint64_t u = 0; u < slots; u++) {
					if (cold)
						flush_sched(&ts);
					uint64_t c0 = tsc();
					pd2->schedule(x, 0, t + u);
					sample[u] = tsc() - c0;
				}
				master += trimmed_mean(sample, slots, tsc_cost);
				for (uint64_t u = 0; u < slots; u++) {
					if (cold) {
						sample[u] = 0;
						for (unsigned p = 0; p < m; p++) {
							flush_sched(&ts);
							uint64_t c0 = tsc();
							spd2->schedule(y, p, t + u);
							sample[u] += tsc() - c0;
						}
						continue;
					}
					uint64_t c0 = tsc();
					for (unsigned p = 0; p < m; p++)
						spd2->schedule(y, p, t + u);
					sample[u] = tsc() - c0;
				}
				stag += trimmed_mean(sample, slots, tsc_cost) / m;
				bench_free();
			}
			master /= (double)sets;
			stag /= (double)sets;
			printf("%u,%u,%llu,%.1f,%.1f,%.3f\n", n, m,
			       (unsigned long long)sets, master, stag,
			       master / stag);
			fflush(stdout);
		}
	free(spec);
	free(raw);
	free(sample);
	return 0;
}
