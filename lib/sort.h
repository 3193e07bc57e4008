/* lib/sort: in-place sorting and percentiles of 64-bit samples. */
#ifndef LIB_SORT_H
#define LIB_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Heapsort: O(n log n), no recursion, no extra memory. */
void sort_u64(uint64_t *v, size_t n);

/* The nearest-rank p-th percentile (0 <= p <= 100) of sorted v[0..n). */
uint64_t percentile_u64(const uint64_t *v, size_t n, unsigned p);

#endif
