/*
 * sched/pfp/server: the budget of an aperiodic server -- when it may run at
 * its priority and when its budget comes back -- apart from the CPU
 * scheduling around it (pfp.c). The sporadic-server paper (Stanovich,
 * Baker and Wang) is "the paper" below; times are microseconds.
 *
 * A server serves a FIFO queue of aperiodic jobs; `queue` counts them. It
 * competes at its priority (foreground) when it has work and budget.
 *
 * Polling (Sec. 2): the budget is set to B at every period boundary k*P if
 * jobs are queued then, else lost; "if the budget is partially used, and no
 * jobs are queued, the polling server gives up the remainder". Out of
 * budget it waits for the next boundary (no background running).
 *
 * Sporadic (Sec. 2-3, POSIX SCHED_SPORADIC as the paper's [15] corrects
 * it). The budget is held as `cap` (available now) plus pending
 * replenishments (time, amount), and always sums to B with what the
 * current chunk used. A chunk opens at its activation time: the instant
 * the server "requested CPU time and had budget" (Sec. 2) -- work arrived
 * while it had budget, or budget came back while it had work -- and
 * closes when the budget runs out (exhaustion) or the queue empties
 * (blocking). Closing posts a replenishment of what the chunk used, due
 * one period after its activation. Decided here, for the sliding-window
 * constraint (Sec. 3.3: no replenishment is ever moved earlier):
 *  - a replenishment that comes due while a chunk is open closes it
 *    there and a new one opens at once, so budget that came back at r is
 *    never replenished from an activation before r;
 *  - max_repl bounds the pending replenishments (Sec. 3.1): a post that
 *    fills the list takes the unused budget with it, so "once max_repl
 *    replenishments are pending, a sporadic server will be prevented from
 *    executing until one of the future replenishments arrives";
 *  - out of budget with work, the server runs at background priority
 *    (below every task), uncharged: POSIX's sched_ss_low_priority.
 *  - the toll (Sec. 3.1): each time the server preempts a task (not the
 *    idle CPU, not itself) min(toll, cap) is charged as budget used at
 *    that instant.
 *
 * Hybrid (Sec. 3.3): a sporadic server that switches to a polling-like
 * mode under load. Overload is its budget running out while it has work;
 * then `immediate` coalesces every pending replenishment into the latest
 * one (Figs. 7 and 8: one replenishment of the whole budget) and lowers
 * max_repl to 1; `gradual` coalesces the two earliest into the later of
 * them and lowers max_repl to the number then pending ("coalesce only two
 * replenishments for each overload detection"). Light load is blocking
 * with budget left: max_repl is reinstated.
 *
 * Instants: at one time the caller charges consumption first, applies
 * completions and arrivals, runs the timers (pfp_server_timers), then
 * settles (pfp_server_settle): so a job that ends exactly as the budget
 * does is a blocking without budget, neither overload nor light load.
 */
#ifndef SCHED_PFP_SERVER_H
#define SCHED_PFP_SERVER_H

#include <stdint.h>

#include "../../lib/taskset.h"
#include "../sched.h"

struct pfp_repl {
	uint64_t t, amount;
};

struct pfp_server {
	enum server_kind kind;
	enum server_coalesce coalesce;
	uint64_t budget, period, toll;
	unsigned max_repl;        /* as configured */
	unsigned max_repl_now;    /* a hybrid's, lowered under overload */
	uint64_t cap;             /* budget available now */
	struct pfp_repl *repl;    /* pending, by time: a ring of max_repl */
	unsigned head, nrepl;
	uint64_t next_period;     /* polling: the next boundary */
	int granted;              /* polling: this period's budget was given */
	int open;                 /* sporadic, hybrid: a chunk is open */
	uint64_t act, used;       /* its activation and what it used */
	uint64_t queue;           /* aperiodic jobs queued (head running) */
	unsigned task, cpu;       /* for notes */
	const struct sched_env *env;
	struct sched_server_stats st;
};

void pfp_server_init(struct pfp_server *sv, const struct task_spec *spec,
		     unsigned task, const struct sched_env *env);

/* Competes at its own priority: it has work and budget. */
static inline int pfp_server_foreground(const struct pfp_server *sv)
{
	return sv->queue && sv->cap;
}

/* Competes below every task: work but no budget (sporadic, hybrid). */
static inline int pfp_server_background(const struct pfp_server *sv)
{
	return sv->queue && !sv->cap && sv->kind != SERVER_POLLING;
}

/* When its budget next changes by itself (a replenishment or a period
 * boundary), or SCHED_NEVER. */
uint64_t pfp_server_timer(const struct pfp_server *sv);

/* Replenishments and period boundaries due by time at. */
void pfp_server_timers(struct pfp_server *sv, uint64_t at);

/* It ran dt in the foreground (dt <= cap). */
void pfp_server_consume(struct pfp_server *sv, uint64_t dt);

/* It preempts a task at time at: charged min(toll, cap). */
void pfp_server_toll(struct pfp_server *sv, uint64_t at);

/* After charges, completions, arrivals and timers at time at: chunks close
 * and open, exhaustion, overload and light load take effect. */
void pfp_server_settle(struct pfp_server *sv, uint64_t at);

#endif
