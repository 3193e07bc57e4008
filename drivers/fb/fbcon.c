/* drivers/fb/fbcon: a text console on a linear framebuffer. */
#include "fbcon.h"

#include "font.h"
#include "textgrid.h"

/* A glyph of the 5x7 font sits in a cell one column and two rows larger,
 * scaled by an integer factor so text stays legible on large screens. */
#define CELL_COLS (FONT_COLS + 1)
#define CELL_ROWS (FONT_ROWS + 2)

static struct {
	int active;
	struct fbcon_mode m;
	unsigned scale, cell_w, cell_h;
	unsigned cols, rows;
	struct textgrid grid;
	uint32_t fg, bg;        /* pixel values in the mode's layout */
} con;

static uint32_t channel(unsigned value8, unsigned pos, unsigned size)
{
	if (size == 0)
		return 0;
	uint32_t v = size >= 8 ? value8 << (size - 8) : value8 >> (8 - size);
	return v << pos;
}

static uint32_t rgb(unsigned r, unsigned g, unsigned b)
{
	return channel(r, con.m.red_pos, con.m.red_size) |
	       channel(g, con.m.green_pos, con.m.green_size) |
	       channel(b, con.m.blue_pos, con.m.blue_size);
}

static void put_pixel(unsigned x, unsigned y, uint32_t v)
{
	volatile uint8_t *row = (volatile uint8_t *)con.m.base +
				(uint64_t)y * con.m.pitch;
	switch (con.m.bpp) {
	case 32:
		((volatile uint32_t *)row)[x] = v;
		break;
	case 24:
		row[3 * x] = (uint8_t)v;
		row[3 * x + 1] = (uint8_t)(v >> 8);
		row[3 * x + 2] = (uint8_t)(v >> 16);
		break;
	default:
		((volatile uint16_t *)row)[x] = (uint16_t)v;
		break;
	}
}

static void fill(unsigned x0, unsigned y0, unsigned w, unsigned h, uint32_t v)
{
	for (unsigned y = y0; y < y0 + h; y++)
		for (unsigned x = x0; x < x0 + w; x++)
			put_pixel(x, y, v);
}

static void draw_char(unsigned cx, unsigned cy, char c)
{
	unsigned idx = (unsigned char)c - FONT_FIRST;
	if (idx >= FONT_GLYPHS)
		idx = '?' - FONT_FIRST;
	unsigned x0 = cx * con.cell_w, y0 = cy * con.cell_h;
	fill(x0, y0, con.cell_w, con.cell_h, con.bg);
	for (unsigned r = 0; r < FONT_ROWS; r++)
		for (unsigned k = 0; k < FONT_COLS; k++)
			if (font_5x7[idx][r][k] == '#')
				fill(x0 + k * con.scale, y0 + (r + 1) * con.scale,
				     con.scale, con.scale, con.fg);
}

/* Moves every text line up by one and clears the last. */
static void scroll(void)
{
	uint64_t line_bytes = (uint64_t)con.m.pitch * con.cell_h;
	uint64_t total = line_bytes * (con.rows - 1);
	volatile uint8_t *base = con.m.base;
	if (con.m.pitch % 8 == 0) {
		volatile uint64_t *dst = (volatile uint64_t *)base;
		volatile uint64_t *src = (volatile uint64_t *)(base + line_bytes);
		for (uint64_t i = 0; i < total / 8; i++)
			dst[i] = src[i];
	} else {
		for (uint64_t i = 0; i < total; i++)
			base[i] = base[i + line_bytes];
	}
	fill(0, (con.rows - 1) * con.cell_h, con.cols * con.cell_w, con.cell_h,
	     con.bg);
}

int fbcon_init(const struct fbcon_mode *mode)
{
	con.active = 0;
	if (!mode->base || (mode->bpp != 16 && mode->bpp != 24 && mode->bpp != 32))
		return -1;
	if (mode->red_size == 0 && mode->green_size == 0 && mode->blue_size == 0)
		return -1;
	if ((uint64_t)mode->width * (mode->bpp / 8) > mode->pitch)
		return -1;
	con.m = *mode;
	con.scale = mode->width >= 1600 ? 3 : mode->width >= 800 ? 2 : 1;
	con.cell_w = CELL_COLS * con.scale;
	con.cell_h = CELL_ROWS * con.scale;
	con.cols = mode->width / con.cell_w;
	con.rows = mode->height / con.cell_h;
	if (con.cols < 20 || con.rows < 5)
		return -1;
	con.fg = rgb(0xd0, 0xd0, 0xd0);
	con.bg = rgb(0, 0, 0);
	con.grid = (struct textgrid){ .cols = con.cols, .rows = con.rows,
				      .put = draw_char, .scroll = scroll };
	fill(0, 0, mode->width, mode->height, con.bg);
	con.active = 1;
	return 0;
}

void fbcon_write(const char *s, size_t n)
{
	if (con.active)
		textgrid_write(&con.grid, s, n);
}

void fbcon_size(unsigned *cols, unsigned *rows)
{
	*cols = con.active ? con.cols : 0;
	*rows = con.active ? con.rows : 0;
}
