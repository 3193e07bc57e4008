/*
 * tools/taskset_check: parses task-set files with the same lib/ parser the
 * kernel uses; prints each task, server, event and arrival as a JSON line,
 * or the error.
 *
 *   taskset_check FILE.tasks...
 *   taskset_check --works FILE.tasks
 *
 * --works prints "LINE TASK WORK" for each task and server, one a line:
 * the programs a run of the set needs (scripts/mkiso.sh packs them).
 */
#include <stdio.h>
#include <string.h>

#include "../lib/taskset.h"
#include "json_str.h"
#include "taskset_file.h"

static void print_server(const struct task_spec *t)
{
	const struct server_spec *sv = &t->server;
	printf("{\"server\": \"%s\", \"kind\": \"%s\", \"budget_us\": %u, "
	       "\"period_us\": %u, \"prio\": %u, \"cpu\": %u, \"max_repl\": %u, "
	       "\"toll_us\": %u", t->name, taskset_server_kind_name(sv->kind),
	       sv->budget_us, sv->period_us, t->prio, t->cpu, sv->max_repl,
	       sv->toll_us);
	if (sv->kind == SERVER_HYBRID)
		printf(", \"coalesce\": \"%s\"", taskset_coalesce_name(sv->coalesce));
	if (sv->rate_hz)
		printf(", \"arrivals\": {\"rate_hz\": %u, \"cost_us\": %u, "
		       "\"seed\": %u}", sv->rate_hz, sv->cost_us, sv->seed);
	printf("}\n");
}

static void print_args(const struct taskset *ts, const struct task_spec *t)
{
	const char *w = taskset_args(ts, t);
	if (!w)
		return;
	printf(", \"args\": [");
	for (unsigned i = 0; i < t->nargs; i++) {
		printf("%s", i ? ", " : "");
		json_string(w, strlen(w));
		w += strlen(w) + 1;
	}
	printf("]");
}

static int works(const char *path)
{
	struct taskset ts;
	int rc = taskset_file_load(path, &ts);
	for (unsigned i = 0; i < ts.ntasks; i++)
		printf("%u %s %s\n", ts.task[i].line, ts.task[i].name,
		       ts.task[i].work);
	taskset_file_free(&ts);
	return rc;
}

static int check(const char *path)
{
	struct taskset ts;
	int rc = taskset_file_load(path, &ts);
	for (unsigned i = 0; i < ts.ntasks; i++) {
		const struct task_spec *t = &ts.task[i];
		if (t->server.kind != SERVER_NONE) {
			print_server(t);
			continue;
		}
		printf("{\"task\": \"%s\", \"e\": %u, \"p\": %u, \"d\": %u, "
		       "\"phase\": %u, \"weight\": %u, \"work\": \"%s\", \"ws\": %u",
		       t->name, t->e, t->p, t->d, t->phase, t->weight,
		       t->work, t->ws);
		if (t->has_prio)
			printf(", \"prio\": %u", t->prio);
		if (t->cpu)
			printf(", \"cpu\": %u", t->cpu);
		if (t->ncs) {
			printf(", \"cs\": [");
			for (unsigned k = 0; k < t->ncs; k++)
				printf("%s{\"res\": \"%s\", \"at\": %u, "
				       "\"len\": %u}", k ? ", " : "",
				       ts.res[t->cs[k].res].name, t->cs[k].at,
				       t->cs[k].len);
			printf("]");
		}
		if (t->has_exec)
			printf(", \"exec\": %u", t->exec);
		print_args(&ts, t);
		printf("}\n");
	}
	for (unsigned i = 0; i < ts.nres; i++)
		printf("{\"resource\": \"%s\", \"protocol\": \"%s\"}\n",
		       ts.res[i].name,
		       taskset_protocol_name(ts.res[i].protocol));
	for (unsigned i = 0; i < ts.nevents; i++) {
		const struct taskset_event *ev = &ts.event[i];
		if (ev->action == TASKSET_ARRIVE)
			printf("{\"at_us\": %u, \"arrive\": \"%s\", \"cost_us\": "
			       "%u}\n", ev->t, ts.task[ev->task].name, ev->cost_us);
		else
			printf("{\"at\": %u, \"event\": \"%s\", \"task\": \"%s\"}\n",
			       ev->t, taskset_action_name(ev->action),
			       ts.task[ev->task].name);
	}
	taskset_file_free(&ts);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--works"))
		return works(argv[2]);
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: taskset_check FILE.tasks...\n"
			"       taskset_check --works FILE.tasks\n");
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= check(argv[i]);
	return rc;
}
