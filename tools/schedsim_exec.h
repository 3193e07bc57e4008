/*
 * tools/schedsim_exec.h: schedsim's quantum-driven slots as the kernel runs
 * them when jobs end early -- tasks given exec=K, whose program ends each
 * job (RT_SYS_END_JOB) at its first instruction after the kernel has
 * counted K of its quanta (user/rtspin.c does; docs/user-programs.md,
 * "Jobs that end early"). The kernel's rules, modelled here:
 *
 *  - A quantum counts for the task executing on the CPU when the CPU's
 *    boundary ending it comes (kernel/task/jobs.c).
 *  - A task chosen for a slot whose current job has had K quanta (K < e)
 *    ends the job as it starts running: the plugin hears complete() at
 *    that slot and reschedules. When that gives the CPU the task again
 *    (its next job is out) it runs on with the next job; otherwise the
 *    task is out until the next slot, and the CPU runs whatever the
 *    plugin answered for it then -- nothing, when the answer stayed.
 *  - When: on staggered quanta (ordered plugins) right after the CPU's own
 *    boundary, before the next CPU's, and after the boundary where the
 *    task last ran if that is a later one (it is held there until then);
 *    on aligned quanta after every CPU's boundary of the slot, in CPU
 *    order. (In the kernel two jobs that end at the same aligned boundary
 *    on different CPUs reach the plugin in the order their CPUs get
 *    there: a set where that order changes a decision may differ.)
 *
 * The printed row of a slot is then what executes in it, which for these
 * tasks can differ from the plugin's answer.
 */
#ifndef TOOLS_SCHEDSIM_EXEC_H
#define TOOLS_SCHEDSIM_EXEC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/taskset.h"
#include "../sched/driver.h"

struct sim_exec {
	const struct taskset *ts;
	unsigned cpus;
	int ordered;
	int any;             /* some task ends its jobs early */
	uint64_t *ran;       /* per task: quanta its current job has had */
	uint64_t *out;       /* per task: slot + 1 it is out of, after an end */
	int *run;            /* per CPU: the plugin's latest answer */
	uint64_t *given;     /* per CPU: answers so far */
	uint64_t *chose;     /* per CPU: the latest slot it chose for, + 1 */
};

static int sim_exec_early(const struct task_spec *t)
{
	return t->has_exec && t->exec < t->e;
}

static void sim_exec_start(struct sim_exec *x, const struct taskset *ts,
			   unsigned cpus, int ordered)
{
	*x = (struct sim_exec){ .ts = ts, .cpus = cpus, .ordered = ordered };
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	x->ran = calloc(n, sizeof *x->ran);
	x->out = calloc(n, sizeof *x->out);
	x->run = calloc(cpus, sizeof *x->run);
	x->given = calloc(cpus, sizeof *x->given);
	x->chose = calloc(cpus, sizeof *x->chose);
	if (!x->ran || !x->out || !x->run || !x->given || !x->chose) {
		fprintf(stderr, "schedsim: out of memory\n");
		exit(1);
	}
	for (unsigned k = 0; k < cpus; k++)
		x->run[k] = SCHED_IDLE;
	for (unsigned i = 0; i < ts->ntasks; i++)
		x->any |= sim_exec_early(&ts->task[i]);
}

static void sim_exec_free(struct sim_exec *x)
{
	free(x->ran);
	free(x->out);
	free(x->run);
	free(x->given);
	free(x->chose);
}

/* The driver's on_choice. */
static void sim_exec_choice(void *ctx, unsigned cpu, uint64_t t, int task)
{
	struct sim_exec *x = ctx;
	x->run[cpu] = task;
	x->given[cpu]++;
	x->chose[cpu] = t + 1;
}

/* What executes on CPU k in slot t. */
static int sim_exec_on(const struct sim_exec *x, unsigned k, uint64_t t)
{
	int i = x->run[k];
	return i != SCHED_IDLE && x->out[i] == t + 1 ? SCHED_IDLE : i;
}

/* CPU k's boundary t ends its slot t - 1: a quantum for what executed.
 * (A job that ends early never reaches its budget: it ends at the first
 * slot it is chosen for once it has had exec < e quanta.) */
static void sim_exec_charge(struct sim_exec *x, unsigned k, uint64_t t)
{
	if (t == 0)
		return;
	int i = sim_exec_on(x, k, t - 1);
	if (i != SCHED_IDLE)
		x->ran[i]++;
}

/* Task i still executes its slot t - 1 on a CPU after `upto`, whose
 * boundary t has not come (staggered quanta). */
static int sim_exec_held(const struct sim_exec *x, int i, unsigned upto)
{
	for (unsigned h = upto + 1; h < x->cpus; h++)
		if (x->run[h] == i)
			return 1;
	return 0;
}

/* The jobs that end early at slot t on CPUs 0..upto, one at a time. */
static int sim_exec_ends(struct sim_exec *x, struct sched_driver *d,
			 uint64_t t, unsigned upto)
{
	unsigned limit = 4 * x->cpus * (x->ts->ntasks + 1) + 16;
	for (unsigned n = 0;; n++) {
		unsigned k = 0;
		int i = SCHED_IDLE;
		for (; k <= upto; k++) {
			i = sim_exec_on(x, k, t);
			if (i != SCHED_IDLE && x->chose[k] == t + 1 &&
			    sim_exec_early(&x->ts->task[i]) &&
			    x->ran[i] >= x->ts->task[i].exec &&
			    !sim_exec_held(x, i, upto))
				break;
		}
		if (k > upto)
			return 0;
		if (n == limit) {
			fprintf(stderr, "schedsim: jobs keep ending early at slot "
				"%llu\n", (unsigned long long)t);
			return -1;
		}
		x->ran[i] = 0;
		uint64_t given = x->given[k];
		if (sched_driver_event(d, SCHED_EV_COMPLETE, (unsigned)i, t)) {
			fprintf(stderr, "schedsim: %s\n", d->err.msg);
			return -1;
		}
		if (x->given[k] == given || x->run[k] != i)
			x->out[i] = t + 1;
	}
}

/* Every CPU's boundary t, charged and decided in the kernel's order, and
 * the early ends it brings. */
static int sim_exec_slot(struct sim_exec *x, struct sched_driver *d,
			 uint64_t t, const char *file)
{
	for (unsigned k = 0; k < x->cpus; k++) {
		if (x->ordered || k == 0)
			for (unsigned c = x->ordered ? k : 0;
			     c < (x->ordered ? k + 1 : x->cpus); c++)
				sim_exec_charge(x, c, t);
		if (sched_driver_boundary(d, k, t)) {
			if (d->err_line)
				fprintf(stderr, "%s:%u: %s\n", file, d->err_line,
					d->err.msg);
			else
				fprintf(stderr, "schedsim: %s\n", d->err.msg);
			return -1;
		}
		if (x->ordered && sim_exec_ends(x, d, t, k))
			return -1;
	}
	if (!x->ordered && sim_exec_ends(x, d, t, x->cpus - 1))
		return -1;
	return 0;
}

/* The row of slot t: what executes on each CPU. */
static void sim_exec_row(const struct sim_exec *x, uint64_t t, int *row)
{
	for (unsigned k = 0; k < x->cpus; k++)
		row[k] = sim_exec_on(x, k, t);
}

#endif
