/*
 * lib/elf64: the ELF64 checks of a ring-3 program. Field offsets and values
 * are those of the System V gABI (chapter 4, "ELF Header" and "Program
 * Header") and the x86-64 psABI (EM_X86_64). The file is read byte by byte
 * in little-endian order, so its alignment does not matter.
 */
#include "elf64.h"

#include <stdarg.h>

#include "fmt.h"
#include "rt_abi.h"

#define EHDR_SIZE 64
#define PHDR_SIZE 56
#define PAGE 4096u

/* e_ident */
#define EI_CLASS 4
#define EI_DATA 5
#define EI_VERSION 6
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define EV_CURRENT 1

#define ET_REL 1
#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62

#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_NOTE 4
#define PT_TLS 7
#define PT_GNU_STACK 0x6474e551u /* Linux Standard Base, "Program Header" */

struct reader {
	const uint8_t *file;
	const char *name;
	char *err;
	size_t errlen;
};

static uint64_t rd(const struct reader *r, uint64_t at, unsigned bytes)
{
	uint64_t v = 0;
	while (bytes--)
		v = v << 8 | r->file[at + bytes];
	return v;
}

__attribute__((format(printf, 2, 3)))
static int fail(const struct reader *r, const char *format, ...)
{
	int n = fmt_snprintf(r->err, r->errlen, "%s: ", r->name);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_list ap;
		va_start(ap, format);
		fmt_vsnprintf(r->err + n, r->errlen - (size_t)n, format, ap);
		va_end(ap);
	}
	return -1;
}

static int check_ident(const struct reader *r, size_t len)
{
	static const uint8_t magic[4] = { 0x7f, 'E', 'L', 'F' };
	const uint8_t *f = r->file;
	if (len < EHDR_SIZE)
		return fail(r, "%zu bytes, shorter than an ELF64 header (%d)",
			    len, EHDR_SIZE);
	for (int i = 0; i < 4; i++)
		if (f[i] != magic[i])
			return fail(r, "not an ELF file: it starts with %02x %02x "
				    "%02x %02x, not 7f 45 4c 46",
				    f[0], f[1], f[2], f[3]);
	if (f[EI_CLASS] != ELFCLASS64)
		return fail(r, "ELF class %u, not ELFCLASS64 (2): not a 64-bit "
			    "program", f[EI_CLASS]);
	if (f[EI_DATA] != ELFDATA2LSB)
		return fail(r, "ELF data encoding %u, not ELFDATA2LSB (1): not "
			    "little-endian", f[EI_DATA]);
	if (f[EI_VERSION] != EV_CURRENT)
		return fail(r, "ELF identification version %u, not EV_CURRENT "
			    "(1)", f[EI_VERSION]);
	return 0;
}

static int check_header(const struct reader *r, size_t len)
{
	unsigned type = (unsigned)rd(r, 16, 2);
	if (type != ET_EXEC)
		return fail(r, "ELF type %u (%s), not ET_EXEC (2): link the "
			    "program -static -no-pie", type,
			    type == ET_DYN ? "ET_DYN, position-independent" :
			    type == ET_REL ? "ET_REL, an object file" :
			    "not an executable");
	unsigned machine = (unsigned)rd(r, 18, 2);
	if (machine != EM_X86_64)
		return fail(r, "machine %u, not EM_X86_64 (62)", machine);
	uint64_t version = rd(r, 20, 4);
	if (version != EV_CURRENT)
		return fail(r, "ELF version %llu, not EV_CURRENT (1)",
			    (unsigned long long)version);
	unsigned ehsize = (unsigned)rd(r, 52, 2);
	if (ehsize != EHDR_SIZE)
		return fail(r, "ELF header size %u, not %d", ehsize, EHDR_SIZE);
	unsigned phentsize = (unsigned)rd(r, 54, 2);
	if (phentsize != PHDR_SIZE)
		return fail(r, "program header entry size %u, not %d",
			    phentsize, PHDR_SIZE);
	unsigned phnum = (unsigned)rd(r, 56, 2);
	if (phnum == 0)
		return fail(r, "no program headers");
	uint64_t phoff = rd(r, 32, 8);
	if (phoff > len || (uint64_t)phnum * PHDR_SIZE > len - phoff)
		return fail(r, "the program header table (offset 0x%llx, %u "
			    "entries of %d bytes) runs past the end of the file "
			    "(%zu bytes)", (unsigned long long)phoff, phnum,
			    PHDR_SIZE, len);
	return 0;
}

static uint64_t page_down(uint64_t a)
{
	return a & ~(uint64_t)(PAGE - 1);
}

/* The first page boundary at or after a (a is below RT_WS_BASE here). */
static uint64_t page_up(uint64_t a)
{
	return page_down(a + PAGE - 1);
}

/* One PT_LOAD header (number i) against the file, the program area and the
 * segments before it. */
static int check_load(const struct reader *r, size_t len, unsigned i,
		      const struct elf64_segment *s,
		      const struct elf64_segment *prev, unsigned prev_i)
{
	unsigned long long va = s->vaddr, off = s->offset;
	if (s->filesz > s->memsz)
		return fail(r, "program header %u: filesz 0x%llx is larger than "
			    "memsz 0x%llx", i, (unsigned long long)s->filesz,
			    (unsigned long long)s->memsz);
	if (s->offset > len || s->filesz > len - s->offset)
		return fail(r, "program header %u: its 0x%llx file bytes at "
			    "offset 0x%llx run past the end of the file (%zu "
			    "bytes)", i, (unsigned long long)s->filesz, off, len);
	if (va % PAGE != off % PAGE)
		return fail(r, "program header %u: vaddr 0x%llx and offset 0x%llx "
			    "differ within the %u-byte page", i, va, off, PAGE);
	if (s->vaddr < RT_USER_BASE || s->vaddr >= RT_WS_BASE ||
	    s->memsz > RT_WS_BASE - s->vaddr)
		return fail(r, "program header %u: 0x%llx bytes at 0x%llx do not "
			    "fit the program area [0x%llx, 0x%llx)", i,
			    (unsigned long long)s->memsz, va, RT_USER_BASE,
			    RT_WS_BASE);
	if ((s->flags & ELF64_PF_W) && (s->flags & ELF64_PF_X))
		return fail(r, "program header %u at 0x%llx is both writable and "
			    "executable", i, va);
	if (!prev)
		return 0;
	if (s->vaddr < prev->vaddr)
		return fail(r, "program header %u at 0x%llx comes after program "
			    "header %u at 0x%llx: PT_LOAD segments must be in "
			    "ascending order", i, va, prev_i,
			    (unsigned long long)prev->vaddr);
	if (page_down(s->vaddr) < page_up(prev->vaddr + prev->memsz))
		return fail(r, "program header %u (0x%llx, 0x%llx bytes) shares a "
			    "page with program header %u (0x%llx, 0x%llx bytes)",
			    i, va, (unsigned long long)s->memsz, prev_i,
			    (unsigned long long)prev->vaddr,
			    (unsigned long long)prev->memsz);
	return 0;
}

static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/* The notes of PT_NOTE header i: [off, off + size) of the file. */
static int check_notes(const struct reader *r, size_t len, unsigned i,
		       uint64_t off, uint64_t size, struct elf64_image *out)
{
	if (off > len || size > len - off)
		return fail(r, "program header %u (PT_NOTE): its 0x%llx bytes at "
			    "offset 0x%llx run past the end of the file (%zu "
			    "bytes)", i, (unsigned long long)size,
			    (unsigned long long)off, len);
	static const char name[] = RT_NOTE_NAME;
	uint64_t at = off, end = off + size;
	while (at < end) {
		if (end - at < 12)
			return fail(r, "program header %u (PT_NOTE): %llu bytes "
				    "at 0x%llx, too few for a note's header", i,
				    (unsigned long long)(end - at),
				    (unsigned long long)at);
		uint64_t namesz = rd(r, at, 4), descsz = rd(r, at + 4, 4);
		uint32_t type = (uint32_t)rd(r, at + 8, 4);
		uint64_t body = pad4(namesz) + pad4(descsz);
		if (body > end - at - 12)
			return fail(r, "program header %u (PT_NOTE): the note at "
				    "0x%llx (name %llu bytes, descriptor %llu) "
				    "runs past its segment", i,
				    (unsigned long long)at,
				    (unsigned long long)namesz,
				    (unsigned long long)descsz);
		int ours = namesz == sizeof name && type == RT_NOTE_PROGRAM;
		for (uint64_t b = 0; ours && b < namesz; b++)
			ours = r->file[at + 12 + b] == (uint8_t)name[b];
		if (ours) {
			if (out->has_prog_note)
				return fail(r, "a second program declaration "
					    "(note %s, type %d) at 0x%llx",
					    name, RT_NOTE_PROGRAM,
					    (unsigned long long)at);
			if (descsz != 4)
				return fail(r, "the program declaration at 0x%llx "
					    "has %llu descriptor bytes, not 4",
					    (unsigned long long)at,
					    (unsigned long long)descsz);
			uint32_t flags = (uint32_t)rd(r, at + 12 + pad4(namesz),
						      4);
			if (flags & ~(uint32_t)RT_PROG_KNOWN)
				return fail(r, "the program declares flags 0x%x, "
					    "of which 0x%x are unknown here",
					    flags, flags & ~(uint32_t)RT_PROG_KNOWN);
			out->prog_flags = flags;
			out->has_prog_note = 1;
		}
		at += 12 + body;
	}
	return 0;
}

static int check_segments(const struct reader *r, size_t len,
			  struct elf64_image *out)
{
	unsigned phnum = (unsigned)rd(r, 56, 2);
	uint64_t phoff = rd(r, 32, 8);
	unsigned prev_i = 0;
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t h = phoff + (uint64_t)i * PHDR_SIZE;
		uint32_t type = (uint32_t)rd(r, h, 4);
		uint32_t flags = (uint32_t)rd(r, h + 4, 4);
		if (type == PT_INTERP)
			return fail(r, "program header %u is PT_INTERP: the "
				    "program wants a dynamic loader; link it "
				    "-static", i);
		if (type == PT_DYNAMIC)
			return fail(r, "program header %u is PT_DYNAMIC: dynamic "
				    "linking is not supported; link -static", i);
		if (type == PT_TLS)
			return fail(r, "program header %u is PT_TLS: tasks have "
				    "no thread-local storage", i);
		if (type == PT_GNU_STACK && (flags & ELF64_PF_X))
			return fail(r, "program header %u (PT_GNU_STACK) asks for "
				    "an executable stack", i);
		if (type == PT_NOTE &&
		    check_notes(r, len, i, rd(r, h + 8, 8), rd(r, h + 32, 8), out))
			return -1;
		if (type != PT_LOAD)
			continue;
		struct elf64_segment s = {
			.flags = flags & (ELF64_PF_R | ELF64_PF_W | ELF64_PF_X),
			.offset = rd(r, h + 8, 8),
			.vaddr = rd(r, h + 16, 8),
			.filesz = rd(r, h + 32, 8),
			.memsz = rd(r, h + 40, 8),
		};
		if (s.memsz == 0 && s.filesz == 0)
			continue;
		const struct elf64_segment *prev =
			out->nsegs ? &out->seg[out->nsegs - 1] : 0;
		if (check_load(r, len, i, &s, prev, prev_i))
			return -1;
		if (out->nsegs == ELF64_MAX_SEGMENTS)
			return fail(r, "more than %d PT_LOAD segments",
				    ELF64_MAX_SEGMENTS);
		out->seg[out->nsegs++] = s;
		prev_i = i;
	}
	if (out->nsegs == 0)
		return fail(r, "no PT_LOAD segment: nothing to load");
	return 0;
}

static int check_entry(const struct reader *r, struct elf64_image *out)
{
	for (unsigned i = 0; i < out->nsegs; i++) {
		const struct elf64_segment *s = &out->seg[i];
		if ((s->flags & ELF64_PF_X) && out->entry >= s->vaddr &&
		    out->entry - s->vaddr < s->filesz)
			return 0;
	}
	return fail(r, "the entry point 0x%llx is not in the file bytes of an "
		    "executable segment", (unsigned long long)out->entry);
}

int elf64_parse(const char *name, const void *file, size_t len,
		struct elf64_image *out, char *err, size_t errlen)
{
	struct reader r = { file, name, err, errlen };
	out->nsegs = 0;
	out->prog_flags = 0;
	out->has_prog_note = 0;
	if (check_ident(&r, len) || check_header(&r, len))
		return -1;
	out->entry = rd(&r, 24, 8);
	if (check_segments(&r, len, out) || check_entry(&r, out)) {
		out->nsegs = 0;
		out->prog_flags = 0;
		out->has_prog_note = 0;
		return -1;
	}
	return 0;
}
