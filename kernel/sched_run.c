/* kernel/sched_run: a scheduler plugin on the quantum clock. */
#include "sched_run.h"

#include "../arch/x86/cpu.h"
#include "../arch/x86/percpu.h"
#include "../arch/x86/trap.h"
#include "../arch/x86/tsc.h"
#include "../drivers/apic/lapic.h"
#include "../lib/fmt.h"
#include "../lib/taskset.h"
#include "../sched/driver.h"
#include "../sched/report.h"
#include "bootmem.h"
#include "clock_stats.h"
#include "console.h"
#include "cpu_wait.h"
#include "options.h"
#include "quantum_clock.h"
#include "sched_decide.h"
#include "smp.h"

#define MAX_TASKS 256
#define MAX_EVENTS 256

static struct task_spec tasks[MAX_TASKS];
static struct taskset_event events[MAX_EVENTS];
static struct taskset ts = { tasks, 0, MAX_TASKS, events, 0, MAX_EVENTS };
static struct sched_driver drv;
static int *schedule_log;           /* slot * M + cpu -> task */
static unsigned cpus;

/* The epoch is this far after the start, so every CPU has armed its first
 * boundary before it comes. */
#define LEAD_US 20000

static void *alloc(void *ctx, size_t size)
{
	(void)ctx;
	return bootmem_alloc(size);
}

static void on_changed(unsigned cpu, uint64_t slot, int task)
{
	schedule_log[slot * cpus + cpu] = task;
}

static uint64_t on_boundary(void *ctx, unsigned cpu, uint64_t slot,
			    int missed, uint64_t entry)
{
	(void)ctx;
	if (!missed)
		clock_stats_record(cpu, slot, entry);
	int failed;
	int task = decide_boundary(cpu, slot, &failed);
	if (!failed)
		schedule_log[slot * cpus + cpu] = task;
	return slot + 1;
}

static void cpu_run(void *arg)
{
	(void)arg;
	struct percpu *p = this_cpu();
	p->state = CPU_MEASURING;
	irq_disable();
	qclock_cpu_start(0);
	while (!qclock_cpu_done(p->cpu)) {
		cpu_wait_for_interrupt();
		irq_disable();
	}
	qclock_cpu_stop();
	p->state = CPU_DONE;
}

static void print_text(void *ctx, const char *text)
{
	(void)ctx;
	kprintf("%s", text);
}

int sched_run(const struct sched_plugin *plugin, const char *file,
	      const char *text, size_t len, uint64_t slots,
	      uint64_t quantum_us, const char **reason)
{
	const char *name = plugin->name;
	char err[256];
	if (taskset_parse(&ts, file, text, len, err, sizeof err)) {
		kprintf("taskset: %s\n", err);
		*reason = "taskset";
		return -1;
	}
	for (unsigned i = 0; i < options.nparams; i++) {
		const char *pn = options.params[i].name;
		unsigned n = 0;
		while (pn[n])
			n++;
		if (!sched_takes_param(plugin, pn, n))
			kprintf("sched: %s is not a parameter of %s; ignored\n",
				pn, name);
	}
	cpus = smp.online;
	int staggered = plugin->staggered;
	struct sched_config cfg = { .cpus = cpus, .staggered = staggered,
				    .tasks = &ts, .params = options.params,
				    .nparams = options.nparams, .seed = 1 };
	schedule_log = bootmem_alloc(slots * cpus * sizeof *schedule_log);
	decide_setup(&drv, plugin->ordered, cpus, on_changed);
	if (sched_driver_create(&drv, plugin, &cfg, alloc, 0, decide_on_choice,
				0)) {
		kprintf("sched: %s: %s\n", file, drv.err.msg);
		*reason = "admission";
		return -1;
	}
	kprintf("sched: %s on %u CPUs, %u tasks from %s, %llu slots, %s quanta\n",
		name, cpus, ts.ntasks, file, (unsigned long long)slots,
		staggered ? "staggered" : "aligned");
	cpu_wait_setup(tsc_from_us(options.spin_us));
	static const struct qclock_client client = { on_boundary, 0, 0 };
	qclock_prepare(staggered, slots, quantum_us, cpus, LEAD_US, &client);
	clock_stats_begin();
	uint64_t timeout_us = LEAD_US + slots * quantum_us * 2 + 2000000;
	if (smp_run_on_all(cpu_run, 0, timeout_us)) {
		for (unsigned k = 0; k < cpus; k++)
			if (!qclock_cpu_done(k))
				kprintf("sched: cpu %u stopped at boundary %llu of "
					"%llu\n", k,
					(unsigned long long)qclock_cpu_next(k),
					(unsigned long long)slots);
		*reason = "quantum_clock";
		return -1;
	}
	if (decide_failed()) {
		if (drv.err_line)
			kprintf("sched: %s:%u: %s\n", file, drv.err_line,
				drv.err.msg);
		else
			kprintf("sched: %s: %s\n", file, drv.err.msg);
		*reason = "sched";
		return -1;
	}
	for (uint64_t t = 0; t < slots; t++)
		sched_report_slot(print_text, 0, &ts, t, &schedule_log[t * cpus],
				  cpus);
	uint64_t misses = sched_report_summary(print_text, 0, plugin, drv.s,
					       &ts, cpus, slots, staggered);
	struct clock_stats r;
	clock_stats_summarise(&r);
	kprintf("RESULT sched name=%s cpus=%u tasks=%u slots=%llu ticks=%s "
		"misses=%llu boundary_missed=%llu\n", name, cpus, ts.ntasks,
		(unsigned long long)slots, staggered ? "staggered" : "aligned",
		(unsigned long long)misses, (unsigned long long)r.missed);
	clock_stats_report(&r);
	return 0;
}
