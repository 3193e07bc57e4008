/*
 * sched/report: the schedule JSON lines of FORMATS.md section 2, written the
 * same way by the host simulator and the kernel, through a print callback.
 */
#ifndef SCHED_REPORT_H
#define SCHED_REPORT_H

#include <stdint.h>

#include "sched.h"

typedef void (*sched_print_fn)(void *ctx, const char *text);

/* {"t": t, "cpus": ["T1", null, ...]} -- choice[k] is CPU k's task. */
void sched_report_slot(sched_print_fn out, void *ctx, const struct taskset *ts,
		       uint64_t t, const int *choice, unsigned cpus);

/* The summary line: totals, per-task stats and the plugin's own fields.
 * Returns the total of missed deadlines it reported. */
uint64_t sched_report_summary(sched_print_fn out, void *ctx,
			  const struct sched_plugin *plugin, void *s,
			  const struct taskset *ts, unsigned cpus, uint64_t slots,
			  int staggered);

/* num/den with six decimals ("0.500000"), or an integer when exact. */
void sched_report_fraction(char *buf, unsigned size, uint64_t num, uint64_t den);

#endif
