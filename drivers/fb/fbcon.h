/*
 * drivers/fb/fbcon: a text console on a linear framebuffer (the multiboot2
 * framebuffer tag, type 8), so that a machine without a serial port -- or a
 * UEFI one, which has no VGA text mode -- still shows the results.
 */
#ifndef DRIVERS_FB_FBCON_H
#define DRIVERS_FB_FBCON_H

#include <stddef.h>
#include <stdint.h>

struct fbcon_mode {
	volatile void *base;   /* the framebuffer, mapped writable */
	uint32_t pitch;        /* bytes per scan line */
	uint32_t width, height; /* pixels */
	uint8_t bpp;           /* 16, 24 or 32 */
	/* Direct-RGB channel layout (multiboot2 spec 3.6.12, type 1). */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/*
 * Takes over the framebuffer and clears it. Returns 0, or -1 when the mode
 * cannot be used (indexed colour, an unsupported depth, a tiny screen); the
 * console then stays serial-only.
 */
int fbcon_init(const struct fbcon_mode *mode);

/* Appends text; '\n' starts a line and scrolls at the bottom. The caller
 * serialises calls (the kernel's console lock). No-op before fbcon_init. */
void fbcon_write(const char *s, size_t n);

/* Text geometry in characters, 0 x 0 when inactive. */
void fbcon_size(unsigned *cols, unsigned *rows);

#endif
