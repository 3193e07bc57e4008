/* sched/lock/lock: resources, sections, queues and blocking accounts
 * (lock.h). */
#include "lock.h"

#include "../../lib/fmt.h"

void lock_fifo_push(struct lock_fifo *f, unsigned v)
{
	f->v[(f->head + f->n++) % f->cap] = v;
}

unsigned lock_fifo_pop(struct lock_fifo *f)
{
	unsigned v = f->v[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return v;
}

unsigned lock_fifo_at(const struct lock_fifo *f, unsigned i)
{
	return f->v[(f->head + i) % f->cap];
}

int lock_fifo_remove(struct lock_fifo *f, unsigned v)
{
	unsigned i = 0;
	while (i < f->n && lock_fifo_at(f, i) != v)
		i++;
	if (i == f->n)
		return 0;
	for (; i + 1 < f->n; i++)
		f->v[(f->head + i) % f->cap] = lock_fifo_at(f, i + 1);
	f->n--;
	return 1;
}

/* Operations in the order a job meets them: by point, releases before
 * requests; of two releases at one point the section begun last first (the
 * shorter; of equal ones the later written), of two requests the longer
 * first (of equal ones the earlier written): the outer section of two that
 * begin together is requested first and released last. */
static int op_before(const struct lock_op *a, uint32_t alen, unsigned ai,
		     const struct lock_op *b, uint32_t blen, unsigned bi)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->kind != b->kind)
		return a->kind == LOCK_OP_RELEASE;
	if (alen != blen)
		return a->kind == LOCK_OP_RELEASE ? alen < blen : alen > blen;
	return a->kind == LOCK_OP_RELEASE ? ai > bi : ai < bi;
}

static void build_ops(struct lock_task *lt, const struct task_spec *t)
{
	uint32_t len[2 * TASKSET_CS_MAX];
	unsigned idx[2 * TASKSET_CS_MAX];
	lt->nops = 0;
	for (unsigned k = 0; k < t->ncs; k++) {
		const struct cs_spec *c = &t->cs[k];
		lt->ops[lt->nops] = (struct lock_op){ c->at, LOCK_OP_REQUEST,
						      (uint8_t)c->res };
		idx[lt->nops] = k;
		len[lt->nops++] = c->len;
		lt->ops[lt->nops] = (struct lock_op){ c->at + c->len,
						      LOCK_OP_RELEASE,
						      (uint8_t)c->res };
		idx[lt->nops] = k;
		len[lt->nops++] = c->len;
		lt->uses |= 1ull << c->res;
	}
	/* Insertion sort: at most 16 operations. */
	for (unsigned i = 1; i < lt->nops; i++)
		for (unsigned j = i; j > 0 && op_before(&lt->ops[j], len[j],
							idx[j], &lt->ops[j - 1],
							len[j - 1], idx[j - 1]);
		     j--) {
			struct lock_op o = lt->ops[j];
			lt->ops[j] = lt->ops[j - 1];
			lt->ops[j - 1] = o;
			uint32_t l = len[j];
			len[j] = len[j - 1];
			len[j - 1] = l;
			unsigned x = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = x;
		}
}

unsigned lock_ops_of(const struct task_spec *t, struct lock_op *ops)
{
	struct lock_task lt = { 0 };
	build_ops(&lt, t);
	for (unsigned k = 0; k < lt.nops; k++)
		ops[k] = lt.ops[k];
	return lt.nops;
}

void lock_set_init(struct lock_set *ls, const struct sched_config *cfg,
		   const struct sched_env *env)
{
	const struct taskset *ts = cfg->tasks;
	unsigned n = ts->ntasks ? ts->ntasks : 1;
	ls->ts = ts;
	ls->protocol = ts->nres ? ts->res[0].protocol : PROTO_SRP;
	ls->ntasks = ts->ntasks;
	ls->nres = ts->nres;
	ls->env = *env;
	ls->program_locks = cfg->program_locks;
	ls->seq = 0;
	ls->task = env->alloc(env->ctx, n * sizeof *ls->task);
	ls->res = env->alloc(env->ctx, (ts->nres ? ts->nres : 1) *
				       sizeof *ls->res);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		struct lock_task *lt = &ls->task[i];
		build_ops(lt, &ts->task[i]);
		lt->waiting = LOCK_NONE;
	}
	for (unsigned r = 0; r < ts->nres; r++) {
		struct lock_res *lr = &ls->res[r];
		lr->holder = LOCK_NONE;
		lr->fifo.cap = n;
		lr->fifo.v = env->alloc(env->ctx, n * sizeof *lr->fifo.v);
		lr->pq = env->alloc(env->ctx, n * sizeof *lr->pq);
	}
}

int lock_nesting_forbidden(enum taskset_protocol p)
{
	return p == PROTO_MSRP || p == PROTO_MPCP || p == PROTO_OMLP;
}

/* The first pair of sections of t that nest, or -1. */
static int nested(const struct task_spec *t, unsigned *outer)
{
	for (unsigned a = 0; a < t->ncs; a++)
		for (unsigned b = 0; b < t->ncs; b++) {
			const struct cs_spec *x = &t->cs[a], *y = &t->cs[b];
			if (a != b && x->at <= y->at &&
			    y->at + y->len <= x->at + x->len &&
			    (x->at < y->at || x->len > y->len || a < b)) {
				*outer = a;
				return (int)b;
			}
		}
	return -1;
}

int lock_set_place(struct lock_set *ls, const unsigned *home, int not_at_0,
		   const char *plugin, struct sched_error *err)
{
	const struct taskset *ts = ls->ts;
	const char *proto = taskset_protocol_name(ls->protocol);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct task_spec *t = &ts->task[i];
		unsigned outer;
		int inner = nested(t, &outer);
		if (inner >= 0 && lock_nesting_forbidden(ls->protocol)) {
			fmt_snprintf(err->msg, sizeof err->msg,
				     "task %s (line %u): its section on %s lies "
				     "inside the one on %s; %s forbids nesting",
				     t->name, t->line,
				     ts->res[t->cs[inner].res].name,
				     ts->res[t->cs[outer].res].name, proto);
			return -1;
		}
		for (unsigned k = 0; not_at_0 && k < t->ncs; k++)
			if (t->cs[k].at == 0) {
				fmt_snprintf(err->msg, sizeof err->msg,
					     "task %s (line %u): its section on "
					     "%s starts at 0; under %s a section "
					     "starts after at least 1 quantum of "
					     "its job's work", t->name, t->line,
					     ts->res[t->cs[k].res].name, plugin);
				return -1;
			}
	}
	for (unsigned r = 0; r < ts->nres; r++) {
		struct lock_res *lr = &ls->res[r];
		int first = -1;
		lr->home = LOCK_NONE;
		lr->ceil_d = UINT32_MAX;
		lr->ceil_prio = UINT32_MAX;
		for (unsigned i = 0; i < ts->ntasks; i++) {
			if (!(ls->task[i].uses & (1ull << r)))
				continue;
			const struct task_spec *t = &ts->task[i];
			if (t->d < lr->ceil_d)
				lr->ceil_d = t->d;
			if (t->prio < lr->ceil_prio)
				lr->ceil_prio = t->prio;
			if (first < 0) {
				first = (int)i;
				lr->home = (int)home[i];
			} else if (lr->home != LOCK_NONE &&
				   home[i] != (unsigned)lr->home) {
				lr->home = LOCK_NONE;
				if (ls->protocol == PROTO_SRP ||
				    ls->protocol == PROTO_PCP) {
					fmt_snprintf(err->msg, sizeof err->msg,
						     "resource %s (line %u): "
						     "used by %s on CPU %u and "
						     "%s on CPU %u; %s needs "
						     "every user of a resource "
						     "on one CPU (msrp or mpcp "
						     "share across CPUs)",
						     ts->res[r].name,
						     ts->res[r].line,
						     ts->task[first].name,
						     home[first], t->name,
						     home[i], proto);
					return -1;
				}
			}
		}
		if (first < 0)
			lr->home = 0;    /* unused: local anywhere */
	}
	return 0;
}

void lock_emit(struct lock_set *ls, enum sched_lock_kind kind, unsigned task,
	       unsigned res, uint64_t job, uint64_t at)
{
	if (!ls->env.lock)
		return;
	struct sched_lock_event ev = { kind, task, res, job, at, 0, 0, 0, 0 };
	ls->env.lock(ls->env.ctx, &ev);
}

void lock_take(struct lock_set *ls, unsigned task, unsigned res, uint64_t job,
	       uint64_t at)
{
	struct lock_task *lt = &ls->task[task];
	ls->res[res].holder = (int)task;
	lt->held |= 1ull << res;
	lt->stack[lt->nstack++] = (uint8_t)res;
	lt->waiting = LOCK_NONE;
	lt->spinning = 0;
	lock_emit(ls, SCHED_LOCK_ACQUIRE, task, res, job, at);
}

void lock_drop(struct lock_set *ls, unsigned task, unsigned res, uint64_t job,
	       uint64_t at, int forced)
{
	struct lock_task *lt = &ls->task[task];
	lt->held &= ~(1ull << res);
	for (unsigned k = 0; k < lt->nstack; k++)
		if (lt->stack[k] == res) {
			for (; k + 1 < lt->nstack; k++)
				lt->stack[k] = lt->stack[k + 1];
			lt->nstack--;
			break;
		}
	ls->res[res].holder = LOCK_NONE;
	if (forced)
		lt->st.forced++;
	lock_emit(ls, forced ? SCHED_LOCK_FORCED : SCHED_LOCK_RELEASE, task, res,
		  job, at);
}

void lock_job_end(struct lock_set *ls, unsigned task, uint64_t job,
		  uint64_t at)
{
	struct lock_task *lt = &ls->task[task];
	struct sched_lock_stats *st = &lt->st;
	uint64_t *c = lt->cat;
	if (c[LOCK_CAT_SPIN] > st->spin_max)
		st->spin_max = c[LOCK_CAT_SPIN];
	if (c[LOCK_CAT_WAIT] > st->wait_max)
		st->wait_max = c[LOCK_CAT_WAIT];
	if (c[LOCK_CAT_PI] > st->pi_max)
		st->pi_max = c[LOCK_CAT_PI];
	if (c[LOCK_CAT_INTF] > st->intf_max)
		st->intf_max = c[LOCK_CAT_INTF];
	uint64_t b = c[LOCK_CAT_SPIN] + c[LOCK_CAT_WAIT] + c[LOCK_CAT_PI];
	if (b > st->blocked_max)
		st->blocked_max = b;
	if (ls->env.lock) {
		struct sched_lock_event ev = {
			SCHED_LOCK_BLOCKED, task, 0, job, at, c[LOCK_CAT_SPIN],
			c[LOCK_CAT_WAIT], c[LOCK_CAT_PI], c[LOCK_CAT_INTF] };
		ls->env.lock(ls->env.ctx, &ev);
	}
	for (unsigned k = 0; k < LOCK_CATS; k++)
		c[k] = 0;
	lt->next_op = 0;
}

/* What the task will hold once its pending operations took effect. */
static uint64_t held_after(const struct lock_task *lt)
{
	uint64_t h = lt->held;
	for (unsigned k = 0; k < lt->npend; k++) {
		uint64_t bit = 1ull << lt->pend[k].res;
		h = lt->pend[k].kind == LOCK_OP_RELEASE ? h & ~bit : h | bit;
	}
	return h;
}

/* The resource it acquired last, counting pending operations, or -1. */
static int innermost(const struct lock_task *lt)
{
	uint8_t st[TASKSET_CS_MAX + 4];
	unsigned n = lt->nstack;
	for (unsigned k = 0; k < n; k++)
		st[k] = lt->stack[k];
	for (unsigned k = 0; k < lt->npend; k++) {
		const struct lock_op *o = &lt->pend[k];
		if (o->kind == LOCK_OP_REQUEST)
			st[n++] = o->res;
		else
			for (unsigned j = n; j-- > 0;)
				if (st[j] == o->res) {
					for (; j + 1 < n; j++)
						st[j] = st[j + 1];
					n--;
					break;
				}
	}
	return n ? st[n - 1] : -1;
}

int lock_program_op(struct lock_set *ls, unsigned task, int unlock,
		    unsigned res, uint64_t t, struct sched_error *err)
{
	const struct taskset *ts = ls->ts;
	const char *name = ts->task[task].name;
	const char *op = unlock ? "unlock" : "lock";
	if (res >= ls->nres) {
		fmt_snprintf(err->msg, sizeof err->msg, "%s %s resource %u: the "
			     "set declares %u resource%s", name, op, res,
			     ls->nres, ls->nres == 1 ? "" : "s");
		return -SCHED_LOCK_EUNDECLARED;
	}
	struct lock_task *lt = &ls->task[task];
	const char *rn = ts->res[res].name;
	uint64_t bit = 1ull << res, held = held_after(lt);
	if (!(lt->uses & bit)) {
		fmt_snprintf(err->msg, sizeof err->msg, "%s %s %s: its cs= "
			     "names no section on %s", name, op, rn, rn);
		return -SCHED_LOCK_EUNDECLARED;
	}
	if (lt->npend == sizeof lt->pend / sizeof lt->pend[0]) {
		fmt_snprintf(err->msg, sizeof err->msg, "%s %s %s: %u earlier "
			     "calls have not taken effect yet", name, op, rn,
			     lt->npend);
		return -SCHED_LOCK_EBUSY;
	}
	if (!unlock) {
		if ((held & bit) || lt->waiting == (int)res) {
			fmt_snprintf(err->msg, sizeof err->msg, "%s lock %s: it "
				     "holds %s already", name, rn, rn);
			return -SCHED_LOCK_EDOUBLE;
		}
		if (held && lock_nesting_forbidden(ls->protocol)) {
			int in = innermost(lt);
			fmt_snprintf(err->msg, sizeof err->msg, "%s lock %s: it "
				     "holds %s, and %s forbids nesting", name,
				     rn, in >= 0 ? ts->res[in].name : "?",
				     taskset_protocol_name(ls->protocol));
			return -SCHED_LOCK_ENESTING;
		}
	} else {
		if (!(held & bit)) {
			fmt_snprintf(err->msg, sizeof err->msg, "%s unlock %s: it "
				     "does not hold %s", name, rn, rn);
			return -SCHED_LOCK_ENOTHELD;
		}
		int in = innermost(lt);
		if (in != (int)res) {
			fmt_snprintf(err->msg, sizeof err->msg, "%s unlock %s: "
				     "%s, locked inside it, is still held", name,
				     rn, in >= 0 ? ts->res[in].name : "?");
			return -SCHED_LOCK_EORDER;
		}
	}
	lt->pend_from[lt->npend] = t;
	lt->pend[lt->npend++] = (struct lock_op){
		0, unlock ? LOCK_OP_RELEASE : LOCK_OP_REQUEST, (uint8_t)res };
	return 0;
}
