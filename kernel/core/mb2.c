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

int mb2_parse(uint32_t magic, uint64_t info, struct mb2_info *out)
{
	if (magic != MB2_BOOT_MAGIC)
		return -1;
	uint32_t total = *(const uint32_t *)info;
	const uint8_t *p = (const uint8_t *)info + 8;
	const uint8_t *end = (const uint8_t *)info + total;
	while (p + sizeof(struct tag) <= end) {
		const struct tag *t = (const struct tag *)p;
		if (t->type == TAG_END || t->size < 8)
			break;
		switch (t->type) {
		case TAG_CMDLINE:
			out->cmdline = (const char *)(p + 8);
			break;
		case TAG_MODULE: {
			uint32_t start = *(const uint32_t *)(p + 8);
			uint32_t mend = *(const uint32_t *)(p + 12);
			const char *name = (const char *)(p + 16);
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
			uint32_t esize = *(const uint32_t *)(p + 8);
			for (const uint8_t *e = p + 16; e + esize <= p + t->size &&
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
		p += (t->size + 7) & ~7u;
	}
	return 0;
}
