/*
 * lib/taskset: the task-set file format of FORMATS.md section 1, shared by the
 * kernel (the multiboot2 module) and the host tools.
 */
#ifndef LIB_TASKSET_H
#define LIB_TASKSET_H

#include <stddef.h>
#include <stdint.h>

#define TASKSET_NAME_MAX 31
#define TASKSET_LINE_MAX 255
#define TASKSET_VALUE_LIMIT 0x80000000u /* every number is below 2^31 */

/* What a task runs: the ring-3 program of the same name (user/NAME.c). */
enum task_work {
	TASK_WORK_SPIN,
	TASK_WORK_WRITER,
	TASK_WORK_BACKTEST,
	TASK_WORK_HOURGLASS,
	/* Misbehaving on purpose, for the tests (FORMATS.md section 7). */
	TASK_WORK_BAD_KREAD,
	TASK_WORK_BAD_WRITE_OTHER,
	TASK_WORK_BAD_EXEC_DATA,
	TASK_WORK_BAD_DIV0,
	TASK_WORK_BAD_SYSCALL_PTR,
	TASK_WORK_BAD_UD,
	TASK_WORK_BAD_GP,
	TASK_WORK_COUNT
};

struct task_spec {
	char name[TASKSET_NAME_MAX + 1];
	/* In quanta. A task given only weight= has e = p = d = 0. */
	uint32_t e, p, d, phase;
	/* The weight= value; 0 when the task was given as e/p. */
	uint32_t weight;
	enum task_work work;
	uint32_t ws;        /* working-set bytes */
	unsigned line;      /* where it was declared, for later messages */
	uint32_t name_hash;
};

/*
 * Extension of FORMATS.md section 1 for dynamic task sets:
 *     at TIME join|leave|block|wake NAME
 * TIME in quanta (below 2^31). A declared task is present from its phase;
 * leave removes it, join brings back one that left, block suspends a present
 * task and wake resumes a blocked one. Events are listed in time order.
 */
enum taskset_action {
	TASKSET_JOIN,
	TASKSET_LEAVE,
	TASKSET_BLOCK,
	TASKSET_WAKE,
};

struct taskset_event {
	uint32_t t;
	enum taskset_action action;
	unsigned task;      /* index into task[] */
	unsigned line;
};

/* The caller provides the storage: no allocation, so the kernel can use it. */
struct taskset {
	struct task_spec *task;
	unsigned ntasks, max_tasks;
	struct taskset_event *event;
	unsigned nevents, max_events;
};

/*
 * Parses len bytes of text. On success returns 0. On error returns -1, writes
 * "FILE:LINE: reason" into err, and leaves ntasks = nevents = 0: nothing from
 * a file with an error is applied.
 */
int taskset_parse(struct taskset *ts, const char *file, const char *text,
		  size_t len, char *err, size_t errlen);

/* The name of an action or work kind, as written in the file. */
const char *taskset_action_name(enum taskset_action a);
const char *taskset_work_name(enum task_work w);

/*
 * The task's weight as an exact fraction num/den: e/p for a periodic task,
 * weight/1 for a proportional-share one.
 */
void task_spec_weight(const struct task_spec *t, uint64_t *num, uint64_t *den);

/* Index of the task named name (len bytes), or -1. */
int taskset_find(const struct taskset *ts, const char *name, size_t len);

#endif
