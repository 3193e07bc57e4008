/*
 * lib/trace_rec: the kernel's trace record and its event kinds, as
 * docs/trace-format.md fixes them. The kernel writes these records; lib/
 * trace_stats and the host decoder (tools/rtktrace) read them.
 */
#ifndef LIB_TRACE_REC_H
#define LIB_TRACE_REC_H

#include <stddef.h>
#include <stdint.h>

/* The `task` of a record that names none (an idle CPU). */
#define TRACE_NO_TASK 0xffffffffu

struct trace_rec {
	uint64_t tsc;     /* boot CPU's TSC time (this CPU's offset removed) */
	uint16_t cpu;
	uint8_t event;    /* enum trace_event */
	uint8_t flags;    /* per kind, the TRACE_F_* below */
	uint32_t task;
	uint32_t job;
	uint32_t seq;     /* this CPU's record number, gapless from 0 */
	uint64_t arg;
};

/* The dump and the decoder read the records as bytes: the layout is fixed
 * (little-endian, as x86 is and the dump says). */
_Static_assert(sizeof(struct trace_rec) == 32, "trace record is 32 bytes");
_Static_assert(offsetof(struct trace_rec, cpu) == 8, "cpu at 8");
_Static_assert(offsetof(struct trace_rec, task) == 12, "task at 12");
_Static_assert(offsetof(struct trace_rec, seq) == 20, "seq at 20");
_Static_assert(offsetof(struct trace_rec, arg) == 24, "arg at 24");

enum trace_event {
	TRACE_TICK_START = 1,
	TRACE_TICK_END = 2,
	TRACE_SCHED_START = 3,
	TRACE_SCHED_END = 4,
	TRACE_CXS_START = 5,
	TRACE_CXS_END = 6,
	TRACE_RELEASE = 7,
	TRACE_COMPLETION = 8,
	TRACE_DEADLINE_MISS = 9,
	TRACE_IPI_SEND = 10,
	TRACE_IPI_RECV = 11,
	TRACE_BLOCK = 12,
	TRACE_WAKE = 13,
	TRACE_JOIN = 14,
	TRACE_LEAVE = 15,
	TRACE_BUDGET_EXHAUSTED = 16,
	TRACE_BUDGET_REPLENISHED = 17,
	TRACE_HOURGLASS_GAP = 18,
	TRACE_HOURGLASS_TOTAL = 19,
	TRACE_FAULT = 20,
	TRACE_ARRIVAL = 21,
	TRACE_TIMER = 22,
	TRACE_SELF = 23,
	TRACE_LOCK = 24,
	TRACE_BLOCKED = 25,
	TRACE_USER = 26,
	TRACE_EVENT_LAST = TRACE_USER,
};

/* tick_start */
#define TRACE_F_TICK_MISSED 1       /* the boundary had passed when handled */
/* completion: how the job ended */
#define TRACE_F_DONE_BUDGET 1       /* its budget was used up */
#define TRACE_F_DONE_SLEEP 2        /* the task said so (sleep_next_period) */
#define TRACE_F_DONE_DROPPED 3      /* dropped: counts as a miss */
/* ipi_send, ipi_recv: why */
#define TRACE_F_IPI_RESCHED 1
#define TRACE_F_IPI_WAKE 2          /* wake a CPU waiting for its turn */
#define TRACE_F_IPI_STOP 3          /* NMI */
/* block, wake, join, leave */
#define TRACE_F_BY_KERNEL 1         /* the kernel's own (a fault, an exit) */
/* hourglass_gap */
#define TRACE_F_GAP_PURE 1          /* no other thread ran in it */
/* fault: flags hold the vector */
/* lock: flags hold the event (enum sched_lock_kind: 0 request, 1 acquire,
 * 2 release, 3 forced, 4 spin, 5 suspend, 6 blocked), arg = at << 8 |
 * resource, `at` the plugin's time (slot, or microseconds) */
#define TRACE_LOCK_ARG(at, res) ((uint64_t)(at) << 8 | ((res) & 0xff))
/* blocked: a job's time in one category (flags), arg in the plugin's unit;
 * four records follow each lock record of kind blocked */
#define TRACE_F_BLOCKED_SPIN 1
#define TRACE_F_BLOCKED_WAIT 2
#define TRACE_F_BLOCKED_PI 3
#define TRACE_F_BLOCKED_INTF 4

#endif
