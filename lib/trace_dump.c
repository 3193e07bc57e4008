/* lib/trace_dump: TRACE- lines (docs/trace-format.md, "The dump"). */
#include "trace_dump.h"

#include <stdarg.h>

#include "base64.h"
#include "crc32.h"
#include "fmt.h"

_Static_assert(sizeof("TRACE-DATA cpu=65535 seq=4294967295 n=16 crc=01234567 ")
	       + (TRACE_DUMP_PER_LINE * sizeof(struct trace_rec) + 2) / 3 * 4
	       <= TRACE_DUMP_LINE_MAX, "a TRACE-DATA line fits");
_Static_assert(sizeof("TRACE-SUMMARY part=4294967295 parts=4294967295 "
		      "crc=01234567 ") + TRACE_DUMP_SUMMARY_CHUNK
	       <= TRACE_DUMP_LINE_MAX, "a TRACE-SUMMARY line fits");

static void emit(struct trace_dumper *d)
{
	d->lines++;
	d->out(d->ctx, d->line);
}

/* A key=value line: the text, then " crc=" and the CRC of the text. */
__attribute__((format(printf, 2, 3)))
static void emit_fields(struct trace_dumper *d, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = fmt_vsnprintf(d->line, sizeof d->line, format, ap);
	va_end(ap);
	size_t len = (size_t)n < sizeof d->line ? (size_t)n : sizeof d->line - 1;
	fmt_snprintf(d->line + len, sizeof d->line - len, " crc=%08x",
		     crc32_ieee(0, d->line, len));
	emit(d);
}

void trace_dump_begin(struct trace_dumper *d, const struct trace_params *p,
		      const char *sched)
{
	d->lines = 0;
	emit_fields(d, "TRACE-BEGIN v=1 cpus=%u tsc_khz=%llu t0=%llu "
		    "quantum_us=%llu slots=%llu ticks=%s sched=%s tasks=%u "
		    "end=%llu", p->cpus, (unsigned long long)p->tsc_khz,
		    (unsigned long long)p->t0,
		    (unsigned long long)p->quantum_us,
		    (unsigned long long)p->slots,
		    p->staggered ? "staggered" : "aligned", sched, p->ntasks,
		    (unsigned long long)p->end);
}

void trace_dump_task(struct trace_dumper *d, unsigned id,
		     const struct task_spec *t)
{
	emit_fields(d, "TRACE-TASK id=%u name=%s e=%u p=%u d=%u phase=%u "
		    "weight=%u work=%s", id, t->name, t->e, t->p, t->d,
		    t->phase, t->weight, t->work);
}

void trace_dump_resource(struct trace_dumper *d, unsigned id,
			 const struct resource_spec *r)
{
	emit_fields(d, "TRACE-RESOURCE id=%u name=%s protocol=%s", id, r->name,
		    taskset_protocol_name(r->protocol));
}

void trace_dump_cpu(struct trace_dumper *d, unsigned cpu,
		    const struct trace_rec *rec, uint32_t n, uint64_t dropped)
{
	for (uint32_t i = 0; i < n; i += TRACE_DUMP_PER_LINE) {
		uint32_t k = n - i < TRACE_DUMP_PER_LINE ? n - i
							 : TRACE_DUMP_PER_LINE;
		size_t bytes = k * sizeof *rec;
		int head = fmt_snprintf(d->line, sizeof d->line,
					"TRACE-DATA cpu=%u seq=%u n=%u crc=%08x ",
					cpu, rec[i].seq, k,
					crc32_ieee(0, &rec[i], bytes));
		base64_encode(d->line + head, sizeof d->line - (size_t)head,
			      &rec[i], bytes);
		emit(d);
	}
	emit_fields(d, "TRACE-CPU cpu=%u records=%u dropped=%llu", cpu, n,
		    (unsigned long long)dropped);
}

/* Where the part beginning at from ends: TRACE_DUMP_SUMMARY_CHUNK bytes on,
 * moved back over spaces so that no part ends in one (a terminal or an
 * editor may drop trailing spaces, and the CRC would fail). */
static size_t part_end(const char *text, size_t len, size_t from)
{
	if (len - from <= TRACE_DUMP_SUMMARY_CHUNK)
		return len;
	size_t end = from + TRACE_DUMP_SUMMARY_CHUNK;
	while (end > from + TRACE_DUMP_SUMMARY_CHUNK / 2 && text[end - 1] == ' ')
		end--;
	return end;
}

void trace_dump_summary(struct trace_dumper *d, const char *text, size_t len)
{
	size_t parts = 0;
	for (size_t at = 0; at < len; at = part_end(text, len, at))
		parts++;
	if (parts == 0)
		parts = 1;      /* an empty summary is still one (empty) part */
	size_t at = 0;
	for (size_t i = 0; i < parts; i++) {
		size_t end = part_end(text, len, at);
		fmt_snprintf(d->line, sizeof d->line, "TRACE-SUMMARY part=%zu "
			     "parts=%zu crc=%08x %.*s", i, parts,
			     crc32_ieee(0, text + at, end - at), (int)(end - at),
			     text + at);
		emit(d);
		at = end;
	}
}

void trace_dump_end(struct trace_dumper *d)
{
	emit_fields(d, "TRACE-END lines=%u", d->lines);
}
