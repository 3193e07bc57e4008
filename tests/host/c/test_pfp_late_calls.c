/*
 * pfp driven the way a kernel may drive it: calls that come later than
 * next_call() asked (timer latency). docs/schedulers-event-driven.md
 * promises that lateness delays decisions but not the accounts: the budget
 * is charged up to the instant it ran out, the rest counts as background,
 * and a replenishment that came due while nobody called still dates the
 * chunk it opens from its own time.
 *
 * One CPU, a sporadic server S (budget 100 every 1000, top priority) and a
 * hog H below it. S gets a job of 500 at 100; its budget runs out at 200
 * but the call comes at 230; the 100 come back at 1100, the call at 1150.
 *
 * Also: the quantum driver (sched/driver.c) refuses an event-driven plugin.
 */
#include <string.h>

#include "../../../lib/taskset.h"
#include "../../../sched/driver.h"
#include "../../../sched/sched.h"
#include "unit.h"

#define MAX_NOTES 16

static struct sched_note notes[MAX_NOTES];
static unsigned nnotes;

static void record(void *ctx, const struct sched_note *n)
{
	(void)ctx;
	if (nnotes < MAX_NOTES)
		notes[nnotes++] = *n;
}

static int has_note(enum sched_note_kind kind, uint64_t at, uint64_t amount,
		    uint64_t due)
{
	for (unsigned i = 0; i < nnotes; i++)
		if (notes[i].kind == kind && notes[i].at == at &&
		    notes[i].amount == amount &&
		    (kind != SCHED_NOTE_POSTED || notes[i].due == due))
			return 1;
	return 0;
}

static void make_set(struct task_spec *spec, struct taskset *ts)
{
	spec[0] = (struct task_spec){ .name = "H", .e = 100, .p = 100,
				      .d = 100, .prio = 9, .has_prio = 1 };
	spec[1] = (struct task_spec){ .name = "S", .prio = 0, .has_prio = 1 };
	spec[1].server = (struct server_spec){
		.kind = SERVER_SPORADIC, .budget_us = 100, .period_us = 1000,
		.max_repl = 4 };
	*ts = (struct taskset){ .task = spec, .ntasks = 2, .max_tasks = 2 };
}

static void late_calls(void)
{
	struct task_spec spec[2];
	struct taskset ts;
	make_set(spec, &ts);
	struct sched_env env = { .alloc = unit_alloc,
				 .resched = unit_no_resched, .note = record };
	struct sched_config cfg = { .cpus = 1, .tasks = &ts, .quantum_us = 1000 };
	struct sched_error err;
	const struct sched_plugin *pl = sched_find("pfp");
	void *s = pl->create(&cfg, &env, &err);
	CHECK(s, "%s", err.msg);

	CHECK(pl->schedule(s, 0, 0) == 0, "H runs first");
	pl->arrive(s, 1, 100, 500);
	CHECK(pl->schedule(s, 0, 100) == 1, "S preempts H");
	CHECK(pl->next_call(s, 0) == 200, "budget runs out at 200, got %llu",
	      (unsigned long long)pl->next_call(s, 0));

	CHECK(pl->schedule(s, 0, 230) == 0, "late at 230: H again");
	EXPECT(has_note(SCHED_NOTE_POSTED, 200, 100, 1100),
	       "the 100 used are posted at 200 for 1100");
	EXPECT(has_note(SCHED_NOTE_EXHAUSTED, 200, 0, 0), "exhausted at 200");
	struct sched_server_stats st;
	pl->server_stats(s, 1, &st);
	EXPECT(st.consumed_us == 100 && st.background_us == 30,
	       "consumed %llu background %llu: the 30 after 200 are background",
	       (unsigned long long)st.consumed_us,
	       (unsigned long long)st.background_us);
	CHECK(pl->next_call(s, 0) == 1100, "the replenishment at 1100");

	CHECK(pl->schedule(s, 0, 1150) == 1, "late at 1150: S");
	EXPECT(has_note(SCHED_NOTE_REPLENISHED, 1100, 100, 0),
	       "replenished at 1100, not at the call");
	pl->complete(s, 1, 1230);    /* after 80 of the new budget */
	CHECK(pl->schedule(s, 0, 1230) == 0, "S done: H");
	EXPECT(has_note(SCHED_NOTE_POSTED, 1230, 80, 2100),
	       "the chunk opened at 1100, the replenishment's time: due 2100");
}

static void quantum_driver_refuses(void)
{
	struct task_spec spec[2];
	struct taskset ts;
	make_set(spec, &ts);
	struct sched_config cfg = { .cpus = 1, .tasks = &ts };
	struct sched_driver d;
	int rc = sched_driver_create(&d, sched_find("pfp"), &cfg, unit_alloc,
				     NULL, NULL, NULL);
	EXPECT(rc == -1 && strstr(d.err.msg, "pfp is event-driven"),
	       "the quantum driver took pfp: %s", d.err.msg);
}

int main(void)
{
	late_calls();
	quantum_driver_refuses();
	return unit_exit_status();
}
