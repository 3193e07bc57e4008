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
#include "console.h"
#include "dumpstate.h"
#include "options.h"
#include "quantum_clock.h"
#include "smp.h"

#define MAX_TASKS 256
#define MAX_EVENTS 256

static struct task_spec tasks[MAX_TASKS];
static struct taskset_event events[MAX_EVENTS];
static struct taskset ts = { tasks, 0, MAX_TASKS, events, 0, MAX_EVENTS };
static struct sched_driver drv;
const struct sched_driver *const sched_run_driver = &drv;
static int *schedule_log;           /* slot * M + cpu -> task */
static unsigned cpus;
/* Boundary order (sched/driver.h): the call for (slot, cpu) waits until
 * every earlier one is done; this also makes the calls mutually exclusive,
 * which is the locking the plugins require. */
static volatile uint64_t ticket;
static volatile int failed;

/*
 * A CPU waits for its turn spinning, then -- past spin_us= (default 50) --
 * halted until the CPU before it in boundary order sends VEC_RESCHED_IPI. On hardware
 * the turn comes within microseconds and nobody halts. Under an emulator
 * with more virtual CPUs than host cores, spinning starves the very CPU
 * whose turn it is: QEMU TCG with 4 CPUs on 2 host cores serviced 6 of
 * 1000 boundaries per CPU. Halting hands the host core over. The IPI's
 * priority class (5) is above the quantum timer's (4), so it is delivered
 * while the timer's interrupt is still in service.
 */
static volatile uint8_t parked[MAX_CPUS];
static uint64_t spin_cycles;

static void *alloc(void *ctx, size_t size)
{
	(void)ctx;
	return bootmem_alloc(size);
}

static void on_choice(void *ctx, unsigned cpu, uint64_t t, int task)
{
	(void)ctx;
	schedule_log[t * cpus + cpu] = task;
}

static void on_wake_ipi(struct trap_frame *f)
{
	(void)f;
	lapic_eoi();
}

static int my_turn(uint64_t mine)
{
	return __atomic_load_n(&ticket, __ATOMIC_ACQUIRE) == mine || failed;
}

/* Returns with interrupts disabled, as the timer handler runs. */
static void wait_turn(unsigned cpu, uint64_t mine)
{
	if (my_turn(mine))
		return;
	uint64_t spin_until = rdtsc() + spin_cycles;
	while (!my_turn(mine)) {
		if (rdtsc() < spin_until) {
			cpu_relax();
			continue;
		}
		/* Announce, then look again: with the fences on both sides
		 * either the waker sees parked or we see its ticket. */
		parked[cpu] = 1;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!my_turn(mine))
			cpu_wait_for_interrupt();  /* sti; hlt: no lost IPI */
		irq_disable();
		parked[cpu] = 0;
	}
}

static void wake(unsigned cpu)
{
	if (parked[cpu])
		lapic_send_ipi(percpu[cpu].apic_id, VEC_RESCHED_IPI);
}

static void on_boundary(void *ctx, unsigned cpu, uint64_t slot, int missed)
{
	(void)ctx;
	(void)missed;   /* the plugin still decides it: every slot is seen */
	uint64_t mine = slot * cpus + cpu;
	wait_turn(cpu, mine);
	if (failed)
		return;
	if (sched_driver_boundary(&drv, cpu, slot))
		failed = 1;
	dumpstate_boundary(&drv, cpu, slot);
	__atomic_store_n(&ticket, mine + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (failed)
		for (unsigned k = 0; k < cpus; k++)
			wake(k);
	else
		wake(cpu + 1 == cpus ? 0 : cpu + 1);
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
	if (!schedule_log) {
		kprintf("sched: no memory for a %llu-slot log\n",
			(unsigned long long)slots);
		*reason = "memory";
		return -1;
	}
	if (sched_driver_create(&drv, plugin, &cfg, alloc, 0, on_choice, 0)) {
		kprintf("sched: %s: %s\n", file, drv.err.msg);
		*reason = "admission";
		return -1;
	}
	kprintf("sched: %s on %u CPUs, %u tasks from %s, %llu slots, %s quanta\n",
		name, cpus, ts.ntasks, file, (unsigned long long)slots,
		staggered ? "staggered" : "aligned");
	ticket = 0;
	failed = 0;
	spin_cycles = tsc_from_us(options.spin_us);
	trap_set_handler(VEC_RESCHED_IPI, on_wake_ipi);
	struct qclock_result r;
	if (qclock_measure(staggered, slots, quantum_us, on_boundary, 0, &r)) {
		*reason = "quantum_clock";
		return -1;
	}
	if (failed) {
		if (drv.err_line)
			kprintf("sched: %s:%u: %s\n", file, drv.err_line,
				drv.err.msg);
		else
			kprintf("sched: %s: %s\n", file, drv.err.msg);
		*reason = "sched";
		return -1;
	}
	dumpstate_end(&drv);
	for (uint64_t t = 0; t < slots; t++)
		sched_report_slot(print_text, 0, &ts, t, &schedule_log[t * cpus],
				  cpus);
	uint64_t misses = sched_report_summary(print_text, 0, plugin, drv.s,
					       &ts, cpus, slots, staggered);
	kprintf("RESULT sched name=%s cpus=%u tasks=%u slots=%llu ticks=%s "
		"misses=%llu boundary_missed=%llu\n", name, cpus, ts.ntasks,
		(unsigned long long)slots, staggered ? "staggered" : "aligned",
		(unsigned long long)misses, (unsigned long long)r.missed);
	qclock_report(&r);
	return 0;
}
