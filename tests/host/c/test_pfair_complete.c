/*
 * complete(): a job that ends early omits its remaining subtasks (GIS,
 * staggered Pfair Sec. 2.2). One task, e = 3, p = 6, on one CPU, in both
 * plugins: subtask 1 (window [0, 2)) runs in slot 0; the job completes at
 * time 1, so subtasks 2 and 3 are dropped and the next one is job 2's
 * first, window [6, 8). Slots 1-5 are idle, slot 6 runs it, slot 7 is
 * idle again (job 2's second subtask is released at 8), and the job count
 * is 1 after the early completion.
 */
#include <string.h>

#include "../../../lib/taskset.h"
#include "../../../sched/sched.h"
#include "unit.h"

static void check_plugin(const char *name)
{
	struct task_spec spec = { .name = "A", .e = 3, .p = 6, .d = 6 };
	struct taskset ts = { .task = &spec, .ntasks = 1, .max_tasks = 1 };
	struct sched_env env = { .alloc = unit_alloc,
				 .resched = unit_no_resched };
	struct sched_config cfg = { .cpus = 1, .staggered = 0, .tasks = &ts };
	struct sched_error err;
	const struct sched_plugin *pl = sched_find(name);
	void *s = pl->create(&cfg, &env, &err);
	CHECK(s, "%s: %s", name, err.msg);
	static const int expect[8] = { 0, -1, -1, -1, -1, -1, 0, -1 };
	for (uint64_t t = 0; t < 8; t++) {
		if (t == 1)
			pl->complete(s, 0, 1);
		int got = pl->schedule(s, 0, t);
		CHECK(got == expect[t], "%s slot %llu: got %d, expected %d",
		      name, (unsigned long long)t, got, expect[t]);
	}
	struct sched_task_stats st;
	pl->stats(s, 0, &st);
	CHECK(st.jobs == 1 && st.quanta == 2 && st.misses == 0,
	      "%s: jobs %llu quanta %llu misses %llu", name,
	      (unsigned long long)st.jobs, (unsigned long long)st.quanta,
	      (unsigned long long)st.misses);
}

int main(void)
{
	check_plugin("pd2");
	unit_free();
	check_plugin("spd2");
	return unit_exit_status();
}
