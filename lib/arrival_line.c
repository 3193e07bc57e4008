/* lib/arrival_line: typed arrival lines (arrival_line.h). */
#include "arrival_line.h"

#include "fmt.h"
#include "parse_num.h"

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next word of [*s, end): its start and length; 0 when none is left. */
static size_t next_word(const char **s, const char *end, const char **w)
{
	while (*s < end && blank(**s))
		(*s)++;
	*w = *s;
	while (*s < end && !blank(**s))
		(*s)++;
	return (size_t)(*s - *w);
}

enum arrival_line_kind arrival_line_parse(const struct taskset *ts,
					  const char *s, size_t n,
					  unsigned *server, uint32_t *cost_us,
					  char *err, size_t errlen)
{
	const char *end = s + n, *name, *cost, *extra;
	size_t name_len = next_word(&s, end, &name);
	if (!name_len)
		return ARRIVAL_LINE_EMPTY;
	size_t cost_len = next_word(&s, end, &cost);
	if (name_len == 4 && !cost_len && name[0] == '!' && name[1] == 'e' &&
	    name[2] == 'n' && name[3] == 'd')
		return ARRIVAL_LINE_END;
	if (!cost_len) {
		fmt_snprintf(err, errlen, "expected 'SERVER COST_US'");
		return ARRIVAL_LINE_BAD;
	}
	if (next_word(&s, end, &extra)) {
		fmt_snprintf(err, errlen, "'%.*s' after the cost; expected "
			     "'SERVER COST_US'", (int)(end - extra), extra);
		return ARRIVAL_LINE_BAD;
	}
	int k = taskset_find(ts, name, name_len);
	if (k < 0 || ts->task[k].server.kind == SERVER_NONE) {
		fmt_snprintf(err, errlen, "%s '%.*s'", k < 0 ?
			     "the task set has no server named" :
			     "not a server: the task", (int)name_len, name);
		return ARRIVAL_LINE_BAD;
	}
	uint64_t v;
	enum parse_num_status st = parse_u64(cost, cost_len,
					     TASKSET_VALUE_LIMIT - 1, &v);
	if (st != PARSE_NUM_OK || v == 0) {
		fmt_snprintf(err, errlen, "cost '%.*s' is %s; a whole number "
			     "of microseconds from 1 to %u", (int)cost_len,
			     cost, st == PARSE_NUM_OK ? "0" :
			     parse_num_reason(st), TASKSET_VALUE_LIMIT - 1);
		return ARRIVAL_LINE_BAD;
	}
	*server = (unsigned)k;
	*cost_us = (uint32_t)v;
	return ARRIVAL_LINE_JOB;
}
