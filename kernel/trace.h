/*
 * kernel/trace: per-CPU event buffers (docs/trace-format.md). Each CPU
 * writes only its own buffer, with interrupts off, and publishes a record
 * after it is complete; a full buffer counts what it drops.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdint.h>

#include "../lib/trace_rec.h"

/* Buffers of records_per_cpu records for CPUs 0..cpus-1 (once). */
void trace_setup(unsigned cpus, uint64_t records_per_cpu);
/* Empties every buffer; recording stays as it was. */
void trace_reset(void);
void trace_enable(int on);

/* A record on the calling CPU, stamped now / at tsc (boot-CPU time). */
void trace_emit(enum trace_event ev, unsigned flags, uint32_t task,
		uint32_t job, uint64_t arg);
void trace_emit_at(uint64_t tsc, enum trace_event ev, unsigned flags,
		   uint32_t task, uint32_t job, uint64_t arg);

/* CPU cpu's records (after the run): how many, how many were dropped. */
const struct trace_rec *trace_records(unsigned cpu, uint64_t *n,
				      uint64_t *dropped);

#endif
