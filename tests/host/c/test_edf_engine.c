/*
 * Host unit tests for the gedf plugin driven by hand, the way the kernel
 * drives it: which CPUs it asks to reschedule (the IPIs), that a quantum is
 * charged once per CPU and slot however often a CPU asks, complete() and
 * block/wake, and the refusal of staggered quanta. Each scenario's expected
 * outcome is derived in its comments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../sched/sched.h"

#include "unit.h"

static unsigned resched_mask;   /* CPUs asked to reschedule since cleared */

static void record_resched(void *ctx, unsigned cpu)
{
	(void)ctx;
	resched_mask |= 1u << cpu;
}

static const struct sched_env env = { .alloc = unit_alloc,
				       .resched = record_resched };

static void set_task(struct task_spec *t, const char *name, uint32_t e,
		     uint32_t p, uint32_t d, uint32_t phase)
{
	memset(t, 0, sizeof *t);
	strcpy(t->name, name);
	t->e = e;
	t->p = p;
	t->d = d;
	t->phase = phase;
}

enum { A, B, C };

static uint64_t quanta(const struct sched_plugin *pl, void *s, unsigned task)
{
	struct sched_task_stats st;
	pl->stats(s, task, &st);
	return st.quanta;
}

static void test_preemption_and_charging(void)
{
	struct task_spec spec[3];
	set_task(&spec[A], "A", 4, 10, 10, 0);
	set_task(&spec[B], "B", 4, 10, 10, 0);
	set_task(&spec[C], "C", 1, 10, 2, 1);
	struct taskset ts = { .task = spec, .ntasks = 3, .max_tasks = 3 };
	struct sched_config cfg = { .cpus = 2, .tasks = &ts };
	struct sched_error err = { { 0 } };
	const struct sched_plugin *pl = sched_find("gedf");
	void *s = pl->create(&cfg, &env, &err);
	EXPECT(s != NULL, "create: %s", err.msg);
	if (!s)
		return;

	/* t = 0: A and B (deadline 10) arrive on CPUs 0 and 1 (task index
	 * mod M); nothing to push. */
	EXPECT(pl->schedule(s, 0, 0) == A, "slot 0 CPU 0");
	EXPECT(pl->schedule(s, 1, 0) == B, "slot 0 CPU 1");

	/* t = 1: C (deadline 3) arrives on CPU 0 (2 mod 2) and preempts A.
	 * A is pushed to the latest-deadline CPU: A and B tie on deadline 10,
	 * B is later by index, so CPU 1. Both CPUs must be asked to switch. */
	resched_mask = 0;
	EXPECT(pl->schedule(s, 0, 1) == C, "slot 1 CPU 0 runs C");
	EXPECT(resched_mask == 3u, "resched mask %#x, want both CPUs",
	       resched_mask);
	EXPECT(pl->schedule(s, 1, 1) == A, "slot 1 CPU 1 runs A");

	/* t = 2: C completed at 2 (its deadline 3, no miss); CPU 0 pulls B.
	 * The kernel may ask twice in one slot: the answer stands and the
	 * slot is charged once. */
	EXPECT(pl->schedule(s, 0, 2) == B, "slot 2 CPU 0 pulls B");
	EXPECT(pl->schedule(s, 1, 2) == A, "slot 2 CPU 1");
	EXPECT(pl->schedule(s, 0, 2) == B, "slot 2 CPU 0 again");
	EXPECT(pl->schedule(s, 1, 2) == A, "slot 2 CPU 1 again");

	/* t = 3: A ran in slots 0, 1, 2; B in 0 and 2; C in 1. */
	EXPECT(pl->schedule(s, 0, 3) == B, "slot 3 CPU 0");
	EXPECT(quanta(pl, s, A) == 3, "A has %llu quanta, want 3",
	       (unsigned long long)quanta(pl, s, A));
	EXPECT(quanta(pl, s, B) == 2, "B has %llu quanta, want 2",
	       (unsigned long long)quanta(pl, s, B));
	EXPECT(quanta(pl, s, C) == 1, "C quanta");
	struct sched_task_stats st;
	pl->stats(s, C, &st);
	EXPECT(st.jobs == 1 && st.misses == 0, "C: one job, no miss");

	/* A's job ends early at 3 (complete): CPU 1 has nothing left. */
	pl->complete(s, A, 3);
	pl->stats(s, A, &st);
	EXPECT(st.jobs == 1 && st.misses == 0, "A completed early");
	EXPECT(pl->schedule(s, 1, 3) == SCHED_IDLE, "slot 3 CPU 1 idle");

	/* B blocks at 4 after its third quantum (slot 3): CPU 0 idles; B
	 * wakes at 5, before its deadline 10, and resumes with 1 quantum
	 * left, which it runs in slot 5 and completes at 6. */
	pl->block(s, B, 4);
	EXPECT(pl->schedule(s, 0, 4) == SCHED_IDLE, "slot 4 CPU 0 idle");
	EXPECT(pl->schedule(s, 1, 4) == SCHED_IDLE, "slot 4 CPU 1 idle");
	resched_mask = 0;
	pl->wake(s, B, 5);
	EXPECT(resched_mask == 1u, "wake asks CPU 0 (B's), mask %#x",
	       resched_mask);
	EXPECT(pl->schedule(s, 0, 5) == B, "slot 5 B resumes");
	pl->schedule(s, 1, 5);
	pl->schedule(s, 0, 6);
	pl->stats(s, B, &st);
	EXPECT(st.jobs == 1 && st.quanta == 4 && st.misses == 0,
	       "B: 4 quanta, done at 6");

	/* A join of a present task is refused by name. */
	err.msg[0] = 0;
	EXPECT(pl->join(s, A, 7, &err) == -1 &&
	       strstr(err.msg, "task A joins but is present"), "join: %s",
	       err.msg);
}

static void test_staggered_refused(void)
{
	struct task_spec spec[1];
	set_task(&spec[0], "A", 1, 2, 2, 0);
	struct taskset ts = { .task = spec, .ntasks = 1, .max_tasks = 1 };
	struct sched_config cfg = { .cpus = 2, .staggered = 1, .tasks = &ts };
	struct sched_error err = { { 0 } };
	EXPECT(sched_find("gedf")->create(&cfg, &env, &err) == NULL &&
	       strstr(err.msg, "staggered"), "gedf refuses staggered quanta");
	err.msg[0] = 0;
	EXPECT(sched_find("pedf")->create(&cfg, &env, &err) == NULL &&
	       strstr(err.msg, "staggered"), "pedf refuses staggered quanta");
}

int main(void)
{
	test_preemption_and_charging();
	test_staggered_refused();
	return unit_exit_status();
}
