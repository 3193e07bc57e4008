/* drivers/fb/font: the built-in 5x7 console font (printable ASCII). */
#ifndef DRIVERS_FB_FONT_H
#define DRIVERS_FB_FONT_H

#define FONT_FIRST 32   /* ' ' */
#define FONT_GLYPHS 95  /* ' ' .. '~' */
#define FONT_ROWS 7
#define FONT_COLS 5

/* font_5x7[c - FONT_FIRST][row] is a string of FONT_COLS '.' or '#'. */
extern const char font_5x7[FONT_GLYPHS][FONT_ROWS][FONT_COLS + 1];

#endif
