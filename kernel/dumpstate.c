/* kernel/dumpstate: the plugin's state on the console, for the GDB tests. */
#include "dumpstate.h"

#include "../arch/x86/percpu.h"
#include "../lib/fmt.h"
#include "console.h"
#include "options.h"
#include "quantum_clock.h"

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("STATE %s\n", line);
}

void dumpstate_print(const struct sched_driver *d, const char *when,
		     int with_clock)
{
	kprintf("STATE begin %s\n", when);
	if (d->plugin->dump)
		d->plugin->dump(d->s, print_line, 0);
	for (unsigned k = 0; with_clock && k < d->cpus; k++)
		kprintf("STATE clock cpu %u apic=%u serviced=%llu missed=%llu "
			"next=%llu done=%d\n", k, percpu[k].apic_id,
			(unsigned long long)qclock_cpu_serviced(k),
			(unsigned long long)qclock_cpu_missed(k),
			(unsigned long long)qclock_cpu_next(k), qclock_cpu_done(k));
	kprintf("STATE end\n");
}

/* The last CPU's call closes the slot: every decision of it is made and,
 * in boundary order, no other CPU is inside the plugin. */
void dumpstate_boundary(const struct sched_driver *d, unsigned cpu,
			uint64_t slot)
{
	if (options.dumpstate != DUMPSTATE_SLOT ||
	    slot != options.dumpstate_slot || cpu + 1 != d->cpus)
		return;
	char when[32];
	fmt_snprintf(when, sizeof when, "slot %llu", (unsigned long long)slot);
	dumpstate_print(d, when, 0);
}

void dumpstate_end(const struct sched_driver *d)
{
	if (options.dumpstate == DUMPSTATE_END)
		dumpstate_print(d, "end", 1);
}
