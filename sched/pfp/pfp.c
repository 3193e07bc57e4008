/* sched/pfp/pfp: partitioned fixed priority with servers (pfp.h). */
#include "pfp.h"

#include <stddef.h>

#include "../../lib/fmt.h"
#include "../../lib/heap.h"
#include "server.h"

enum level { NOT_READY = -1, FOREGROUND, BACKGROUND };

struct entity {
	unsigned id, cpu;
	uint32_t prio;
	int level;
	uint64_t seq;               /* FIFO order within a priority */
	struct heap_node rnode;     /* in its CPU's ready heap */
	/* Periodic tasks: */
	uint64_t phase, p, d;       /* microseconds */
	uint64_t next_release;
	uint64_t released, done;    /* jobs */
	struct heap_node tnode;     /* in its CPU's release heap */
	/* Servers: */
	struct pfp_server *sv;
	uint64_t paid;              /* the decision it last paid a toll in */
	struct sched_task_stats st;
};

struct cpu {
	struct heap ready;          /* by level, prio, seq */
	struct heap releases;       /* periodic tasks by next release */
	unsigned *servers, nservers;
	int answer;
	uint64_t at;                /* accounted up to */
	uint64_t seq, decisions;
};

struct pfp {
	unsigned cpus, ntasks;
	struct sched_env env;
	struct entity *e;
	struct cpu *cpu;
};

static struct entity *ready_entity(const struct heap_node *n)
{
	return (struct entity *)((const char *)n - offsetof(struct entity, rnode));
}

static struct entity *release_entity(const struct heap_node *n)
{
	return (struct entity *)((const char *)n - offsetof(struct entity, tnode));
}

static bool runs_before(const struct heap_node *a, const struct heap_node *b)
{
	const struct entity *x = ready_entity(a), *y = ready_entity(b);
	if (x->level != y->level)
		return x->level < y->level;
	if (x->prio != y->prio)
		return x->prio < y->prio;
	return x->seq < y->seq;
}

static bool released_before(const struct heap_node *a,
			    const struct heap_node *b)
{
	const struct entity *x = release_entity(a), *y = release_entity(b);
	return x->next_release < y->next_release ||
	       (x->next_release == y->next_release && x->id < y->id);
}

static int level_of(const struct entity *x)
{
	if (!x->sv)
		return x->released > x->done ? FOREGROUND : NOT_READY;
	if (pfp_server_foreground(x->sv))
		return FOREGROUND;
	return pfp_server_background(x->sv) ? BACKGROUND : NOT_READY;
}

/* Keeps x's place in the ready heap in step with its state: a change of
 * level puts it at the tail of its new level. */
static void requeue(struct pfp *s, struct entity *x)
{
	int level = level_of(x);
	if (level == x->level)
		return;
	struct cpu *c = &s->cpu[x->cpu];
	if (x->level != NOT_READY)
		heap_delete(&c->ready, &x->rnode);
	x->level = level;
	if (level != NOT_READY) {
		x->seq = ++c->seq;
		heap_insert(&c->ready, &x->rnode);
	}
}

/* The running server's budget runs out at this time. */
static uint64_t exhaustion(const struct pfp *s, const struct cpu *c)
{
	if (c->answer == SCHED_IDLE)
		return SCHED_NEVER;
	const struct pfp_server *sv = s->e[c->answer].sv;
	return sv && pfp_server_foreground(sv) ? c->at + sv->cap : SCHED_NEVER;
}

static uint64_t next_event(const struct pfp *s, const struct cpu *c)
{
	uint64_t t = exhaustion(s, c);
	struct heap_node *n = heap_peek(&c->releases);
	if (n && release_entity(n)->next_release < t)
		t = release_entity(n)->next_release;
	for (unsigned k = 0; k < c->nservers; k++) {
		uint64_t u = pfp_server_timer(s->e[c->servers[k]].sv);
		if (u < t)
			t = u;
	}
	return t;
}

/* What the CPU was told to run ran until time t. */
static void account(struct pfp *s, struct cpu *c, uint64_t t)
{
	uint64_t dt = t - c->at;
	c->at = t;
	if (c->answer == SCHED_IDLE || !dt)
		return;
	struct entity *x = &s->e[c->answer];
	x->st.run_us += dt;
	if (!x->sv)
		return;
	uint64_t fg = pfp_server_foreground(x->sv) ? x->sv->cap : 0;
	if (fg > dt)
		fg = dt;
	pfp_server_consume(x->sv, fg);
	x->sv->st.background_us += dt - fg;
}

/* The servers' timers due by t and their transitions, until none is due:
 * a chunk that closes a period after its activation posts a replenishment
 * due at once. */
static void run_servers(struct pfp *s, struct cpu *c, uint64_t t)
{
	int again;
	do {
		for (unsigned k = 0; k < c->nservers; k++)
			pfp_server_timers(s->e[c->servers[k]].sv, t);
		again = 0;
		for (unsigned k = 0; k < c->nservers; k++) {
			struct entity *x = &s->e[c->servers[k]];
			pfp_server_settle(x->sv, t);
			requeue(s, x);
			again |= pfp_server_timer(x->sv) <= t;
		}
	} while (again);
}

/* The CPU's own events at time t: releases, then the servers. */
static void run_events(struct pfp *s, struct cpu *c, uint64_t t)
{
	struct heap_node *n;
	while ((n = heap_peek(&c->releases)) &&
	       release_entity(n)->next_release <= t) {
		struct entity *x = release_entity(n);
		heap_extract(&c->releases);
		x->released++;
		x->next_release += x->p;
		heap_insert(&c->releases, &x->tnode);
		requeue(s, x);
	}
	run_servers(s, c, t);
}

/* Brings the CPU to just before time now: every event before it in order,
 * the running task charged up to now. */
static void sync(struct pfp *s, unsigned cpu, uint64_t now)
{
	struct cpu *c = &s->cpu[cpu];
	uint64_t t;
	while ((t = next_event(s, c)) < now) {
		account(s, c, t);
		run_events(s, c, t);
	}
	account(s, c, now);
}

/* x would preempt the task the CPU runs (not the idle CPU, not itself). */
static int preempts(const struct pfp *s, const struct cpu *c,
		    const struct entity *x)
{
	return c->answer != SCHED_IDLE && c->answer != (int)x->id &&
	       s->e[c->answer].level != NOT_READY;
}

static int schedule(void *p, unsigned cpu, uint64_t now)
{
	struct pfp *s = p;
	struct cpu *c = &s->cpu[cpu];
	sync(s, cpu, now);
	run_events(s, c, now);
	c->decisions++;
	struct heap_node *n;
	/* Sec. 3.1: a server that preempts pays its toll first, which may
	 * exhaust it and give the CPU to someone else. */
	while ((n = heap_peek(&c->ready))) {
		struct entity *x = ready_entity(n);
		if (!x->sv || x->level != FOREGROUND || !x->sv->toll ||
		    x->paid == c->decisions || !preempts(s, c, x))
			break;
		x->paid = c->decisions;
		pfp_server_toll(x->sv, now);
		run_servers(s, c, now);
	}
	c->answer = n ? (int)ready_entity(n)->id : SCHED_IDLE;
	return c->answer;
}

static uint64_t next_call(void *p, unsigned cpu)
{
	struct pfp *s = p;
	return next_event(s, &s->cpu[cpu]);
}

static int background(void *p, unsigned cpu)
{
	struct pfp *s = p;
	int a = s->cpu[cpu].answer;
	return a != SCHED_IDLE && s->e[a].level == BACKGROUND;
}

static void arrive(void *p, unsigned server, uint64_t now, uint32_t cost_us)
{
	struct pfp *s = p;
	struct entity *x = &s->e[server];
	if (!x->sv)
		return;
	sync(s, x->cpu, now);
	x->sv->queue++;
	x->sv->st.arrivals++;
	x->sv->st.demand_us += cost_us;
	requeue(s, x);
	s->env.resched(s->env.ctx, x->cpu);
}

static void complete(void *p, unsigned task, uint64_t now)
{
	struct pfp *s = p;
	struct entity *x = &s->e[task];
	sync(s, x->cpu, now);
	if (x->sv) {
		if (!x->sv->queue)
			return;
		x->sv->queue--;
		x->sv->st.jobs++;
	} else {
		if (x->done == x->released)
			return;
		uint64_t deadline = x->phase + x->done * x->p + x->d;
		x->done++;
		x->st.jobs++;
		if (now > deadline) {
			x->st.misses++;
			if (now - deadline > x->st.max_tardiness_num)
				x->st.max_tardiness_num = now - deadline;
		}
	}
	requeue(s, x);
	s->env.resched(s->env.ctx, x->cpu);
}

static void stats(void *p, unsigned task, struct sched_task_stats *out)
{
	struct pfp *s = p;
	*out = s->e[task].st;
	out->tardiness_den = 1;
	if (s->e[task].sv)
		out->jobs = s->e[task].sv->st.jobs;
}

static void server_stats(void *p, unsigned server,
			 struct sched_server_stats *out)
{
	struct pfp *s = p;
	*out = s->e[server].sv ? s->e[server].sv->st
			       : (struct sched_server_stats){ 0 };
}

static int check(const struct sched_config *cfg, struct sched_error *err)
{
	const struct taskset *ts = cfg->tasks;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		const char *what = t->server.kind ? "server" : "task";
		if (!t->server.kind && t->p == 0) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u) has only weight=: pfp "
				     "needs e= and p=", t->name, t->line);
			return -1;
		}
		if (!t->has_prio) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u) has no prio=: pfp needs "
				     "a priority for every task", t->name, t->line);
			return -1;
		}
		if (t->cpu >= cfg->cpus) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "%s %s (line %u): cpu=%u, but there are %u "
				     "CPUs", what, t->name, t->line, t->cpu,
				     cfg->cpus);
			return -1;
		}
	}
	return 0;
}

static void *create(const struct sched_config *cfg,
		    const struct sched_env *env, struct sched_error *err)
{
	if (check(cfg, err))
		return 0;
	const struct taskset *ts = cfg->tasks;
	uint64_t q = cfg->quantum_us ? cfg->quantum_us
				     : SCHED_QUANTUM_US_DEFAULT;
	struct pfp *s = env->alloc(env->ctx, sizeof *s);
	s->cpus = cfg->cpus;
	s->ntasks = ts->ntasks;
	s->env = *env;
	s->e = env->alloc(env->ctx, (ts->ntasks ? ts->ntasks : 1) * sizeof *s->e);
	s->cpu = env->alloc(env->ctx, s->cpus * sizeof *s->cpu);
	for (unsigned k = 0; k < s->cpus; k++) {
		struct cpu *c = &s->cpu[k];
		heap_init(&c->ready, runs_before);
		heap_init(&c->releases, released_before);
		c->answer = SCHED_IDLE;
		c->servers = env->alloc(env->ctx, (ts->ntasks ? ts->ntasks : 1) *
					sizeof *c->servers);
	}
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		struct entity *x = &s->e[i];
		struct cpu *c = &s->cpu[t->cpu];
		x->id = i;
		x->cpu = t->cpu;
		x->prio = t->prio;
		x->level = NOT_READY;
		if (t->server.kind) {
			x->sv = env->alloc(env->ctx, sizeof *x->sv);
			pfp_server_init(x->sv, t, i, &s->env);
			c->servers[c->nservers++] = i;
			continue;
		}
		x->phase = (uint64_t)t->phase * q;
		x->p = (uint64_t)t->p * q;
		x->d = (uint64_t)t->d * q;
		x->next_release = x->phase;
		heap_insert(&c->releases, &x->tnode);
	}
	return s;
}

/* Its variant for sets with resources (sched/lock/lpfp.c). */
extern const struct sched_plugin pfp_locks;

const struct sched_plugin pfp_plugin = {
	.locks = &pfp_locks,
	.name = "pfp",
	.description = "partitioned fixed priority (SCHED_FIFO), event-driven "
		       "in microseconds, with polling, sporadic and hybrid "
		       "servers",
	.create = create,
	.schedule = schedule,
	.complete = complete,
	.stats = stats,
	.event_us = 1,
	.next_call = next_call,
	.arrive = arrive,
	.background = background,
	.server_stats = server_stats,
};
