/*
 * user/lib/args: the numbers a program's arguments (argv, from its task's
 * args="...") carry, read without a C library. Each returns 0, or -1 for
 * text that is not what it reads.
 */
#ifndef USER_LIB_ARGS_H
#define USER_LIB_ARGS_H

#include <stdint.h>

/* A decimal number below 2^63. */
int args_u64(const char *s, uint64_t *out);

/* A decimal fraction D[.DDDDDD] (at most 6 decimals, at most 1000) in
 * millionths: "0.5" is 500000, "2" is 2000000. */
#define ARGS_ONE 1000000u
int args_fraction(const char *s, uint64_t *millionths);

/* Two fractions LO-HI with LO <= HI, in millionths. */
int args_range(const char *s, uint64_t *lo, uint64_t *hi);

#endif
