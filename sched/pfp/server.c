/* sched/pfp/server: polling, sporadic and hybrid server budgets (server.h). */
#include "server.h"

static void note(const struct pfp_server *sv, enum sched_note_kind kind,
		 uint64_t at, uint64_t amount, uint64_t due)
{
	if (!sv->env->note)
		return;
	struct sched_note n = { kind, sv->task, sv->cpu, at, amount, due };
	sv->env->note(sv->env->ctx, &n);
}

void pfp_server_init(struct pfp_server *sv, const struct task_spec *spec,
		     unsigned task, const struct sched_env *env)
{
	const struct server_spec *s = &spec->server;
	sv->kind = s->kind;
	sv->coalesce = s->coalesce;
	sv->budget = s->budget_us;
	sv->period = s->period_us;
	sv->toll = s->toll_us;
	sv->max_repl = sv->max_repl_now = s->max_repl;
	sv->task = task;
	sv->cpu = spec->cpu;
	sv->env = env;
	if (sv->kind == SERVER_POLLING)
		return;
	sv->cap = sv->budget;
	sv->repl = env->alloc(env->ctx, sv->max_repl * sizeof *sv->repl);
}

static struct pfp_repl *repl_at(const struct pfp_server *sv, unsigned k)
{
	return &sv->repl[(sv->head + k) % sv->max_repl];
}

uint64_t pfp_server_timer(const struct pfp_server *sv)
{
	if (sv->kind == SERVER_POLLING)
		return sv->next_period;
	return sv->nrepl ? repl_at(sv, 0)->t : SCHED_NEVER;
}

/* Activations never go back in time, so posts arrive in time order. */
static void post(struct pfp_server *sv, uint64_t at, uint64_t amount)
{
	struct pfp_repl *r = repl_at(sv, sv->nrepl++);
	r->t = sv->act + sv->period;
	r->amount = amount;
	if (sv->nrepl > sv->st.max_pending)
		sv->st.max_pending = sv->nrepl;
	note(sv, SCHED_NOTE_POSTED, at, amount, r->t);
}

/* Closes the open chunk: what it used comes back one period after its
 * activation; a post that fills the list takes the unused budget along. */
static void close_chunk(struct pfp_server *sv, uint64_t at)
{
	uint64_t amount = sv->used;
	if (sv->nrepl + (amount > 0) == sv->max_repl_now) {
		amount += sv->cap;
		sv->cap = 0;
	}
	if (amount)
		post(sv, at, amount);
	sv->open = 0;
	sv->used = 0;
}

/* Sec. 3.3: coalescing never moves a replenishment earlier; the amounts
 * merge into the later time. */
static void coalesce(struct pfp_server *sv, uint64_t at)
{
	if (sv->coalesce == COALESCE_IMMEDIATE) {
		if (sv->nrepl > 1) {
			struct pfp_repl *last = repl_at(sv, sv->nrepl - 1);
			for (unsigned k = 0; k + 1 < sv->nrepl; k++)
				last->amount += repl_at(sv, k)->amount;
			sv->head = (sv->head + sv->nrepl - 1) % sv->max_repl;
			sv->nrepl = 1;
			sv->st.coalesces++;
			note(sv, SCHED_NOTE_COALESCED, at, sv->nrepl, 0);
		}
		sv->max_repl_now = 1;
		return;
	}
	if (sv->nrepl > 1) {
		repl_at(sv, 1)->amount += repl_at(sv, 0)->amount;
		sv->head = (sv->head + 1) % sv->max_repl;
		sv->nrepl--;
		sv->st.coalesces++;
		note(sv, SCHED_NOTE_COALESCED, at, sv->nrepl, 0);
	}
	sv->max_repl_now = sv->nrepl ? sv->nrepl : 1;
}

void pfp_server_timers(struct pfp_server *sv, uint64_t at)
{
	if (sv->kind == SERVER_POLLING) {
		while (sv->next_period <= at) {
			sv->next_period += sv->period;
			sv->granted = sv->queue > 0;
			sv->cap = sv->granted ? sv->budget : 0;
			if (sv->granted) {
				sv->st.replenishments++;
				note(sv, SCHED_NOTE_REPLENISHED, at, sv->budget, 0);
			}
		}
		return;
	}
	while (sv->nrepl && repl_at(sv, 0)->t <= at) {
		uint64_t amount = repl_at(sv, 0)->amount;
		sv->head = (sv->head + 1) % sv->max_repl;
		sv->nrepl--;
		if (sv->open)
			close_chunk(sv, at);
		sv->cap += amount;
		sv->st.replenishments++;
		note(sv, SCHED_NOTE_REPLENISHED, at, amount, 0);
	}
}

void pfp_server_consume(struct pfp_server *sv, uint64_t dt)
{
	sv->cap -= dt;
	sv->used += dt;
	sv->st.consumed_us += dt;
}

void pfp_server_toll(struct pfp_server *sv, uint64_t at)
{
	uint64_t c = sv->toll < sv->cap ? sv->toll : sv->cap;
	if (!c)
		return;
	pfp_server_consume(sv, c);
	sv->st.tolls++;
	sv->st.toll_us += c;
	note(sv, SCHED_NOTE_TOLL, at, c, 0);
}

static void exhausted(struct pfp_server *sv, uint64_t at)
{
	sv->st.exhaustions++;
	note(sv, SCHED_NOTE_EXHAUSTED, at, sv->cap, 0);
}

void pfp_server_settle(struct pfp_server *sv, uint64_t at)
{
	if (sv->kind == SERVER_POLLING) {
		if (!sv->granted)
			return;
		if (!sv->queue) {
			sv->cap = 0;
			sv->granted = 0;
		} else if (!sv->cap) {
			sv->granted = 0;
			exhausted(sv, at);
		}
		return;
	}
	if (sv->open && !sv->cap) {
		close_chunk(sv, at);
		if (sv->queue) {
			exhausted(sv, at);
			if (sv->kind == SERVER_HYBRID)
				coalesce(sv, at);
		}
	} else if (sv->open && !sv->queue) {
		if (sv->kind == SERVER_HYBRID)
			sv->max_repl_now = sv->max_repl;
		close_chunk(sv, at);
	}
	if (!sv->open && sv->queue && sv->cap) {
		sv->open = 1;
		sv->act = at;
		sv->used = 0;
	}
}
