/* drivers/fb/vgacon: VGA text mode, 80x25 cells of (character, attribute). */
#include "vgacon.h"

#include <stdint.h>

#define VGA_TEXT 0xb8000        /* colour text buffer (IBM VGA reference) */
#define COLS 80
#define ROWS 25
#define ATTR 0x07               /* light grey on black */

static volatile uint16_t *const screen = (volatile uint16_t *)VGA_TEXT;
static unsigned x, y;
static int active;

void vgacon_init(void)
{
	for (unsigned i = 0; i < COLS * ROWS; i++)
		screen[i] = ATTR << 8 | ' ';
	x = y = 0;
	active = 1;
}

static void newline(void)
{
	x = 0;
	if (++y < ROWS)
		return;
	for (unsigned i = 0; i < COLS * (ROWS - 1); i++)
		screen[i] = screen[i + COLS];
	for (unsigned i = COLS * (ROWS - 1); i < COLS * ROWS; i++)
		screen[i] = ATTR << 8 | ' ';
	y = ROWS - 1;
}

void vgacon_write(const char *s, size_t n)
{
	if (!active)
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			newline();
		} else if (c == '\r') {
			x = 0;
		} else {
			if (x == COLS)
				newline();
			uint8_t ch = (c >= 32 && c < 127) ? (uint8_t)c : '?';
			screen[y * COLS + x++] = (uint16_t)(ATTR << 8 | ch);
		}
	}
}
