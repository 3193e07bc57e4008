/*
 * Fuzz target `elf64`: lib/elf64, the check of a ring-3 program (a
 * multiboot2 module) before the kernel maps it. A refused file says
 * "NAME: why" and yields no segment; an accepted one yields what the
 * loader may trust (lib/elf64.h): 1 to ELF64_MAX_SEGMENTS non-empty
 * segments whose file bytes lie in the file, inside the user range, in
 * ascending order without sharing a page, never writable and executable,
 * and an entry point in the file bytes of an executable segment.
 */
#include "../../../lib/elf64.h"
#include "../../../lib/rt_abi.h"
#include "../fuzz.h"

#define PAGE 4096ull

static void check_image(const struct elf64_image *img, size_t size)
{
	FUZZ_CHECK(img->nsegs >= 1 && img->nsegs <= ELF64_MAX_SEGMENTS,
		   "%u segments", img->nsegs);
	int entry_ok = 0;
	for (unsigned i = 0; i < img->nsegs; i++) {
		const struct elf64_segment *s = &img->seg[i];
		FUZZ_CHECK(s->memsz > 0 && s->filesz <= s->memsz,
			   "segment %u: filesz %llu, memsz %llu", i,
			   (unsigned long long)s->filesz,
			   (unsigned long long)s->memsz);
		FUZZ_CHECK(s->offset <= size && s->filesz <= size - s->offset,
			   "segment %u: file bytes %llu+%llu of %zu", i,
			   (unsigned long long)s->offset,
			   (unsigned long long)s->filesz, size);
		FUZZ_CHECK(s->vaddr >= RT_USER_BASE && s->vaddr < RT_WS_BASE &&
			   s->memsz <= RT_WS_BASE - s->vaddr,
			   "segment %u at %#llx+%#llx", i,
			   (unsigned long long)s->vaddr,
			   (unsigned long long)s->memsz);
		FUZZ_CHECK(s->vaddr % PAGE == s->offset % PAGE,
			   "segment %u: vaddr and offset differ in the page", i);
		FUZZ_CHECK(!((s->flags & ELF64_PF_W) && (s->flags & ELF64_PF_X)),
			   "segment %u is writable and executable", i);
		if (i > 0) {
			const struct elf64_segment *b = &img->seg[i - 1];
			uint64_t last_page = (b->vaddr + b->memsz - 1) / PAGE;
			FUZZ_CHECK(s->vaddr / PAGE > last_page,
				   "segment %u shares a page with %u", i, i - 1);
		}
		if ((s->flags & ELF64_PF_X) && img->entry >= s->vaddr &&
		    img->entry - s->vaddr < s->filesz)
			entry_ok = 1;
	}
	FUZZ_CHECK(entry_ok, "entry %#llx in no executable file bytes",
		   (unsigned long long)img->entry);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf64_image img;
	memset(&img, 0x55, sizeof img);
	char err[200];
	memset(err, 0x55, sizeof err);
	int rc = elf64_parse("fuzz", data, size, &img, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && img.nsegs == 0, "refused with rc %d, %u "
			   "segments", rc, img.nsegs);
		FUZZ_CHECK(fuzz_terminated(err, sizeof err) &&
			   !strncmp(err, "fuzz: ", 6), "message '%.40s'", err);
		return 0;
	}
	check_image(&img, size);
	return 0;
}
