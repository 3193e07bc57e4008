/* drivers/fb/textgrid: a text console's cursor (see textgrid.h). */
#include "textgrid.h"

#define TAB_STOP 8

static void newline(struct textgrid *g)
{
	g->x = 0;
	if (g->y + 1 < g->rows)
		g->y++;
	else
		g->scroll();
}

static void put(struct textgrid *g, char c)
{
	if (g->x == g->cols)
		newline(g);
	g->put(g->x++, g->y, c);
}

void textgrid_write(struct textgrid *g, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			newline(g);
		} else if (c == '\r') {
			g->x = 0;
		} else if (c == '\t') {
			do
				put(g, ' ');
			while (g->x % TAB_STOP != 0);
		} else {
			put(g, c);
		}
	}
}
