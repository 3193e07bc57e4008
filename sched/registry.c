/* sched/registry.c: the table of plugins, looked up by name. */
#include "sched.h"

#include "../lib/fmt.h"
#include "../lib/str.h"

/* Each plugin adds its extern declaration and its entry below. */
extern const struct sched_plugin pd2;
extern const struct sched_plugin spd2;
extern const struct sched_plugin gdq_plugin;
extern const struct sched_plugin gedf;
extern const struct sched_plugin pedf;
extern const struct sched_plugin cedf;
extern const struct sched_plugin ngedf;
extern const struct sched_plugin gfp;
extern const struct sched_plugin pfp_plugin;

const struct sched_plugin *const sched_plugins[] = {
	&pd2,
	&spd2,
	&gdq_plugin,
	&gedf,
	&pedf,
	&cedf,
	&ngedf,
	&gfp,
	&pfp_plugin,
	0,
};

const unsigned sched_nplugins =
	sizeof(sched_plugins) / sizeof(sched_plugins[0]) - 1;

const struct sched_plugin *sched_find(const char *name)
{
	for (unsigned i = 0; i < sched_nplugins; i++)
		if (str_eq(sched_plugins[i]->name, name))
			return sched_plugins[i];
	return 0;
}

int sched_takes_param(const struct sched_plugin *p, const char *name,
		      size_t n)
{
	for (const char *const *q = p->params; q && *q; q++)
		if (str_eq_n(name, n, *q))
			return 1;
	return 0;
}

uint64_t sched_param_get(const struct sched_config *cfg, const char *name,
			 uint64_t def)
{
	for (unsigned i = 0; i < cfg->nparams; i++)
		if (str_eq(cfg->params[i].name, name))
			return cfg->params[i].value;
	return def;
}

int sched_check_servers(const struct sched_plugin *p, const struct taskset *ts,
			struct sched_error *err)
{
	int i = taskset_first_server(ts);
	if (i < 0 || p->arrive)
		return 0;
	fmt_snprintf(err->msg, sizeof err->msg,
		     "server %s (line %u): %s schedules no servers (pfp does)",
		     ts->task[i].name, ts->task[i].line, p->name);
	return -1;
}

int sched_param_in(const struct sched_config *cfg, const char *name,
		   uint64_t def, uint64_t min, uint64_t max, uint64_t *out,
		   struct sched_error *err)
{
	uint64_t v = sched_param_get(cfg, name, def);
	if (v < min || v > max) {
		fmt_snprintf(err->msg, sizeof err->msg,
			     "%s=%llu: must be from %llu to %llu", name,
			     (unsigned long long)v, (unsigned long long)min,
			     (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

/* " pedf (srp, msrp), gedf (...)": who runs which protocol. */
static void list_lockers(char *p, char *end)
{
	const char *between = " ";
	for (unsigned i = 0; i < sched_nplugins && p < end; i++) {
		const struct sched_plugin *v = sched_plugins[i]->locks;
		if (!v)
			continue;
		p += fmt_snprintf(p, (size_t)(end - p), "%s%s (", between,
				  v->name);
		between = ", ";
		const char *sep = "";
		for (unsigned k = 0; k < PROTO_COUNT && p < end; k++)
			if (v->protocols & (1u << k)) {
				p += fmt_snprintf(p, (size_t)(end - p), "%s%s",
						  sep, taskset_protocol_name(
							  (enum taskset_protocol)k));
				sep = ", ";
			}
		if (p < end)
			p += fmt_snprintf(p, (size_t)(end - p), ")");
	}
}

const struct sched_plugin *sched_plugin_for(const struct sched_plugin *plugin,
					    const struct taskset *ts,
					    struct sched_error *err)
{
	if (!ts->nres)
		return plugin;
	const struct resource_spec *r = &ts->res[0];
	/* Given a variant (a run's plan is made with the run's plugin), the
	 * variant itself. */
	const struct sched_plugin *v = plugin->lock_op ? plugin : plugin->locks;
	if (v && (v->protocols & (1u << r->protocol)))
		return v;
	char *p = err->msg, *end = err->msg + sizeof err->msg;
	p += fmt_snprintf(p, (size_t)(end - p), "resource %s (line %u): %s "
			  "runs %s protocol=%s; these do:", r->name, r->line,
			  plugin->name, v ? "no" : "no locking protocol, so no",
			  taskset_protocol_name(r->protocol));
	list_lockers(p, end);
	return 0;
}
