/* kernel/report/cpu_report: `cpu:` and `RESULT cpu`. */
#include "cpu_report.h"

#include "../../arch/x86/features.h"
#include "../../drivers/apic/lapic.h"
#include "../../lib/fmt.h"
#include "../core/console.h"
#include "../time/quantum_clock.h"

void cpu_report_collect(struct cpu_report *r)
{
	cpuinfo_decode(cpuinfo_native, 0, &r->id);
	for (unsigned i = 0; i < sizeof r->vendor; i++)
		r->vendor[i] = r->id.vendor[i] == ' ' ? '_' : r->id.vendor[i];
	struct cpu_protections prot = features_available();
	/* What the kernel does with each feature the CPU has; features it
	 * does not have are lacked, unless in force anyway (firmware that
	 * left x2APIC mode on). */
	int in_force[CPUF_COUNT] = {
		[CPUF_X2APIC] = lapic_is_x2apic(),
		[CPUF_TSC_DEADLINE] = qclock_deadline_mode(),
		/* The TSC is the kernel's one clock, and a halted CPU
		 * waits for its local APIC timer: relied on when there. */
		[CPUF_INVTSC] = cpuinfo_has(&r->id, CPUF_INVTSC),
		[CPUF_ARAT] = cpuinfo_has(&r->id, CPUF_ARAT),
		/* Turned on for every run of ring-3 tasks
		 * (features_init_cpu). */
		[CPUF_SMEP] = prot.smep, [CPUF_SMAP] = prot.smap,
		[CPUF_UMIP] = prot.umip, [CPUF_NX] = prot.nx,
		/* Never: one address space at a time needs no PCID, and
		 * FXSAVE holds what tasks may use. */
		[CPUF_PCID] = 0, [CPUF_XSAVE] = 0,
	};
	for (unsigned f = 0; f < CPUF_COUNT; f++)
		r->use[f] = in_force[f] ? FEATURE_USED :
			    cpuinfo_has(&r->id, f) ? FEATURE_UNUSED :
			    FEATURE_LACKED;
}

void cpu_report_list(const struct cpu_report *r, enum feature_use u,
		     char *buf, unsigned size)
{
	unsigned n = 0;
	buf[0] = 0;
	for (unsigned f = 0; f < CPUF_COUNT; f++)
		if (r->use[f] == u && n < size)
			n += (unsigned)fmt_snprintf(buf + n, size - n, "%s%s",
						    n ? "," : "",
						    cpu_feature_names[f]);
	if (!n)
		fmt_snprintf(buf, size, "none");
}

void cpu_report_print(const struct cpu_report *r)
{
	char uses[128], lacks[128], unused[128];
	cpu_report_list(r, FEATURE_USED, uses, sizeof uses);
	cpu_report_list(r, FEATURE_LACKED, lacks, sizeof lacks);
	cpu_report_list(r, FEATURE_UNUSED, unused, sizeof unused);
	kprintf("cpu: %s family %u model %u stepping %u, '%s'\n",
		r->id.vendor, r->id.family, r->id.model, r->id.stepping,
		r->id.brand[0] ? r->id.brand : "no brand string");
	kprintf("cpu: uses %s; lacks %s; has but does not use %s\n", uses,
		lacks, unused);
	kprintf("RESULT cpu vendor=%s family=%u model=%u stepping=%u uses=%s "
		"lacks=%s unused=%s\n", r->vendor, r->id.family,
		r->id.model, r->id.stepping, uses, lacks, unused);
}
