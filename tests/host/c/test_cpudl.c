/*
 * Host unit tests for sched/edf: the CPU deadline heap (cpudl) against a
 * brute-force model under random operation sequences, the three push
 * decisions against each other, the ready queue against a sorted model, the
 * exact utilisation sums EDF admits by (lib/ratsum) and P-EDF's first-fit
 * order.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../sched/edf/cpudl.h"
#include "../../../sched/edf/push.h"
#include "../../../sched/edf/rq.h"
#include "../../../sched/edf/partition.h"
#include "../../../lib/ratsum.h"

#include "unit.h"

static const struct sched_env env = { .alloc = unit_alloc,
				       .resched = unit_no_resched };

/* Model: key per CPU, UINT64_MAX = idle. The answer cpudl_find must give. */
static int model_find(const uint64_t *key, unsigned cpus, uint64_t k)
{
	for (unsigned c = 0; c < cpus; c++)
		if (key[c] == UINT64_MAX)
			return (int)c;
	int best = -1;
	uint64_t best_key = k;
	for (unsigned c = 0; c < cpus; c++)
		if (key[c] > best_key) {
			best = (int)c;
			best_key = key[c];
		}
	return best;
}

static void test_cpudl_random(unsigned cpus, unsigned ops)
{
	struct cpudl h;
	cpudl_init(&h, cpus, &env);
	uint64_t *key = malloc(cpus * sizeof *key);
	for (unsigned c = 0; c < cpus; c++)
		key[c] = UINT64_MAX;
	for (unsigned n = 0; n < ops; n++) {
		unsigned cpu = (unsigned)(rnd64() % cpus);
		/* Distinct keys, as running jobs have (deadline, task). */
		uint64_t k = (rnd64() % 1000) << 16 | cpu;
		if (rnd64() % 3 == 0) {
			cpudl_clear(&h, cpu);
			key[cpu] = UINT64_MAX;
		} else {
			cpudl_set(&h, cpu, k);
			key[cpu] = k;
		}
		EXPECT(cpudl_check(&h) == 0, "heap broken after op %u (M=%u)", n,
		       cpus);
		uint64_t probe = (rnd64() % 1000) << 16 | 0xffff;
		EXPECT(cpudl_find(&h, probe) == model_find(key, cpus, probe),
		       "find differs after op %u (M=%u)", n, cpus);
		unsigned busy = 0;
		for (unsigned c = 0; c < cpus; c++)
			busy += key[c] != UINT64_MAX;
		EXPECT(h.size == busy, "size %u, model %u", h.size, busy);
	}
	free(key);
}

/* The three push structures agree on every find, with the queues' heads
 * driven at random (the rq heads are set by hand). */
static void test_push_modes(unsigned cpus, unsigned ops)
{
	struct edf_rq *rq = calloc(cpus, sizeof *rq);
	struct edf_push p[EDF_PUSH_MODES];
	for (unsigned c = 0; c < cpus; c++)
		rq[c].earliest_curr = rq[c].earliest_next = EDF_KEY_NONE;
	for (unsigned m = 0; m < EDF_PUSH_MODES; m++)
		edf_push_init(&p[m], (enum edf_push_mode)m, cpus, rq, &env);
	for (unsigned n = 0; n < ops; n++) {
		unsigned cpu = (unsigned)(rnd64() % cpus);
		rq[cpu].earliest_curr = rnd64() % 4 == 0
			? EDF_KEY_NONE : ((rnd64() % 500) << 16 | cpu);
		for (unsigned m = 0; m < EDF_PUSH_MODES; m++) {
			edf_push_update(&p[m], cpu);
			EXPECT(edf_push_check(&p[m]) == 0, "%s out of step",
			       edf_push_mode_name((enum edf_push_mode)m));
		}
		uint64_t probe = (rnd64() % 500) << 16 | 0xffff;
		int want = edf_push_find(&p[EDF_PUSH_ORIGINAL], probe);
		for (unsigned m = 0; m < EDF_PUSH_MODES; m++)
			EXPECT(edf_push_find(&p[m], probe) == want,
			       "%s finds %d, original %d (M=%u)",
			       edf_push_mode_name((enum edf_push_mode)m),
			       edf_push_find(&p[m], probe), want, cpus);
	}
	free(rq);
}

/* A ready queue: head and next are the two smallest keys of a model set. */
static void test_rq_random(unsigned ntasks, unsigned ops)
{
	uint64_t *key = calloc(ntasks, sizeof *key);
	int *pos = malloc(ntasks * sizeof *pos);
	int *in = calloc(ntasks, sizeof *in);
	struct edf_rq rq;
	for (unsigned i = 0; i < ntasks; i++)
		pos[i] = -1;
	edf_rq_init(&rq, ntasks, key, pos, &env);
	for (unsigned n = 0; n < ops; n++) {
		unsigned i = (unsigned)(rnd64() % ntasks);
		if (in[i]) {
			edf_rq_dequeue(&rq, i);
			in[i] = 0;
		} else {
			key[i] = (rnd64() % 50) << 20 | i;
			edf_rq_enqueue(&rq, i);
			in[i] = 1;
		}
		int first = -1, second = -1;
		unsigned count = 0;
		for (unsigned j = 0; j < ntasks; j++) {
			if (!in[j])
				continue;
			count++;
			if (first < 0 || key[j] < key[first]) {
				second = first;
				first = (int)j;
			} else if (second < 0 || key[j] < key[second]) {
				second = (int)j;
			}
		}
		EXPECT(rq.n == count, "rq has %u, model %u", rq.n, count);
		EXPECT(edf_rq_curr(&rq) == first, "head %d, model %d",
		       edf_rq_curr(&rq), first);
		EXPECT(edf_rq_next(&rq) == second, "next %d, model %d",
		       edf_rq_next(&rq), second);
		EXPECT(rq.earliest_curr == (first < 0 ? EDF_KEY_NONE : key[first]),
		       "cached curr");
		EXPECT(rq.earliest_next ==
		       (second < 0 ? EDF_KEY_NONE : key[second]), "cached next");
	}
	free(key);
	free(pos);
	free(in);
}

/* 1 when the sum of t[i][0] / t[i][1] is at most bound, as EDF admits:
 * the bounds of lib/ratsum, else the exact sum. */
static int usum_of(const uint32_t (*t)[2], unsigned n, uint64_t bound)
{
	struct ratsum acc = { 0 };
	for (unsigned i = 0; i + 1 < n; i++)
		ratsum_add(&acc, t[i][0], t[i][1]);
	enum ratsum_answer a = ratsum_bound(&acc, NULL, t[n - 1][0],
					    t[n - 1][1], (uint32_t)bound);
	if (a != RATSUM_UNSURE)
		return a == RATSUM_FITS;
	uint64_t *terms = calloc(n, sizeof *terms);
	uint64_t *scratch = calloc(ratsum_exact_words(n), sizeof *scratch);
	for (unsigned i = 0; i < n; i++)
		terms[i] = ratsum_term(t[i][0], t[i][1]);
	int ok = ratsum_exact_fits(terms, n, bound, scratch);
	free(terms);
	free(scratch);
	return ok;
}

static void test_usum(void)
{
	static const uint32_t thirds[][2] = { { 1, 3 }, { 1, 3 }, { 1, 3 } };
	EXPECT(usum_of(thirds, 3, 1) == 1, "1/3 * 3 <= 1");
	static const uint32_t over[][2] = { { 1, 3 }, { 1, 3 }, { 1, 3 },
					    { 1, 2147483647 } };
	EXPECT(usum_of(over, 4, 1) == 0, "1 + 1/(2^31-1) > 1");
	static const uint32_t full[][2] = { { 5, 5 }, { 7, 7 } };
	EXPECT(usum_of(full, 2, 2) == 1 && usum_of(full, 2, 1) == 0, "2 <= 2");
	/* Co-prime periods near 2^31 (the exact fraction overflows): the sum
	 * is 1 + 4.7e-9, which the fixed point alone must see. */
	static const uint32_t near[][2] = { { 1073741823, 2147483647 },
					    { 1073741823, 2147483629 },
					    { 1, 2147483587 },
					    { 1, 2147483579 } };
	EXPECT(usum_of(near, 4, 1) == 0, "near-1 sum above 1");
	/* Random sums of small fractions against double arithmetic where the
	 * margin is wide enough for doubles to be right. */
	for (unsigned n = 0; n < 2000; n++) {
		uint32_t t[8][2];
		unsigned k = 1 + (unsigned)(rnd64() % 8);
		double sum = 0;
		for (unsigned i = 0; i < k; i++) {
			t[i][1] = 1 + (uint32_t)(rnd64() % 100);
			t[i][0] = 1 + (uint32_t)(rnd64() % t[i][1]);
			sum += (double)t[i][0] / t[i][1];
		}
		uint64_t bound = 1 + rnd64() % 4;
		int got = usum_of((const uint32_t (*)[2])t, k, bound);
		if (sum < bound - 1e-9)
			EXPECT(got == 1, "sum %f <= %llu", sum,
			       (unsigned long long)bound);
		else if (sum > bound + 1e-9)
			EXPECT(got == 0, "sum %f > %llu", sum,
			       (unsigned long long)bound);
		else
			EXPECT(got == 1, "sum %f == %llu", sum,
			       (unsigned long long)bound);
	}
	/* First-fit decreasing: 1/2 first, then 1/3 and 2/6 (equal: file
	 * order), then 2/7, which no longer fits beside 1/2 + 1/3. */
	struct task_spec spec[4] = {
		{ .name = "A", .e = 1, .p = 3, .d = 3, .line = 1 },
		{ .name = "B", .e = 2, .p = 6, .d = 6, .line = 2 },
		{ .name = "C", .e = 1, .p = 2, .d = 2, .line = 3 },
		{ .name = "D", .e = 2, .p = 7, .d = 7, .line = 4 },
	};
	struct taskset ts = { .task = spec, .ntasks = 4, .max_tasks = 4 };
	unsigned cpu_of[4];
	struct sched_error err = { { 0 } };
	EXPECT(edf_partition_ffd(&ts, 2, cpu_of, &env, &err) == 0 &&
	       cpu_of[0] == 0 && cpu_of[1] == 1 && cpu_of[2] == 0 &&
	       cpu_of[3] == 1, "first-fit decreasing order: %u %u %u %u %s",
	       cpu_of[0], cpu_of[1], cpu_of[2], cpu_of[3], err.msg);
}

int main(void)
{
	static const unsigned sizes[] = { 1, 2, 3, 7, 64, 65, 130 };
	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		test_cpudl_random(sizes[i], 3000);
		test_push_modes(sizes[i], 2000);
	}
	test_rq_random(1, 200);
	test_rq_random(37, 5000);
	test_usum();
	return unit_exit_status();
}
