/*
 * The driver's own rules (sched/driver.c), with a scripted plugin whose
 * answers and reschedule requests the test sets:
 *  - a plugin that chooses a task the set does not have stops the run
 *    with a message naming the task and the slot;
 *  - a reschedule asked for a CPU that chose in this slot (from an event,
 *    or from another reschedule) asks that CPU again in the same slot,
 *    and its new answer goes to on_choice; one asked for a CPU that has
 *    not chosen yet waits for that CPU's own boundary call;
 *  - reschedules that ask for more reschedules go on for some rounds,
 *    and a plugin that never stops asking is stopped with a message.
 */
#include <string.h>

#include "../../../lib/taskset.h"
#include "../../../sched/driver.h"
#include "../../../sched/sched.h"
#include "unit.h"

#define CPUS 2

static struct {
	const struct sched_env *env;
	int answer[CPUS];
	unsigned calls[CPUS];
	/* At each schedule() call of cpu, while > 0: ask for a reschedule of
	 * `chain_to` (a chain of requests), counting down. */
	int chain;
	unsigned chain_to;
	/* complete(): ask for a reschedule of these CPUs. */
	unsigned complete_mask;
} fake;

static void *fake_create(const struct sched_config *cfg,
			 const struct sched_env *env, struct sched_error *err)
{
	(void)cfg;
	(void)err;
	fake.env = env;
	return &fake;
}

static int fake_schedule(void *s, unsigned cpu, uint64_t t)
{
	(void)s;
	(void)t;
	fake.calls[cpu]++;
	if (fake.chain > 0) {
		fake.chain--;
		fake.env->resched(fake.env->ctx, fake.chain_to);
		fake.chain_to = fake.chain_to ? 0 : 1;
	}
	return fake.answer[cpu];
}

static void fake_complete(void *s, unsigned task, uint64_t t)
{
	(void)s;
	(void)task;
	(void)t;
	for (unsigned k = 0; k < CPUS; k++)
		if (fake.complete_mask >> k & 1)
			fake.env->resched(fake.env->ctx, k);
}

static const struct sched_plugin fake_plugin = {
	.name = "fake", .create = fake_create, .schedule = fake_schedule,
	.complete = fake_complete,
};

/* What on_choice was told, in order. */
static struct choice {
	unsigned cpu;
	uint64_t t;
	int task;
} told[64];
static unsigned ntold;

static void on_choice(void *ctx, unsigned cpu, uint64_t t, int task)
{
	(void)ctx;
	if (ntold < sizeof told / sizeof told[0])
		told[ntold] = (struct choice){ cpu, t, task };
	ntold++;
}

static struct task_spec spec[2];
static struct taskset ts;

static void start(struct sched_driver *d)
{
	memset(&fake, 0, sizeof fake);
	memset(spec, 0, sizeof spec);
	for (unsigned i = 0; i < 2; i++) {
		spec[i].name[0] = (char)('A' + i);
		spec[i].e = 1;
		spec[i].p = spec[i].d = 2;
	}
	ts = (struct taskset){ .task = spec, .ntasks = 2, .max_tasks = 2 };
	ntold = 0;
	struct sched_config cfg = { .cpus = CPUS, .tasks = &ts };
	int rc = sched_driver_create(d, &fake_plugin, &cfg, unit_alloc, NULL,
				     on_choice, NULL);
	EXPECT(rc == 0, "create: %s", d->err.msg);
}

static void a_task_that_does_not_exist(void)
{
	struct sched_driver d;
	start(&d);
	fake.answer[1] = 7;
	EXPECT(sched_driver_boundary(&d, 0, 3) == 0, "%s", d.err.msg);
	EXPECT(sched_driver_boundary(&d, 1, 3) == -1,
	       "a choice of task 7 of 2 was taken");
	EXPECT(strstr(d.err.msg, "fake chose task 7, which does not exist, "
			"at slot 3") != NULL, "message: %s", d.err.msg);
	fake.answer[1] = -5;
	EXPECT(sched_driver_boundary(&d, 1, 4) == -1,
	       "a choice of task -5 was taken");
}

static void an_event_asks_a_cpu_that_chose_again(void)
{
	struct sched_driver d;
	start(&d);
	fake.answer[0] = 0;
	fake.answer[1] = 1;
	CHECK(sched_driver_boundary(&d, 0, 5) == 0, "%s", d.err.msg);
	CHECK(sched_driver_boundary(&d, 1, 5) == 0, "%s", d.err.msg);
	/* Task 1's job ends early; the plugin now has CPU 1 idle and asks
	 * for it: CPU 1 is asked again in slot 5, CPU 0 is not. */
	fake.answer[1] = SCHED_IDLE;
	fake.complete_mask = 1u << 1;
	unsigned before = ntold;
	CHECK(sched_driver_event(&d, SCHED_EV_COMPLETE, 1, 5) == 0, "%s",
	      d.err.msg);
	EXPECT(ntold == before + 1 && told[before].cpu == 1 &&
	       told[before].t == 5 && told[before].task == SCHED_IDLE,
	       "after the event: %u new answers", ntold - before);
	EXPECT(fake.calls[0] == 1 && fake.calls[1] == 2,
	       "calls: CPU 0 %u, CPU 1 %u", fake.calls[0], fake.calls[1]);
}

static void a_cpu_that_has_not_chosen_waits_for_its_call(void)
{
	struct sched_driver d;
	start(&d);
	/* CPU 0's call at slot 2 asks for CPU 1, which has not chosen in
	 * slot 2: nothing is asked of CPU 1 until its own call. */
	fake.chain = 1;
	fake.chain_to = 1;
	CHECK(sched_driver_boundary(&d, 0, 2) == 0, "%s", d.err.msg);
	EXPECT(fake.calls[1] == 0, "CPU 1 asked %u times before its call",
	       fake.calls[1]);
	CHECK(sched_driver_boundary(&d, 1, 2) == 0, "%s", d.err.msg);
	EXPECT(fake.calls[1] == 1, "CPU 1 asked %u times in slot 2",
	       fake.calls[1]);
	EXPECT(ntold == 2, "%u answers for 2 CPUs", ntold);
}

static void reschedules_in_chains_and_one_that_never_ends(void)
{
	struct sched_driver d;
	start(&d);
	CHECK(sched_driver_boundary(&d, 0, 0) == 0, "%s", d.err.msg);
	CHECK(sched_driver_boundary(&d, 1, 0) == 0, "%s", d.err.msg);
	/* An event asks for CPU 0; its call asks for CPU 1, whose call
	 * asks for CPU 0 once more: three rounds, all in slot 0. */
	fake.complete_mask = 1u << 0;
	fake.chain = 2;
	fake.chain_to = 1;
	unsigned before = ntold;
	EXPECT(sched_driver_event(&d, SCHED_EV_COMPLETE, 0, 0) == 0,
	       "a chain of 3 reschedules was refused: %s", d.err.msg);
	EXPECT(ntold == before + 3, "%u answers for 3 reschedules",
	       ntold - before);
	fake.chain = 1000;
	EXPECT(sched_driver_event(&d, SCHED_EV_COMPLETE, 0, 0) == -1,
	       "endless reschedules were taken");
	EXPECT(strstr(d.err.msg, "fake keeps asking for reschedules at slot "
			"0") != NULL, "message: %s", d.err.msg);
	EXPECT(fake.chain > 1000 - 20, "%d reschedules before it stopped",
	       1000 - fake.chain);
}

int main(void)
{
	a_task_that_does_not_exist();
	an_event_asks_a_cpu_that_chose_again();
	a_cpu_that_has_not_chosen_waits_for_its_call();
	reschedules_in_chains_and_one_that_never_ends();
	return unit_exit_status();
}
