/*
 * tools/admit_bench: how long parsing and admission take as the task count
 * grows. For each N, a task-set text is parsed (lib/taskset) and each
 * scheduler's create() -- its admission and set-up -- is timed, the best
 * of a few repetitions. Prints CSV:
 *
 *   kind,n,tasks,sched,admitted,parse_ms,admit_ms
 *
 * (n asked for; tasks: how many the set has, a few fewer for exact sets).
 *
 *   admit_bench --n LIST --m M [--kind random|exact] [--reps R] [--seed S]
 *
 * Kinds: random -- e = 1, periods uniform in [2N/M, 4N/M] (about 0.35 M in
 * all, decided by lib/ratsum's bounds alone); exact -- a sum of exactly M
 * (a telescope 1/(k(k+1)) over up to 46,340 different periods, the rest
 * 1/p fillers), which only an exact sum can confirm. GDQ gets the same
 * count of weight= tasks (weights 1..1000).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/parse_num.h"
#include "../lib/taskset.h"
#include "../lib/xorshift.h"
#include "../sched/sched.h"
#include "bench_env.h"

#define MAX_LIST 32

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct text {
	char *s;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void line(struct text *t, const char *fmt, ...)
{
	if (t->cap - t->len < 128) {
		t->cap = t->cap ? 2 * t->cap : 1 << 20;
		t->s = realloc(t->s, t->cap);
		if (!t->s) {
			fprintf(stderr, "admit_bench: out of memory\n");
			exit(1);
		}
	}
	va_list ap;
	va_start(ap, fmt);
	t->len += (size_t)vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
}

static void periodic_text(struct text *t, unsigned n, unsigned m, int exact,
			  uint64_t *rng)
{
	t->len = 0;
	if (!exact) {
		uint64_t lo = 2 * (uint64_t)n / m + 2;
		for (unsigned i = 0; i < n; i++)
			line(t, "task T%u e=1 p=%llu\n", i,
			     (unsigned long long)(lo + xorshift64(rng) % (lo + 1)));
		return;
	}
	/* 1/(k(k+1)) for k = 1..K and 1/(K+1): exactly 1 (telescoping). */
	unsigned k_max = n / 2 < 46339 ? n / 2 : 46339, i = 0;
	for (unsigned k = 1; k <= k_max; k++)
		line(t, "task T%u e=1 p=%llu\n", i++,
		     (unsigned long long)k * (k + 1));
	line(t, "task T%u e=1 p=%u\n", i++, k_max + 1);
	/* M - 1 more as r fillers of 1/(r / (M - 1)). */
	unsigned r = (n - i) / (m - 1) * (m - 1);
	for (unsigned j = 0; j < r; j++)
		line(t, "task T%u e=1 p=%u\n", i++, r / (m - 1));
}

static void weight_text(struct text *t, unsigned n, uint64_t *rng)
{
	t->len = 0;
	for (unsigned i = 0; i < n; i++)
		line(t, "task T%u weight=%llu\n", i,
		     (unsigned long long)(1 + xorshift64(rng) % 1000));
}

/* Parses text into ts (arrays sized for n tasks); the time it took. */
static double parse(struct taskset *ts, const struct text *t)
{
	char err[256];
	double t0 = now_ms();
	if (taskset_parse(ts, "bench", t->s, t->len, err, sizeof err)) {
		fprintf(stderr, "admit_bench: %s\n", err);
		exit(1);
	}
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	uint64_t ns[MAX_LIST], m = 8, reps = 3, seed = 1;
	unsigned nn = 0;
	int exact = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		uint64_t *dst = NULL;
		if (!strcmp(a, "--n"))
			nn = bench_list("admit_bench", v, ns, MAX_LIST,
						1u << 24);
		else if (!strcmp(a, "--kind") && (!strcmp(v, "random") ||
						  !strcmp(v, "exact")))
			exact = !strcmp(v, "exact");
		else if (!strcmp(a, "--m"))
			dst = &m;
		else if (!strcmp(a, "--reps"))
			dst = &reps;
		else if (!strcmp(a, "--seed"))
			dst = &seed;
		else {
			fprintf(stderr, "admit_bench: unknown option %s %s\n", a,
				v);
			return 2;
		}
		if (dst && (parse_u64(v, strlen(v), 1u << 16, dst) !=
			    PARSE_NUM_OK || *dst < 1 + (dst == &m))) {
			fprintf(stderr, "admit_bench: bad %s %s\n", a, v);
			return 2;
		}
	}
	if (!nn) {
		fprintf(stderr, "usage: admit_bench --n LIST [--m M] "
			"[--kind random|exact] [--reps R] [--seed S]\n");
		return 2;
	}
	static const char *const scheds[] = { "pd2", "spd2", "gedf", "pedf",
					      "gdq" };
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ seed;
	struct text text = { 0 };
	printf("kind,n,tasks,sched,admitted,parse_ms,admit_ms\n");
	for (unsigned a = 0; a < nn; a++) {
		unsigned n = (unsigned)ns[a];
		struct taskset ts = {
			.task = calloc(n, sizeof *ts.task), .max_tasks = n,
		};
		for (unsigned k = 0; k < 5; k++) {
			const struct sched_plugin *pl = sched_find(scheds[k]);
			bool gdq = !strcmp(scheds[k], "gdq");
			double best_parse = 1e300, best = 1e300;
			int admitted = 0;
			for (uint64_t r = 0; r < reps; r++) {
				if (gdq)
					weight_text(&text, n, &rng);
				else
					periodic_text(&text, n, (unsigned)m, exact,
						      &rng);
				double p = parse(&ts, &text);
				struct sched_env env = {
					.alloc = bench_alloc,
					.resched = bench_no_resched,
				};
				struct sched_config cfg = {
					.cpus = (unsigned)m, .tasks = &ts,
					.staggered = pl->staggered,
				};
				struct sched_error err;
				double t0 = now_ms();
				admitted = pl->create(&cfg, &env, &err) != NULL;
				double t1 = now_ms();
				bench_free();
				best_parse = p < best_parse ? p : best_parse;
				best = t1 - t0 < best ? t1 - t0 : best;
			}
			printf("%s,%u,%u,%s,%d,%.3f,%.3f\n",
			       exact ? "exact" : "random", n, ts.ntasks, scheds[k],
			       admitted, best_parse, best);
			fflush(stdout);
		}
		free(ts.task);
	}
	free(text.s);
	return 0;
}
