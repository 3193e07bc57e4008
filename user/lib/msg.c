/* user/lib/msg: console lines without a C library. */
#include "msg.h"

#include "sys.h"

/* The last byte is kept for msg_send's newline. */
static void put(struct msg *m, char c)
{
	if (m->len < MSG_MAX - 1)
		m->buf[m->len++] = c;
}

void msg_str(struct msg *m, const char *s)
{
	while (*s)
		put(m, *s++);
}

void msg_begin(struct msg *m, const char *s)
{
	m->len = 0;
	msg_str(m, s);
}

/* Digits come out least significant first; 20 hold 2^64 - 1 in decimal. */
static void put_digits(struct msg *m, uint64_t v, unsigned base)
{
	char digits[20];
	unsigned n = 0;
	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put(m, digits[--n]);
}

void msg_dec(struct msg *m, uint64_t v)
{
	put_digits(m, v, 10);
}

void msg_hex(struct msg *m, uint64_t v)
{
	msg_str(m, "0x");
	put_digits(m, v, 16);
}

int64_t msg_send(struct msg *m)
{
	m->buf[m->len++] = '\n';
	return sys_write(m->buf, m->len);
}
