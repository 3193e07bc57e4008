/* tools/read_file.h: a whole file in memory, for the host programs. */
#ifndef TOOLS_READ_FILE_H
#define TOOLS_READ_FILE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The bytes of path in a malloc'd buffer (free it) and their number in
 * *len; NULL after printing "path: reason" when it cannot be read.
 */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, got;
	char *bytes = malloc(cap);
	*len = 0;
	while (bytes && (got = fread(bytes + *len, 1, cap - *len, f)) > 0)
		if ((*len += got) == cap)
			bytes = realloc(bytes, cap *= 2);
	/* fopen opens a directory too; its first read fails (EISDIR). */
	int read_errno = ferror(f) ? errno : 0;
	fclose(f);
	if (!bytes) {
		fprintf(stderr, "%s: out of memory\n", path);
		return NULL;
	}
	if (read_errno) {
		fprintf(stderr, "%s: cannot read: %s\n", path, strerror(read_errno));
		free(bytes);
		return NULL;
	}
	return bytes;
}

#endif
