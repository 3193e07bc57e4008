/* drivers/fb/vgacon: the console on a PC's VGA text mode (80x25 at
 * 0xB8000), for BIOS machines where the loader gave no framebuffer. */
#ifndef DRIVERS_FB_VGACON_H
#define DRIVERS_FB_VGACON_H

#include <stddef.h>

void vgacon_init(void);
void vgacon_write(const char *s, size_t n);

#endif
