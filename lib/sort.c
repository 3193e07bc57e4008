/* lib/sort: in-place heapsort and nearest-rank percentiles. */
#include "sort.h"

static void sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		uint64_t t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		uint64_t t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

uint64_t percentile_u64(const uint64_t *v, size_t n, unsigned p)
{
	if (n == 0)
		return 0;
	/* Nearest rank: the smallest value with at least p% at or below it. */
	size_t rank = ((size_t)p * n + 99) / 100;
	if (rank == 0)
		rank = 1;
	return v[rank - 1];
}
