/* kernel/core/mb2: parse the multiboot2 boot information (spec 3.6). */
#include "mb2.h"

#include "../../lib/str.h"

/* Tag types, multiboot2 spec 3.6.2 onwards. */
#define TAG_END 0
#define TAG_CMDLINE 1
#define TAG_MODULE 3
#define TAG_MMAP 6
#define TAG_FRAMEBUFFER 8
#define TAG_EFI64 12
#define TAG_ACPI_OLD 14
#define TAG_ACPI_NEW 15
#define TAG_EFI_BS_NOT_TERMINATED 18

struct tag {
	uint32_t type, size;
};

static int is_program(const char *name)
{
	static const char prefix[] = MB2_PROGRAM_PREFIX;
	return str_eq_n(name, sizeof prefix - 1, prefix);
}

/* The string at s is terminated before end. */
static int terminated(const uint8_t *s, const uint8_t *end)
{
	for (; s < end; s++)
		if (!*s)
			return 1;
	return 0;
}

/*
 * The smallest size of each tag type with every field read here (spec
 * 3.6.3-3.6.16): a tag shorter than that is skipped, as is a string not
 * terminated inside its tag. The boot loader is trusted to tell the truth,
 * not to be free of bugs (tests/fuzz/targets/mb2.c).
 */
static uint32_t least_size(uint32_t type)
{
	switch (type) {
	case TAG_CMDLINE:
		return 9;               /* a NUL at least */
	case TAG_MODULE:
		return 17;              /* start, end, a NUL */
	case TAG_MMAP:
		return 16;              /* entry size and version */
	case TAG_FRAMEBUFFER:
		return 32;              /* up to the type; RGB needs 38 */
	case TAG_ACPI_OLD:
		return 8 + 20;          /* ACPI 6.4, 5.2.5.3: 20 bytes ... */
	case TAG_ACPI_NEW:
		return 8 + 36;          /* ... and 36 from revision 2 */
	default:
		return 8;
	}
}

/* One tag of at least least_size(type) bytes, [p, tend). */
static void read_tag(uint32_t type, const uint8_t *p, const uint8_t *tend,
		     struct mb2_info *out)
{
	switch (type) {
	case TAG_CMDLINE:
		if (terminated(p + 8, tend))
			out->cmdline = (const char *)(p + 8);
		break;
	case TAG_MODULE: {
		uint32_t start = *(const uint32_t *)(p + 8);
		uint32_t mend = *(const uint32_t *)(p + 12);
		const char *name = (const char *)(p + 16);
		if (mend < start || !terminated(p + 16, tend))
			break;
		if (out->nmods < MB2_MAX_MODULES)
			out->mods[out->nmods++] = (struct mb2_module){
				(const char *)(uint64_t)start,
				mend - start, name };
		/* An empty module (GRUB loads it at address 0) is still
		 * the task set, so its name decides, not its address. */
		if (!out->module_name && !is_program(name)) {
			out->module = (const char *)(uint64_t)start;
			out->module_len = mend - start;
			out->module_name = name;
		}
		break;
	}
	case TAG_MMAP: {
		/* Entries of 24 bytes at least (3.6.8): base, length,
		 * type, reserved; their size is a multiple of 8. */
		uint32_t esize = *(const uint32_t *)(p + 8);
		if (esize < 24 || esize % 8)
			break;
		for (const uint8_t *e = p + 16; esize <= (uint64_t)(tend - e) &&
		     out->nmmap < MB2_MAX_MMAP; e += esize) {
			struct mb2_mmap_entry *m = &out->mmap[out->nmmap++];
			m->base = *(const uint64_t *)e;
			m->length = *(const uint64_t *)(e + 8);
			m->type = *(const uint32_t *)(e + 16);
		}
		break;
	}
	case TAG_FRAMEBUFFER: {
		struct mb2_framebuffer *fb = &out->fb;
		fb->addr = *(const uint64_t *)(p + 8);
		fb->pitch = *(const uint32_t *)(p + 16);
		fb->width = *(const uint32_t *)(p + 20);
		fb->height = *(const uint32_t *)(p + 24);
		fb->bpp = p[28];
		fb->type = p[29];
		/* Direct RGB (3.6.12): the colour fields end at 38. */
		if (fb->type == 1 && tend - p < 38)
			fb->type = 0xff;
		if (fb->type == 1) {
			fb->red_pos = p[32];
			fb->red_size = p[33];
			fb->green_pos = p[34];
			fb->green_size = p[35];
			fb->blue_pos = p[36];
			fb->blue_size = p[37];
		}
		out->have_fb = 1;
		break;
	}
	case TAG_EFI64:
	case TAG_EFI_BS_NOT_TERMINATED:
		out->efi = 1;
		break;
	case TAG_ACPI_OLD:
		out->rsdp_v1 = p + 8;
		break;
	case TAG_ACPI_NEW:
		out->rsdp_v2 = p + 8;
		break;
	}
}

int mb2_parse(uint32_t magic, uint64_t info, struct mb2_info *out)
{
	if (magic != MB2_BOOT_MAGIC)
		return -1;
	uint32_t total = *(const uint32_t *)info;
	const uint8_t *p = (const uint8_t *)info + 8;
	const uint8_t *end = (const uint8_t *)info + total;
	/* A tag that runs past the block's end ends the walk: the block is
	 * damaged from there on. */
	while (total >= 8 && (uint64_t)(end - p) >= sizeof(struct tag)) {
		const struct tag *t = (const struct tag *)p;
		if (t->type == TAG_END || t->size < 8 ||
		    t->size > (uint64_t)(end - p))
			break;
		if (t->size >= least_size(t->type))
			read_tag(t->type, p, p + t->size, out);
		uint64_t step = ((uint64_t)t->size + 7) & ~7ull;
		if (step >= (uint64_t)(end - p))
			break;
		p += step;
	}
	return 0;
}
