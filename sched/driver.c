/* sched/driver: events, schedule() and reschedules in boundary order. */
#include "driver.h"

#include "../lib/fmt.h"

static void *env_alloc(void *ctx, size_t size)
{
	struct sched_driver *d = ctx;
	return d->alloc(d->alloc_ctx, size);
}

static void env_lock(void *ctx, const struct sched_lock_event *ev)
{
	struct sched_driver *d = ctx;
	if (d->on_lock)
		d->on_lock(d->lock_ctx, ev);
}

static void env_resched(void *ctx, unsigned cpu)
{
	struct sched_driver *d = ctx;
	if (cpu < d->cpus && !d->pending[cpu]) {
		d->pending[cpu] = 1;
		d->npending++;
	}
}

int sched_driver_create(struct sched_driver *d,
			const struct sched_plugin *plugin,
			const struct sched_config *cfg,
			void *(*alloc)(void *ctx, size_t size), void *alloc_ctx,
			sched_choice_fn on_choice, void *choice_ctx)
{
	d->plugin = plugin;
	d->ts = cfg->tasks;
	d->cpus = cfg->cpus;
	d->next_event = 0;
	d->on_choice = on_choice;
	d->choice_ctx = choice_ctx;
	d->alloc = alloc;
	d->alloc_ctx = alloc_ctx;
	d->env.alloc = env_alloc;
	d->env.resched = env_resched;
	d->env.ctx = d;
	d->env.note = 0;
	d->env.lock = env_lock;
	d->on_lock = 0;
	d->lock_ctx = 0;
	d->err.msg[0] = 0;
	d->err_line = 0;
	d->npending = 0;
	if (plugin->event_us) {
		fmt_snprintf(d->err.msg, sizeof d->err.msg,
			     "%s is event-driven (microseconds), not driven by "
			     "quantum boundaries", plugin->name);
		return -1;
	}
	if (sched_check_servers(plugin, cfg->tasks, &d->err))
		return -1;
	if (!(plugin = sched_plugin_for(plugin, cfg->tasks, &d->err)))
		return -1;
	d->plugin = plugin;
	d->chose_in = alloc(alloc_ctx, cfg->cpus * sizeof *d->chose_in);
	d->pending = alloc(alloc_ctx, cfg->cpus * sizeof *d->pending);
	d->s = plugin->create(cfg, &d->env, &d->err);
	return d->s ? 0 : -1;
}

static int apply_events(struct sched_driver *d, uint64_t t)
{
	const struct sched_plugin *p = d->plugin;
	const struct taskset *ts = d->ts;
	while (d->next_event < ts->nevents && ts->event[d->next_event].t <= t) {
		const struct taskset_event *ev = &ts->event[d->next_event++];
		int ok = 1;
		switch (ev->action) {
		case TASKSET_JOIN:
			ok = p->join && p->join(d->s, ev->task, ev->t, &d->err) == 0;
			break;
		case TASKSET_LEAVE:
			if ((ok = p->leave != 0))
				p->leave(d->s, ev->task, ev->t);
			break;
		case TASKSET_BLOCK:
			if ((ok = p->block != 0))
				p->block(d->s, ev->task, ev->t);
			break;
		case TASKSET_WAKE:
			if ((ok = p->wake != 0))
				p->wake(d->s, ev->task, ev->t);
			break;
		case TASKSET_ARRIVE:
			/* Only servers take arrivals, and sched_driver_create
			 * refused servers already. */
			ok = 0;
			break;
		}
		if (!ok) {
			if (!d->err.msg[0])
				fmt_snprintf(d->err.msg, sizeof d->err.msg,
					     "%s does not support '%s' events", p->name,
					     taskset_action_name(ev->action));
			d->err_line = ev->line;
			return -1;
		}
	}
	return 0;
}

static void clear_pending(struct sched_driver *d, unsigned cpu)
{
	if (d->pending[cpu]) {
		d->pending[cpu] = 0;
		d->npending--;
	}
}

static int choose(struct sched_driver *d, unsigned cpu, uint64_t t)
{
	int task = d->plugin->schedule(d->s, cpu, t);
	if (task != SCHED_IDLE && (task < 0 || (unsigned)task >= d->ts->ntasks)) {
		fmt_snprintf(d->err.msg, sizeof d->err.msg,
			     "%s chose task %d, which does not exist, at slot %llu",
			     d->plugin->name, task, (unsigned long long)t);
		return -1;
	}
	d->chose_in[cpu] = t + 1;
	if (d->on_choice)
		d->on_choice(d->choice_ctx, cpu, t, task);
	return 0;
}

/* A resched of a CPU that already chose in slot t replaces its answer; one
 * that has not chosen yet will be asked anyway. Plugins that never ask
 * (Pfair) leave nothing pending: no scan. */
static int rechoose(struct sched_driver *d, uint64_t t)
{
	for (unsigned rounds = 0; d->npending; rounds++) {
		unsigned c = 0;
		while (c < d->cpus && !(d->pending[c] && d->chose_in[c] == t + 1))
			c++;
		if (c == d->cpus)
			break;
		if (rounds > 4 * d->cpus) {
			fmt_snprintf(d->err.msg, sizeof d->err.msg,
				     "%s keeps asking for reschedules at slot %llu",
				     d->plugin->name, (unsigned long long)t);
			return -1;
		}
		clear_pending(d, c);
		if (choose(d, c, t))
			return -1;
	}
	return 0;
}

int sched_driver_boundary(struct sched_driver *d, unsigned cpu, uint64_t t)
{
	if (cpu == 0 && apply_events(d, t))
		return -1;
	clear_pending(d, cpu);
	if (choose(d, cpu, t))
		return -1;
	return rechoose(d, t);
}

int sched_driver_at_events(const struct sched_driver *d)
{
	return d->plugin->next_event != 0;
}

uint64_t sched_driver_next_event(const struct sched_driver *d, uint64_t t)
{
	if (!d->plugin->next_event)
		return t + 1;
	uint64_t next = d->plugin->next_event(d->s, t);
	if (d->next_event < d->ts->nevents &&
	    d->ts->event[d->next_event].t < next)
		next = d->ts->event[d->next_event].t;
	return next > t ? next : t + 1;
}

int sched_driver_finish(struct sched_driver *d, uint64_t t)
{
	for (unsigned k = 0; k < d->cpus; k++)
		if (d->chose_in[k] < t + 1 && sched_driver_boundary(d, k, t))
			return -1;
	return 0;
}

int sched_driver_lock_op(struct sched_driver *d, unsigned task, int unlock,
			 unsigned res, uint64_t t)
{
	if (!d->plugin->lock_op || task >= d->ts->ntasks) {
		fmt_snprintf(d->err.msg, sizeof d->err.msg, "%s runs no locks",
			     d->plugin->name);
		return -SCHED_LOCK_EUNDECLARED;
	}
	return d->plugin->lock_op(d->s, task, unlock, res, t, &d->err);
}

int sched_driver_event(struct sched_driver *d, enum sched_driver_event ev,
		       unsigned task, uint64_t t)
{
	const struct sched_plugin *p = d->plugin;
	if (task >= d->ts->ntasks)
		return 0;
	switch (ev) {
	case SCHED_EV_COMPLETE:
		if (p->complete)
			p->complete(d->s, task, t);
		break;
	case SCHED_EV_LEAVE:
		if (!p->leave) {
			fmt_snprintf(d->err.msg, sizeof d->err.msg,
				     "%s cannot let task %s leave", p->name,
				     d->ts->task[task].name);
			return -1;
		}
		p->leave(d->s, task, t);
		break;
	}
	return rechoose(d, t);
}
