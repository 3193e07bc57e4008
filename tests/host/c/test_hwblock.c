/*
 * Host test of lib/hwblock, the hardware report's block. Without
 * arguments: lines stay within HWBLOCK_COLS, a key too long for one line
 * goes on in lines that repeat it, and the line numbers count up. With
 * --stdin it serves tests/host/test_hwreport_tool.py, which checks the
 * block with tools/rtk-hwreport (an independent reading of the format):
 * "K key" opens a key, "T token" adds a token, "E" ends the block.
 */
#include <stdio.h>
#include <string.h>

#include "../../../lib/hwblock.h"

#include "unit.h"

static char out[64][HWBLOCK_COLS + 8];
static unsigned nout;

static void collect(void *ctx, const char *line)
{
	(void)ctx;
	if (nout < 64)
		snprintf(out[nout++], sizeof out[0], "%s", line);
}

static void print(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
}

static int serve(void)
{
	struct hwblock b;
	char line[256];
	int open = 0;
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!open) {
			hwblock_begin(&b, print, 0);
			open = 1;
		}
		if (line[0] == 'K' && line[1] == ' ')
			hwblock_key(&b, line + 2);
		else if (line[0] == 'T' && line[1] == ' ')
			hwblock_add(&b, "%s", line + 2);
		else if (line[0] == 'E') {
			hwblock_end(&b);
			open = 0;
		} else {
			fprintf(stderr, "test_hwblock: bad line: %s\n", line);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--stdin"))
		return serve();
	struct hwblock b;
	hwblock_begin(&b, collect, 0);
	hwblock_key(&b, "ids");
	for (unsigned i = 0; i < 40; i++)
		hwblock_add(&b, "%u-%u", 100 * i, 100 * i + 7);
	hwblock_key(&b, "name");
	hwblock_add(&b, "%s", "a-token-far-longer-than-any-line-of-the-block-can-"
		    "hold-so-it-is-cut");
	hwblock_end(&b);
	EXPECT(!strcmp(out[0], "rtk-hw begin v1"), "begin: %s", out[0]);
	EXPECT(!strncmp(out[nout - 1], "rtk-hw end lines=", 17), "end: %s",
	       out[nout - 1]);
	for (unsigned i = 1; i + 1 < nout; i++) {
		unsigned nn;
		char key[16];
		EXPECT(strlen(out[i]) <= HWBLOCK_COLS, "line %u is %zu long: %s",
		       i, strlen(out[i]), out[i]);
		EXPECT(sscanf(out[i], "%2u %*2x %15s", &nn, key) == 2 && nn == i,
		       "line %u: %s", i, out[i]);
		EXPECT(i + 2 < nout ? !strcmp(key, "ids") : !strcmp(key, "name"),
		       "line %u's key: %s", i, out[i]);
	}
	EXPECT(nout > 5, "40 runs take several lines, got %u", nout);
	EXPECT(out[nout - 2][strlen(out[nout - 2]) - 1] == '~',
	       "the cut token ends in ~: %s", out[nout - 2]);
	return unit_exit_status();
}
