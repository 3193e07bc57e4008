/* Host unit test of lib/arrival_line: the typed arrival lines, good and
 * bad, against a small task set. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../../lib/arrival_line.h"

#include "unit.h"

static struct task_spec tasks[8];
static struct taskset_event events[8];
static struct taskset ts = { .task = tasks, .max_tasks = 8, .event = events,
			      .max_events = 8 };

static const char set[] =
	"server S kind=polling budget=100 period=1000 prio=0\n"
	"server s.2 kind=sporadic budget=100 period=1000 prio=1\n"
	"task T e=1 p=10 prio=2\n";

struct row {
	const char *line;
	enum arrival_line_kind kind;
	const char *server;     /* JOB: the server; BAD: a phrase of err */
	uint32_t cost;
};

static const struct row rows[] = {
	{ "S 300", ARRIVAL_LINE_JOB, "S", 300 },
	{ " \ts.2\t 7 ", ARRIVAL_LINE_JOB, "s.2", 7 },
	{ "S 2147483647", ARRIVAL_LINE_JOB, "S", 2147483647u },
	{ "", ARRIVAL_LINE_EMPTY, 0, 0 },
	{ " \t ", ARRIVAL_LINE_EMPTY, 0, 0 },
	{ "!end", ARRIVAL_LINE_END, 0, 0 },
	{ "  !end ", ARRIVAL_LINE_END, 0, 0 },
	{ "!end 3", ARRIVAL_LINE_BAD, "no server named '!end'", 0 },
	{ "S", ARRIVAL_LINE_BAD, "expected 'SERVER COST_US'", 0 },
	{ "S 1 2", ARRIVAL_LINE_BAD, "'2' after the cost", 0 },
	{ "X 1", ARRIVAL_LINE_BAD, "no server named 'X'", 0 },
	{ "s 1", ARRIVAL_LINE_BAD, "no server named 's'", 0 },
	{ "T 1", ARRIVAL_LINE_BAD, "not a server: the task 'T'", 0 },
	{ "S 0", ARRIVAL_LINE_BAD, "cost '0' is 0", 0 },
	{ "S -4", ARRIVAL_LINE_BAD, "cost '-4' is not a decimal number", 0 },
	{ "S 2147483648", ARRIVAL_LINE_BAD, "from 1 to 2147483647", 0 },
	{ "S 12us", ARRIVAL_LINE_BAD, "cost '12us'", 0 },
};

int main(void)
{
	char err[200];
	if (taskset_parse(&ts, "set", set, sizeof set - 1, err, sizeof err)) {
		printf("FAIL: the task set: %s\n", err);
		return 1;
	}
	for (unsigned i = 0; i < sizeof rows / sizeof *rows; i++) {
		const struct row *r = &rows[i];
		unsigned server = 99;
		uint32_t cost = 0;
		err[0] = 0;
		enum arrival_line_kind k = arrival_line_parse(
			&ts, r->line, strlen(r->line), &server, &cost, err,
			sizeof err);
		EXPECT(k == r->kind, "'%s': kind %d, not %d (%s)", r->line, k,
		       r->kind, err);
		if (k != r->kind)
			continue;
		if (k == ARRIVAL_LINE_JOB)
			EXPECT(server < ts.ntasks &&
			       !strcmp(ts.task[server].name, r->server) &&
			       cost == r->cost, "'%s': server %u cost %u",
			       r->line, server, cost);
		if (k == ARRIVAL_LINE_BAD)
			EXPECT(strstr(err, r->server), "'%s' said '%s'",
			       r->line, err);
	}
	/* Only the n bytes given are the line. */
	unsigned server;
	uint32_t cost;
	EXPECT(arrival_line_parse(&ts, "S 30junk", 4, &server, &cost, err,
				  sizeof err) == ARRIVAL_LINE_JOB && cost == 30,
	       "a line's length bounds it");
	return unit_exit_status();
}
