/* Host unit tests for lib/cmdline and lib/sort. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../lib/cmdline.h"
#include "../../../lib/sort.h"

#include "unit.h"

static void test_cmdline(void)
{
	const char *line = "  /boot/kernel.elf ticks=both\tquantum_us=500 "
			   "flag =x slots= \n";
	const char *cur = line;
	struct cmdline_word w;
	const char *want[][2] = { { "/boot/kernel.elf", 0 }, { "ticks", "both" },
				  { "quantum_us", "500" }, { "flag", 0 },
				  { "", "x" }, { "slots", "" } };
	for (unsigned i = 0; i < 6; i++) {
		EXPECT(cmdline_next(&cur, &w), "word %u", i);
		EXPECT(w.key_len == strlen(want[i][0]) &&
		       !memcmp(w.key, want[i][0], w.key_len), "key %u", i);
		if (want[i][1]) {
			EXPECT(w.value && w.value_len == strlen(want[i][1]) &&
			       !memcmp(w.value, want[i][1], w.value_len), "value %u", i);
		} else {
			EXPECT(w.value == NULL, "no value %u", i);
		}
	}
	EXPECT(!cmdline_next(&cur, &w), "end");
	EXPECT(!cmdline_next(&cur, &w), "end stays end");
	cur = "ticks=staggered";
	cmdline_next(&cur, &w);
	EXPECT(cmdline_key_is(&w, "ticks") && !cmdline_key_is(&w, "tick") &&
	       !cmdline_key_is(&w, "ticksx"), "key_is");
	EXPECT(cmdline_value_is(&w, "staggered") && !cmdline_value_is(&w, "stag"),
	       "value_is");
	cur = NULL;
	EXPECT(!cmdline_next(&cur, &w), "NULL line");
	cur = "";
	EXPECT(!cmdline_next(&cur, &w), "empty line");
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_sort(void)
{
	srand(11);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand() % 300);
		uint64_t *v = malloc((n + 1) * sizeof *v), *w = malloc((n + 1) * sizeof *w);
		for (size_t i = 0; i < n; i++)
			v[i] = w[i] = (uint64_t)(rand() % (round % 7 == 0 ? 3 : 100000));
		sort_u64(v, n);
		qsort(w, n, sizeof *w, cmp);
		EXPECT(!memcmp(v, w, n * sizeof *v), "sort n=%zu", n);
		if (n) {
			/* Nearest rank against its definition. */
			for (unsigned p = 0; p <= 100; p += 1) {
				uint64_t got = percentile_u64(v, n, p);
				size_t at_or_below = 0;
				for (size_t i = 0; i < n; i++)
					at_or_below += v[i] <= got;
				EXPECT(at_or_below * 100 >= (size_t)p * n, "p%u", p);
				size_t below = 0;
				for (size_t i = 0; i < n; i++)
					below += v[i] < got;
				EXPECT(below * 100 < (size_t)p * n || below == 0 || p == 0,
				       "p%u is the smallest such value", p);
			}
			EXPECT(percentile_u64(v, n, 100) == v[n - 1], "p100 is max");
			EXPECT(percentile_u64(v, n, 0) == v[0], "p0 is min");
		}
		free(v);
		free(w);
	}
	EXPECT(percentile_u64(NULL, 0, 50) == 0, "empty");
}

int main(void)
{
	test_cmdline();
	test_sort();
	return unit_exit_status();
}
