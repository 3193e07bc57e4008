/* lib/hwblock: numbered, checked lines of the hardware report. */
#include "hwblock.h"

#include <stdarg.h>
#include <stddef.h>

#include "crc32.h"
#include "fmt.h"

void hwblock_begin(struct hwblock *b, void (*emit)(void *ctx, const char *line),
		   void *ctx)
{
	*b = (struct hwblock){ .emit = emit, .ctx = ctx };
	emit(ctx, "rtk-hw begin v1");
}

static void flush(struct hwblock *b)
{
	if (!b->len)
		return;
	char line[HWBLOCK_COLS + 2];
	unsigned nn = ++b->lines % 100;
	int n = fmt_snprintf(line, sizeof line, "%02u %s", nn, b->text);
	uint32_t check = crc32_ieee(0, line, (size_t)n) & 0xff;
	n = fmt_snprintf(line, sizeof line, "%02u %02x %s", nn,
			 (unsigned)check, b->text);
	b->crc = crc32_ieee(b->crc, line, (size_t)n);
	b->crc = crc32_ieee(b->crc, "\n", 1);
	b->emit(b->ctx, line);
	b->len = 0;
}

static void open_line(struct hwblock *b)
{
	b->len = b->key_len = (unsigned)fmt_snprintf(b->text, sizeof b->text,
						     "%s", b->key);
}

void hwblock_key(struct hwblock *b, const char *key)
{
	flush(b);
	fmt_snprintf(b->key, sizeof b->key, "%s", key);
	open_line(b);
}

void hwblock_add(struct hwblock *b, const char *format, ...)
{
	char tok[HWBLOCK_TEXT + 1];
	va_list ap;
	va_start(ap, format);
	int n = fmt_vsnprintf(tok, sizeof tok, format, ap);
	va_end(ap);
	if (!b->len)
		open_line(b);
	if (b->len + 1 + (unsigned)n > HWBLOCK_TEXT && b->len > b->key_len) {
		flush(b);
		open_line(b);
	}
	unsigned room = HWBLOCK_TEXT - b->len - 1;
	if ((unsigned)n > room) {
		tok[room - 1] = '~';
		tok[room] = 0;
	}
	b->len += (unsigned)fmt_snprintf(b->text + b->len,
					 sizeof b->text - b->len, " %s", tok);
}

void hwblock_end(struct hwblock *b)
{
	flush(b);
	char line[64];
	fmt_snprintf(line, sizeof line, "rtk-hw end lines=%u crc32=%08x",
		     b->lines, (unsigned)b->crc);
	b->emit(b->ctx, line);
}
