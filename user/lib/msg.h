/*
 * user/lib/msg: a console line built in a buffer and written with one
 * system call (the kernel's per-task console buffer keeps it whole).
 */
#ifndef USER_LIB_MSG_H
#define USER_LIB_MSG_H

#include <stdint.h>

#define MSG_MAX 256

struct msg {
	char buf[MSG_MAX];
	uint32_t len;   /* a longer line is cut short */
};

/* Starts the line with s (a struct msg needs no other initialisation). */
void msg_begin(struct msg *m, const char *s);
void msg_str(struct msg *m, const char *s);
void msg_dec(struct msg *m, uint64_t v);
void msg_hex(struct msg *m, uint64_t v);
/* Adds the newline and writes the line; returns sys_write's result. */
int64_t msg_send(struct msg *m);

#endif
