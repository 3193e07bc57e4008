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
/* A `user` record in the run's trace with job and value as given. */
int64_t sys_trace(uint64_t job, uint64_t value);

#endif
