/*
 * Host unit test of kernel/trace/trace.h's record writer (trace_put, the part of
 * trace_emit that needs no CPU) and of lib/trace_dump's counting over what
 * it leaves: a full buffer keeps its first records whole, counts the rest
 * as dropped, and seq runs on through the drops.
 */
#include <stdio.h>
#include <string.h>

#include "../../../kernel/trace/trace.h"
#include "../../../lib/trace_dump.h"

#include "unit.h"

#define CAP 4
#define PUTS 6

static char lines[8][TRACE_DUMP_LINE_MAX];
static unsigned nlines;

static void keep(void *ctx, const char *line)
{
	(void)ctx;
	if (nlines < 8)
		snprintf(lines[nlines++], TRACE_DUMP_LINE_MAX, "%s", line);
}

static void test_full_buffer(void)
{
	/* One record of room past CAP: nothing may be written there. */
	struct trace_rec rec[CAP + 1];
	memset(rec, 0xa5, sizeof rec);
	struct trace_buf b = { .rec = rec, .cap = CAP };
	for (uint32_t i = 0; i < PUTS; i++)
		trace_put(&b, 1000 + i, 3, TRACE_CXS_END, (uint8_t)i, 7 + i,
			  9 + i, 0xfeedull << 32 | i);
	EXPECT(b.count == CAP, "count %u", b.count);
	EXPECT(b.dropped == PUTS - CAP, "dropped %llu",
	       (unsigned long long)b.dropped);
	EXPECT(b.seq == PUTS, "seq %u", b.seq);
	for (uint32_t i = 0; i < CAP; i++) {
		const struct trace_rec *r = &rec[i];
		EXPECT(r->tsc == 1000 + i && r->cpu == 3 &&
		       r->event == TRACE_CXS_END && r->flags == i &&
		       r->task == 7 + i && r->job == 9 + i && r->seq == i &&
		       r->arg == (0xfeedull << 32 | i), "record %u", i);
	}
	struct trace_rec untouched;
	memset(&untouched, 0xa5, sizeof untouched);
	EXPECT(!memcmp(&rec[CAP], &untouched, sizeof untouched),
	       "a full buffer writes past its end");

	struct trace_dumper d = { .out = keep };
	trace_dump_cpu(&d, 3, rec, b.count, b.dropped);
	EXPECT(nlines == 2, "%u lines", nlines);
	EXPECT(!strncmp(lines[0], "TRACE-DATA cpu=3 seq=0 n=4 crc=", 31),
	       "%s", lines[0]);
	EXPECT(!strncmp(lines[1], "TRACE-CPU cpu=3 records=4 dropped=2 crc=",
			40), "%s", lines[1]);
	EXPECT(d.lines == 2, "lines %u", d.lines);
}

int main(void)
{
	test_full_buffer();
	return unit_exit_status();
}
