/*
 * lib/elf64: reads and checks a ring-3 program (an ELF64 executable, as
 * user/ builds them) before the kernel maps it: everything the loader needs
 * comes out as a short list of segments, and anything the loader would
 * have to trust is checked first.
 */
#ifndef LIB_ELF64_H
#define LIB_ELF64_H

#include <stddef.h>
#include <stdint.h>

/* Segment permissions, p_flags (System V gABI, "Program Header"). */
#define ELF64_PF_X 1u
#define ELF64_PF_W 2u
#define ELF64_PF_R 4u

#define ELF64_MAX_SEGMENTS 8

/* A PT_LOAD segment: memsz bytes at vaddr, the first filesz of them from
 * the file at offset, the rest zero. */
struct elf64_segment {
	uint64_t vaddr, memsz;
	uint64_t offset, filesz;
	uint32_t flags;     /* ELF64_PF_* */
};

struct elf64_image {
	uint64_t entry;
	unsigned nsegs;
	struct elf64_segment seg[ELF64_MAX_SEGMENTS];
	/* The program's declaration (lib/rt_abi.h, RT_NOTE_PROGRAM): its
	 * RT_PROG_* flags, 0 without one. */
	uint32_t prog_flags;
	int has_prog_note;
};

/*
 * Checks the len bytes at file and fills *out. Accepted: the ELF64
 * identification (class 64, little-endian, version 1), type ET_EXEC for
 * x86-64, a program header table inside the file, no interpreter, dynamic
 * section or TLS, no executable stack, and 1 to ELF64_MAX_SEGMENTS
 * non-empty PT_LOAD segments that lie in the file (offset + filesz), have
 * memsz >= filesz and vaddr = offset modulo the page, fit in
 * [RT_USER_BASE, RT_WS_BASE), come in ascending order without sharing a
 * page, and are never both writable and executable; the entry point lies in
 * the file bytes of an executable segment. Empty PT_LOAD segments map
 * nothing and are left out. Returns 0, or -1 with "NAME: reason" in err
 * and out->nsegs = 0.
 */
int elf64_parse(const char *name, const void *file, size_t len,
		struct elf64_image *out, char *err, size_t errlen);

#endif
