/* Host unit tests for lib/fmt and lib/parse_num, against the C library. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../lib/fmt.h"
#include "../../../lib/parse_num.h"
#include "unit.h"

#define CHECK_FMT(...)                                                        \
	do {                                                                  \
		char want[256], got[256];                                     \
		int wn = snprintf(want, sizeof want, __VA_ARGS__);            \
		int gn = fmt_snprintf(got, sizeof got, __VA_ARGS__);          \
		if (wn != gn || strcmp(want, got)) {                          \
			printf("FAIL %s:%d: fmt gave '%s' (%d), libc '%s' (%d)\n", \
			       __FILE__, __LINE__, got, gn, want, wn);        \
			failures++;                                           \
		}                                                             \
	} while (0)

static void test_fmt(void)
{
	CHECK_FMT("plain");
	CHECK_FMT("%d %i %u", -42, 0, 4000000000u);
	CHECK_FMT("%5d|%-5d|%05d|%+d|% d", 42, 42, -42, 7, 7);
	CHECK_FMT("%x %X %o %#x %#x %#X", 0xbeefu, 0xbeefu, 8u, 0u, 255u, 255u);
	CHECK_FMT("%lld %llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	CHECK_FMT("%ld %lu %zu", -1L, 123UL, (size_t)77);
	CHECK_FMT("%hhu %hd", 300, 70000);
	CHECK_FMT("%.3d|%.0d|%8.3d", 5, 0, -5);
	CHECK_FMT("%s|%10s|%-10s|%.2s", "abc", "abc", "abc", "abc");
	CHECK_FMT("%*d|%-*d|%.*s", 6, 1, 6, 2, 1, "xyz");
	CHECK_FMT("%c%c%%", 'o', 'k');
	CHECK_FMT("%016llx", 0x1234ULL);

	/* Truncation keeps the C99 return value and a terminating NUL. */
	char small[5];
	int n = fmt_snprintf(small, sizeof small, "%s", "abcdefgh");
	if (n != 8 || strcmp(small, "abcd")) {
		printf("FAIL truncation: '%s' %d\n", small, n);
		failures++;
	}
	/* A precision bounds what is read, not only what is printed: the
	 * bytes of an unterminated string, exactly as many as the precision,
	 * end where the allocation ends (AddressSanitizer sees one more read;
	 * found by the fuzz target `taskset`). */
	char *unterminated = malloc(3);
	memcpy(unterminated, "xyz", 3);
	CHECK_FMT("%.*s|%.3s|%.2s", 3, unterminated, unterminated, unterminated);
	free(unterminated);
	char p[32], q[32];
	void *ptr = (void *)0xffff800000001000ULL;
	fmt_snprintf(p, sizeof p, "%p", ptr);
	snprintf(q, sizeof q, "0x%016llx", (unsigned long long)(uintptr_t)ptr);
	if (strcmp(p, q)) {
		printf("FAIL %%p: '%s' vs '%s'\n", p, q);
		failures++;
	}
}

static void expect_num(const char *s, uint64_t max, enum parse_num_status st,
		       uint64_t v)
{
	uint64_t out = 12345;
	enum parse_num_status got = parse_u64(s, strlen(s), max, &out);
	if (got != st || (st == PARSE_NUM_OK && out != v) ||
	    (st != PARSE_NUM_OK && out != 12345)) {
		printf("FAIL parse_u64('%s', %llu): status %d value %llu\n", s,
		       (unsigned long long)max, got, (unsigned long long)out);
		failures++;
	}
}

static void test_parse(void)
{
	expect_num("0", 10, PARSE_NUM_OK, 0);
	expect_num("007", 10, PARSE_NUM_OK, 7);
	expect_num("10", 10, PARSE_NUM_OK, 10);
	expect_num("11", 10, PARSE_NUM_RANGE, 0);
	expect_num("", 10, PARSE_NUM_EMPTY, 0);
	expect_num("-1", 10, PARSE_NUM_SYNTAX, 0);
	expect_num("+1", 10, PARSE_NUM_SYNTAX, 0);
	expect_num("1 ", 10, PARSE_NUM_SYNTAX, 0);
	expect_num("0x10", UINT64_MAX, PARSE_NUM_SYNTAX, 0);
	expect_num("18446744073709551615", UINT64_MAX, PARSE_NUM_OK, UINT64_MAX);
	expect_num("18446744073709551616", UINT64_MAX, PARSE_NUM_RANGE, 0);
	expect_num("99999999999999999999999x", UINT64_MAX, PARSE_NUM_SYNTAX, 0);
	expect_num("2147483647", 0x7fffffff, PARSE_NUM_OK, 0x7fffffff);
	expect_num("2147483648", 0x7fffffff, PARSE_NUM_RANGE, 0);

	/* Random round trips against the C library. */
	srand(7);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^
			     (uint64_t)rand();
		v >>= rand() % 64;
		char buf[32];
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
		expect_num(buf, UINT64_MAX, PARSE_NUM_OK, v);
		expect_num(buf, v, PARSE_NUM_OK, v);
		if (v > 0)
			expect_num(buf, v - 1, PARSE_NUM_RANGE, 0);
	}
}

int main(void)
{
	test_fmt();
	test_parse();
	return unit_exit_status();
}
