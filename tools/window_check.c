/*
 * tools/window_check: the sliding-window check of sched/pfp/window.h over
 * spans read from a file (or - for standard input), for traces and tests:
 *
 *   window_check FILE
 *
 * FILE: a first line `period P budget B`, then one `FROM TO` line per
 * interval in which the server ran at its priority, microseconds, in time
 * order and not overlapping; `#` starts a comment. Prints
 * {"max_us": M, "from_us": X, "ok": true|false} -- the most it ran in any
 * window [X, X + P) and whether that is at most B -- and exits 0 when ok,
 * 3 when not, 2 on bad input (named with its line).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/pfp/window.h"

static int bad(const char *file, unsigned line, const char *why)
{
	fprintf(stderr, "%s:%u: %s\n", file, line, why);
	return 2;
}

struct input {
	unsigned long long period, budget;
	struct sched_span *sp;
	size_t n, cap;
};

/* Reads the header and the spans into in; 0, or 2 after naming the line. */
static int read_spans(const char *file, FILE *f, struct input *in)
{
	char buf[256];
	unsigned line = 0;
	int have_header = 0;
	while (fgets(buf, sizeof buf, f)) {
		line++;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		unsigned long long a, b;
		char extra;
		if (sscanf(buf, " %c", &extra) != 1)
			continue;
		if (!have_header) {
			if (sscanf(buf, " period %llu budget %llu %c", &in->period,
				   &in->budget, &extra) != 2 || in->period == 0)
				return bad(file, line, "expected 'period P budget B' "
					   "with P >= 1");
			have_header = 1;
			continue;
		}
		if (sscanf(buf, " %llu %llu %c", &a, &b, &extra) != 2)
			return bad(file, line, "expected 'FROM TO'");
		if (a >= b)
			return bad(file, line, "an interval needs FROM < TO");
		if (in->n && a < in->sp[in->n - 1].to)
			return bad(file, line, "intervals must be in time order, "
				   "not overlapping");
		if (in->n == in->cap) {
			in->cap = in->cap ? 2 * in->cap : 64;
			struct sched_span *sp = realloc(in->sp,
							in->cap * sizeof *sp);
			if (!sp) {
				fprintf(stderr, "window_check: out of memory\n");
				return 2;
			}
			in->sp = sp;
		}
		in->sp[in->n++] = (struct sched_span){ a, b };
	}
	if (!have_header)
		return bad(file, line, "no 'period P budget B' line");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: window_check FILE (- for stdin)\n");
		return 2;
	}
	const char *file = argv[1];
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return 2;
	}
	struct input in = { 0 };
	int rc = read_spans(file, f, &in);
	if (f != stdin)
		fclose(f);
	if (rc == 0) {
		struct sched_window w = sched_window_max(in.sp, in.n, in.period);
		int ok = sched_window_within(&w, in.budget);
		printf("{\"max_us\": %llu, \"from_us\": %llu, \"ok\": %s}\n",
		       (unsigned long long)w.max_us,
		       (unsigned long long)w.from_us, ok ? "true" : "false");
		rc = ok ? 0 : 3;
	}
	free(in.sp);
	return rc;
}
