/* kernel/run/verdict: what a run kept, and the boot's status (verdict.h). */
#include "verdict.h"

#include "../../lib/fmt.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../core/options.h"

/* A slot of the decisions table nobody decided (at events: it keeps the
 * answer of the slot decided before it). */
#define UNDECIDED (-2)

static struct {
	int32_t *decided;           /* [slot * cpus + cpu] */
	/* The answer for the slot changed after it was given (a task slept,
	 * exited, blocked or was killed in it): what ran there is a mix. */
	uint8_t *replaced;
	unsigned cpus;
	uint64_t slots;
	int have;
	struct verdict v;
} vd;

void verdict_decisions_setup(unsigned cpus, uint64_t slots)
{
	vd.decided = bootmem_alloc(cpus * slots * sizeof *vd.decided);
	vd.replaced = bootmem_alloc(cpus * slots * sizeof *vd.replaced);
	vd.cpus = cpus;
	vd.slots = slots;
	for (uint64_t i = 0; i < cpus * slots; i++)
		vd.decided[i] = UNDECIDED;
}

void verdict_decided(unsigned cpu, uint64_t slot, int task)
{
	if (!vd.decided || cpu >= vd.cpus || slot >= vd.slots)
		return;
	int32_t *x = &vd.decided[slot * vd.cpus + cpu];
	if (*x != UNDECIDED && *x != task)
		vd.replaced[slot * vd.cpus + cpu] = 1;
	*x = task;
}

/* Slots of the executed schedule (st) that ran a task the plugin did not
 * decide for them; *mixed: those not compared, whose answer changed. */
static uint64_t slots_differing(const struct trace_stats *st, uint64_t *mixed)
{
	uint64_t differ = 0;
	*mixed = 0;
	for (unsigned k = 0; k < vd.cpus; k++) {
		int32_t d = SCHED_IDLE;
		for (uint64_t t = 0; t < vd.slots; t++) {
			uint64_t i = t * vd.cpus + k;
			if (vd.decided[i] == UNDECIDED)
				vd.decided[i] = d;
			d = vd.decided[i];
			if (vd.replaced[i]) {
				(*mixed)++;
				continue;
			}
			int32_t ran = st->schedule[i];
			differ += ran != SCHED_IDLE && ran != d;
		}
	}
	return differ;
}

void verdict_of_quanta(const struct sched_plugin *plugin, void *s,
		       unsigned ntasks, const struct trace_stats *st,
		       uint64_t missed, uint64_t late, uint64_t late_max_ns,
		       unsigned cpus, uint64_t slots, uint64_t quantum_us)
{
	struct verdict v = {
		.plugin = plugin->name, .quantum_us = quantum_us,
		.clock_events = slots * cpus, .clock_missed = missed,
		.clock_late = late, .late_max_ns = late_max_ns,
		.tolerance_ns = quantum_us * 500,
	};
	for (unsigned i = 0; st && i < ntasks; i++)
		v.short_jobs += st->task[i].short_jobs;
	if (st && vd.decided) {
		v.schedule_checked = 1;
		v.slots_differ = slots_differing(st, &v.slots_mixed);
		v.slots = slots * cpus - v.slots_mixed;
	}
	if (st && plugin->no_deadlines) {
		for (unsigned i = 0; i < ntasks; i++)
			v.misses += st->task[i].misses - st->task[i].dropped;
		v.misses_unchecked_why = "a proportional-share plugin keeps no "
					 "deadlines to compare them with";
	} else if (st) {
		v.misses_checked = 1;
		for (unsigned i = 0; i < ntasks; i++) {
			struct sched_task_stats q = { 0 };
			plugin->stats(s, i, &q);
			/* A job dropped at a wake is the set's event, which
			 * the plugin does not count as a miss either; nor does
			 * it see the jobs that end with the last slot, whose
			 * completion comes at the boundary after its last
			 * decision. */
			uint64_t ran = st->task[i].misses - st->task[i].dropped -
				       st->task[i].misses_at_end;
			v.misses += ran;
			v.planned += q.misses;
			if (ran > q.misses)
				v.unplanned += ran - q.misses;
		}
	} else {
		v.misses_unchecked_why = "record=off: no records of the jobs";
	}
	verdict_set(&v);
}

void verdict_set(const struct verdict *v)
{
	vd.v = *v;
	vd.have = 1;
}

uint64_t verdict_late_max_us(void)
{
	return vd.v.late_max_ns / 1000;
}

/* Nanoseconds as microseconds with three decimals. */
#define US(ns) (unsigned long long)((ns) / 1000), \
	(unsigned long long)((ns) % 1000)

static int clock_kept(const struct verdict *v)
{
	return v->clock_missed == 0 && v->clock_late == 0;
}

static int time_kept(const struct verdict *v)
{
	return clock_kept(v) && v->short_jobs == 0;
}

static void say_short_jobs(const struct verdict *v)
{
	if (v->short_jobs)
		kprintf("  time: LATE -- %llu jobs ended by their budget while "
			"their thread had run less than %u/%u of it (short= in "
			"RESULT task): the plugin counted quanta the threads did "
			"not get\n", (unsigned long long)v->short_jobs,
			TRACE_SHORT_NUM, TRACE_SHORT_DEN);
}

static void say_clock(const struct verdict *v)
{
	const char *what = v->at_events ? "timer interrupts" : "boundaries";
	if (clock_kept(v)) {
		kprintf("  time: kept -- all %llu %s handled in time (the latest "
			"%llu.%03llu us after its time; tolerated: %s%llu.%03llu "
			"us)\n", (unsigned long long)v->clock_events, what,
			US(v->late_max_ns),
			v->at_events ? "" : "before the next boundary and ",
			US(v->tolerance_ns));
		return;
	}
	if (v->at_events)
		kprintf("  time: LATE -- %llu of %llu timer interrupts came over "
			"%llu.%03llu us after their time, the worst %llu.%03llu "
			"us\n", (unsigned long long)v->clock_late,
			(unsigned long long)v->clock_events,
			US(v->tolerance_ns), US(v->late_max_ns));
	else
		kprintf("  time: LATE -- of %llu boundaries %llu passed before "
			"their CPU handled them and %llu more were handled over "
			"%llu.%03llu us (half a quantum) after their time; the "
			"latest was taken %llu.%03llu us after its time\n",
			(unsigned long long)v->clock_events,
			(unsigned long long)v->clock_missed,
			(unsigned long long)v->clock_late, US(v->tolerance_ns),
			US(v->late_max_ns));
}

static void say_checks(const struct verdict *v)
{
	char mixed[160] = "";
	if (v->slots_mixed)
		fmt_snprintf(mixed, sizeof mixed, " (%llu more are left out: "
			     "their answer changed within the slot, when a "
			     "task slept, exited, blocked or was killed)",
			     (unsigned long long)v->slots_mixed);
	if (v->schedule_checked && !v->slots_differ)
		kprintf("  schedule: kept -- none of %llu slots ran a task %s "
			"did not decide for it%s\n",
			(unsigned long long)v->slots, v->plugin, mixed);
	else if (v->schedule_checked)
		kprintf("  schedule: DIFFERS -- %llu of %llu slots ran a task "
			"%s did not decide for them%s\n",
			(unsigned long long)v->slots_differ,
			(unsigned long long)v->slots, v->plugin, mixed);
	else if (!v->at_events)
		kprintf("  schedule: not checked (record=off: no executed "
			"schedule)\n");
	const char *plan = v->at_events ? "the simulated machine's run of "
					  "the same set" : "its own count";
	if (!v->misses_checked)
		kprintf("  misses: not checked (%s)\n", v->misses_unchecked_why);
	else if (!v->unplanned)
		kprintf("  misses: kept -- no task missed more deadlines than "
			"%s planned (%s: %llu; this run: %llu)\n", v->plugin, plan,
			(unsigned long long)v->planned,
			(unsigned long long)v->misses);
	else
		kprintf("  misses: UNPLANNED -- the tasks missed %llu deadlines "
			"%s did not plan (%s: %llu; this run: %llu)%s\n",
			(unsigned long long)v->unplanned, v->plugin, plan,
			(unsigned long long)v->planned,
			(unsigned long long)v->misses, v->at_events ?
			"; the plan costs nothing to switch or to take a timer, "
			"so a job with no slack misses on the kernel's own costs"
			: "");
	if (!v->windows)
		return;
	if (!v->windows_over)
		kprintf("  windows: kept -- each of %u servers ran at most its "
			"budget + %llu.%03llu us in every window of its period%s\n",
			v->windows, US(v->tolerance_ns), v->windows_within ?
			" (RESULT window says over where a late timer's few "
			"microseconds took it past the budget alone)" : "");
	else
		kprintf("  windows: OVER -- %u of %u servers ran more than "
			"their budget + %llu.%03llu us in some window of their "
			"period (RESULT window above)\n", v->windows_over,
			v->windows, US(v->tolerance_ns));
}

/* Why the run was late, and what to do about it. */
static void say_why_late(void)
{
	if (options.late_us && options.late_mode == LATE_SYSCALL)
		kprintf("  late_boundary= stalled CPU %u in a system call until "
			"its boundary %llu was %llu us late, on purpose.\n",
			options.late_cpu, (unsigned long long)options.late_slot,
			(unsigned long long)options.late_us);
	else if (options.late_us)
		kprintf("  late_boundary= held CPU %u's boundary %llu for %llu us "
			"on purpose.\n", options.late_cpu,
			(unsigned long long)options.late_slot,
			(unsigned long long)options.late_us);
	else if (options.timing == TIMING_REAL)
		kprintf("  This boot ran on real time (timing=real): emulated "
			"timers follow the host's clock, and a busy host makes "
			"them late. `make run TIMING=virtual` (QEMU -icount) runs "
			"on virtual time, which the host's load cannot disturb.\n");
	else if (options.timing == TIMING_VIRTUAL)
		kprintf("  This boot ran on virtual time (timing=virtual), which "
			"the host's load cannot disturb: the kernel's own work at "
			"a boundary took longer than the run's quanta leave it.\n");
	else
		kprintf("  Under QEMU, virtual time (-icount; `make run "
			"TIMING=virtual`) keeps the host's load out of the run.\n");
}

static const char *word(int checked, int ok)
{
	return !checked ? "unchecked" : ok ? "ok" : "failed";
}

enum verdict_status verdict_report(const char **reason)
{
	if (!vd.have)
		return VERDICT_NONE;
	const struct verdict *v = &vd.v;
	int schedule_ok = !v->schedule_checked || !v->slots_differ;
	int misses_ok = !v->misses_checked || !v->unplanned;
	int windows_ok = !v->windows_over;
	enum verdict_status st = VERDICT_PASS;
	*reason = "";
	if (!time_kept(v) && v->at_events) {
		st = VERDICT_LATE;
		*reason = "timers";
	} else if (!clock_kept(v)) {
		st = VERDICT_LATE;
		*reason = "boundaries";
	} else if (!time_kept(v)) {
		st = VERDICT_LATE;
		*reason = "short_jobs";
	} else if (!schedule_ok) {
		st = VERDICT_FAIL;
		*reason = "schedule";
	} else if (!misses_ok) {
		st = VERDICT_FAIL;
		*reason = "misses";
	} else if (!windows_ok) {
		st = VERDICT_FAIL;
		*reason = "window";
	}
	kprintf("verdict: %s\n", st == VERDICT_PASS ? "pass -- the run kept "
		"its time and its plan" : st == VERDICT_LATE ? "late -- the "
		"platform did not keep the run's time; what else failed "
		"follows from that" : "fail -- the run kept its time but not "
		"what the kernel checks of itself");
	say_clock(v);
	say_short_jobs(v);
	say_checks(v);
	if (st == VERDICT_LATE)
		say_why_late();
	kprintf("RESULT verdict status=%s time=%s clock_events=%llu "
		"clock_missed=%llu clock_late=%llu late_max_ns=%llu "
		"tolerance_ns=%llu short_jobs=%llu schedule=%s slots=%llu "
		"slots_differ=%llu "
		"slots_mixed=%llu misses=%s misses_run=%llu misses_planned=%llu "
		"misses_unplanned=%llu windows=%u windows_over=%u\n",
		st == VERDICT_PASS ? "pass" : st == VERDICT_LATE ? "late" :
		"fail", word(1, time_kept(v)), (unsigned long long)v->clock_events,
		(unsigned long long)v->clock_missed,
		(unsigned long long)v->clock_late,
		(unsigned long long)v->late_max_ns,
		(unsigned long long)v->tolerance_ns,
		(unsigned long long)v->short_jobs,
		word(v->schedule_checked, schedule_ok),
		(unsigned long long)v->slots,
		(unsigned long long)v->slots_differ,
		(unsigned long long)v->slots_mixed,
		word(v->misses_checked, misses_ok),
		(unsigned long long)v->misses, (unsigned long long)v->planned,
		(unsigned long long)v->unplanned, v->windows, v->windows_over);
	return st;
}
