/* kernel/run/syscall: the table and its calls. */
#include "syscall.h"

#include "../../arch/x86/syscall.h"
#include "../../arch/x86/tsc.h"
#include "../../lib/fmt.h"
#include "../../lib/rt_abi.h"
#include "../../lib/taskset.h"
#include "../../sched/driver.h"
#include "../core/options.h"
#include "../run/dispatch.h"
#include "../task/jobs.h"
#include "../time/quantum_clock.h"
#include "../run/sched_decide.h"
#include "../task/task.h"
#include "../trace/trace.h"
#include "lock.h"
#include "release.h"
#include "task_kill.h"
#include "../task/vm.h"

typedef int64_t (*syscall_fn)(struct task *t, struct trap_frame *f);

static struct {
	const char *sched;
	unsigned cpus;
	uint64_t quantum_us;
} run;

void syscall_describe_run(const char *sched, unsigned cpus,
			  uint64_t quantum_us)
{
	run.sched = sched;
	run.cpus = cpus;
	run.quantum_us = quantum_us;
}

static uint64_t ns_since_epoch(uint64_t when)
{
	uint64_t t0 = qclock_t0();
	return when > t0 ? tsc_to_ns(when - t0) : 0;
}

static uint64_t slot_ns(uint64_t slots)
{
	return slots * qclock_quantum_us() * 1000;
}

/* Job j's release in ns since the epoch (rt_job_info.release_ns). */
static uint64_t release_ns(const struct task *t, uint64_t j)
{
	return slot_ns(jobs_release_slot(t, j));
}

static void __attribute__((noreturn)) bad_pointer(struct task *t,
						 const struct trap_frame *f,
						 const char *call,
						 uint64_t addr, uint64_t len)
{
	char why[TASK_WHY_MAX];
	fmt_snprintf(why, sizeof why, "bad system-call pointer %#llx (%llu "
		     "bytes) in %s rip=%#llx", (unsigned long long)addr,
		     (unsigned long long)len, call, (unsigned long long)f->rip);
	task_kill(t, why, 0, addr);
}

static int64_t sys_exit(struct task *t, struct trap_frame *f)
{
	task_exit(t, (int64_t)f->rdi);
}

/* The task's jobs are the program's to end: it has periods, the kernel
 * does not end every job itself (an event-driven run), and the run has
 * begun. */
static int ends_own_jobs(const struct task *t)
{
	return t->jobs.periodic && !dispatch_event_driven() &&
	       !dispatch_before_release();
}

/* After a job's end: out for the rest of slot (back when the plugin
 * chooses t for a later one) when `out`; then this CPU runs its answer.
 * Returns once t runs again, saying which job that is (rt_abi.h,
 * woke_job). */
static int64_t leave_cpu(struct task *t, uint64_t slot, int out)
{
	if (out) {
		t->slept_through = slot + 1;
		t->sleeping = 1;
	}
	dispatch_me()->in_kernel = 0;
	dispatch_now();
	uint64_t job = t->jobs.done;
	t->control->woke_job = job;
	t->control->woke_release_ns = release_ns(t, job);
	return 0;
}

static int64_t sys_sleep_next_period(struct task *t, struct trap_frame *f)
{
	(void)f;
	if (!ends_own_jobs(t))
		return -RT_EINVAL;
	uint64_t slot = dispatch_slot_now();
	uint64_t job = t->jobs.done;
	dispatch_account(slot);
	/* Before the plugin hears of it: a plugin that chooses the task again
	 * in this slot (its next job is released already) lifts the mark
	 * (dispatch_changed). */
	t->slept_through = slot + 1;
	t->sleeping = 1;
	/* A task that makes this call only after its budget's last quantum
	 * ended (it ran late) had its job ended at that boundary, for the
	 * plugin too: this call ends nothing more, or the next job would be
	 * counted done before it ran, and every later job_info would name the
	 * job after the one running. Nor does a call before that next job's
	 * release: the task ran on past its budget's boundary because the
	 * CPU's timer came late, and a job_info meanwhile had already charged
	 * the slot and ended the job (plain TCG on a loaded host: the
	 * kernel's count then ran ahead of the plugin's, every later sample
	 * measured from a release still to come). */
	if (t->jobs.done == job && jobs_release_slot(t, job) <= slot) {
		jobs_complete(t, qclock_now());
		/* The plugin may count this job ended already: the thread ran
		 * it late, in a slot the plugin gave to the task's next job
		 * while the kernel's count was one behind (the thread slept
		 * through a slot the plugin charged). Then the plugin is not
		 * told, the counts agree again, and where the next job is
		 * released and the plugin has the task in this slot, that job
		 * runs now; otherwise every later job would run a period late
		 * (plain TCG, vCPUs starved at the start of a run). (Pfair
		 * counts a job when it decides its last subtask: called in
		 * that slot, the plugin counts it too, and the next job, not
		 * released yet, waits.) */
		if (decide_complete((unsigned)t->index, slot, t->jobs.done,
				    0) == 1 &&
		    jobs_release_slot(t, t->jobs.done) <= slot &&
		    decide_answer(this_cpu()->cpu, slot) == t->index) {
			t->sleeping = 0;
			t->slept_through = slot;
		}
	}
	return leave_cpu(t, slot, 0);
}

/*
 * Job `job` ends now. The rest of the slot is the task's next job's when
 * the plugin, told of the end, answers this CPU with the task again (its
 * next job is out already); otherwise the task is out until the plugin
 * chooses it for a later slot -- as after sleep_next_period, whose task
 * the plugin's new answer takes back (dispatch_changed).
 */
static int64_t sys_end_job(struct task *t, struct trap_frame *f)
{
	if (!ends_own_jobs(t))
		return -RT_EINVAL;
	uint64_t job = f->rdi;
	uint64_t slot = dispatch_slot_now();
	dispatch_account(slot);
	if (job < t->jobs.done)
		return RT_JOB_ENDED;
	if (job > t->jobs.done)
		return -RT_EINVAL;
	int again;
	jobs_complete(t, qclock_now());
	decide_event(SCHED_EV_COMPLETE, (unsigned)t->index, slot, &again);
	return leave_cpu(t, slot, !again || decide_answer(this_cpu()->cpu, slot)
				      != t->index);
}

static int64_t sys_wait_release(struct task *t, struct trap_frame *f)
{
	(void)f;
	return release_wait(t);
}

static int64_t sys_time(struct task *t, struct trap_frame *f)
{
	(void)t;
	(void)f;
	if (dispatch_before_release())
		return 0;
	return (int64_t)ns_since_epoch(qclock_now());
}

static void copy_name(char *dst, const char *src)
{
	unsigned i = 0;
	for (; src[i] && i + 1 < RT_NAME_MAX; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

static int64_t sys_task_info(struct task *t, struct trap_frame *f)
{
	const struct task_spec *s = t->spec;
	uint64_t q = run.quantum_us * 1000;
	struct rt_task_info info = {
		.task = (uint32_t)t->index, .cpus = run.cpus, .e = s->e,
		.p = s->p, .d = s->d, .phase = s->phase, .weight = s->weight,
		.exec = s->has_exec ? s->exec : RT_NOT_GIVEN,
		.ws_bytes = s->ws, .prio = s->has_prio ? s->prio : RT_NOT_GIVEN,
		.cpu = s->cpu,
		.flags = dispatch_event_driven() ? RT_TASK_EVENT_DRIVEN : 0,
		.quantum_ns = q, .budget_ns = s->e * q, .period_ns = s->p * q,
		.deadline_ns = s->d * q, .phase_ns = s->phase * q,
		.exec_ns = (s->has_exec ? s->exec : s->e) * q,
	};
	copy_name(info.name, t->name);
	copy_name(info.work, s->work);
	copy_name(info.sched, run.sched);
	if (vm_copy_to_user(t->vm, f->rdi, &info, sizeof info))
		bad_pointer(t, f, "task_info", f->rdi, sizeof info);
	return 0;
}

static int64_t sys_job_info(struct task *t, struct trap_frame *f)
{
	struct rt_job_info info = { 0 };
	const struct task_spec *s = t->spec;
	uint64_t q = run.quantum_us * 1000;
	if (s->p) {
		info.budget_ns = s->e * q;
		info.period_ns = s->p * q;
	}
	if (dispatch_job_info((unsigned)t->index, &info)) {
		/* an event-driven run's own account */
	} else if (t->jobs.periodic) {
		/* Quanta up to now are charged, so ran_ns is current. */
		if (!dispatch_before_release())
			dispatch_account(dispatch_slot_now());
		info.job = t->jobs.done;
		info.release_ns = release_ns(t, info.job);
		info.deadline_ns = slot_ns(jobs_deadline_slot(t, info.job));
		info.ran_ns = t->jobs.ran * q;
	}
	info.now_ns = ns_since_epoch(qclock_now());
	info.task = (uint32_t)t->index;
	info.cpu = this_cpu()->cpu;
	if (vm_copy_to_user(t->vm, f->rdi, &info, sizeof info))
		bad_pointer(t, f, "job_info", f->rdi, sizeof info);
	return 0;
}

static int64_t sys_write(struct task *t, struct trap_frame *f)
{
	uint64_t buf = f->rdi, len = f->rsi;
	if (len > RT_WRITE_MAX)
		return -RT_EINVAL;
	/* Check it all first: a bad pointer kills, even past a full buffer. */
	if (!vm_user_range_ok(t->vm, buf, len, 0))
		bad_pointer(t, f, "write", buf, len);
	uint64_t room = TASK_OUT_MAX - t->out_len;
	uint64_t take = len < room ? len : room;
	vm_copy_from_user(t->vm, t->out + t->out_len, buf, take);
	t->out_len += (uint32_t)take;
	t->out_lost += (uint32_t)(len - take);
	return (int64_t)len;
}

/* The task's own trace point: a `user` record with its job and value. */
static int64_t sys_trace(struct task *t, struct trap_frame *f)
{
	trace_emit(TRACE_USER, 0, (uint32_t)t->index, (uint32_t)f->rdi, f->rsi);
	return 0;
}

static const syscall_fn table[RT_SYS_COUNT] = {
	[RT_SYS_EXIT] = sys_exit,
	[RT_SYS_SLEEP_NEXT_PERIOD] = sys_sleep_next_period,
	[RT_SYS_TIME] = sys_time,
	[RT_SYS_JOB_INFO] = sys_job_info,
	[RT_SYS_WRITE] = sys_write,
	[RT_SYS_WAIT_RELEASE] = sys_wait_release,
	[RT_SYS_END_JOB] = sys_end_job,
	[RT_SYS_TASK_INFO] = sys_task_info,
	[RT_SYS_LOCK] = lock_sys_lock,
	[RT_SYS_UNLOCK] = lock_sys_unlock,
	[RT_SYS_TRACE] = sys_trace,
};

static void on_syscall(struct trap_frame *f)
{
	if (options.late_mode == LATE_SYSCALL)
		qclock_late_syscall();
	struct task *t = dispatch_current();
	dispatch_me()->in_kernel = 1;
	dispatch_yield();
	uint64_t nr = f->rax;
	f->rax = nr < RT_SYS_COUNT && table[nr] ? (uint64_t)table[nr](t, f)
						: (uint64_t)-RT_ENOSYS;
	dispatch_me()->in_kernel = 0;
}

void syscall_setup(void)
{
	syscall_set_handler(on_syscall);
}
