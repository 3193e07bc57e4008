/* kernel/run/sched_run: a scheduler plugin running the task set's threads. */
#include "sched_run.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/features.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/power.h"
#include "../../arch/x86/syscall.h"
#include "../../arch/x86/tsc.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../lib/taskset.h"
#include "../../sched/driver.h"
#include "../core/bootmem.h"
#include "coldcache.h"
#include "../core/console.h"
#include "../core/cpu_wait.h"
#include "dumpstate.h"
#include "dispatch.h"
#include "hourglass.h"
#include "lock.h"
#include "../task/jobs.h"
#include "../core/options.h"
#include "../core/panic.h"
#include "../task/program.h"
#include "../time/quantum_clock.h"
#include "release.h"
#include "run_report.h"
#include "sched_decide.h"
#include "../core/smp.h"
#include "syscall.h"
#include "../task/task.h"
#include "task_kill.h"
#include "verdict.h"
#include "../trace/trace.h"

#define MAX_TASKS 256
#define MAX_EVENTS 256
/* The epoch is this far after the start, so every CPU has armed its first
 * boundary before it comes. */
#define LEAD_US 20000
/* Trace records a CPU writes per slot at most in an ordinary run: tick,
 * sched and switch pairs, a completion, a miss, hourglass gaps, IPIs. */
#define RECORDS_PER_SLOT 16
#define RECORDS_SPARE 4096
/* Boot memory the run leaves free for everything else it allocates (the
 * plugin, per-CPU records, the report). */
#define MEMORY_SPARE (1u << 20)
/* What one task costs the kernel beyond its address space
 * (program_space_bytes): kernel stack, FPU area, console buffer, and the
 * allocator's rounding. */
#define TASK_KERNEL_BYTES (16384 + 512 + TASK_OUT_MAX + 4096)

static struct task_spec specs[MAX_TASKS];
static struct taskset_event events[MAX_EVENTS];
static struct resource_spec resources[TASKSET_RES_MAX];
static struct taskset ts = { .task = specs, .max_tasks = MAX_TASKS,
			     .event = events, .max_events = MAX_EVENTS,
			     .res = resources, .max_res = TASKSET_RES_MAX };
static struct sched_driver drv;
/* For GDB (tools/gdb): the running plugin and its state. */
const struct sched_driver *const sched_run_driver = &drv;
static unsigned cpus;
static unsigned next_event;      /* CPU 0: the kernel's own `at` cursor */
static const char *plugin_name;

static void *alloc(void *ctx, size_t size)
{
	(void)ctx;
	void *p = bootmem_alloc(size);
	coldcache_note_alloc(p, size);
	return p;
}

static uint32_t idx(const struct task *t)
{
	return t->index >= 0 ? (uint32_t)t->index : TRACE_NO_TASK;
}

/* The tasks killed or ended before the synchronous release leave the
 * run before its first slot (kernel/run/release.h). */
static void leave_before_release(void)
{
	for (unsigned i = 0; i < ntasks; i++)
		if (tasks[i].state != TASK_OK) {
			jobs_stop(&tasks[i], 0);
			decide_event(SCHED_EV_LEAVE, i, 0, 0);
		}
}

static uint64_t on_boundary(void *ctx, unsigned cpu, uint64_t slot,
			    int missed, uint64_t entry)
{
	(void)ctx;
	struct cpu_sched *cs = dispatch_me();
	cs->in_kernel = 1;
	struct task *cur = cs->current;
	trace_emit_at(entry, TRACE_TICK_START, missed ? TRACE_F_TICK_MISSED : 0,
		      idx(cur), 0, slot);
	uint64_t slots = qclock_slots();
	dispatch_account(slot);
	if (cpu == 0 && slot == 0)
		leave_before_release();
	if (cpu == 0 && slot < slots)
		jobs_boundary(slot, &next_event);
	dispatch_enter_slot(slot);
	if (slot < slots) {
		int failed;
		decide_boundary(cpu, slot, &failed);
	}
	trace_emit(TRACE_TICK_END, 0, idx(cur), 0, slot);
	return decide_next(slot);
}

/* What the boot CPU turned on for ring 3 (every CPU turns on the same). */
static struct cpu_protections protections;

/* selftest=pf_run writes here: mapped in no address space. */
#define SELFTEST_UNMAPPED 0x0000700000000000ull

/*
 * selftest=pf_run and smap_run, once: the first quantum interrupt that
 * interrupted a task in ring 3 makes the kernel touch memory it must not
 * -- a kernel fault while a task is current, which must end in a PANIC
 * and never be taken for the task's own; or, with SMAP, a read of the
 * task's page by its user address, which the interrupt entry's clearing of
 * EFLAGS.AC keeps SMAP able to stop whatever the task set AC to.
 */
static __attribute__((noipa)) void selftest_in_run(
	const struct trap_frame *f)
{
	static int done;
	if (!trap_from_user(f) || __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	if (options.selftest == SELFTEST_PF_RUN) {
		*(volatile uint64_t *)SELFTEST_UNMAPPED = 1;
		return;
	}
	uint32_t magic = *(volatile const uint32_t *)RT_CONTROL;
	kprintf("selftest: smap_run: the kernel read %#x at %#llx, the task's "
		"control page, by its user address: %s\n", magic,
		(unsigned long long)RT_CONTROL, protections.smap ?
		"SMAP did not stop it" : "this CPU has no SMAP");
}

static void after_boundary(void *ctx, unsigned cpu, struct trap_frame *f)
{
	if (options.selftest == SELFTEST_PF_RUN ||
	    options.selftest == SELFTEST_SMAP_RUN)
		selftest_in_run(f);
	dispatch_after_timer(ctx, cpu, f);
}

/* Every CPU of the run: SSE state saving and the protections for ring 3,
 * and the SYSCALL entry. */
static void cpu_prepare(void *arg)
{
	(void)arg;
	struct cpu_protections p = features_init_cpu();
	if (this_cpu()->cpu == 0)
		protections = p;
	syscall_init_cpu();
}

void sched_run_cpu(void *arg)
{
	(void)arg;
	dispatch_cpu_run(hourglass_idle);
}

/* Every task can run here: its program is on the boot medium, and what
 * the program declares it needs (lib/rt_abi.h, RT_PROG_*) the task has --
 * periods for a program whose jobs need them, and in a quantum-driven run
 * a program that ends its jobs for a task given exec=. */
static int check_work(const struct sched_plugin *plugin, const char *file,
		      const char **reason)
{
	for (unsigned i = 0; i < ts.ntasks; i++) {
		const struct task_spec *s = &specs[i];
		const char *w = s->work;
		uint32_t flags;
		char why[160];
		if (program_find(w, &flags, why, sizeof why)) {
			if (why[0])
				kprintf("taskset: %s:%u: task %s: %s\n", file,
					s->line, s->name, why);
			else
				kprintf("taskset: %s:%u: task %s: no program "
					"'%s' on the boot medium (work=%s)\n",
					file, s->line, s->name, w, w);
			*reason = "program";
			return -1;
		}
		if ((flags & RT_PROG_NEEDS_PERIODS) && !s->p) {
			kprintf("taskset: %s:%u: task %s: work=%s completes "
				"jobs, so it needs e= and p=; a weight-only task "
				"has none\n", file, s->line, s->name, w);
			*reason = "work";
			return -1;
		}
		if (s->has_exec && !plugin->event_us &&
		    !(flags & RT_PROG_ENDS_JOBS)) {
			kprintf("taskset: %s:%u: task %s: exec=%u says its jobs "
				"end early, but work=%s does not end its jobs (it "
				"declares no RT_PROG_ENDS_JOBS); under %s the "
				"program ends them: use work=rtspin\n", file,
				s->line, s->name, s->exec, w, plugin->name);
			*reason = "work";
			return -1;
		}
	}
	return 0;
}

/*
 * What the run will take from memory, before any of it is taken: the trace
 * (with the records, the decisions of verdict.c and the executed schedule
 * of lib/trace_stats, one int per CPU and slot each) and every task -- its
 * program (bss included), working set, stack, control page and page
 * tables, and its kernel side -- so that a size a task file or a program
 * controls is refused here, naming the first task that does not fit, and
 * never runs the allocator dry.
 */
static uint64_t tasks_counted;   /* what check_memory counted for the tasks */

static int check_memory(const char *file, uint64_t records, uint64_t qslots,
			const char **reason)
{
	uint64_t need = records * sizeof(struct trace_rec) * cpus;
	if (options.record)
		need += 2 * qslots * cpus * sizeof(int32_t);
	uint64_t have = bootmem_free_bytes();
	int named = 0;
	tasks_counted = 0;
	for (unsigned i = 0; i < ts.ntasks; i++) {
		const struct task_spec *s = &specs[i];
		uint64_t space = program_space_bytes(s);
		need += TASK_KERNEL_BYTES + space;
		tasks_counted += TASK_KERNEL_BYTES + space;
		if (named || need + MEMORY_SPARE <= have)
			continue;
		kprintf("sched: %s:%u: task %s does not fit in memory: its "
			"address space (program '%s' with its bss, ws=%u, stack, "
			"control page, page tables) takes %llu bytes\n", file,
			s->line, s->name, s->work, s->ws,
			(unsigned long long)space);
		named = 1;
	}
	if (!named)
		return 0;
	kprintf("sched: %u tasks and a %llu-record trace per CPU need about "
		"%llu KiB; %llu KiB are free\n", ts.ntasks,
		(unsigned long long)records, (unsigned long long)(need >> 10),
		(unsigned long long)(have >> 10));
	*reason = "memory";
	return -1;
}

/* Records per CPU for a run of slots quanta (a 32-bit count). */
static uint64_t trace_records_needed(uint64_t slots)
{
	uint64_t releases = 0;
	for (unsigned i = 0; i < ts.ntasks; i++)
		if (specs[i].p)
			/* Each job: its release, and with critical sections
			 * its lock events and blocking (kernel/run/lock.c). */
			releases += (slots / specs[i].p + 1) *
				    (1 + (ts.nres ? 5 + 4 * specs[i].ncs : 0));
	uint64_t n = slots * RECORDS_PER_SLOT + releases + RECORDS_SPARE;
	return n < 0xffffffffu ? n : 0xffffffffu;
}

static void fill_control(struct task *t, uint64_t quantum_us,
			 uint64_t epoch_tsc)
{
	struct rt_control *c = t->control;
	c->magic = RT_CONTROL_MAGIC;
	c->version = RT_CONTROL_VERSION;
	c->task = (uint32_t)t->index;
	c->e = t->spec->e;
	c->p = t->spec->p;
	c->d = t->spec->d;
	c->weight = t->spec->weight;
	c->ws_bytes = t->spec->ws;
	c->quantum_ns = quantum_us * 1000;
	c->tsc_khz = tsc.khz;
	c->epoch_tsc = epoch_tsc;
	c->gap_threshold_cycles = hourglass_threshold();
	c->seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(t->index + 1);
	c->ncs = t->spec->ncs;
	for (unsigned k = 0; k < t->spec->ncs && k < RT_CS_MAX; k++) {
		c->cs_res[k] = t->spec->cs[k].res;
		c->cs_at[k] = t->spec->cs[k].at;
		c->cs_len[k] = t->spec->cs[k].len;
	}
	if (str_eq(power_hypervisor(), "TCGTCGTCGTCG"))
		c->flags |= RT_CONTROL_PAUSE;
	if ((t->prog_flags & RT_PROG_OTHER_PAGE) && ntasks > 1)
		c->other_page = (uint64_t)tasks[(t->index + 1) % ntasks].control;
}

void sched_run_fill_controls(uint64_t quantum_us, uint64_t epoch_tsc)
{
	syscall_describe_run(plugin_name, cpus, quantum_us);
	for (unsigned i = 0; i < ntasks; i++)
		fill_control(&tasks[i], quantum_us, epoch_tsc);
}

int sched_run_release(uint64_t quantum_us, const char **reason)
{
	sched_run_fill_controls(quantum_us, 0);
	if (release_phase(cpus, quantum_us, options.release_timeout_ms)) {
		*reason = "quantum_clock";
		return -1;
	}
	return 0;
}


void sched_run_threads_setup(struct task *idle)
{
	dispatch_setup(cpus, idle);
	syscall_setup();
	panic_set_user_fault_handler(task_on_user_fault);
	cpu_wait_setup(tsc_from_us(options.spin_us));
	hourglass_setup(options.hourglass, tsc_from_ns(options.hourglass_ns));
	uint64_t hg = hourglass_calibrate(cpus, smp_run_on_all);
	kprintf("hourglass: %s, a gap is a step over %llu ns\n",
		options.hourglass ? "on every idle CPU" : "off (idle CPUs halt)",
		(unsigned long long)tsc_to_ns(hg));
}

static int make_tasks(const char **reason)
{
	uint64_t before = bootmem_free_bytes();
	ntasks = ts.ntasks;
	tasks = bootmem_alloc(ntasks * sizeof *tasks);
	for (unsigned i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];
		t->index = (int)i;
		t->spec = &specs[i];
		t->name = specs[i].name;
		char err[200];
		if (program_load(t, taskset_args(&ts, &specs[i]), specs[i].nargs,
				 err, sizeof err)) {
			kprintf("taskset: %s\n", err);
			*reason = "program";
			return -1;
		}
		task_init_user(t, dispatch_first_run);
	}
	/* The check must never count less than the tasks take: it is what
	 * keeps a program's size from running the allocator dry. */
	uint64_t took = before - bootmem_free_bytes();
	if (took > tasks_counted)
		kprintf("sched: the tasks took %llu bytes of memory, %llu more "
			"than the memory check counted\n",
			(unsigned long long)took,
			(unsigned long long)(took - tasks_counted));
	return 0;
}

static void report_failure(const char *file)
{
	if (drv.err_line)
		kprintf("sched: %s:%u: %s\n", file, drv.err_line, drv.err.msg);
	else
		kprintf("sched: %s: %s\n", file, drv.err.msg);
}

/* The plugin's operations are timed on the CPU that runs them, so the
 * TSC's per-CPU offset cancels out of each duration. */
static uint64_t optime_clock(void)
{
	return rdtsc();
}

/* optime=on: the plugin times its own operations (its summary shows
 * them); a plugin that times none says so. */
static void start_optime(const struct sched_plugin *plugin)
{
	if (plugin->set_clock)
		plugin->set_clock(drv.s, optime_clock);
	else
		kprintf("sched: optime=on: %s times no operations of its own\n",
			plugin->name);
}

int sched_run_prepare(const struct sched_plugin *plugin, const char *file,
		      const char *text, size_t len, uint64_t slots,
		      struct sched_run_setup *out, const char **reason)
{
	const char *name = plugin->name;
	char err[256];
	/* args= words never take more than the file's bytes. */
	ts.argbuf = bootmem_alloc(len + 1);
	ts.argbuf_max = len + 1;
	ts.argbuf_len = 0;
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
	plugin_name = plugin->name;
	if (check_work(plugin, file, reason))
		return -1;
	uint64_t records = trace_records_needed(slots);
	if (check_memory(file, records, slots, reason))
		return -1;
	smp_run_on_all(cpu_prepare, 0, 1000000);
	kprintf("sched: ring 3 runs with NX %s, SMEP %s, SMAP %s, UMIP %s\n",
		protections.nx ? "on" : "off", protections.smep ? "on" : "off",
		protections.smap ? "on" : "off", protections.umip ? "on" : "off");
	if (make_tasks(reason))
		return -1;
	struct task *idle = bootmem_alloc(cpus * sizeof *idle);
	for (unsigned k = 0; k < cpus; k++)
		task_init_idle(&idle[k], k);
	*out = (struct sched_run_setup){ &ts, cpus, idle };
	return 0;
}

int sched_run_quanta(const struct sched_plugin *plugin, const char *file,
		     struct task *idle, uint64_t slots, uint64_t quantum_us,
		     const char **reason)
{
	const char *name = plugin->name;
	uint64_t records = trace_records_needed(slots);
	if (options.ahead_us && options.ahead_us * 2 >= quantum_us) {
		kprintf("sched: ahead_us=%llu: the boundaries' interrupts may come "
			"less than half a quantum (%llu us) early\n",
			(unsigned long long)options.ahead_us,
			(unsigned long long)quantum_us);
		*reason = "cmdline";
		return -1;
	}
	if (!options.schedule)
		kprintf("sched: schedule=off: %s is quantum-driven; only event "
			"runs leave out their schedule's lines\n", name);
	int staggered = plugin->staggered;
	/* Lock operations come from the tasks' programs (kernel/run/lock.c),
	 * not from the cs= of the file. */
	struct sched_config cfg = { .cpus = cpus, .staggered = staggered,
				    .tasks = &ts, .params = options.params,
				    .nparams = options.nparams, .seed = 1,
				    .program_locks = 1 };
	/* Only a plugin that names its next event can run at events. */
	decide_setup(&drv, plugin->ordered,
		     options.events && plugin->next_event != 0, cpus,
		     dispatch_changed);
	coldcache_reset();
	if (sched_driver_create(&drv, plugin, &cfg, alloc, 0, decide_on_choice,
				0)) {
		kprintf("sched: %s: %s\n", file, drv.err.msg);
		*reason = "admission";
		return -1;
	}
	lock_run_setup(&ts, 1);
	drv.on_lock = lock_on_event;
	coldcache_freeze(specs, ts.ntasks * sizeof specs[0], &drv, sizeof drv);
	if (options.optime)
		start_optime(plugin);
	kprintf("sched: %s on %u CPUs, %u tasks from %s, %llu slots, %s quanta\n",
		name, cpus, ts.ntasks, file, (unsigned long long)slots,
		staggered ? "staggered" : "aligned");

	if (trace_setup(cpus, (uint32_t)records)) {
		*reason = "memory";
		return -1;
	}
	trace_reset();
	/* The decisions, for the verdict's comparison with what ran. */
	if (options.record)
		verdict_decisions_setup(cpus, slots);
	jobs_setup(&ts, tasks, ntasks);
	sched_run_threads_setup(idle);
	if (sched_run_release(quantum_us, reason))
		return -1;
	/* record=off: the run without the records' cost; run_report prints
	 * only what needs none. */
	trace_enable(options.record);
	static const struct qclock_client client = {
		on_boundary, after_boundary, 0, 1 };
	qclock_prepare(staggered, slots, quantum_us, cpus, LEAD_US, &client);
	if (options.ahead_us) {
		qclock_ahead(options.ahead_us);
		kprintf("sched: each boundary's interrupt %llu us ahead of it, "
			"ring 3 held until the boundary\n",
			(unsigned long long)options.ahead_us);
	}
	sched_run_fill_controls(quantum_us, qclock_t0());
	next_event = 0;

	uint64_t timeout_us = LEAD_US + (slots + 1) * quantum_us * 2 + 2000000;
	unsigned late = smp_run_on_all(sched_run_cpu, 0, timeout_us);
	trace_enable(0);
	if (late) {
		qclock_say_stopped("sched");
		*reason = "quantum_clock";
		return -1;
	}
	/* At events the plugin's accounting stops at the last slot decided. */
	if (!decide_failed() && sched_driver_finish(&drv, slots - 1))
		decide_abort();
	if (decide_failed()) {
		report_failure(file);
		*reason = "sched";
		return -1;
	}
	dumpstate_end(&drv);
	/* drv.plugin: the lock variant for a set with resources. */
	run_report(drv.plugin, drv.s, &ts, cpus);
	coldcache_report();
	return 0;
}
