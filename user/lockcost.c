/*
 * user/lockcost: work=lockcost, what one sys_lock and one sys_unlock cost
 * the task that makes them. At the start of each job it reads the TSC,
 * locks the resource of its first cs= section, reads it again, unlocks it,
 * reads it a third time, and spins for the rest of the job (the kernel
 * ends it at its budget; a new job shows in the control page's job_index,
 * written at every dispatch). Under an
 * event-driven plugin (pfp) a call takes effect when it is made, so with
 * the resource free the two differences are the calls' whole round trips:
 * the system call, the lock variant's decision and the CPUs it changed.
 * (Under the quantum-driven plugins a call waits for the quantum's end,
 * so there they time that wait, not a cost.) Each job's pair goes into
 * the trace as a `user` record (sys_trace(job, lock << 32 | unlock), in
 * TSC cycles) and, after jobs 1, 2, 4, 8, ... (a few lines: the task's
 * console buffer is small), a console line gives the totals so far:
 * `lockcost: jobs=N lock_max=C lock_sum=C unlock_max=C unlock_sum=C
 * tsc_khz=K` -- the line with the most jobs is the run's result.
 */
#include "lib/cpu.h"
#include "lib/msg.h"
#include "lib/start.h"
#include "lib/sys.h"

/* Its jobs are periodic; the kernel ends each at its budget. */
RT_PROGRAM(RT_PROG_NEEDS_PERIODS);

#define LOCKCOST_EXIT_REFUSED 2

static void field(struct msg *m, const char *name, uint64_t v)
{
	msg_str(m, name);
	msg_dec(m, v);
}

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	uint64_t jobs = 0, lmax = 0, lsum = 0, umax = 0, usum = 0;
	uint64_t seen = ~0ull;
	for (;;) {
		uint64_t job = ctl->job_index;
		if (job == seen) {
			cpu_pause();
			continue;
		}
		seen = job;
		uint64_t t0 = cpu_rdtsc();
		int64_t rl = sys_lock(ctl->cs_res[0]);
		uint64_t t1 = cpu_rdtsc();
		int64_t ru = sys_unlock(ctl->cs_res[0]);
		uint64_t t2 = cpu_rdtsc();
		if (rl || ru) {
			struct msg m;
			msg_begin(&m, "lockcost: lock or unlock refused: ");
			msg_dec(&m, (uint64_t)-(rl ? rl : ru));
			msg_send(&m);
			return LOCKCOST_EXIT_REFUSED;
		}
		uint64_t l = t1 - t0, u = t2 - t1;
		jobs++;
		lsum += l;
		usum += u;
		lmax = l > lmax ? l : lmax;
		umax = u > umax ? u : umax;
		sys_trace(job, (l << 32) | (u & 0xffffffffull));
		if (jobs & (jobs - 1))
			continue;
		struct msg m;
		msg_begin(&m, "lockcost:");
		field(&m, " jobs=", jobs);
		field(&m, " lock_max=", lmax);
		field(&m, " lock_sum=", lsum);
		field(&m, " unlock_max=", umax);
		field(&m, " unlock_sum=", usum);
		field(&m, " tsc_khz=", ctl->tsc_khz);
		msg_send(&m);
	}
}
