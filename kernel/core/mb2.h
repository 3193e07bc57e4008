/* kernel/core/mb2: what GRUB hands over (multiboot2 spec 3.6). */
#ifndef KERNEL_MB2_H
#define KERNEL_MB2_H

#include <stddef.h>
#include <stdint.h>

#define MB2_BOOT_MAGIC 0x36d76289   /* multiboot2 spec 3.3 */
#define MB2_MAX_MMAP 64
#define MB2_MAX_MODULES 32
/* A module whose string starts so is a ring-3 program, "user:NAME"
 * (scripts/mkiso.sh); the task set is the first module that is not. */
#define MB2_PROGRAM_PREFIX "user:"

struct mb2_module {
	const char *start;
	size_t len;
	const char *name;               /* the module's string */
};

struct mb2_mmap_entry {
	uint64_t base, length;
	uint32_t type;                  /* 1: available RAM */
};

struct mb2_framebuffer {
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, type;              /* type 1: direct RGB */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct mb2_info {
	const char *cmdline;
	const void *rsdp_v1, *rsdp_v2;  /* copies inside the info block */
	struct mb2_mmap_entry mmap[MB2_MAX_MMAP];
	unsigned nmmap;
	struct mb2_framebuffer fb;
	int have_fb;
	/* The first module: the task-set file. GRUB loads an empty file at
	 * address 0, so module_name (set for any module) tells whether one
	 * was given; module is then NULL and module_len 0. */
	const char *module;
	size_t module_len;
	const char *module_name;
	struct mb2_module mods[MB2_MAX_MODULES];   /* every module */
	unsigned nmods;
	int efi;                        /* booted through UEFI */
};

/* Parses the boot information at physical address info (identity mapped).
 * Returns -1 when magic is not multiboot2's. */
int mb2_parse(uint32_t magic, uint64_t info, struct mb2_info *out);

#endif
