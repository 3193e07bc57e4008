/*
 * Host test of the framebuffer console: renders into memory and checks the
 * pixels against the font, in every supported depth, including scrolling.
 * The driver is hardware-free apart from the framebuffer pointer, so it is
 * compiled here directly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../drivers/fb/fbcon.c"
#include "../../../drivers/fb/font.c"
#include "../../../drivers/fb/textgrid.c"

#include "unit.h"

static uint32_t get_pixel(const struct fbcon_mode *m, unsigned x, unsigned y)
{
	const uint8_t *row = (const uint8_t *)m->base + (uint64_t)y * m->pitch;
	if (m->bpp == 32)
		return ((const uint32_t *)row)[x];
	if (m->bpp == 24)
		return row[3 * x] | row[3 * x + 1] << 8 | (uint32_t)row[3 * x + 2] << 16;
	return ((const uint16_t *)row)[x];
}

/* Checks that text cell (cx, cy) shows character c. */
static int cell_shows(const struct fbcon_mode *m, unsigned cx, unsigned cy,
		      char c)
{
	unsigned idx = (unsigned char)c - FONT_FIRST;
	for (unsigned r = 0; r < CELL_ROWS * con.scale; r++)
		for (unsigned k = 0; k < CELL_COLS * con.scale; k++) {
			unsigned gr = r / con.scale, gk = k / con.scale;
			int ink = gr >= 1 && gr <= FONT_ROWS && gk < FONT_COLS &&
				  font_5x7[idx][gr - 1][gk] == '#';
			uint32_t px = get_pixel(m, cx * con.cell_w + k,
						cy * con.cell_h + r);
			if ((px != 0) != ink)
				return 0;
		}
	return 1;
}

static void test_depth(uint8_t bpp, uint32_t width, uint32_t height)
{
	struct fbcon_mode m = { 0 };
	m.bpp = bpp;
	m.width = width;
	m.height = height;
	m.pitch = width * (bpp / 8) + 16; /* padded lines, as firmware does */
	if (bpp == 16) {
		m.red_pos = 11; m.red_size = 5; m.green_pos = 5; m.green_size = 6;
		m.blue_size = 5;
	} else {
		m.red_pos = 16; m.red_size = 8; m.green_pos = 8; m.green_size = 8;
		m.blue_size = 8;
	}
	uint8_t *mem = malloc((size_t)m.pitch * height);
	memset(mem, 0x55, (size_t)m.pitch * height);
	m.base = mem;
	EXPECT(fbcon_init(&m) == 0, "init %u bpp", bpp);
	unsigned cols, rows;
	fbcon_size(&cols, &rows);
	EXPECT(cols == width / con.cell_w && rows == height / con.cell_h,
	       "geometry %ux%u", cols, rows);
	EXPECT(get_pixel(&m, width - 1, height - 1) == 0, "screen cleared");

	fbcon_write("RESULT exit status=pass\n", 24);
	const char *want = "RESULT exit status=pass";
	for (unsigned i = 0; want[i]; i++)
		EXPECT(cell_shows(&m, i, 0, want[i]), "%u bpp: cell %u is not '%c'",
		       bpp, i, want[i]);

	/* Write rows more lines: two scroll away (the RESULT line and L1). */
	char line[16];
	for (unsigned i = 1; i <= rows; i++) {
		int n = snprintf(line, sizeof line, "L%u\n", i);
		fbcon_write(line, (size_t)n);
	}
	EXPECT(cell_shows(&m, 0, 0, 'L') && cell_shows(&m, 1, 0, '2') &&
	       cell_shows(&m, 2, 0, ' '),
	       "%u bpp: after scrolling the top line is L2", bpp);
	snprintf(line, sizeof line, "%u", rows);
	EXPECT(cell_shows(&m, 1, rows - 2, line[0]),
	       "%u bpp: the last written line is second from the bottom", bpp);
	EXPECT(cell_shows(&m, 0, rows - 1, ' '), "%u bpp: bottom line blank", bpp);

	/* A long line wraps; a tab goes to the next multiple of eight. */
	fbcon_write("\tX", 2);
	EXPECT(cell_shows(&m, 8, rows - 1, 'X'), "%u bpp: tab stop", bpp);
	free(mem);
}

static void test_font_complete(void)
{
	for (unsigned g = 0; g < FONT_GLYPHS; g++) {
		int ink = 0;
		for (unsigned r = 0; r < FONT_ROWS; r++) {
			EXPECT(strlen(font_5x7[g][r]) == FONT_COLS, "glyph %u row %u", g, r);
			for (unsigned k = 0; k < FONT_COLS; k++) {
				char c = font_5x7[g][r][k];
				EXPECT(c == '.' || c == '#', "glyph %u has '%c'", g, c);
				ink += c == '#';
			}
		}
		EXPECT((ink == 0) == (g == 0), "only space is blank (glyph %u)", g);
	}
	/* Every pair of printable characters is distinguishable. */
	for (unsigned a = 0; a < FONT_GLYPHS; a++)
		for (unsigned b = a + 1; b < FONT_GLYPHS; b++)
			EXPECT(memcmp(font_5x7[a], font_5x7[b], sizeof font_5x7[a]),
			       "'%c' and '%c' look the same", a + 32, b + 32);
}

static void test_rejects(void)
{
	struct fbcon_mode m = { 0 };
	uint32_t mem[64];
	m.base = mem;
	m.bpp = 8; /* indexed colour */
	m.width = 640; m.height = 480; m.pitch = 640;
	EXPECT(fbcon_init(&m) == -1, "8 bpp refused");
	m.bpp = 32; m.pitch = 100; /* pitch shorter than a line */
	m.red_size = m.green_size = m.blue_size = 8;
	EXPECT(fbcon_init(&m) == -1, "short pitch refused");
	fbcon_write("x", 1); /* inactive: must not touch memory */
}

int main(void)
{
	test_font_complete();
	test_rejects();
	test_depth(32, 1024, 768);
	test_depth(24, 800, 600);
	test_depth(16, 640, 480);
	test_depth(32, 1920, 1080);
	return unit_exit_status();
}
