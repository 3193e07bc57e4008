/* kernel/events/event_run: event-driven plugins on one-shot timers (event_run.h). */
#include "event_run.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../drivers/apic/lapic.h"
#include "../../lib/arrival.h"
#include "../../lib/fmt.h"
#include "../../lib/rt_abi.h"
#include "../../sched/evsim.h"
#include "../arrivals/arrivals.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../run/dispatch.h"
#include "../run/lock.h"
#include "event_report.h"
#include "event_work.h"
#include "../core/options.h"
#include "../time/quantum_clock.h"
#include "../run/run_report.h"
#include "../run/sched_run.h"
#include "../run/task_kill.h"
#include "../run/verdict.h"
#include "event_plan.h"
#include "../core/smp.h"
#include "../core/spinlock.h"
#include "../task/task.h"
#include "../trace/trace.h"

/* The epoch is this far after the start, so every CPU has armed its
 * first timer before it comes (as kernel/run/sched_run.c). */
#define LEAD_US 20000
/* Response times and foreground spans kept per server. */
#define JOBS_KEPT 32768
/* arrivals=irq: arrivals handed over and not yet taken. */
#define HANDOVER_MAX 64
/* Lines kept for the printed schedule, beyond the per-job estimate. */
#define RECORDS_BASE 16384

struct ev_cpu {
	int answer, bg;            /* the plugin's latest answer */
	uint64_t next_call;        /* us, or SCHED_NEVER */
	uint64_t seg_from;         /* the segment in progress began, us */
	int pending;               /* resched() asked for a call */
	/* Its timer: interrupts taken, how late they came, how many later
	 * than the verdict tolerates. */
	uint64_t wakes, late_max_ns, late_sum_ns, late_n;
} __attribute__((aligned(64)));

struct ev_task {
	/* Servers: the foreground stretch in progress (at its own priority,
	 * as the plugin accounts it), for the sliding-window check. */
	uint64_t fg_since;
	int fg_open;
};

static struct {
	const struct sched_plugin *plugin;
	void *s;
	const struct taskset *ts;
	unsigned cpus;
	uint64_t end_us, quantum_us;
	struct spinlock lock;
	uint64_t last_us;          /* the latest time the plugin was given */
	struct ev_cpu *cpu;
	struct ev_task *t;
	struct arrival_stream arr;
	volatile int running;
	volatile int failed;
	/* arrivals=irq: due arrivals CPU 0 handed to the last CPU's
	 * interrupt, ring [handed_from, handed_to). */
	struct arrival handed[HANDOVER_MAX];
	unsigned handed_from, handed_to;
	char why[SCHED_ERROR_MAX];
} ev;

static void *env_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return bootmem_alloc(size);
}

static void env_resched(void *ctx, unsigned cpu)
{
	(void)ctx;
	if (cpu < ev.cpus)
		ev.cpu[cpu].pending = 1;
}

/* Run-clock microseconds as boot-CPU TSC time (for trace records). */
static uint64_t tsc_of_us(uint64_t us)
{
	return qclock_ideal(0, us);
}

/* Server i's foreground stretch ends at `at` / begins at `at`. */
static void fg_close(unsigned i, uint64_t at)
{
	struct ev_task *x = &ev.t[i];
	if (x->fg_open && at > x->fg_since)
		evrep_span(i, x->fg_since, at);
	x->fg_open = 0;
}

static void fg_begin(unsigned i, uint64_t at)
{
	struct ev_task *x = &ev.t[i];
	if (!x->fg_open) {
		x->fg_open = 1;
		x->fg_since = at;
	}
}

/*
 * The plugin's budget events, as it accounts them at their own instants
 * however late the call that processed them: a server that is its CPU's
 * answer leaves its own priority at an exhaustion and comes back to it at
 * a replenishment (then still running at background priority), so its
 * foreground stretches follow the plugin's accounts, not the calls.
 */
static void env_note(void *ctx, const struct sched_note *n)
{
	(void)ctx;
	const struct ev_cpu *c = &ev.cpu[n->cpu];
	if (c->answer == (int)n->task && n->kind == SCHED_NOTE_EXHAUSTED)
		fg_close(n->task, n->at);
	if (c->answer == (int)n->task && c->bg &&
	    n->kind == SCHED_NOTE_REPLENISHED)
		fg_begin(n->task, n->at);
	if (n->kind == SCHED_NOTE_EXHAUSTED || n->kind == SCHED_NOTE_REPLENISHED)
		trace_emit_at(tsc_of_us(n->at),
			      n->kind == SCHED_NOTE_EXHAUSTED ?
				      TRACE_BUDGET_EXHAUSTED :
				      TRACE_BUDGET_REPLENISHED,
			      0, n->task, 0, n->amount * 1000);
	evrep_note(n);
}

static int is_server(unsigned i)
{
	return ev.ts->task[i].server.kind != SERVER_NONE;
}

/* The run clock: microseconds since T0, rounded down. */
static uint64_t clock_us(void)
{
	uint64_t now = qclock_now(), t0 = qclock_t0();
	return now > t0 ? tsc_to_us(now - t0) : 0;
}

/* The time for the next plugin call, under the lock: the clock, never
 * before `at_least` (a timer armed for u us fires at T0 + u us, which the
 * rounding down above may show as u - 1), never past the end, never
 * before the previous call. */
static uint64_t stamp(uint64_t at_least)
{
	uint64_t now = clock_us();
	if (now < at_least)
		now = at_least;
	if (now > ev.end_us)
		now = ev.end_us;
	if (now < ev.last_us)
		now = ev.last_us;
	ev.last_us = now;
	return now;
}

static void end_segment(unsigned k, uint64_t to)
{
	struct ev_cpu *c = &ev.cpu[k];
	if (c->answer == SCHED_IDLE || to <= c->seg_from)
		return;
	struct sched_segment seg = { k, c->seg_from, to, c->answer, c->bg, 0 };
	evrep_segment(&seg);
}

static void fail(const char *msg, int task, uint64_t now)
{
	if (!ev.failed)
		fmt_snprintf(ev.why, sizeof ev.why, msg, ev.plugin->name, task,
			     (unsigned long long)now);
	ev.failed = 1;
}

/* Duty 4: entry i's job (a server's head job) had all its work by now. */
static void finish(unsigned i, uint64_t now)
{
	uint64_t job, resp = evwork_finish(i, now, &job);
	ev.plugin->complete(ev.s, i, now);
	trace_emit(TRACE_COMPLETION, TRACE_F_DONE_BUDGET, i, (uint32_t)job,
		   tsc_of_us(now));
	evrep_job(1, now, i, job, resp);
}

/* CPU k's entries whose jobs are done (its own thread's CPU time, read
 * on k with interrupts off, is exact). */
static void complete_done(unsigned k, uint64_t now)
{
	for (unsigned i = 0; i < ev.ts->ntasks; i++)
		if (ev.ts->task[i].cpu == k)
			while (evwork_remaining(i) == 0)
				finish(i, now);
}

/* Duty 5: an aperiodic job for server i, arrived at arrival_us. */
static int deliver(unsigned i, uint32_t cost_us, uint64_t arrival_us,
		   uint64_t now)
{
	int64_t job = evwork_push(i, cost_us, arrival_us);
	if (job < 0)
		return -1;
	ev.plugin->arrive(ev.s, i, now, cost_us);
	trace_emit(TRACE_ARRIVAL, 0, i, (uint32_t)job, (uint64_t)cost_us * 1000);
	evrep_job(0, now, i, (uint64_t)job, cost_us);
	return 0;
}

/* When CPU 0's timer must deliver the set's next arrival: never when the
 * HPET's comparator brings them (arrivals=hpet). */
static uint64_t timer_arrival(void)
{
	return options.arrivals == ARRIVALS_HPET ? UINT64_MAX
						 : arrival_peek(&ev.arr);
}

/* The task-set's arrivals due by now (never past the end): delivered
 * here, or with arrivals=irq handed to the last CPU by an interrupt that
 * delivers them as a device's would (event_run_arrive). */
static void deliver_due(uint64_t now)
{
	struct arrival a;
	int handed = 0;
	while (timer_arrival() <= now) {
		if (options.arrivals == ARRIVALS_IRQ &&
		    ev.handed_to - ev.handed_from == HANDOVER_MAX)
			break;      /* the rest at the next timer */
		if (!arrival_next(&ev.arr, &a))
			break;
		if (options.arrivals != ARRIVALS_IRQ) {
			deliver(a.server, a.cost_us, a.t_us, now);
			continue;
		}
		ev.handed[ev.handed_to++ % HANDOVER_MAX] = a;
		handed = 1;
	}
	if (handed)
		lapic_send_ipi(percpu[ev.cpus - 1].apic_id, VEC_ARRIVAL_IPI);
}

/* arrivals=irq: the interrupt that brings the arrivals handed over, on
 * the last CPU, timed at its entry. */
static void on_arrival_ipi(struct trap_frame *f)
{
	(void)f;
	uint64_t entry = qclock_now();
	lapic_eoi();
	struct arrival got[HANDOVER_MAX];
	unsigned n = 0;
	spin_lock(&ev.lock);
	while (ev.handed_from != ev.handed_to)
		got[n++] = ev.handed[ev.handed_from++ % HANDOVER_MAX];
	spin_unlock(&ev.lock);
	for (unsigned i = 0; i < n; i++)
		event_run_arrive(got[i].server, got[i].cost_us, entry);
}

/* Duty 2 and 6: CPU k asks the plugin; a CPU other than `me` whose answer
 * or timer changed is sent the reschedule IPI. */
static void decide(unsigned k, unsigned me, uint64_t now)
{
	struct ev_cpu *c = &ev.cpu[k];
	c->pending = 0;
	trace_emit(TRACE_SCHED_START, 0, TRACE_NO_TASK, 0, now);
	int task = ev.plugin->schedule(ev.s, k, now);
	if (task != SCHED_IDLE &&
	    (task < 0 || (unsigned)task >= ev.ts->ntasks)) {
		fail("%s chose task %d, which does not exist, at %llu us", task,
		     now);
		task = SCHED_IDLE;
	}
	int bg = task != SCHED_IDLE && ev.plugin->background &&
		 ev.plugin->background(ev.s, k);
	int changed = task != c->answer || bg != c->bg;
	if (task != c->answer)
		evwork_move(c->answer, task);
	if (changed) {
		end_segment(k, now);
		if (c->answer != SCHED_IDLE && is_server((unsigned)c->answer))
			fg_close((unsigned)c->answer, now);
		c->answer = task;
		c->bg = bg;
		c->seg_from = now;
		if (task != SCHED_IDLE && is_server((unsigned)task) && !bg)
			fg_begin((unsigned)task, now);
	}
	uint64_t next = ev.plugin->next_call(ev.s, k);
	trace_emit(TRACE_SCHED_END, 0,
		   task == SCHED_IDLE ? TRACE_NO_TASK : (uint32_t)task, 0, now);
	if (next != c->next_call)
		changed = 1;
	c->next_call = next;
	if (changed && k != me)
		lapic_send_ipi(percpu[k].apic_id, VEC_RESCHED_IPI);
}

/* Every CPU that is due or was asked to reschedule, until none is asked
 * again (sched/evsim.c's order). */
static void decide_all(unsigned me, uint64_t now)
{
	for (unsigned rounds = 0;; rounds++) {
		int any = 0;
		for (unsigned k = 0; k < ev.cpus; k++) {
			if (!ev.cpu[k].pending)
				continue;
			decide(k, me, now);
			any = 1;
		}
		if (!any)
			return;
		if (rounds > 4 * ev.cpus + 4) {
			fail("%s keeps asking for reschedules (%d) at %llu us", 0,
			     now);
			return;
		}
	}
}

/* When CPU k's timer must fire next, in us: its next_call, its job's
 * last work, the next arrival (CPU 0 delivers them) and the end. */
static uint64_t wake_of(unsigned k, uint64_t now)
{
	const struct ev_cpu *c = &ev.cpu[k];
	uint64_t w = c->next_call < ev.end_us ? c->next_call : ev.end_us;
	if (c->answer != SCHED_IDLE) {
		uint64_t left = evwork_remaining((unsigned)c->answer);
		if (left != UINT64_MAX) {
			uint64_t us = tsc_to_us(left);
			if (tsc_from_us(us) < left)
				us++;
			if (now + us < w)
				w = now + us;
		}
	}
	uint64_t a = timer_arrival();
	if (k == 0 && a < w)
		w = a;
	return w > now ? w : now + 1;
}

/* The quantum clock's client, on a grid of 1 us: CPU cpu's timer for u. */
static uint64_t on_timer(void *ctx, unsigned cpu, uint64_t u, int missed,
			 uint64_t entry)
{
	(void)ctx;
	struct cpu_sched *cs = dispatch_me();
	cs->in_kernel = 1;
	struct ev_cpu *c = &ev.cpu[cpu];
	uint64_t ideal = qclock_ideal(cpu, u);
	/* How late the kernel takes it: now, not at the interrupt's entry --
	 * a handler held up (late_boundary=, as an SMI would) and a time that
	 * passed while an earlier one was handled are that much later. */
	(void)missed;
	uint64_t now_tsc = qclock_now();
	uint64_t late = now_tsc > ideal ? tsc_to_ns(now_tsc - ideal) : 0;
	c->wakes++;
	trace_emit_at(entry, TRACE_TIMER, 0, TRACE_NO_TASK, 0, ideal);
	c->late_sum_ns += late;
	if (late > c->late_max_ns)
		c->late_max_ns = late;
	if (late > VERDICT_EVENT_TOLERANCE_US * 1000)
		c->late_n++;
	spin_lock(&ev.lock);
	uint64_t now = stamp(u < ev.end_us ? u : ev.end_us);
	/* Duty 7: completions, then arrivals, then the calls. */
	complete_done(cpu, now);
	if (cpu == 0)
		deliver_due(now);
	if (now >= c->next_call || u >= ev.end_us)
		c->pending = 1;
	decide_all(cpu, now);
	uint64_t wake = wake_of(cpu, now);
	spin_unlock(&ev.lock);
	if (u >= ev.end_us) {
		/* Duty 8 done: this CPU's run is over. */
		dispatch_end();
		return QCLOCK_NONE;
	}
	return wake < ev.end_us ? wake : ev.end_us;
}

/* A task's current job as this run accounts it (RT_SYS_JOB_INFO): a
 * periodic job j is released at (phase + j * p) quanta and due d later;
 * a server's head job at its arrival. */
static void job_of(unsigned task, struct rt_job_info *info)
{
	const struct task_spec *sp = &ev.ts->task[task];
	uint64_t q_ns = ev.quantum_us * 1000, ran, arrival;
	uint64_t flags = spin_lock_irqsave(&ev.lock);
	info->job = evwork_job(task, &ran, &arrival);
	spin_unlock_irqrestore(&ev.lock, flags);
	info->ran_ns = tsc_to_ns(ran);
	if (sp->server.kind) {
		info->release_ns = arrival * 1000;
		return;
	}
	info->release_ns = (sp->phase + info->job * sp->p) * q_ns;
	info->deadline_ns = info->release_ns + sp->d * q_ns;
}

static int answer_of(unsigned cpu)
{
	return ev.failed ? SCHED_IDLE : ev.cpu[cpu].answer;
}

/* A reschedule IPI: another CPU's call changed this one's answer or its
 * next_call; the timer comes no later than the new wake. */
static void on_ipi(void)
{
	unsigned k = this_cpu()->cpu;
	spin_lock(&ev.lock);
	uint64_t wake = ev.running ? wake_of(k, clock_us()) : QCLOCK_NONE;
	spin_unlock(&ev.lock);
	if (wake != QCLOCK_NONE)
		qclock_cpu_arm(wake < ev.end_us ? wake : ev.end_us);
}

int event_run_arrive(unsigned server, uint32_t cost_us, uint64_t irq_tsc)
{
	uint64_t flags = spin_lock_irqsave(&ev.lock);
	int rc = -1;
	if (ev.running && server < ev.ts->ntasks && is_server(server)) {
		uint64_t t0 = qclock_t0();
		uint64_t at = irq_tsc > t0 ? tsc_to_us(irq_tsc - t0) : 0;
		uint64_t now = stamp(at);
		rc = deliver(server, cost_us, at < now ? at : now, now);
		/* The server's CPU, this one included, hears by IPI -- from
		 * time 0 on. An interrupt in the lead before T0 (a key typed
		 * as the run starts) leaves the decision to the CPUs' first
		 * timers at T0, whose calls are still pending: deciding now
		 * would start the run's threads before its time 0. */
		if (qclock_now() >= qclock_t0())
			decide_all(ev.cpus, now);
	}
	spin_unlock_irqrestore(&ev.lock, flags);
	return rc;
}

/*
 * A task's lock or unlock (kernel/run/lock.c), on its own CPU: the plugin
 * takes it at once, at the run clock, and the CPUs it changed decide (the
 * caller's own switches when its call returns to dispatch); this CPU's
 * timer comes no later than its new wake.
 */
static int lock_op(unsigned task, int unlock, unsigned res, char *why,
		   size_t size)
{
	uint64_t flags = spin_lock_irqsave(&ev.lock);
	unsigned me = this_cpu()->cpu;
	int rc = -SCHED_LOCK_EBUSY;
	uint64_t wake = QCLOCK_NONE;
	struct sched_error err = { { 0 } };
	if (!ev.running) {
		fmt_snprintf(why, size, "the run is not going");
	} else {
		uint64_t now = stamp(0);
		rc = ev.plugin->lock_op(ev.s, task, unlock, res, now, &err);
		if (rc)
			fmt_snprintf(why, size, "%s", err.msg);
		decide_all(me, now);
		wake = wake_of(me, now);
	}
	spin_unlock_irqrestore(&ev.lock, flags);
	if (wake != QCLOCK_NONE)
		qclock_cpu_arm(wake < ev.end_us ? wake : ev.end_us);
	return rc;
}

/* Where a task's job is, for its program (rt_abi.h, job_work_ns and
 * work_tsc): the work of its current job, from its thread's CPU time. Not
 * under ev.lock: a switch and a lock call come here outside it. */
static void progress(struct task *t)
{
	struct rt_control *c = t->control;
	uint64_t ran, arrival;
	uint64_t flags = spin_lock_irqsave(&ev.lock);
	c->job_index = evwork_job((unsigned)t->index, &ran, &arrival);
	spin_unlock_irqrestore(&ev.lock, flags);
	c->job_work_ns = tsc_to_ns(ran);
	c->work_tsc = rdtsc();
}

/* arrivals=hpet|uart: a device's arrival, on the CPU that took its
 * interrupt; the TSC it read is that CPU's. A refused one (outside the
 * run, not a server, a full queue) is counted by event_run_arrive. */
static void arrive_from_device(unsigned server, uint32_t cost_us,
			       uint64_t irq_tsc)
{
	event_run_arrive(server, cost_us,
			 irq_tsc - (uint64_t)this_cpu()->tsc_offset);
}

/* Records for the printed schedule: a few per job, arrival and
 * replenishment the run can have. */
static uint64_t records_needed(uint64_t quantum_us)
{
	uint64_t n = RECORDS_BASE;
	for (unsigned i = 0; i < ev.ts->ntasks; i++) {
		const struct task_spec *sp = &ev.ts->task[i];
		if (sp->server.kind) {
			uint64_t per = sp->server.period_us ? sp->server.period_us
							    : 1;
			n += 8 * (ev.end_us / per + 1);
			n += 8 * ((uint64_t)sp->server.rate_hz * ev.end_us /
				  1000000 + 1);
		} else if (sp->p) {
			/* With sections, each job's lock events and blocking
			 * (kernel/run/lock.c) too. */
			n += (6 + 5 + 4 * sp->ncs) *
			     (ev.end_us / (sp->p * quantum_us) + 1);
		}
	}
	return n + 8 * (uint64_t)ev.ts->nevents;
}

/* The kernel, not the program, ends each job: a program that ends its
 * own (it declares RT_PROG_ENDS_JOBS: backtest, latency, rtspin) has no
 * place here. The others (spin, hourglass, writer, the misbehaving ones)
 * just use the CPU. */
static int check_work(const char *file, const char **reason)
{
	for (unsigned i = 0; i < ev.ts->ntasks; i++) {
		const struct task_spec *sp = &ev.ts->task[i];
		if (!(tasks[i].prog_flags & RT_PROG_ENDS_JOBS))
			continue;
		kprintf("taskset: %s:%u: %s %s: work=%s ends its own jobs "
			"(sleep_next_period); under %s the kernel ends each job "
			"when it has had its CPU time: use work=spin\n", file,
			sp->line, sp->server.kind ? "server" : "task", sp->name,
			sp->work, ev.plugin->name);
		*reason = "work";
		return -1;
	}
	return 0;
}

static int setup(const struct sched_plugin *plugin, const char *file,
		 const struct taskset *ts, unsigned cpus, uint64_t end_us,
		 uint64_t quantum_us, const char **reason)
{
	ev.plugin = plugin;
	ev.ts = ts;
	ev.cpus = cpus;
	ev.end_us = end_us;
	ev.quantum_us = quantum_us;
	ev.last_us = 0;
	ev.failed = 0;
	ev.running = 0;
	struct sched_error err = { { 0 } };
	unsigned line;
	if (sched_evsim_check(plugin, ts, &err, &line)) {
		if (line)
			kprintf("sched: %s:%u: %s\n", file, line, err.msg);
		else
			kprintf("sched: %s: %s\n", file, err.msg);
		*reason = "admission";
		return -1;
	}
	/* Its lock variant, for a set with resources (docs/locking.md). */
	if (!(plugin = sched_plugin_for(plugin, ts, &err))) {
		kprintf("sched: %s: %s\n", file, err.msg);
		*reason = "admission";
		return -1;
	}
	ev.plugin = plugin;
	if (check_work(file, reason))
		return -1;
	ev.cpu = bootmem_alloc(cpus * sizeof *ev.cpu);
	ev.t = bootmem_alloc((ts->ntasks ? ts->ntasks : 1) * sizeof *ev.t);
	for (unsigned k = 0; k < cpus; k++)
		ev.cpu[k] = (struct ev_cpu){ .answer = SCHED_IDLE,
					     .next_call = 0, .pending = 1 };
	evwork_setup(ts, quantum_us);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *sp = &ts->task[i];
		if (sp->cpu >= cpus) {
			kprintf("sched: %s:%u: %s is on cpu=%u; this run has %u "
				"CPUs\n", file, sp->line, sp->name, sp->cpu, cpus);
			*reason = "admission";
			return -1;
		}
	}
	arrival_init(&ev.arr, ts, bootmem_alloc((arrival_generators(ts) + 1) *
						sizeof(struct arrival_gen)));
	static struct sched_env env = { env_alloc, env_resched, 0, env_note,
					lock_on_event };
	lock_run_setup(ts, 0);
	struct sched_config cfg = { .cpus = cpus, .tasks = ts,
				    .params = options.params,
				    .nparams = options.nparams, .seed = 1,
				    .quantum_us = quantum_us };
	ev.s = plugin->create(&cfg, &env, &err);
	if (!ev.s) {
		kprintf("sched: %s: %s\n", file, err.msg);
		*reason = "admission";
		return -1;
	}
	evrep_setup(ts, records_needed(quantum_us), JOBS_KEPT);
	lock_set_op(lock_op);
	return 0;
}

/* The verdict's numbers (kernel/run/verdict.h): the timers, the misses
 * against the plan, the servers' windows. */
static void judge(const struct sched_plugin *plugin, uint64_t quantum_us,
		  uint64_t misses)
{
	const struct taskset *ts = ev.ts;
	struct verdict v = {
		.plugin = plugin->name, .at_events = 1,
		.quantum_us = quantum_us, .misses = misses,
		.tolerance_ns = VERDICT_EVENT_TOLERANCE_US * 1000,
	};
	for (unsigned k = 0; k < ev.cpus; k++) {
		v.clock_events += ev.cpu[k].wakes;
		v.clock_late += ev.cpu[k].late_n;
		if (ev.cpu[k].late_max_ns > v.late_max_ns)
			v.late_max_ns = ev.cpu[k].late_max_ns;
	}
	struct evplan plan = { 0 };
	if (evplan_run(plugin, ts, ev.cpus, ev.end_us, quantum_us, &plan,
		       &v.misses_unchecked_why) == 0) {
		v.misses_checked = 1;
		for (unsigned i = 0; i < ts->ntasks; i++) {
			struct sched_task_stats st = { 0 };
			plugin->stats(ev.s, i, &st);
			v.planned += plan.misses[i];
			if (st.misses > plan.misses[i])
				v.unplanned += st.misses - plan.misses[i];
		}
	}
	v.windows_over = evrep_windows_over(VERDICT_EVENT_TOLERANCE_US,
					    plan.window_over, &v.windows,
					    &v.windows_within);
	verdict_set(&v);
}

static void report(const struct sched_plugin *plugin, uint64_t quantum_us)
{
	const struct taskset *ts = ev.ts;
	run_report_task_output();
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	uint64_t *self = bootmem_alloc(n * sizeof *self);
	uint64_t *queued = bootmem_alloc(n * sizeof *queued);
	uint64_t *dropped = bootmem_alloc(n * sizeof *dropped);
	uint64_t *wakes = bootmem_alloc(ev.cpus * sizeof *wakes);
	uint64_t *late_max = bootmem_alloc(ev.cpus * sizeof *late_max);
	uint64_t *late_sum = bootmem_alloc(ev.cpus * sizeof *late_sum);
	uint64_t missed = 0;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		self[i] = tsc_to_us(tasks[i].run_cycles);
		queued[i] = evwork_queued(i);
		dropped[i] = evwork_dropped(i);
	}
	for (unsigned k = 0; k < ev.cpus; k++) {
		end_segment(k, ev.end_us);
		if (ev.cpu[k].answer != SCHED_IDLE &&
		    is_server((unsigned)ev.cpu[k].answer))
			fg_close((unsigned)ev.cpu[k].answer, ev.end_us);
		wakes[k] = ev.cpu[k].wakes;
		late_max[k] = ev.cpu[k].late_max_ns;
		late_sum[k] = ev.cpu[k].late_sum_ns;
		missed += qclock_cpu_missed(k);
	}
	struct evrep_run run = { ev.cpus, ev.end_us, quantum_us, self, queued,
				 dropped, wakes, late_max, late_sum, missed };
	unsigned bad;
	task_kill_report();
	uint64_t misses = evrep_print(plugin, ev.s, ts, &run, &bad);
	judge(plugin, quantum_us, misses);
}

/* trace=events: the records as docs/trace-format.md's dump, the run
 * described in its quanta (so jobs.csv has the releases and deadlines),
 * with the summary line. */
static void dump_trace(const struct sched_plugin *plugin, uint64_t slots,
		       uint64_t quantum_us)
{
	size_t len;
	const char *summary = evrep_summary(&len);
	struct trace_dump_info info = {
		.p = { .cpus = ev.cpus, .tsc_khz = tsc.khz, .t0 = qclock_t0(),
		       .end = tsc_of_us(ev.end_us), .quantum_us = quantum_us,
		       .slots = slots, .staggered = 0, .ntasks = ev.ts->ntasks },
		.sched = plugin->name, .ts = ev.ts, .summary = summary,
		.summary_len = len,
	};
	trace_describe(&info);
	trace_dump();
}

int event_run(const struct sched_plugin *plugin, const char *file,
	      const struct taskset *ts, unsigned cpus, struct task *idle,
	      uint64_t slots, uint64_t quantum_us, const char **reason)
{
	uint64_t end_us = slots * quantum_us;
	if (options.coldcache)
		kprintf("sched: coldcache=on: %s is event-driven; only "
			"quantum-driven runs flush before their decisions\n",
			plugin->name);
	if (setup(plugin, file, ts, cpus, end_us, quantum_us, reason))
		return -1;
	kprintf("sched: %s on %u CPUs, %u tasks and servers from %s, %llu us "
		"(%llu quanta of %llu us), at events on one-shot timers\n",
		plugin->name, cpus, ts->ntasks, file,
		(unsigned long long)end_us, (unsigned long long)slots,
		(unsigned long long)quantum_us);
	/* The buffers before the epoch is set: clearing them takes time. */
	int tracing = options.trace == TRACE_EVENTS;
	if (tracing) {
		uint64_t n = 4 * records_needed(quantum_us);
		if (trace_setup(cpus, n < 0xffffffffu ? (uint32_t)n : 0xffffffffu)) {
			*reason = "memory";
			return -1;
		}
		trace_reset();
	}
	sched_run_threads_setup(idle);
	if (sched_run_release(quantum_us, reason))
		return -1;
	static const struct dispatch_source source = {
		.answer = answer_of, .on_ipi = on_ipi, .event_driven = 1,
		.job = job_of, .progress = progress };
	dispatch_set_source(&source);
	ev.handed_from = ev.handed_to = 0;
	trap_set_handler(VEC_ARRIVAL_IPI, on_arrival_ipi);
	static const struct qclock_client client = {
		on_timer, dispatch_after_timer, 0, 1 };
	/* Slots of 1 us: the clock's boundary u is the run's microsecond u. */
	qclock_prepare(0, end_us, 1, cpus, LEAD_US, &client);
	if (options.ahead_us)
		kprintf("event: ahead_us= is for quantum-driven runs; ignored\n");
	sched_run_fill_controls(quantum_us, qclock_t0());
	for (unsigned i = 0; i < ntasks; i++)
		tasks[i].control->flags |= RT_CONTROL_EVENTS;
	ev.running = 1;
	/* Time 0 of the run is T0 on this CPU's TSC. */
	if (arrivals_start(options.arrivals, ts,
			      qclock_t0() + (uint64_t)this_cpu()->tsc_offset,
			      end_us, (unsigned)options.irq_cpu,
			      arrive_from_device)) {
		ev.running = 0;
		*reason = "arrivals";
		return -1;
	}
	/* Starting the UART's interrupt cleared its receive FIFO: what was
	 * typed before is gone, what is typed from here on is the run's. */
	if (options.arrivals == ARRIVALS_UART)
		kprintf("arrivals: COM1 takes typed jobs for the run\n");
	trace_enable(tracing);
	uint64_t timeout_us = LEAD_US + 2 * end_us + 2000000;
	unsigned late = smp_run_on_all(sched_run_cpu, 0, timeout_us);
	trace_enable(0);
	ev.running = 0;
	arrivals_stop(options.arrivals);
	if (late) {
		for (unsigned k = 0; k < cpus; k++)
			if (!qclock_cpu_done(k))
				kprintf("sched: cpu %u stopped at %llu us of %llu\n",
					k, (unsigned long long)qclock_cpu_next(k),
					(unsigned long long)end_us);
		*reason = "timer";
		return -1;
	}
	if (ev.failed) {
		kprintf("sched: %s: %s\n", file, ev.why);
		*reason = "sched";
		return -1;
	}
	report(ev.plugin, quantum_us);
	lock_report(ev.plugin, ev.s);
	if (tracing)
		dump_trace(ev.plugin, slots, quantum_us);
	return 0;
}
