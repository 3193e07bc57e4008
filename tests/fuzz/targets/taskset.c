/*
 * Fuzz target `taskset`: lib/taskset, the task-set file the kernel reads
 * from a multiboot2 module (len bytes, no terminating NUL) into storage
 * its caller gives. A refused file leaves nothing behind and says
 * "FILE:LINE: why"; an accepted one holds what the format promises
 * (docs/formats.md): unique names of allowed characters, e <= p and e <= d,
 * servers with budget <= period, events naming declared tasks, each kind
 * in time order.
 */
#include "../../../lib/taskset.h"
#include "../fuzz.h"

#define MAX_TASKS 64
#define MAX_EVENTS 64
#define LIMIT TASKSET_VALUE_LIMIT

static int name_ok(const char *s)
{
	size_t n = strnlen(s, TASKSET_NAME_MAX + 1);
	if (n == 0 || n > TASKSET_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_.-", s[i]))
			return 0;
	return 1;
}

static void check_task(const struct taskset *ts, unsigned i)
{
	const struct task_spec *t = &ts->task[i];
	FUZZ_CHECK(name_ok(t->name), "task %u's name", i);
	FUZZ_CHECK(taskset_find(ts, t->name, strlen(t->name)) == (int)i,
		   "task '%s' is not found at its index", t->name);
	FUZZ_CHECK(taskset_work_name_ok(t->work, strlen(t->work)),
		   "task '%s': program name '%.40s'", t->name, t->work);
	const char *args = taskset_args(ts, t);
	size_t at = args ? (size_t)(args - ts->argbuf) : 0;
	FUZZ_CHECK(!t->nargs || (args && at + t->args_len <= ts->argbuf_len &&
				 args[t->args_len - 1] == 0),
		   "task '%s': %u args= words outside the buffer", t->name,
		   t->nargs);
	FUZZ_CHECK(t->phase < LIMIT &&
		   t->prio < LIMIT && t->cpu < LIMIT && t->ws < LIMIT,
		   "task '%s': a value out of range", t->name);
	const struct server_spec *s = &t->server;
	if (s->kind != SERVER_NONE) {
		FUZZ_CHECK(s->kind <= SERVER_HYBRID && s->budget_us >= 1 &&
			   s->budget_us <= s->period_us && s->period_us < LIMIT,
			   "server '%s': budget %u, period %u", t->name,
			   s->budget_us, s->period_us);
		FUZZ_CHECK(s->max_repl <= TASKSET_MAX_REPL_LIMIT &&
			   s->coalesce <= COALESCE_GRADUAL,
			   "server '%s': max_repl %u", t->name, s->max_repl);
		FUZZ_CHECK(!s->rate_hz || s->cost_us >= 1, "server '%s': "
			   "arrivals of cost 0", t->name);
		return;
	}
	if (t->weight) {
		FUZZ_CHECK(!t->e && !t->p && !t->d && t->weight < LIMIT,
			   "task '%s': weight with e/p/d", t->name);
		return;
	}
	FUZZ_CHECK(t->e >= 1 && t->e <= t->p && t->e <= t->d &&
		   t->p < LIMIT && t->d < LIMIT, "task '%s': e=%u p=%u d=%u",
		   t->name, t->e, t->p, t->d);
}

static void check_events(const struct taskset *ts)
{
	uint32_t last[2] = { 0, 0 };
	for (unsigned i = 0; i < ts->nevents; i++) {
		const struct taskset_event *ev = &ts->event[i];
		int arrive = ev->action == TASKSET_ARRIVE;
		FUZZ_CHECK(ev->task < ts->ntasks && ev->action <= TASKSET_ARRIVE,
			   "event %u names task %u of %u", i, ev->task,
			   ts->ntasks);
		FUZZ_CHECK(arrive == (ts->task[ev->task].server.kind !=
				      SERVER_NONE), "event %u: %s for %s", i,
			   taskset_action_name(ev->action),
			   ts->task[ev->task].name);
		FUZZ_CHECK(!arrive || ev->cost_us >= 1, "arrival of cost 0");
		FUZZ_CHECK(ev->t >= last[arrive] && ev->t < LIMIT,
			   "event %u at %u after one at %u", i, ev->t,
			   last[arrive]);
		last[arrive] = ev->t;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct task_spec task[MAX_TASKS];
	static struct taskset_event event[MAX_EVENTS];
	/* The file's length always suffices for its args= words. */
	static char argbuf[1 << 16];
	struct taskset ts = { .task = task, .max_tasks = MAX_TASKS,
			      .event = event, .max_events = MAX_EVENTS,
			      .argbuf = argbuf,
			      .argbuf_max = size < sizeof argbuf ? size
								 : sizeof argbuf };
	char err[256];
	memset(err, 0x55, sizeof err);
	int rc = taskset_parse(&ts, "fuzz.tasks", (const char *)data, size,
			       err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && ts.ntasks == 0 && ts.nevents == 0,
			   "refused with rc %d, %u tasks kept", rc, ts.ntasks);
		FUZZ_CHECK(fuzz_terminated(err, sizeof err) &&
			   !strncmp(err, "fuzz.tasks:", 11), "message '%.40s'",
			   err);
		return 0;
	}
	FUZZ_CHECK(ts.ntasks >= 1 && ts.ntasks <= MAX_TASKS &&
		   ts.nevents <= MAX_EVENTS, "%u tasks, %u events", ts.ntasks,
		   ts.nevents);
	for (unsigned i = 0; i < ts.ntasks; i++)
		check_task(&ts, i);
	check_events(&ts);
	return 0;
}
