/*
 * kernel/report/cpu_report: the boot CPU's identity (arch/x86/cpuinfo) and
 * what the kernel does with each feature it cares about: uses it, would
 * use it but the CPU lacks it, or leaves it unused.
 */
#ifndef KERNEL_CPU_REPORT_H
#define KERNEL_CPU_REPORT_H

#include "../../arch/x86/cpuinfo.h"

enum feature_use {
	FEATURE_USED,           /* in force, or relied on (invtsc, arat) */
	FEATURE_LACKED,         /* the CPU does not have it */
	FEATURE_UNUSED,         /* there, but the kernel does not use it */
};

struct cpu_report {
	struct cpuinfo id;
	char vendor[13];        /* id.vendor with spaces as '_' (a value) */
	enum feature_use use[CPUF_COUNT];
};

/* After the APIC and quantum clock are set up (their modes are known). */
void cpu_report_collect(struct cpu_report *r);
/* Writes the names of the features in state u, comma-separated ("none"
 * when there is none). */
void cpu_report_list(const struct cpu_report *r, enum feature_use u,
		     char *buf, unsigned size);
/* `cpu:` lines and `RESULT cpu`. */
void cpu_report_print(const struct cpu_report *r);

#endif
