/*
 * tools/schedsim: runs a scheduler plugin from sched/ on the host over a
 * task-set file and prints the schedule as JSON lines (docs/formats.md,
 * "Schedules as JSON lines"; docs/schedulers.md, "The simulator"). The same plugin code runs in the kernel.
 *
 *   schedsim --list
 *   schedsim --sched NAME --cpus M --slots T [--seed S]
 *            [--ticks aligned|staggered] [--param NAME=VALUE]...
 *            [--quantum-us Q] [--cxs-us C] [--summary-only] [--timing]
 *            [--dump-at SLOT] [--at-events] [--locks]
 *            [--bus WSS_BYTES[,LINE_BYTES[,Q_BUS_CYCLES]]] FILE.tasks
 *
 * An event-driven scheduler (pfp) runs for T quanta of Q microseconds on
 * the simulated machine of sched/evsim.h, C microseconds per context
 * switch, and prints segments and events in microseconds
 * (docs/schedulers-event-driven.md); it exits 3 when a server broke its
 * sliding-window bound.
 *
 * --timing (quantum-driven schedulers): the CPU time of the slot loop
 * alone (the driver and the plugin, without start-up, parsing, admission
 * or the summary) goes to stderr as
 * "schedsim: timing slots=T loop_ns=X ns_per_slot=Y".
 *
 * --dump-at SLOT: after slot SLOT's line, the plugin's state (its dump(),
 * as the kernel's dumpstate= prints it) as `STATE ...` lines.
 *
 * --at-events: a plugin that runs at events (sched.h, next_event) is
 * called only at the slots it names, the `at` events and SLOT of
 * --dump-at, as the kernel's one-shot timers call it; each CPU keeps its
 * last answer in between. The schedule must be the one of calls at every
 * boundary; stderr gets "schedsim: at-events decided=N slots=T".
 *
 * --list: the registry (sched/registry.c), one JSON line per plugin --
 * {"name", "description", "ticks": "aligned"|"staggered", "driven":
 * "boundaries"|"events"|"microseconds", "ordered", "params": [...],
 * "at": [the `at` actions it takes], "complete", "servers", "dump",
 * "summary", "locks": [the protocols its lock variant runs]} -- for tests
 * and tools that go through every plugin without
 * naming one (docs/writing-a-scheduler.md). Needs no other argument.
 *
 * --locks: a set with resources (docs/locking.md) also prints each lock
 * event as a JSON line, {"lock": KIND, "at": T, ...}, in the order they
 * happen, before the slot's line (quantum-driven: "at" is the boundary).
 * The summary's per-task "lock" objects come with or without it.
 *
 * Tasks given exec= end their jobs early: a quantum-driven run follows the
 * kernel's rules for them (tools/schedsim_exec.h) and prints what executes
 * in each slot; an event-driven one gives each job exec quanta of work.
 *
 * --bus (quantum-driven schedulers): the schedule's quantum starts drive
 * sched/bus_model (bus contention at the boundaries, staggered Pfair Sec.
 * 5.1); per-task completion delays come as {"bus": ...} lines and one
 * {"bus_summary": ...} before the summary (tools/schedsim_bus.h,
 * docs/bus-model.md). Without --bus the output is unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/parse_num.h"
#include "../lib/taskset.h"
#include "../sched/driver.h"
#include "../sched/evsim.h"
#include "../sched/report.h"
#include "../sched/sched.h"
#include "schedsim_bus.h"
#include "schedsim_exec.h"
#include "taskset_file.h"

#define MAX_PARAMS 32

/*
 * The sanitized build checks memory errors, not leaks at exit: an error exit
 * (a bad file, a refused set) ends the process without unwinding, and the
 * report would bury the one-line message the user needs.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static void usage(void)
{
	fprintf(stderr,
		"usage: schedsim --list\n"
		"       schedsim --sched NAME --cpus M --slots T [--seed S]\n"
		"                [--ticks aligned|staggered] [--param NAME=VALUE]...\n"
		"                [--quantum-us Q] [--cxs-us C] [--summary-only]\n"
		"                [--timing] [--dump-at SLOT] [--at-events] [--locks]\n"
		"                [--bus WSS_BYTES[,LINE_BYTES[,Q_BUS_CYCLES]]]\n"
		"                  (defaults: 32-byte lines, 20000 bus cycles per quantum)\n"
		"                FILE.tasks\n"
		"schedulers:");
	for (unsigned i = 0; i < sched_nplugins; i++)
		fprintf(stderr, " %s", sched_plugins[i]->name);
	fprintf(stderr, "\n");
	exit(2);
}

/* text as a JSON string. */
static void json_string(const char *text)
{
	putchar('"');
	for (const char *c = text; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			printf("\\u%04x", (unsigned char)*c);
		else
			putchar(*c);
	}
	putchar('"');
}

static const char *json_bool(int b)
{
	return b ? "true" : "false";
}

/* --list: every plugin of the registry, what a driver must know of it. */
static void list_plugins(void)
{
	for (unsigned i = 0; i < sched_nplugins; i++) {
		const struct sched_plugin *p = sched_plugins[i];
		printf("{\"name\": ");
		json_string(p->name);
		printf(", \"description\": ");
		json_string(p->description ? p->description : "");
		printf(", \"ticks\": \"%s\", \"driven\": \"%s\", "
		       "\"ordered\": %s, \"params\": [",
		       p->staggered ? "staggered" : "aligned",
		       p->event_us ? "microseconds" :
		       p->next_event ? "events" : "boundaries",
		       json_bool(p->ordered));
		for (const char *const *q = p->params; q && *q; q++) {
			if (q != p->params)
				printf(", ");
			json_string(*q);
		}
		printf("], \"at\": [");
		const void *at[] = { (const void *)p->join,
				     (const void *)p->leave,
				     (const void *)p->block,
				     (const void *)p->wake };
		const char *at_names[] = { "join", "leave", "block", "wake" };
		const char *sep = "";
		for (unsigned k = 0; k < 4; k++)
			if (at[k]) {
				printf("%s\"%s\"", sep, at_names[k]);
				sep = ", ";
			}
		printf("], \"complete\": %s, \"servers\": %s, \"dump\": %s, "
		       "\"summary\": %s, \"locks\": [", json_bool(p->complete != 0),
		       json_bool(p->arrive != 0), json_bool(p->dump != 0),
		       json_bool(p->summary != 0));
		sep = "";
		for (unsigned k = 0; p->locks && k < PROTO_COUNT; k++)
			if (p->locks->protocols & (1u << k)) {
				printf("%s\"%s\"", sep, taskset_protocol_name(
					       (enum taskset_protocol)k));
				sep = ", ";
			}
		printf("]}\n");
	}
}

static uint64_t number_arg(const char *opt, const char *s, uint64_t min,
			   uint64_t max)
{
	uint64_t v;
	enum parse_num_status st = parse_u64(s, strlen(s), max, &v);
	if (st != PARSE_NUM_OK || v < min) {
		fprintf(stderr, "schedsim: %s %s: %s (expected %llu..%llu)\n", opt,
			s, st != PARSE_NUM_OK ? parse_num_reason(st) : "too small",
			(unsigned long long)min, (unsigned long long)max);
		exit(2);
	}
	return v;
}

/*
 * Plugin memory: each block is linked behind a 16-byte header so that
 * free_plugin_memory() can release it all (the plugin never frees).
 */
struct block {
	struct block *next;
	char pad[16 - sizeof(struct block *)];
};
static struct block *blocks;

static void *env_alloc(void *ctx, size_t size)
{
	(void)ctx;
	void *p = NULL;
	if (posix_memalign(&p, 16, sizeof(struct block) + size) != 0) {
		fprintf(stderr, "schedsim: out of memory (%zu bytes for the "
			"scheduler)\n", size);
		exit(1);
	}
	memset(p, 0, sizeof(struct block) + size);
	struct block *b = p;
	b->next = blocks;
	blocks = b;
	return b + 1;
}

static void free_plugin_memory(void)
{
	while (blocks) {
		struct block *b = blocks;
		blocks = b->next;
		free(b);
	}
}

/* CPU time of this process: the loop's own cost, whatever else the
 * machine runs. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The current slot's choices, printed once every CPU has chosen. */
static void record_choice(void *ctx, unsigned cpu, uint64_t t, int task)
{
	(void)t;
	((int *)ctx)[cpu] = task;
}

static void print_text(void *ctx, const char *text)
{
	(void)ctx;
	fputs(text, stdout);
}

static void print_segment(void *ctx, const struct sched_segment *seg)
{
	sched_report_segment(print_text, NULL, ctx, seg);
}

static void print_job(void *ctx, const struct sched_evsim_event *ev)
{
	sched_report_job(print_text, NULL, ctx, ev->kind == SCHED_EVSIM_DONE,
			 ev->at, ev->task, ev->job, ev->arg);
}

static void print_note(void *ctx, const struct sched_note *n)
{
	sched_report_note(print_text, NULL, ctx, n);
}

static const struct sched_measure *measure(const void *m, unsigned task)
{
	return sched_evsim_measure(m, task);
}

/* --locks: the set's lock events, as they happen. */
static void print_lock(void *ctx, const struct sched_lock_event *ev)
{
	sched_report_lock(print_text, NULL, ctx, ev, "");
}

static void print_lock_us(void *ctx, const struct sched_lock_event *ev)
{
	sched_report_lock(print_text, NULL, ctx, ev, "_us");
}

/* An event-driven plugin over slots * quantum_us microseconds. */
static int run_events(const char *file, const struct sched_plugin *plugin,
		      const struct sched_config *cfg, uint64_t slots,
		      uint64_t cxs_us, int summary_only, int locks)
{
	const struct taskset *ts = cfg->tasks;
	struct sched_evsim_out out = { 0 };
	if (!summary_only)
		out = (struct sched_evsim_out){ print_segment, print_job,
						print_note, (void *)ts,
						locks ? print_lock_us : 0 };
	struct sched_error err = { { 0 } };
	unsigned line;
	uint64_t until = slots * cfg->quantum_us;
	struct sched_evsim *m = sched_evsim_create(plugin, cfg, until, cxs_us,
						   env_alloc, NULL, &out, &err,
						   &line);
	if (!m) {
		if (line)
			fprintf(stderr, "%s:%u: %s\n", file, line, err.msg);
		else
			fprintf(stderr, "%s: %s\n", file, err.msg);
		return 1;
	}
	if (sched_evsim_run(m, &err)) {
		fprintf(stderr, "schedsim: %s\n", err.msg);
		return 1;
	}
	struct sched_run_us run = { cfg->cpus, until, cfg->quantum_us, cxs_us };
	unsigned bad;
	/* The lock variant, for a set with resources. */
	plugin = sched_evsim_plugin(m);
	sched_report_summary_us(print_text, NULL, plugin,
				sched_evsim_plugin_state(m), ts, &run, measure,
				m, &bad);
	if (!bad)
		return 0;
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct sched_measure *x = sched_evsim_measure(m, i);
		if (ts->task[i].server.kind && x->top &&
		    x->window.max_us > ts->task[i].server.budget_us)
			fprintf(stderr, "schedsim: server %s ran %llu us in the "
				"window from %llu us, over its budget of %u us\n",
				ts->task[i].name,
				(unsigned long long)x->window.max_us,
				(unsigned long long)x->window.from_us,
				ts->task[i].server.budget_us);
	}
	return 3;
}

static void print_state(void *ctx, const char *line)
{
	(void)ctx;
	printf("STATE %s\n", line);
}

/* Every CPU's call at slot t, in CPU order. */
static int decide_slot(struct sched_driver *drv, unsigned cpus, uint64_t t,
		       const char *file)
{
	for (unsigned k = 0; k < cpus; k++)
		if (sched_driver_boundary(drv, k, t)) {
			if (drv->err_line)
				fprintf(stderr, "%s:%u: %s\n", file,
					drv->err_line, drv->err.msg);
			else
				fprintf(stderr, "schedsim: %s\n", drv->err.msg);
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sched_name = NULL, *file = NULL, *ticks = NULL;
	uint64_t cpus = 0, slots = 0, seed = 1;
	uint64_t quantum_us = SCHED_QUANTUM_US_DEFAULT, cxs_us = 0;
	int have_slots = 0, summary_only = 0, timing = 0, dump = 0;
	int at_events = 0, locks = 0;
	uint64_t dump_at = 0;
	struct sched_param params[MAX_PARAMS];
	unsigned nparams = 0;
	struct sim_bus bus = { 0 };

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		list_plugins();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_val = i + 1 < argc;
		if (!strcmp(a, "--list")) {
			fprintf(stderr, "schedsim: --list takes no other "
				"argument\n");
			exit(2);
		} else if (!strcmp(a, "--sched") && has_val)
			sched_name = argv[++i];
		else if (!strcmp(a, "--cpus") && has_val)
			cpus = number_arg(a, argv[++i], 1, 1024);
		else if (!strcmp(a, "--slots") && has_val) {
			slots = number_arg(a, argv[++i], 0, UINT32_MAX);
			have_slots = 1;
		} else if (!strcmp(a, "--seed") && has_val)
			seed = number_arg(a, argv[++i], 0, UINT64_MAX);
		else if (!strcmp(a, "--quantum-us") && has_val)
			quantum_us = number_arg(a, argv[++i], 1, 1000000);
		else if (!strcmp(a, "--cxs-us") && has_val)
			cxs_us = number_arg(a, argv[++i], 0, 1000000);
		else if (!strcmp(a, "--ticks") && has_val)
			ticks = argv[++i];
		else if (!strcmp(a, "--summary-only"))
			summary_only = 1;
		else if (!strcmp(a, "--timing"))
			timing = 1;
		else if (!strcmp(a, "--at-events"))
			at_events = 1;
		else if (!strcmp(a, "--locks"))
			locks = 1;
		else if (!strcmp(a, "--bus") && has_val)
			sim_bus_parse(&bus, argv[++i]);
		else if (!strcmp(a, "--dump-at") && has_val) {
			dump_at = number_arg(a, argv[++i], 0, UINT32_MAX);
			dump = 1;
		}
		else if (!strcmp(a, "--param") && has_val) {
			char *kv = argv[++i];
			char *eq = strchr(kv, '=');
			if (!eq || eq == kv || nparams == MAX_PARAMS) {
				fprintf(stderr, "schedsim: --param %s: expected NAME=VALUE\n",
					kv);
				exit(2);
			}
			*eq = 0;
			params[nparams].name = kv;
			params[nparams].value = number_arg(kv, eq + 1, 0, UINT64_MAX);
			nparams++;
		} else if (a[0] == '-' && a[1] != 0) {
			fprintf(stderr, "schedsim: unknown or incomplete option %s\n", a);
			usage();
		} else if (!file)
			file = a;
		else {
			fprintf(stderr, "schedsim: more than one task-set file\n");
			usage();
		}
	}
	if (!sched_name || !cpus || !have_slots || !file)
		usage();
	const struct sched_plugin *plugin = sched_find(sched_name);
	if (!plugin) {
		fprintf(stderr, "schedsim: unknown scheduler '%s'\n", sched_name);
		usage();
	}
	for (unsigned i = 0; i < nparams; i++)
		if (!sched_takes_param(plugin, params[i].name,
				       strlen(params[i].name))) {
			fprintf(stderr, "schedsim: --param %s: not a parameter of "
				"%s (takes:", params[i].name, plugin->name);
			for (const char *const *q = plugin->params; q && *q; q++)
				fprintf(stderr, " %s", *q);
			fprintf(stderr, "%s)\n", plugin->params && *plugin->params
					? "" : " none");
			exit(2);
		}
	int staggered = plugin->staggered;
	if (ticks) {
		if (!strcmp(ticks, "aligned"))
			staggered = 0;
		else if (!strcmp(ticks, "staggered"))
			staggered = 1;
		else {
			fprintf(stderr, "schedsim: --ticks %s: expected aligned or "
				"staggered\n", ticks);
			exit(2);
		}
	}

	struct taskset ts;
	if (taskset_file_load(file, &ts))
		return 1;

	int *choice = calloc(cpus, sizeof(int));
	struct sched_config cfg = {
		.cpus = (unsigned)cpus,
		.staggered = staggered,
		.tasks = &ts,
		.params = params,
		.nparams = nparams,
		.seed = seed,
		.simulation = 1,
		.quantum_us = quantum_us,
	};
	if (plugin->event_us && bus.on) {
		fprintf(stderr, "schedsim: --bus: %s is event-driven; the bus "
			"model needs a quantum-driven scheduler\n", plugin->name);
		exit(2);
	}
	if (plugin->event_us) {
		int rc = run_events(file, plugin, &cfg, slots, cxs_us,
				    summary_only, locks);
		free_plugin_memory();
		free(choice);
		taskset_file_free(&ts);
		return rc;
	}
	struct sim_exec early;
	sim_exec_start(&early, &ts, (unsigned)cpus, plugin->ordered);
	if (early.any && at_events) {
		fprintf(stderr, "schedsim: --at-events: the set has tasks whose "
			"jobs end early (exec=), which end at any slot\n");
		exit(2);
	}
	struct sched_driver drv;
	if (sched_driver_create(&drv, plugin, &cfg, env_alloc, NULL,
				early.any ? sim_exec_choice : record_choice,
				early.any ? (void *)&early : (void *)choice)) {
		fprintf(stderr, "%s: %s\n", file, drv.err.msg);
		return 1;
	}
	/* The lock variant, for a set with resources (sched_plugin_for). */
	plugin = drv.plugin;
	if (locks && !summary_only) {
		drv.on_lock = print_lock;
		drv.lock_ctx = &ts;
	}
	at_events = at_events && sched_driver_at_events(&drv);
	if (bus.on)
		sim_bus_start(&bus, (unsigned)cpus, &ts, slots, staggered,
			      env_alloc);
	uint64_t loop_ns = 0, start = cpu_ns(), next = 0, decided = 0;
	for (uint64_t t = 0; t < slots; t++) {
		if (t == next && early.any) {
			if (sim_exec_slot(&early, &drv, t, file))
				return 1;
			sim_exec_row(&early, t, choice);
			decided++;
			next = t + 1;
		} else if (t == next) {
			if (decide_slot(&drv, (unsigned)cpus, t, file))
				return 1;
			decided++;
			next = at_events ? sched_driver_next_event(&drv, t) : t + 1;
			if (dump && dump_at > t && dump_at < next)
				next = dump_at;
		}
		if (bus.on) {
			/* --timing stays the slot loop's alone. */
			loop_ns += cpu_ns() - start;
			if (sim_bus_slot(&bus, t, choice))
				return 1;
			start = cpu_ns();
		}
		if (!summary_only) {
			loop_ns += cpu_ns() - start;
			sched_report_slot(print_text, NULL, &ts, t, choice,
					  (unsigned)cpus);
			start = cpu_ns();
		}
		if (dump && t == dump_at && plugin->dump) {
			loop_ns += cpu_ns() - start;
			plugin->dump(drv.s, print_state, NULL);
			start = cpu_ns();
		}
	}
	loop_ns += cpu_ns() - start;
	if (slots && sched_driver_finish(&drv, slots - 1)) {
		fprintf(stderr, "schedsim: %s\n", drv.err.msg);
		return 1;
	}
	if (at_events)
		fprintf(stderr, "schedsim: at-events decided=%llu slots=%llu\n",
			(unsigned long long)decided, (unsigned long long)slots);
	if (timing)
		fprintf(stderr, "schedsim: timing slots=%llu loop_ns=%llu "
			"ns_per_slot=%.1f\n", (unsigned long long)slots,
			(unsigned long long)loop_ns,
			slots ? (double)loop_ns / (double)slots : 0.0);
	if (bus.on)
		sim_bus_print(&bus, &ts);
	sched_report_summary(print_text, NULL, plugin, drv.s, &ts, (unsigned)cpus,
			     slots, staggered);
	free_plugin_memory();
	free(choice);
	sim_exec_free(&early);
	taskset_file_free(&ts);
	return 0;
}
