/*
 * tools/taskset_file.h: a task-set file read whole and parsed by lib/taskset
 * (the kernel's parser), for the host programs.
 */
#ifndef TOOLS_TASKSET_FILE_H
#define TOOLS_TASKSET_FILE_H

#include <stdio.h>
#include <stdlib.h>

#include "../lib/taskset.h"
#include "read_file.h"

static void taskset_file_free(struct taskset *ts)
{
	free(ts->task);
	free(ts->event);
	free(ts->res);
	free(ts->argbuf);
	*ts = (struct taskset){ 0 };
}

/*
 * Fills *ts from path, its arrays sized by the file's line count and its
 * args= words kept (free them with taskset_file_free). Returns 0, or 1 after printing why: the system's
 * reason (a directory's "cannot read: Is a directory"), or the parser's
 * "file:line: message" (ts is then empty).
 */
static int taskset_file_load(const char *path, struct taskset *ts)
{
	*ts = (struct taskset){ 0 };
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return 1;
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	ts->task = calloc(lines, sizeof(struct task_spec));
	ts->max_tasks = (unsigned)lines;
	ts->event = calloc(lines, sizeof(struct taskset_event));
	ts->max_events = (unsigned)lines;
	ts->res = calloc(TASKSET_RES_MAX, sizeof(struct resource_spec));
	ts->max_res = TASKSET_RES_MAX;
	/* args= words never take more than the file's bytes. */
	ts->argbuf = malloc(len + 1);
	ts->argbuf_max = len + 1;
	if (!ts->task || !ts->event || !ts->res || !ts->argbuf) {
		fprintf(stderr, "%s: out of memory for %zu lines\n", path, lines);
		free(text);
		taskset_file_free(ts);
		return 1;
	}
	char err[512];
	int rc = taskset_parse(ts, path, text, len, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s\n", err);
	free(text);
	return rc ? 1 : 0;
}

#endif
