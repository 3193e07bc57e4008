/*
 * tools/taskset_check: parses task-set files with the same lib/ parser the
 * kernel uses; prints each task (and event) as a JSON line, or the error.
 *
 *   taskset_check FILE.tasks...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/taskset.h"

static int check(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	size_t got;
	while ((got = fread(text + len, 1, cap - len, f)) > 0)
		if ((len += got) == cap)
			text = realloc(text, cap *= 2);
	fclose(f);
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
	int rc = taskset_parse(&ts, path, text, len, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s\n", err);
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
	free(text);
	free(ts.task);
	free(ts.event);
	return rc ? 1 : 0;
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
