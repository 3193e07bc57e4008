/*
 * lib/hwblock: the hardware report's block (docs/formats.md, "The hardware
 * report"): short numbered lines, each with a check of its own, between a
 * begin line and an end line that carries the line count and a CRC-32 of
 * the lines, so that a block copied by hand or from a photograph of the
 * screen can be verified (tools/rtk-hwreport) and a damaged line named.
 *
 *   rtk-hw begin v1
 *   01 c4 cpu vendor=GenuineIntel family=6 model=85 stepping=4
 *   ...
 *   rtk-hw end lines=14 crc32=0a1b2c3d
 *
 * A line is "NN XX KEY TOKEN...": NN its number (01, 02, ...; modulo 100),
 * XX the low byte of the CRC-32 of "NN KEY TOKEN..." in hex; a key may
 * continue on the next lines, which repeat it. The end's crc32 covers every
 * numbered line as printed, each followed by a newline.
 */
#ifndef LIB_HWBLOCK_H
#define LIB_HWBLOCK_H

#include <stdint.h>

/* The widest line, number and check included: the framebuffer console
 * shows 66 columns at 800x600 (drivers/fb/fbcon.c), VGA text 80. */
#define HWBLOCK_COLS 64
#define HWBLOCK_PREFIX 6                /* "NN XX " */
#define HWBLOCK_TEXT (HWBLOCK_COLS - HWBLOCK_PREFIX)
#define HWBLOCK_KEY 15

struct hwblock {
	void (*emit)(void *ctx, const char *line);      /* without newline */
	void *ctx;
	char key[HWBLOCK_KEY + 1];
	char text[HWBLOCK_TEXT + 1];
	unsigned len;           /* of text; 0: no line open */
	unsigned key_len;       /* text holds no token while len == key_len */
	unsigned lines;
	uint32_t crc;
};

/* Emits the begin line. */
void hwblock_begin(struct hwblock *b, void (*emit)(void *ctx, const char *line),
		   void *ctx);
/* Ends the open line and opens one for key. */
void hwblock_key(struct hwblock *b, const char *key);
/* Appends one token (no spaces in it) to the open line, or to a new line
 * of the same key when it does not fit; a token longer than a line is cut
 * to fit and ends in '~'. */
void hwblock_add(struct hwblock *b, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* Ends the open line and emits the end line. */
void hwblock_end(struct hwblock *b);

#endif
