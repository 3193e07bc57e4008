/*
 * lib/taskset: the task-set file format (docs/formats.md, "Task files"),
 * shared by the kernel (the multiboot2 module) and the host tools.
 */
#ifndef LIB_TASKSET_H
#define LIB_TASKSET_H

#include <stddef.h>
#include <stdint.h>

#define TASKSET_NAME_MAX 31
#define TASKSET_LINE_MAX 255
#define TASKSET_VALUE_LIMIT 0x80000000u /* every number is below 2^31 */

/*
 * What a task runs: work=NAME names the ring-3 program user/NAME.c (or
 * NAME.c of the directory USER_PROGS_DIR names; docs/user-programs.md). A
 * program name is 1 to TASKSET_WORK_MAX letters, digits, '_' or '-', the
 * first a letter; the parser takes any such name, and whoever runs the
 * set checks that the program exists (the build, the kernel).
 */
#define TASKSET_WORK_MAX 31
#define TASKSET_WORK_DEFAULT "spin"

/* Whether the n bytes at s are a well-formed program name. */
int taskset_work_name_ok(const char *s, size_t n);

/*
 * Aperiodic servers (docs/formats.md, "`server` lines"), scheduled by
 * `pfp`:
 *     server NAME kind=sporadic|polling|hybrid budget=B period=P prio=K
 *            [max_repl=R] [toll_us=X] [coalesce=immediate|gradual] [cpu=C]
 *     arrivals SERVER rate_hz=R cost_us=C [seed=S]
 *     at TIME arrive SERVER cost_us=C
 * Server times are microseconds, and so is the TIME of an `arrive` event
 * (the other `at` events count quanta). A server is an entry of task[]
 * (kind != SERVER_NONE), so schedules, statistics and trace records name it
 * by its index like any task. max_repl applies to sporadic and hybrid
 * servers (default TASKSET_MAX_REPL_DEFAULT), coalesce= to hybrid ones
 * (default immediate). An `arrivals` line comes after its server's line,
 * one per server.
 */
enum server_kind {
	SERVER_NONE,        /* a `task` line */
	SERVER_SPORADIC,
	SERVER_POLLING,
	SERVER_HYBRID,
};

enum server_coalesce {
	COALESCE_IMMEDIATE,
	COALESCE_GRADUAL,
};

/* The sporadic-server paper's experiment (Sec. 3) uses max_repl = 100. */
#define TASKSET_MAX_REPL_DEFAULT 100
#define TASKSET_MAX_REPL_LIMIT 4096

struct server_spec {
	enum server_kind kind;
	uint32_t budget_us, period_us;
	uint32_t max_repl;
	uint32_t toll_us;
	enum server_coalesce coalesce;
	/* From its `arrivals` line; rate_hz = 0 when it has none. */
	uint32_t rate_hz, cost_us, seed;
	unsigned arrivals_line;
};

/*
 * Shared resources and critical sections (docs/locking.md):
 *     resource NAME protocol=srp|msrp|pcp|mpcp|omlp
 *     task ... cs=NAME:LEN[@AT],...
 * A section on resource NAME lasts LEN quanta of the job's work and begins
 * after AT quanta of it (default: where the previous section of the list
 * ends, 1 for the first); sections nest properly or are disjoint. Every
 * resource of a set follows the same protocol, and a `resource` line comes
 * before the tasks that name it.
 */
enum taskset_protocol {
	PROTO_SRP,       /* stack resource policy (pedf) */
	PROTO_MSRP,      /* multiprocessor SRP: FIFO spin locks (pedf, gedf) */
	PROTO_PCP,       /* priority ceiling protocol (pfp) */
	PROTO_MPCP,      /* multiprocessor PCP (pfp) */
	PROTO_OMLP,      /* the global O(m) locking protocol (gedf, cedf) */
	PROTO_COUNT
};

#define TASKSET_RES_MAX 64      /* resources in a set (a mask of 64 bits) */
#define TASKSET_CS_MAX 8        /* critical sections of one task */

struct resource_spec {
	char name[TASKSET_NAME_MAX + 1];
	enum taskset_protocol protocol;
	unsigned line;
};

struct cs_spec {
	uint32_t res;        /* index into taskset.res[] */
	uint32_t at, len;    /* quanta of the job's work */
};

struct task_spec {
	char name[TASKSET_NAME_MAX + 1];
	/* In quanta. A task given only weight= has e = p = d = 0. */
	uint32_t e, p, d, phase;
	/* The weight= value; 0 when the task was given as e/p. */
	uint32_t weight;
	char work[TASKSET_WORK_MAX + 1];
	uint32_t ws;        /* working-set bytes */
	/* args="...": nargs words (lib/task_args; argv[0], the program's
	 * name, is not one of them), each NUL-ended, one after another at
	 * the set's argbuf + args_at, args_len bytes in all (see struct
	 * taskset). nargs = 0 without args=. */
	uint32_t args_at, args_len;
	uint8_t nargs;
	/* exec=K: each job runs K of its e quanta and then ends itself
	 * (docs/user-programs.md, "Jobs that end early"); has_exec says it
	 * was given. Only for e/p tasks, K <= e. */
	uint8_t has_exec;
	uint32_t exec;
	unsigned line;      /* where it was declared, for later messages */
	uint32_t name_hash;
	/* Fixed priority (smaller is higher) and CPU, for `pfp`; a server
	 * always has a prio, a task only when it was given. cpu defaults to 0. */
	uint32_t prio, cpu;
	uint8_t has_prio;
	struct server_spec server;
	/* Its critical sections (cs=), in the order written. */
	uint32_t ncs;
	struct cs_spec cs[TASKSET_CS_MAX];
};

/*
 * This project's extension of task sets for sets that change
 * (docs/formats.md, "`at` lines"):
 *     at TIME join|leave|block|wake NAME
 * TIME in quanta (below 2^31). A declared task is present from its phase;
 * leave removes it, join brings back one that left, block suspends a present
 * task and wake resumes a blocked one. Events are listed in time order.
 *
 * `at TIME arrive SERVER cost_us=C` (for servers) is an aperiodic job for a
 * server, TIME in microseconds: arrivals are in time order among
 * themselves, the other events among themselves (their units differ).
 */
enum taskset_action {
	TASKSET_JOIN,
	TASKSET_LEAVE,
	TASKSET_BLOCK,
	TASKSET_WAKE,
	TASKSET_ARRIVE,
};

struct taskset_event {
	uint32_t t;         /* quanta; microseconds for TASKSET_ARRIVE */
	enum taskset_action action;
	unsigned task;      /* index into task[] */
	unsigned line;
	uint32_t cost_us;   /* TASKSET_ARRIVE only */
};

/*
 * The caller provides the storage: no allocation, so the kernel can use it.
 * argbuf (argbuf_max bytes; the file's length always suffices) takes the
 * words of every args=; a reader that never runs programs may leave it
 * NULL, and then args= is checked but its words are not kept.
 */
struct taskset {
	struct task_spec *task;
	unsigned ntasks, max_tasks;
	struct taskset_event *event;
	unsigned nevents, max_events;
	/* `resource` lines; max_res 0: the reader takes none. */
	struct resource_spec *res;
	unsigned nres, max_res;
	char *argbuf;
	size_t argbuf_len, argbuf_max;
};

/* Task t's args= words (t->nargs of them, NUL-ended one after another),
 * or NULL when it has none or the set keeps none. */
const char *taskset_args(const struct taskset *ts, const struct task_spec *t);

/*
 * Parses len bytes of text. On success returns 0. On error returns -1, writes
 * "FILE:LINE: reason" into err, and leaves ntasks = nevents = 0: nothing from
 * a file with an error is applied.
 */
int taskset_parse(struct taskset *ts, const char *file, const char *text,
		  size_t len, char *err, size_t errlen);

/* The name of an action, server kind or coalescing mode, as written in
 * the file. */
const char *taskset_action_name(enum taskset_action a);
const char *taskset_server_kind_name(enum server_kind k);
const char *taskset_coalesce_name(enum server_coalesce c);

const char *taskset_protocol_name(enum taskset_protocol p);

/* The resource named name (len bytes), or -1. */
int taskset_find_resource(const struct taskset *ts, const char *name,
			  size_t len);

/* The first server of the set (its index), or -1 when it has none. */
int taskset_first_server(const struct taskset *ts);

/*
 * The task's weight as an exact fraction num/den: e/p for a periodic task,
 * weight/1 for a proportional-share one.
 */
void task_spec_weight(const struct task_spec *t, uint64_t *num, uint64_t *den);

/* Index of the task named name (len bytes), or -1. */
int taskset_find(const struct taskset *ts, const char *name, size_t len);

#endif
