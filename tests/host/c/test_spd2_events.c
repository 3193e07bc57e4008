/*
 * spd2 with task events arriving between any two Schedule(p) calls, as
 * they would from other CPUs in the kernel (Fig. 7 cases (i)-(iii) of
 * Deactivate and Activate, including a task selected for the current slot
 * but not yet granted a processor). Random task sets and event sequences;
 * I1/I2 are asserted inside spd2 (SCHED_DEBUG). Checked here:
 *  - a blocked or departed task is never granted a processor afterwards;
 *  - no task gets overlapping quanta: CPU p's slot t is [t + p/M, t+1+p/M);
 *  - a task in consecutive slots stays on its CPU (Sec. 3);
 *  - with no events, no subtask is late by more than (M-1)/M (Sec. 4).
 */
#include <stdbool.h>
#include <string.h>

#include "../../../lib/taskset.h"
#include "../../../sched/sched.h"
#include "unit.h"

#define MAX_TASKS 12
#define SLOTS 300

enum { PRESENT, BLOCKED, GONE };
static unsigned long calls;

static void run_case(unsigned m, bool events, bool er)
{
	struct task_spec spec[MAX_TASKS];
	struct taskset ts = { .task = spec, .max_tasks = MAX_TASKS };
	struct sched_param param = { "pfair_er", er };
	struct sched_env env = { .alloc = unit_alloc,
				 .resched = unit_no_resched };
	struct sched_config cfg = { .cpus = m, .staggered = 1, .tasks = &ts,
				    .params = &param, .nparams = 1 };
	struct sched_error err;
	const struct sched_plugin *pl = sched_find("spd2");
	void *s = NULL;
	while (!s) {
		/* Draw until admissible: spd2's own exact test decides. */
		ts.ntasks = 1 + rnd(MAX_TASKS);
		for (unsigned i = 0; i < ts.ntasks; i++) {
			memset(&spec[i], 0, sizeof spec[i]);
			spec[i].name[0] = (char)('A' + i);
			spec[i].p = spec[i].d = 1 + rnd(10);
			spec[i].e = 1 + rnd(spec[i].p);
		}
		if (!(s = pl->create(&cfg, &env, &err)))
			unit_free();
	}
	int state[MAX_TASKS] = { 0 };
	uint64_t busy_until[MAX_TASKS] = { 0 };   /* in 1/M quanta */
	int64_t last_slot[MAX_TASKS];
	unsigned last_cpu[MAX_TASKS] = { 0 };
	for (unsigned i = 0; i < MAX_TASKS; i++)
		last_slot[i] = -2;
	for (uint64_t t = 0; t < SLOTS; t++)
		for (unsigned p = 0; p < m; p++) {
			if (events && rnd(3) == 0) {
				unsigned x = rnd(ts.ntasks);
				unsigned a = rnd(5);
				if (a == 0 && state[x] == PRESENT) {
					pl->block(s, x, t);
					state[x] = BLOCKED;
				} else if (a == 1 && state[x] == BLOCKED) {
					pl->wake(s, x, t);
					state[x] = PRESENT;
				} else if (a == 2 && state[x] != GONE) {
					pl->leave(s, x, t);
					state[x] = GONE;
				} else if (a == 3 && state[x] == GONE) {
					CHECK(pl->join(s, x, t, &err) == 0,
					      "join refused: %s", err.msg);
					state[x] = PRESENT;
				} else if (a == 4 && state[x] == PRESENT) {
					pl->complete(s, x, t);
				}
			}
			int got = pl->schedule(s, p, t);
			calls++;
			if (got < 0)
				continue;
			CHECK(state[got] == PRESENT, "slot %llu CPU %u: task %d "
			      "runs while %s", (unsigned long long)t, p, got,
			      state[got] == BLOCKED ? "blocked" : "gone");
			uint64_t start = t * m + p;
			CHECK(start >= busy_until[got], "slot %llu CPU %u: task %d "
			      "overlaps its previous quantum",
			      (unsigned long long)t, p, got);
			CHECK(last_slot[got] != (int64_t)t - 1 ||
			      last_cpu[got] == p, "slot %llu: task %d migrated "
			      "back to back", (unsigned long long)t, got);
			busy_until[got] = start + m;
			last_slot[got] = (int64_t)t;
			last_cpu[got] = p;
		}
	if (!events)
		for (unsigned i = 0; i < ts.ntasks; i++) {
			struct sched_task_stats st;
			pl->stats(s, i, &st);
			CHECK(st.max_tardiness_num <= m - 1 &&
			      st.tardiness_den == m, "task %u late by %llu/%llu",
			      i, (unsigned long long)st.max_tardiness_num,
			      (unsigned long long)st.tardiness_den);
		}
}

int main(void)
{
	for (unsigned k = 0; k < 2000 && !failures; k++) {
		run_case(1 + rnd(4), k % 4 != 0, k % 3 == 0);
		unit_free();
	}
	if (failures)
		return 1;
	printf("spd2 with events between Schedule calls: ok (%lu calls)\n", calls);
	return 0;
}
