/*
 * Fuzz target `arrival_line`: lib/arrival_line, the lines a person types on
 * COM1 to make aperiodic jobs arrive (`SERVER COST_US` or `!end`), against
 * a task set with two servers and two tasks. A job must name a server of
 * the set and a cost from 1 to 2^31 - 1, exactly as the line's two words
 * say; a blank line is empty; anything else is refused with a message.
 */
#include "../../../lib/arrival_line.h"
#include "../fuzz.h"

static const char set[] =
	"server S kind=sporadic budget=1500 period=5000 prio=1 cpu=0\n"
	"task A e=2 p=10 prio=2 cpu=0\n"
	"server P kind=polling budget=1000 period=4000 prio=1 cpu=1\n"
	"task C e=1 p=5 prio=2 cpu=1\n";

static struct task_spec task[4];
static struct taskset_event event[1];
static struct taskset ts = { .task = task, .max_tasks = 4,
			      .event = event, .max_events = 1 };

static int blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* The line's words: starts and lengths of up to three. */
static unsigned words(const uint8_t *s, size_t n, size_t start[3],
		      size_t len[3])
{
	unsigned k = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && blank(s[i]))
			i++;
		if (i == n)
			break;
		size_t b = i;
		while (i < n && !blank(s[i]))
			i++;
		if (k < 3) {
			start[k] = b;
			len[k] = i - b;
		}
		k++;
	}
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160];
	if (!ts.ntasks && taskset_parse(&ts, "fuzz.tasks", set, sizeof set - 1,
					err, sizeof err))
		FUZZ_CHECK(0, "the target's own task set: %s", err);
	unsigned server = 12345;
	uint32_t cost = 12345;
	memset(err, 0x55, sizeof err);
	enum arrival_line_kind k = arrival_line_parse(
		&ts, (const char *)data, size, &server, &cost, err, sizeof err);
	size_t start[3] = { 0 }, len[3] = { 0 };
	unsigned n = words(data, size, start, len);
	switch (k) {
	case ARRIVAL_LINE_EMPTY:
		FUZZ_CHECK(n == 0, "%u words taken for an empty line", n);
		break;
	case ARRIVAL_LINE_END:
		FUZZ_CHECK(n == 1 && len[0] == 4 &&
			   !memcmp(data + start[0], "!end", 4), "not '!end'");
		break;
	case ARRIVAL_LINE_JOB: {
		FUZZ_CHECK(n == 2 && server < ts.ntasks &&
			   ts.task[server].server.kind != SERVER_NONE &&
			   strlen(ts.task[server].name) == len[0] &&
			   !memcmp(ts.task[server].name, data + start[0], len[0]),
			   "job for %u from %u words", server, n);
		uint64_t v = 0;
		for (size_t i = 0; i < len[1]; i++) {
			uint8_t c = data[start[1] + i];
			FUZZ_CHECK(c >= '0' && c <= '9', "cost with %#x", c);
			if (v < 1000000000000ull)       /* saturates */
				v = v * 10 + (c - '0');
		}
		FUZZ_CHECK(v == cost && cost >= 1 && cost < 0x80000000u,
			   "cost %u from '%.*s'", cost, (int)len[1],
			   data + start[1]);
		break;
	}
	case ARRIVAL_LINE_BAD:
		FUZZ_CHECK(n >= 1 && fuzz_terminated(err, sizeof err) &&
			   err[0] != 0, "refused %u words", n);
		FUZZ_CHECK(server == 12345 && cost == 12345,
			   "a refused line set its results");
		break;
	default:
		FUZZ_CHECK(0, "kind %d", k);
	}
	return 0;
}
