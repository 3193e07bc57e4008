/*
 * tools/taskset_check: parses task-set files with the same lib/ parser the
 * kernel uses; prints each task (and event) as a JSON line, or the error.
 *
 *   taskset_check FILE.tasks...
 */
#include <stdio.h>

#include "../lib/taskset.h"
#include "taskset_file.h"

static int check(const char *path)
{
	struct taskset ts;
	int rc = taskset_file_load(path, &ts);
	for (unsigned i = 0; i < ts.ntasks; i++) {
		const struct task_spec *t = &ts.task[i];
		printf("{\"task\": \"%s\", \"e\": %u, \"p\": %u, \"d\": %u, "
		       "\"phase\": %u, \"weight\": %u, \"work\": \"%s\", \"ws\": %u}\n",
		       t->name, t->e, t->p, t->d, t->phase, t->weight,
		       taskset_work_name(t->work), t->ws);
	}
	for (unsigned i = 0; i < ts.nevents; i++)
		printf("{\"at\": %u, \"event\": \"%s\", \"task\": \"%s\"}\n",
		       ts.event[i].t, taskset_action_name(ts.event[i].action),
		       ts.task[ts.event[i].task].name);
	taskset_file_free(&ts);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: taskset_check FILE.tasks...\n");
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= check(argv[i]);
	return rc;
}
