/*
 * user/lib/sys: the system calls of lib/rt_abi.h as C functions. Each
 * returns the kernel's rax: a result, or a negated RT_E* code.
 */
#ifndef USER_LIB_SYS_H
#define USER_LIB_SYS_H

#include <stdint.h>

#include "../../lib/rt_abi.h"

__attribute__((noreturn)) void sys_exit(int64_t code);
/* The job is complete; returns at the release of the next one. */
int64_t sys_sleep_next_period(void);
/* Nanoseconds since the run's epoch. */
int64_t sys_time(void);
int64_t sys_job_info(struct rt_job_info *out);
/* Into the task's console buffer; at most RT_WRITE_MAX bytes a call. */
int64_t sys_write(const void *buf, uint64_t len);
/* Returns 0 once the task holds resource res (docs/locking.md). */
int64_t sys_lock(uint64_t res);
int64_t sys_unlock(uint64_t res);
/* Waits at the synchronous release's barrier (a program that declares
 * RT_PROG_SYNC_RELEASE calls it once, before its first job): 0 once
 * released with the set, RT_RELEASE_PASSED when the release had come. */
int64_t sys_wait_release(void);
/* Job `job` (rt_job_info.job) is done before its budget: 0 when the task
 * runs again (at once when its next job is out and the scheduler gives it
 * the rest of the quantum), RT_JOB_ENDED at once when that job had ended
 * at its budget already, -RT_EINVAL when the kernel ends this task's jobs
 * itself (no periods, an event-driven run, before the release). */
int64_t sys_end_job(uint64_t job);
/* The task's own parameters (lib/rt_abi.h, struct rt_task_info). */
int64_t sys_task_info(struct rt_task_info *out);
/* A `user` record in the run's trace with job and value as given. */
int64_t sys_trace(uint64_t job, uint64_t value);

#endif
