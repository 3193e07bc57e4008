/* drivers/fb/vgacon: VGA text mode, 80x25 cells of (character, attribute). */
#include "vgacon.h"

#include <stdint.h>

#include "textgrid.h"

#define VGA_TEXT 0xb8000        /* colour text buffer (IBM VGA reference) */
#define COLS 80
#define ROWS 25
#define ATTR 0x07               /* light grey on black */
#define BLANK (ATTR << 8 | ' ')

static volatile uint16_t *const screen = (volatile uint16_t *)VGA_TEXT;
static int active;

static void put(unsigned x, unsigned y, char c)
{
	uint8_t ch = (c >= 32 && c < 127) ? (uint8_t)c : '?';
	screen[y * COLS + x] = (uint16_t)(ATTR << 8 | ch);
}

static void scroll(void)
{
	for (unsigned i = 0; i < COLS * (ROWS - 1); i++)
		screen[i] = screen[i + COLS];
	for (unsigned i = COLS * (ROWS - 1); i < COLS * ROWS; i++)
		screen[i] = BLANK;
}

static struct textgrid grid = { .cols = COLS, .rows = ROWS, .put = put,
				.scroll = scroll };

void vgacon_init(void)
{
	for (unsigned i = 0; i < COLS * ROWS; i++)
		screen[i] = BLANK;
	grid.x = grid.y = 0;
	active = 1;
}

void vgacon_write(const char *s, size_t n)
{
	if (active)
		textgrid_write(&grid, s, n);
}
