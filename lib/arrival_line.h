/*
 * lib/arrival_line: the lines a person types to make aperiodic jobs arrive
 * (docs/interrupts.md): `NAME COST_US` -- a server of the task set and the
 * job's cost in microseconds, separated by spaces or tabs -- or `!end`,
 * which ends the kernel's self-check of the typed source.
 */
#ifndef LIB_ARRIVAL_LINE_H
#define LIB_ARRIVAL_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "taskset.h"

enum arrival_line_kind {
	ARRIVAL_LINE_JOB,       /* *server and *cost_us are set */
	ARRIVAL_LINE_EMPTY,     /* only blanks: nothing to do */
	ARRIVAL_LINE_END,       /* `!end` */
	ARRIVAL_LINE_BAD,       /* err says what was wrong */
};

/* Parses the n bytes at s (without the line end). */
enum arrival_line_kind arrival_line_parse(const struct taskset *ts,
					  const char *s, size_t n,
					  unsigned *server, uint32_t *cost_us,
					  char *err, size_t errlen);

#endif
