/*
 * lib/trace_dump: the TRACE- lines of docs/trace-format.md ("The dump"),
 * written through a callback one whole line at a time. The kernel prints
 * them on its console (kernel/trace/trace.c); the host tests print them too and
 * hold them against an encoder written apart and the decoder.
 */
#ifndef LIB_TRACE_DUMP_H
#define LIB_TRACE_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "taskset.h"
#include "trace_rec.h"
#include "trace_stats.h"

/* Records per TRACE-DATA line and summary bytes per TRACE-SUMMARY line:
 * the longest line stays well under the console's 1024 bytes (16 records
 * are 684 base64 characters). */
#define TRACE_DUMP_PER_LINE 16
#define TRACE_DUMP_SUMMARY_CHUNK 700
#define TRACE_DUMP_LINE_MAX 800

/* One line, without its newline. */
typedef void (*trace_line_fn)(void *ctx, const char *line);

struct trace_dumper {
	trace_line_fn out;
	void *ctx;
	unsigned lines;                 /* TRACE- lines so far, for TRACE-END */
	char line[TRACE_DUMP_LINE_MAX];
};

/* TRACE-BEGIN; starts the count of lines. */
void trace_dump_begin(struct trace_dumper *d, const struct trace_params *p,
		      const char *sched);
/* TRACE-TASK for task id. */
void trace_dump_task(struct trace_dumper *d, unsigned id,
		     const struct task_spec *t);
/* TRACE-RESOURCE for resource id (a set with resources, docs/locking.md). */
void trace_dump_resource(struct trace_dumper *d, unsigned id,
			 const struct resource_spec *r);
/* TRACE-DATA lines of rec[0..n) (CPU cpu's records, seq from 0), then its
 * TRACE-CPU line. */
void trace_dump_cpu(struct trace_dumper *d, unsigned cpu,
		    const struct trace_rec *rec, uint32_t n, uint64_t dropped);
/* TRACE-SUMMARY lines carrying text[0..len) (no newline in it). */
void trace_dump_summary(struct trace_dumper *d, const char *text, size_t len);
/* TRACE-END. */
void trace_dump_end(struct trace_dumper *d);

#endif
