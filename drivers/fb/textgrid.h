/*
 * drivers/fb/textgrid: the cursor of a text console -- newline, carriage
 * return, tab stops every 8 columns, wrapping and scrolling -- for the
 * framebuffer and VGA text consoles, which only draw a cell and scroll.
 */
#ifndef DRIVERS_FB_TEXTGRID_H
#define DRIVERS_FB_TEXTGRID_H

#include <stddef.h>

struct textgrid {
	unsigned cols, rows;
	unsigned x, y;                          /* cursor, in cells */
	void (*put)(unsigned x, unsigned y, char c);
	void (*scroll)(void);                   /* up one row, last cleared */
};

void textgrid_write(struct textgrid *g, const char *s, size_t n);

#endif
