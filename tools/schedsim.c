/*
 * tools/schedsim: runs a scheduler plugin from sched/ on the host over a
 * task-set file and prints the schedule as JSON lines (FORMATS.md sections 2
 * and 3). The same plugin code runs in the kernel.
 *
 *   schedsim --sched NAME --cpus M --slots T [--seed S]
 *            [--ticks aligned|staggered] [--param NAME=VALUE]...
 *            [--summary-only] FILE.tasks
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/parse_num.h"
#include "../lib/taskset.h"
#include "../sched/sched.h"

#define MAX_PARAMS 32

static void usage(void)
{
	fprintf(stderr,
		"usage: schedsim --sched NAME --cpus M --slots T [--seed S]\n"
		"                [--ticks aligned|staggered] [--param NAME=VALUE]...\n"
		"                [--summary-only] FILE.tasks\n"
		"schedulers:");
	for (unsigned i = 0; i < sched_nplugins; i++)
		fprintf(stderr, " %s", sched_plugins[i]->name);
	fprintf(stderr, "\n");
	exit(2);
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

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n == cap)
			buf = realloc(buf, cap *= 2);
		size_t got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

struct sim {
	unsigned cpus;
	int *choice;          /* this slot's answer per CPU */
	int *decided;         /* CPU already asked in this slot */
	int *pending;         /* resched requested */
	void **allocs;        /* the plugin's memory, freed at the end so */
	size_t nallocs, cap;  /* that LeakSanitizer lets the output through */
};

static void *env_alloc(void *ctx, size_t size)
{
	struct sim *sim = ctx;
	void *p = NULL;
	if (sim->nallocs == sim->cap) {
		sim->cap = sim->cap ? 2 * sim->cap : 64;
		sim->allocs = realloc(sim->allocs, sim->cap * sizeof(void *));
	}
	if (!sim->allocs || posix_memalign(&p, 16, size ? size : 1) != 0) {
		fprintf(stderr, "schedsim: out of memory\n");
		exit(1);
	}
	memset(p, 0, size);
	sim->allocs[sim->nallocs++] = p;
	return p;
}

static void env_resched(void *ctx, unsigned cpu)
{
	struct sim *sim = ctx;
	if (cpu < sim->cpus)
		sim->pending[cpu] = 1;
}

static void print_fraction(uint64_t num, uint64_t den)
{
	if (den == 0)
		den = 1;
	if (num % den == 0)
		printf("%llu", (unsigned long long)(num / den));
	else
		printf("%.6f", (double)num / (double)den);
}

static void put_extra(void *ctx, const char *key, int64_t num, int64_t den)
{
	(void)ctx;
	printf(", \"%s\": ", key);
	if (den == 1 || den == 0)
		printf("%lld", (long long)num);
	else
		printf("%.6f", (double)num / (double)den);
}

int main(int argc, char **argv)
{
	const char *sched_name = NULL, *file = NULL, *ticks = NULL;
	uint64_t cpus = 0, slots = 0, seed = 1;
	int have_slots = 0, summary_only = 0;
	struct sched_param params[MAX_PARAMS];
	unsigned nparams = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_val = i + 1 < argc;
		if (!strcmp(a, "--sched") && has_val)
			sched_name = argv[++i];
		else if (!strcmp(a, "--cpus") && has_val)
			cpus = number_arg(a, argv[++i], 1, 1024);
		else if (!strcmp(a, "--slots") && has_val) {
			slots = number_arg(a, argv[++i], 0, UINT32_MAX);
			have_slots = 1;
		} else if (!strcmp(a, "--seed") && has_val)
			seed = number_arg(a, argv[++i], 0, UINT64_MAX);
		else if (!strcmp(a, "--ticks") && has_val)
			ticks = argv[++i];
		else if (!strcmp(a, "--summary-only"))
			summary_only = 1;
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
	int staggered = !strcmp(sched_name, "spd2");
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

	size_t len;
	char *text = read_file(file, &len);
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	struct taskset ts = {
		.task = calloc(lines, sizeof(struct task_spec)),
		.max_tasks = (unsigned)lines,
		.event = calloc(lines, sizeof(struct taskset_event)),
		.max_events = (unsigned)lines,
	};
	char err[512];
	if (taskset_parse(&ts, file, text, len, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}

	struct sim sim = {
		.cpus = (unsigned)cpus,
		.choice = calloc(cpus, sizeof(int)),
		.decided = calloc(cpus, sizeof(int)),
		.pending = calloc(cpus, sizeof(int)),
	};
	struct sched_env env = { env_alloc, env_resched, &sim };
	struct sched_config cfg = {
		.cpus = (unsigned)cpus,
		.staggered = staggered,
		.tasks = &ts,
		.params = params,
		.nparams = nparams,
		.seed = seed,
	};
	struct sched_error serr = { { 0 } };
	void *s = plugin->create(&cfg, &env, &serr);
	if (!s) {
		fprintf(stderr, "%s: %s\n", file, serr.msg);
		return 1;
	}

	unsigned next_event = 0;
	for (uint64_t t = 0; t < slots; t++) {
		while (next_event < ts.nevents && ts.event[next_event].t <= t) {
			const struct taskset_event *ev = &ts.event[next_event++];
			int ok = 1;
			switch (ev->action) {
			case TASKSET_JOIN:
				ok = plugin->join &&
				     plugin->join(s, ev->task, ev->t, &serr) == 0;
				break;
			case TASKSET_LEAVE:
				if ((ok = plugin->leave != NULL))
					plugin->leave(s, ev->task, ev->t);
				break;
			case TASKSET_BLOCK:
				if ((ok = plugin->block != NULL))
					plugin->block(s, ev->task, ev->t);
				break;
			case TASKSET_WAKE:
				if ((ok = plugin->wake != NULL))
					plugin->wake(s, ev->task, ev->t);
				break;
			}
			if (!ok) {
				if (!serr.msg[0])
					snprintf(serr.msg, sizeof serr.msg,
						 "%s does not support '%s' events", sched_name,
						 taskset_action_name(ev->action));
				fprintf(stderr, "%s:%u: %s\n", file, ev->line, serr.msg);
				return 1;
			}
		}
		memset(sim.decided, 0, cpus * sizeof(int));
		memset(sim.pending, 0, cpus * sizeof(int));
		for (unsigned k = 0; k < cpus; k++) {
			sim.choice[k] = plugin->schedule(s, k, t);
			sim.decided[k] = 1;
			/* A resched of a CPU that already chose in this slot replaces
			 * its answer; one that has not chosen yet will be asked anyway. */
			for (unsigned rounds = 0;; rounds++) {
				unsigned c = 0;
				while (c < cpus && !(sim.pending[c] && sim.decided[c]))
					c++;
				if (c == cpus)
					break;
				if (rounds > 4 * cpus) {
					fprintf(stderr, "schedsim: %s keeps asking for "
						"reschedules at slot %llu\n", sched_name,
						(unsigned long long)t);
					return 1;
				}
				sim.pending[c] = 0;
				sim.choice[c] = plugin->schedule(s, c, t);
			}
		}
		for (unsigned k = 0; k < cpus; k++) {
			int c = sim.choice[k];
			if (c != SCHED_IDLE && (c < 0 || (unsigned)c >= ts.ntasks)) {
				fprintf(stderr, "schedsim: %s chose task %d, which does "
					"not exist, at slot %llu\n", sched_name, c,
					(unsigned long long)t);
				return 1;
			}
		}
		if (summary_only)
			continue;
		printf("{\"t\": %llu, \"cpus\": [", (unsigned long long)t);
		for (unsigned k = 0; k < cpus; k++) {
			int c = sim.choice[k];
			if (k)
				printf(", ");
			if (c == SCHED_IDLE)
				printf("null");
			else
				printf("\"%s\"", ts.task[c].name);
		}
		printf("]}\n");
	}

	uint64_t misses = 0, tn = 0, td = 1;
	struct sched_task_stats *st = calloc(ts.ntasks, sizeof *st);
	for (unsigned i = 0; i < ts.ntasks; i++) {
		plugin->stats(s, i, &st[i]);
		if (!st[i].tardiness_den)
			st[i].tardiness_den = 1;
		misses += st[i].misses;
		/* Compare fractions exactly: a/b > c/d iff a*d > c*b. */
		if ((unsigned __int128)st[i].max_tardiness_num * td >
		    (unsigned __int128)tn * st[i].tardiness_den) {
			tn = st[i].max_tardiness_num;
			td = st[i].tardiness_den;
		}
	}
	printf("{\"summary\": {\"sched\": \"%s\", \"cpus\": %llu, \"slots\": %llu, "
	       "\"ticks\": \"%s\", \"misses\": %llu, \"max_tardiness\": ",
	       sched_name, (unsigned long long)cpus, (unsigned long long)slots,
	       staggered ? "staggered" : "aligned", (unsigned long long)misses);
	print_fraction(tn, td);
	printf(", \"tasks\": {");
	for (unsigned i = 0; i < ts.ntasks; i++) {
		printf("%s\"%s\": {\"quanta\": %llu, \"jobs\": %llu, \"misses\": %llu, "
		       "\"max_tardiness\": ", i ? ", " : "", ts.task[i].name,
		       (unsigned long long)st[i].quanta,
		       (unsigned long long)st[i].jobs,
		       (unsigned long long)st[i].misses);
		print_fraction(st[i].max_tardiness_num, st[i].tardiness_den);
		printf("}");
	}
	printf("}");
	if (plugin->summary)
		plugin->summary(s, put_extra, NULL);
	printf("}}\n");
	for (size_t i = 0; i < sim.nallocs; i++)
		free(sim.allocs[i]);
	free(sim.allocs);
	free(sim.choice);
	free(sim.decided);
	free(sim.pending);
	free(st);
	free(ts.task);
	free(ts.event);
	free(text);
	return 0;
}
