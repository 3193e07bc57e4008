/*
 * sched/bus_model: a model of bus contention at quantum boundaries, for the
 * simulator (staggered Pfair, Sec. 5.1 and Fig. 9(a); under emulation there
 * is no memory system to measure). Hardware-free and integer-only, so it
 * builds in the kernel too, though only tools/schedsim uses it.
 *
 * The machine: M CPUs with quanta of Q bus cycles and one bus that serves
 * one cache line per bus cycle. At a quantum start the caller says which
 * task the CPU starts and whether that task must reload: it did not run on
 * this CPU in this CPU's previous quantum. A reload is a burst of `lines`
 * blocking line fetches (the working set, WSS / line size): the task does
 * no work until its burst is done. The bus goes round robin among the CPUs
 * with a burst pending, taken as fluid, as the paper counts it ("the
 * presence of k requests implied that k-1 tasks wasted that cycle waiting",
 * Sec. 5.1) and as tools/experiments/exp_bus_contention.py does: with k
 * bursts pending each progresses at 1/k line per cycle. A burst not done by
 * its CPU's next boundary (its start + Q) is cut off there (the task is
 * preempted; its next reload starts from scratch).
 *
 * Completion delay. A burst's delay is how much later its task starts
 * working than it would with the bus to itself: (end - start) - min(lines,
 * Q) bus cycles, where end is when the burst finished or was cut off. Alone
 * the burst takes `lines` cycles (or is itself cut off at Q), so the delay
 * is the useful work the quantum lost to contention, which is what pushes
 * the job's completion out. A job's delay is the sum of its bursts'
 * delays. The n-th quantum (from 0) a task gets belongs to its job n / e
 * (e from the task set; 1 for a task given only a weight); a job counts
 * once all its e quanta started and all its bursts ended, so a job the run
 * cut short is not counted.
 *
 * Time is kept in units of 1 / (M * BUS_MODEL_SUB) bus cycle, so staggered
 * boundaries t Q + k Q / M are exact; a burst's progress while k are
 * pending is rounded down to a unit (an error below one unit per boundary).
 */
#ifndef SCHED_BUS_MODEL_H
#define SCHED_BUS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/taskset.h"

/* Sub-units of a bus cycle (times M): the model's time resolution. */
#define BUS_MODEL_SUB 1024u
/* Times and amounts stay below this many units (no overflow in rem * k). */
#define BUS_MODEL_MAX_UNITS (UINT64_C(1) << 52)

/* Per task, after bus_model_finish(); times in units (bus_model.unit). */
struct bus_model_task {
	uint64_t quanta;        /* quanta it started */
	uint64_t bursts;        /* of them, with a reload */
	uint64_t cut;           /* bursts cut off at their CPU's next boundary */
	uint64_t served;        /* lines fetched, in units (lines * unit) */
	uint64_t wait;          /* over all bursts: time in burst - served */
	uint64_t jobs;          /* complete jobs (see above) */
	uint64_t delay_total;   /* their delays, summed */
	uint64_t delay_max;     /* the largest one job's delay */
};

/* A job with quanta started or bursts pending (a small ring per task). */
struct bus_model_job {
	uint64_t job;
	uint32_t started;       /* its quanta started so far */
	uint32_t open;          /* its bursts not ended yet */
	uint64_t delay;
	int used;
};

#define BUS_MODEL_OPEN_JOBS 4u

struct bus_model_cpu {
	int busy;               /* a burst is pending */
	unsigned task;
	uint64_t job;
	uint64_t start, cut_at, rem;
};

struct bus_model {
	unsigned cpus, ntasks;
	uint64_t unit;          /* units per bus cycle: M * BUS_MODEL_SUB */
	uint64_t q;             /* quantum, units */
	uint64_t burst;         /* a whole burst, units of line (lines * unit) */
	uint64_t alone;         /* a burst's time alone: min(lines, Q), units */
	uint64_t now;
	uint32_t *job_quanta;   /* per task: e */
	struct bus_model_cpu *cpu;
	struct bus_model_task *task;
	struct bus_model_job *open;     /* ntasks * BUS_MODEL_OPEN_JOBS */
	const char *err;        /* why a call returned -1 */
};

/*
 * Sets up b for cpus CPUs, ts's tasks, bursts of lines lines and quanta of
 * q_cycles bus cycles, with zeroed memory from alloc (never NULL). Returns
 * 0, or -1 with b->err when lines or q_cycles do not fit the clock.
 */
int bus_model_init(struct bus_model *b, unsigned cpus,
		   const struct taskset *ts, uint64_t lines, uint64_t q_cycles,
		   void *(*alloc)(void *ctx, size_t size), void *alloc_ctx);

/*
 * Quanta the clock holds: boundaries up to slot n stay below
 * BUS_MODEL_MAX_UNITS for n below this.
 */
uint64_t bus_model_max_slots(unsigned cpus, uint64_t q_cycles);

/* CPU k's boundary that starts its slot t, in units: t Q (aligned) or
 * t Q + k Q / M (staggered Pfair, Sec. 2.1, "Model
 * specifications": t(i, k) = i + k / M). */
uint64_t bus_model_boundary(const struct bus_model *b, uint64_t t, unsigned k,
			    int staggered);

/*
 * CPU cpu starts a quantum at time at (units, not before any earlier call's)
 * running task (an index into ts, or a negative value for idle), which
 * must reload or not. Returns 0, or -1 with b->err.
 */
int bus_model_quantum(struct bus_model *b, uint64_t at, unsigned cpu,
		      int task, int reload);

/* Runs the bus until every pending burst ended. */
void bus_model_finish(struct bus_model *b);

#endif
