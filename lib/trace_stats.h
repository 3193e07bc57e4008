/*
 * lib/trace_stats: the numbers a run's trace records give, exactly as
 * docs/trace-format.md ("Derived numbers") defines them -- the executed
 * schedule, per-task jobs, misses, tardiness and run time, the overhead
 * samples and their percentiles, the hourglass gaps. The kernel prints its
 * RESULT task, overhead and hourglass lines from these; the host decoder
 * (tools/rtktrace) computes the same from a dump, so the two can be
 * compared number for number. Integers only: the kernel has no FPU.
 */
#ifndef LIB_TRACE_STATS_H
#define LIB_TRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace_rec.h"

/* The run the records come from. */
struct trace_params {
	unsigned cpus;
	uint64_t tsc_khz;
	uint64_t t0;            /* the epoch: slot 0 of CPU 0 begins here */
	uint64_t end;           /* the run's end: the last intervals stop here */
	uint64_t quantum_us;
	uint64_t slots;
	int staggered;          /* CPU k's boundaries k*Q/M after CPU 0's */
	unsigned ntasks;
};

enum trace_overhead_kind {
	TRACE_OVH_TICK,
	TRACE_OVH_SCHED,
	TRACE_OVH_CXS,
	TRACE_OVH_RELEASE,
	TRACE_OVH_IPI,
	TRACE_OVH_KINDS,
};

/* Samples in cycles, sorted, and their summary in nanoseconds. */
struct trace_samples {
	uint64_t *cycles;
	size_t n;
	uint64_t p50_ns, p99_ns, max_ns;
	unsigned max_cpu;       /* the CPU of the largest (lowest on ties) */
};

/* A job its budget ended is short when its thread ran less than
 * TRACE_SHORT_NUM / TRACE_SHORT_DEN of that budget (docs/trace-format.md,
 * "Derived numbers"). */
#define TRACE_SHORT_NUM 3
#define TRACE_SHORT_DEN 4

struct trace_task_stats {
	uint64_t jobs;          /* completed: by their budget, not short, or
				 * by saying so */
	uint64_t short_jobs;    /* ended by their budget, the thread short */
	/* misses counts the dropped jobs too (a wake after the deadline of
	 * the job it interrupted), which `dropped` counts alone. */
	uint64_t misses, dropped, faults;
	/* Of the misses, those of jobs that completed at or after CPU 0's
	 * boundary p.slots (a quantum-driven run): the last slot's charge,
	 * which the plugin, deciding slots 0 .. slots - 1, never sees end. */
	uint64_t misses_at_end;
	uint64_t max_tardiness_cycles, ran_cycles, self_cycles;
	uint64_t last_done_at;  /* the latest completion's time (its arg) */
};

struct trace_hourglass {
	struct trace_samples gaps;  /* pure-overhead gaps only */
	uint64_t got_cycles;
};

struct trace_stats {
	struct trace_params p;
	/* CPU k's slot t at [t * cpus + k]: the task index, -1 for idle. */
	int32_t *schedule;
	struct trace_task_stats *task;              /* p.ntasks */
	struct trace_samples overhead[TRACE_OVH_KINDS];
	struct trace_hourglass *hourglass;          /* p.cpus */
};

/* Zeroed memory of at least size bytes, or NULL. Never freed by this code:
 * the kernel's bump allocator frees nothing either. */
typedef void *(*trace_alloc_fn)(void *ctx, size_t size);

/*
 * Computes everything from rec[k][0..n[k]), CPU k's records in the order it
 * wrote them (gaps in seq allowed: records lost in a damaged dump).
 * budget[i]: task i's e (quanta of a job), 0 for a task without periodic
 * jobs; NULL: no job is checked for being short. Returns 0, or -1 when
 * alloc failed or p is unusable (no CPUs, tsc_khz 0).
 */
int trace_stats_compute(struct trace_stats *st, const struct trace_params *p,
			const struct trace_rec *const *rec, const uint32_t *n,
			const uint32_t *budget, trace_alloc_fn alloc,
			void *alloc_ctx);

/* Cycles to whole nanoseconds and microseconds, rounded down. */
uint64_t trace_cycles_to_ns(uint64_t cycles, uint64_t tsc_khz);
uint64_t trace_cycles_to_us(uint64_t cycles, uint64_t tsc_khz);

/* CPU k's quantum boundary t (the start of its slot t) in TSC cycles. */
uint64_t trace_boundary(const struct trace_params *p, unsigned k, uint64_t t);

/* "tick", "sched", "cxs", "release", "ipi". */
const char *trace_overhead_name(enum trace_overhead_kind kind);

/*
 * The RESULT lines' text (no newline), as the kernel prints them and the
 * decoder recomputes them; each returns what fmt_snprintf returns.
 *   RESULT overhead event=E n= p50_ns= p99_ns= max_ns= max_cpu=
 *   RESULT hourglass cpu=K gaps= gap_p50_ns= gap_max_ns= got_us=
 * and, for the kernel's RESULT task line, the keys the trace gives:
 *   jobs= short= misses= max_tardiness_us= ran_us= self_us= faults=
 */
int trace_stats_overhead_line(char *buf, size_t size,
			      const struct trace_stats *st,
			      enum trace_overhead_kind kind);
int trace_stats_hourglass_line(char *buf, size_t size,
			       const struct trace_stats *st, unsigned cpu);
int trace_stats_task_keys(char *buf, size_t size, const struct trace_stats *st,
			  unsigned task);

#endif
