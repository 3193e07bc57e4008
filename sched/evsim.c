/* sched/evsim: the simulated machine for event-driven plugins (evsim.h). */
#include "evsim.h"

#include "../lib/fmt.h"
#include "../lib/sort.h"
#include "lock/lock.h"

struct job {
	uint64_t arrival, cost, done;
};

struct tstate {
	uint64_t work, cost;         /* periodic: the current job's */
	/* Its lock operations (sched/lock/lock.h), the next for this job. */
	struct lock_op ops[2 * TASKSET_CS_MAX];
	unsigned nops, next_op;
	uint64_t done_jobs, arrived;
	struct job *q;               /* servers: jobs q[head .. len) */
	uint64_t head, len, cap;
	uint64_t resp_cap, span_cap;
	struct sched_measure m;
};

struct cstate {
	int task, bg;
	uint64_t seg_from, seg_ovh;
	uint64_t work_from;          /* the switch in progress ends */
	uint64_t next_call;
	uint8_t pending;
};

struct sched_evsim {
	const struct sched_plugin *plugin;
	void *s;
	const struct taskset *ts;
	unsigned cpus;
	uint64_t until, cxs;
	void *(*alloc)(void *ctx, size_t size);
	void *alloc_ctx;
	struct sched_evsim_out out;
	struct sched_env env;
	struct cstate *cpu;
	struct tstate *t;
	struct arrival_stream arr;
	uint64_t now, quantum_us;
};

static void *env_alloc(void *ctx, size_t size)
{
	struct sched_evsim *m = ctx;
	return m->alloc(m->alloc_ctx, size);
}

static void env_resched(void *ctx, unsigned cpu)
{
	struct sched_evsim *m = ctx;
	if (cpu < m->cpus)
		m->cpu[cpu].pending = 1;
}

static void env_note(void *ctx, const struct sched_note *n)
{
	struct sched_evsim *m = ctx;
	if (m->out.note)
		m->out.note(m->out.ctx, n);
}

static void env_lock(void *ctx, const struct sched_lock_event *ev)
{
	struct sched_evsim *m = ctx;
	if (m->out.lock)
		m->out.lock(m->out.ctx, ev);
}

/* Where the task's next lock operation is due, in microseconds of the
 * current job's work; UINT64_MAX when none. */
static uint64_t op_point(const struct sched_evsim *m, int task)
{
	const struct tstate *t = &m->t[task];
	if (t->next_op == t->nops)
		return UINT64_MAX;
	return (uint64_t)t->ops[t->next_op].at * m->quantum_us;
}

/* The task runs now, past the switch that put it there: its program can
 * make its calls. */
static int running(const struct sched_evsim *m, unsigned task)
{
	for (unsigned k = 0; k < m->cpus; k++)
		if (m->cpu[k].task == (int)task && m->now >= m->cpu[k].work_from)
			return 1;
	return 0;
}

/* The operations due now: every running job's (past its switch) whose
 * work reached their point, unlocks in one pass and locks in the next, in
 * task order. Returns how many were made, or -1. */
static int lock_ops_due(struct sched_evsim *m, struct sched_error *err)
{
	int made = 0;
	for (int kind = LOCK_OP_RELEASE; kind <= LOCK_OP_REQUEST; kind++)
		for (unsigned i = 0; i < m->ts->ntasks; i++) {
			struct tstate *t = &m->t[i];
			while (running(m, i) && t->next_op < t->nops &&
			       t->ops[t->next_op].kind == kind &&
			       op_point(m, (int)i) <= t->work &&
			       t->work < t->cost) {
				const struct lock_op *o = &t->ops[t->next_op++];
				if (m->plugin->lock_op(m->s, i, kind ==
						       LOCK_OP_RELEASE, o->res,
						       m->now, err))
					return -1;
				made++;
			}
		}
	return made;
}

/* Room for n + 1 elements of size bytes in *p (n used), doubling; the old
 * block stays with the allocator until the end. */
static void reserve(struct sched_evsim *m, void **p, uint64_t n,
		    uint64_t *cap, size_t size)
{
	if (n < *cap)
		return;
	uint64_t c = *cap ? 2 * *cap : 16;
	char *to = m->alloc(m->alloc_ctx, c * size);
	const char *from = *p;
	for (uint64_t i = 0; i < n * size; i++)
		to[i] = from[i];
	*p = to;
	*cap = c;
}

static int is_server(const struct sched_evsim *m, int task)
{
	return m->ts->task[task].server.kind != SERVER_NONE;
}

/* What the task's current job still needs, in microseconds. */
static uint64_t remaining(const struct sched_evsim *m, int task)
{
	const struct tstate *t = &m->t[task];
	if (!is_server(m, task))
		return t->cost - t->work;
	const struct job *j = &t->q[t->head];
	return j->cost - j->done;
}

static void end_segment(struct sched_evsim *m, unsigned k, uint64_t to)
{
	struct cstate *c = &m->cpu[k];
	if (c->task == SCHED_IDLE || to <= c->seg_from)
		return;
	struct sched_segment seg = { k, c->seg_from, to, c->task, c->bg,
				     c->seg_ovh < to - c->seg_from
					     ? c->seg_ovh : to - c->seg_from };
	if (m->out.segment)
		m->out.segment(m->out.ctx, &seg);
	if (!is_server(m, c->task) || c->bg)
		return;
	struct tstate *t = &m->t[c->task];
	reserve(m, (void **)&t->m.spans, t->m.nspans, &t->span_cap,
		sizeof *t->m.spans);
	t->m.spans[t->m.nspans++] = (struct sched_span){ seg.from, seg.to };
}

static void emit(struct sched_evsim *m, enum sched_evsim_kind kind,
		 unsigned task, uint64_t job, uint64_t arg)
{
	struct sched_evsim_event ev = { kind, m->now, task, job, arg };
	if (m->out.event)
		m->out.event(m->out.ctx, &ev);
}

static void finish(struct sched_evsim *m, int task)
{
	struct tstate *t = &m->t[task];
	uint64_t job = t->done_jobs++, resp = 0;
	if (is_server(m, task)) {
		resp = m->now - t->q[t->head++].arrival;
		reserve(m, (void **)&t->m.resp, t->m.nresp, &t->resp_cap,
			sizeof *t->m.resp);
		t->m.resp[t->m.nresp++] = resp;
	} else {
		t->work = 0;
		t->next_op = 0;
	}
	m->plugin->complete(m->s, (unsigned)task, m->now);
	emit(m, SCHED_EVSIM_DONE, (unsigned)task, job, resp);
}

static void deliver(struct sched_evsim *m, const struct arrival *a)
{
	struct tstate *t = &m->t[a->server];
	if (t->head == t->len) {
		t->head = t->len = 0;
	} else if (t->len == t->cap && t->head > 0) {
		/* Slide the live jobs down before growing. */
		for (uint64_t i = t->head; i < t->len; i++)
			t->q[i - t->head] = t->q[i];
		t->len -= t->head;
		t->head = 0;
	}
	reserve(m, (void **)&t->q, t->len, &t->cap, sizeof *t->q);
	t->q[t->len++] = (struct job){ a->t_us, a->cost_us, 0 };
	m->plugin->arrive(m->s, a->server, m->now, a->cost_us);
	emit(m, SCHED_EVSIM_ARRIVE, a->server, t->arrived++, a->cost_us);
}

static int decide(struct sched_evsim *m, unsigned k, struct sched_error *err)
{
	struct cstate *c = &m->cpu[k];
	c->pending = 0;
	int task = m->plugin->schedule(m->s, k, m->now);
	if (task != SCHED_IDLE && (task < 0 || (unsigned)task >= m->ts->ntasks)) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "%s chose task %d, which does not exist, at %llu us",
			     m->plugin->name, task, (unsigned long long)m->now);
		return -1;
	}
	int bg = task != SCHED_IDLE && m->plugin->background &&
		 m->plugin->background(m->s, k);
	if (task != c->task || bg != c->bg) {
		end_segment(m, k, m->now);
		if (task != c->task)
			c->work_from = m->now + m->cxs;
		c->seg_ovh = task != c->task ? m->cxs : 0;
		c->task = task;
		c->bg = bg;
		c->seg_from = m->now;
	}
	c->next_call = m->plugin->next_call(m->s, k);
	return 0;
}

/* Every CPU that is due or was asked to reschedule decides, until none
 * is asked again. */
static int decide_all(struct sched_evsim *m, struct sched_error *err)
{
	for (unsigned rounds = 0;; rounds++) {
		int any = 0;
		for (unsigned k = 0; k < m->cpus; k++) {
			struct cstate *c = &m->cpu[k];
			if (!c->pending && c->next_call > m->now)
				continue;
			if (decide(m, k, err))
				return -1;
			any = 1;
		}
		if (!any)
			return 0;
		if (rounds > 4 * m->cpus + 4) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "%s keeps asking for reschedules at %llu us",
				     m->plugin->name, (unsigned long long)m->now);
			return -1;
		}
	}
}

static uint64_t work_starts(const struct sched_evsim *m, const struct cstate *c)
{
	return c->work_from > m->now ? c->work_from : m->now;
}

/* The next instant anything can happen. */
static uint64_t next_instant(const struct sched_evsim *m)
{
	uint64_t t = m->until, a = arrival_peek(&m->arr);
	if (a < t)
		t = a;
	for (unsigned k = 0; k < m->cpus; k++) {
		const struct cstate *c = &m->cpu[k];
		if (c->next_call < t)
			t = c->next_call;
		if (c->task != SCHED_IDLE) {
			uint64_t done = work_starts(m, c) + remaining(m, c->task);
			if (done < t)
				t = done;
			uint64_t op = op_point(m, c->task);
			if (op != UINT64_MAX && op >= m->t[c->task].work &&
			    work_starts(m, c) + op - m->t[c->task].work < t &&
			    work_starts(m, c) + op - m->t[c->task].work > m->now)
				t = work_starts(m, c) + op - m->t[c->task].work;
		}
	}
	return t;
}

/* The CPUs work from now to t. */
static void work(struct sched_evsim *m, uint64_t t)
{
	for (unsigned k = 0; k < m->cpus; k++) {
		const struct cstate *c = &m->cpu[k];
		uint64_t from = work_starts(m, c);
		if (c->task == SCHED_IDLE || t <= from)
			continue;
		struct tstate *x = &m->t[c->task];
		x->m.self_us += t - from;
		if (is_server(m, c->task))
			x->q[x->head].done += t - from;
		else
			x->work += t - from;
	}
}

int sched_evsim_run(struct sched_evsim *m, struct sched_error *err)
{
	struct arrival a;
	/* The last instant, until itself, is processed like the others, so
	 * the plugin's accounts reach the end of the run. */
	for (;;) {
		for (unsigned k = 0; k < m->cpus; k++) {
			int task = m->cpu[k].task;
			if (task != SCHED_IDLE && m->now >= m->cpu[k].work_from &&
			    remaining(m, task) == 0)
				finish(m, task);
		}
		while (arrival_peek(&m->arr) <= m->now && arrival_next(&m->arr, &a))
			deliver(m, &a);
		for (unsigned k = 0; m->now >= m->until && k < m->cpus; k++)
			m->cpu[k].pending = 1;
		if (decide_all(m, err))
			return -1;
		/* The jobs that run after the decisions make their calls due
		 * now; what they change is decided again. */
		for (int made; m->plugin->lock_op &&
			       (made = lock_ops_due(m, err)) != 0;) {
			if (made < 0 || decide_all(m, err))
				return -1;
		}
		if (m->now >= m->until)
			break;
		uint64_t t = next_instant(m);
		work(m, t);
		m->now = t;
	}
	for (unsigned k = 0; k < m->cpus; k++)
		end_segment(m, k, m->until);
	for (unsigned i = 0; i < m->ts->ntasks; i++) {
		struct tstate *t = &m->t[i];
		const struct task_spec *sp = &m->ts->task[i];
		if (!sp->server.kind)
			continue;
		t->m.queued = t->len - t->head;
		sort_u64(t->m.resp, t->m.nresp);
		t->m.window = sched_window_max(t->m.spans, t->m.nspans,
					       sp->server.period_us);
	}
	return 0;
}

int sched_evsim_top(const struct taskset *ts, unsigned i)
{
	for (unsigned j = 0; j < ts->ntasks; j++)
		if (j != i && ts->task[j].cpu == ts->task[i].cpu &&
		    ts->task[j].prio <= ts->task[i].prio)
			return 0;
	return 1;
}

int sched_evsim_check(const struct sched_plugin *plugin,
		      const struct taskset *ts, struct sched_error *err,
		      unsigned *err_line)
{
	*err_line = 0;
	for (unsigned i = 0; i < ts->nevents; i++)
		if (ts->event[i].action != TASKSET_ARRIVE) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "%s does not support '%s' events",
				     plugin->name,
				     taskset_action_name(ts->event[i].action));
			*err_line = ts->event[i].line;
			return -1;
		}
	return sched_check_servers(plugin, ts, err);
}

struct sched_evsim *sched_evsim_create(const struct sched_plugin *plugin,
				       const struct sched_config *cfg,
				       uint64_t until_us, uint64_t cxs_us,
				       void *(*alloc)(void *ctx, size_t size),
				       void *alloc_ctx,
				       const struct sched_evsim_out *out,
				       struct sched_error *err,
				       unsigned *err_line)
{
	const struct taskset *ts = cfg->tasks;
	if (sched_evsim_check(plugin, ts, err, err_line))
		return 0;
	*err_line = 0;
	if (!(plugin = sched_plugin_for(plugin, ts, err)))
		return 0;
	struct sched_evsim *m = alloc(alloc_ctx, sizeof *m);
	m->plugin = plugin;
	m->ts = ts;
	m->cpus = cfg->cpus;
	m->until = until_us;
	m->cxs = cxs_us;
	m->alloc = alloc;
	m->alloc_ctx = alloc_ctx;
	m->out = *out;
	m->quantum_us = cfg->quantum_us;
	m->env = (struct sched_env){ .alloc = env_alloc, .resched = env_resched,
				     .ctx = m, .note = env_note,
				     .lock = env_lock };
	m->cpu = alloc(alloc_ctx, m->cpus * sizeof *m->cpu);
	m->t = alloc(alloc_ctx, (ts->ntasks ? ts->ntasks : 1) * sizeof *m->t);
	for (unsigned k = 0; k < m->cpus; k++)
		m->cpu[k] = (struct cstate){ .task = SCHED_IDLE, .pending = 1 };
	for (unsigned i = 0; i < ts->ntasks; i++) {
		/* exec=: each job ends itself after exec of its e quanta. */
		const struct task_spec *sp = &ts->task[i];
		m->t[i].cost = (uint64_t)(sp->has_exec ? sp->exec : sp->e) *
			       cfg->quantum_us;
		if (plugin->lock_op)
			m->t[i].nops = lock_ops_of(sp, m->t[i].ops);
		m->t[i].m.top = sched_evsim_top(ts, i);
	}
	arrival_init(&m->arr, ts,
		     alloc(alloc_ctx, (arrival_generators(ts) + 1) *
				      sizeof(struct arrival_gen)));
	m->s = plugin->create(cfg, &m->env, err);
	return m->s ? m : 0;
}

void *sched_evsim_plugin_state(const struct sched_evsim *m)
{
	return m->s;
}

const struct sched_plugin *sched_evsim_plugin(const struct sched_evsim *m)
{
	return m->plugin;
}

const struct sched_measure *sched_evsim_measure(const struct sched_evsim *m,
						unsigned task)
{
	return &m->t[task].m;
}
