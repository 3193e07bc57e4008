/*
 * Fuzz target `mb2`: kernel/core/mb2.c, the multiboot2 boot information
 * (multiboot2 spec 3.6), built on the host as it is (it needs only
 * lib/str.h). The input is the information block; its total_size field is
 * set to the input's length (the boot loader's own count, which the
 * kernel's memory map also relies on). What mb2_parse hands on must lie in
 * the tag it came from, as an independent walk of the tags here finds
 * them: the command line and module names terminated inside their tags,
 * the RSDP copies whole inside theirs, module lengths that do not wrap;
 * and it must find the memory map entries, framebuffer and EFI tags the
 * walk finds.
 */
#include "../../../kernel/core/mb2.h"
#include "../fuzz.h"

/* The tag holding address p, as [start, end), by the spec's layout: tags
 * from offset 8, each type (4 bytes), size (4 bytes, at least 8), padded to
 * 8 bytes; type 0 ends the list. 0 when p lies in none. */
static int tag_of(const uint8_t *info, size_t total, const void *p,
		  const uint8_t **start, const uint8_t **end)
{
	size_t off = 8;
	while (off + 8 <= total) {
		uint32_t type, size;
		memcpy(&type, info + off, 4);
		memcpy(&size, info + off + 4, 4);
		if (type == 0 || size < 8)
			return 0;
		size_t stop = size > total - off ? total : off + size;
		if ((const uint8_t *)p >= info + off &&
		    (const uint8_t *)p < info + stop) {
			*start = info + off;
			*end = info + stop;
			return 1;
		}
		off += ((size_t)size + 7) & ~(size_t)7;
	}
	return 0;
}

/* What the tags promise by the spec: memory map entries (tags of type 6
 * whose entries are 24 bytes or more, a multiple of 8, counted whole inside
 * the tag, 64 at most), whether a framebuffer tag (type 8, 32 bytes or
 * more) and an EFI tag (12 or 18) are there. A tag running past the end
 * ends the walk. */
struct expect {
	unsigned nmmap;
	int have_fb, efi;
	int fb_rgb;     /* the last framebuffer tag is direct RGB (type 1)
			 * with its colour fields, 38 bytes */
};

static struct expect expected(const uint8_t *info, size_t total)
{
	struct expect x = { 0, 0, 0, 0 };
	size_t off = 8;
	while (off + 8 <= total) {
		uint32_t type, size, esize = 0;
		memcpy(&type, info + off, 4);
		memcpy(&size, info + off + 4, 4);
		if (type == 0 || size < 8 || size > total - off)
			break;
		if (type == 6 && size >= 16)
			memcpy(&esize, info + off + 8, 4);
		if (esize >= 24 && esize % 8 == 0)
			for (size_t e = 16; e + esize <= size && x.nmmap < 64;
			     e += esize)
				x.nmmap++;
		if (type == 8 && size >= 32) {
			x.have_fb = 1;
			x.fb_rgb = info[off + 29] == 1 && size >= 38;
		}
		x.efi |= type == 12 || type == 18;
		off += ((size_t)size + 7) & ~(size_t)7;
	}
	return x;
}

static void check_string(const uint8_t *info, size_t total, const char *s,
			 const char *what)
{
	const uint8_t *start, *end;
	FUZZ_CHECK(tag_of(info, total, s, &start, &end), "%s outside every tag",
		   what);
	FUZZ_CHECK(memchr(s, 0, (size_t)(end - (const uint8_t *)s)),
		   "%s not terminated inside its tag", what);
}

static void check_bytes(const uint8_t *info, size_t total, const void *p,
			size_t n, const char *what)
{
	const uint8_t *start, *end;
	FUZZ_CHECK(tag_of(info, total, p, &start, &end), "%s outside every tag",
		   what);
	FUZZ_CHECK((size_t)(end - (const uint8_t *)p) >= n,
		   "%s: %zu bytes of a tag that has %td", what, n,
		   end - (const uint8_t *)p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8 || size > UINT32_MAX)
		return 0;
	uint8_t *info = malloc(size);
	memcpy(info, data, size);
	uint32_t total = (uint32_t)size;
	memcpy(info, &total, 4);
	struct mb2_info out;
	memset(&out, 0, sizeof out);
	int rc = mb2_parse(MB2_BOOT_MAGIC, (uint64_t)(uintptr_t)info, &out);
	FUZZ_CHECK(rc == 0, "rc %d", rc);
	FUZZ_CHECK(mb2_parse(0x2badb002, (uint64_t)(uintptr_t)info, &out) == -1,
		   "multiboot 1's magic taken");
	struct expect x = expected(info, size);
	FUZZ_CHECK(out.nmmap == x.nmmap && out.have_fb == x.have_fb &&
		   out.efi == x.efi, "%u memory map entries, framebuffer %d, "
		   "EFI %d; the tags have %u, %d, %d", out.nmmap, out.have_fb,
		   out.efi, x.nmmap, x.have_fb, x.efi);
	FUZZ_CHECK(!out.have_fb || (out.fb.type == 1) == x.fb_rgb,
		   "framebuffer type %u, the last tag %s direct RGB whole",
		   out.fb.type, x.fb_rgb ? "has" : "has no");
	if (out.cmdline)
		check_string(info, size, out.cmdline, "the command line");
	FUZZ_CHECK(out.nmods <= MB2_MAX_MODULES && out.nmmap <= MB2_MAX_MMAP,
		   "%u modules, %u memory map entries", out.nmods, out.nmmap);
	for (unsigned i = 0; i < out.nmods; i++) {
		const struct mb2_module *m = &out.mods[i];
		check_string(info, size, m->name, "a module's name");
		FUZZ_CHECK((uintptr_t)m->start + m->len >= (uintptr_t)m->start &&
			   m->len <= UINT32_MAX, "module %u: %zu bytes from %p",
			   i, m->len, (const void *)m->start);
	}
	if (out.module_name)
		check_string(info, size, out.module_name, "the task set's name");
	/* ACPI 6.4, 5.2.5.3: the RSDP is 20 bytes, 36 from revision 2. */
	if (out.rsdp_v1)
		check_bytes(info, size, out.rsdp_v1, 20, "the old RSDP");
	if (out.rsdp_v2)
		check_bytes(info, size, out.rsdp_v2, 36, "the new RSDP");
	free(info);
	return 0;
}
