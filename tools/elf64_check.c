/*
 * tools/elf64_check: checks ring-3 programs with the same lib/elf64 the
 * kernel loads them with; prints each accepted file as a JSON line (entry,
 * segments and the program's declaration, lib/rt_abi.h: its RT_PROG_*
 * flags, or null without one), or the reason it was refused.
 *
 *   elf64_check FILE.elf...
 */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/elf64.h"
#include "read_file.h"

static int check(const char *path)
{
	size_t len;
	char *bytes = read_file(path, &len);
	if (!bytes)
		return 1;
	struct elf64_image img;
	char err[256];
	int rc = elf64_parse(path, bytes, len, &img, err, sizeof err);
	free(bytes);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("{\"file\": \"%s\", \"entry\": %llu, \"segments\": [", path,
	       (unsigned long long)img.entry);
	for (unsigned i = 0; i < img.nsegs; i++) {
		const struct elf64_segment *s = &img.seg[i];
		printf("%s{\"vaddr\": %llu, \"memsz\": %llu, \"offset\": %llu, "
		       "\"filesz\": %llu, \"flags\": \"%c%c%c\"}", i ? ", " : "",
		       (unsigned long long)s->vaddr,
		       (unsigned long long)s->memsz,
		       (unsigned long long)s->offset,
		       (unsigned long long)s->filesz,
		       s->flags & ELF64_PF_R ? 'r' : '-',
		       s->flags & ELF64_PF_W ? 'w' : '-',
		       s->flags & ELF64_PF_X ? 'x' : '-');
	}
	if (img.has_prog_note)
		printf("], \"declaration\": %u}\n", img.prog_flags);
	else
		printf("], \"declaration\": null}\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: elf64_check FILE.elf...\n");
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= check(argv[i]);
	return rc;
}
