/* lib/fmt: freestanding formatted output. */
#include "fmt.h"

#include <stdint.h>

enum {
	FLAG_LEFT = 1,
	FLAG_ZERO = 2,
	FLAG_SPACE = 4,
	FLAG_PLUS = 8,
	FLAG_ALT = 16,
};

struct spec {
	int flags;
	int width;
	int precision; /* -1: none */
};

static int emit_repeat(fmt_put_fn put, void *ctx, char c, int n)
{
	for (int i = 0; i < n; i++)
		put(ctx, c);
	return n > 0 ? n : 0;
}

static int emit_string(fmt_put_fn put, void *ctx, const struct spec *sp,
		       const char *s)
{
	int len = 0;
	if (!s)
		s = "(null)";
	/* C11 7.21.6.1: with a precision, the array need not hold a NUL, so
	 * no byte past the precision is read. */
	while ((sp->precision < 0 || len < sp->precision) && s[len])
		len++;
	int pad = sp->width > len ? sp->width - len : 0;
	int n = 0;
	if (!(sp->flags & FLAG_LEFT))
		n += emit_repeat(put, ctx, ' ', pad);
	for (int i = 0; i < len; i++)
		put(ctx, s[i]);
	n += len;
	if (sp->flags & FLAG_LEFT)
		n += emit_repeat(put, ctx, ' ', pad);
	return n;
}

static int emit_number(fmt_put_fn put, void *ctx, const struct spec *sp,
		       uint64_t mag, int negative, unsigned base, int upper,
		       const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int ndig = 0;
	while (mag) {
		tmp[ndig++] = digits[mag % base];
		mag /= base;
	}
	/* C: a zero precision with a zero value gives no digits. */
	if (ndig == 0 && sp->precision != 0)
		tmp[ndig++] = '0';
	int zeros = sp->precision > ndig ? sp->precision - ndig : 0;
	char sign = 0;
	if (negative)
		sign = '-';
	else if (sp->flags & FLAG_PLUS)
		sign = '+';
	else if (sp->flags & FLAG_SPACE)
		sign = ' ';
	int plen = 0;
	while (prefix && prefix[plen])
		plen++;
	int body = ndig + zeros + (sign ? 1 : 0) + plen;
	int pad = sp->width > body ? sp->width - body : 0;
	int zero_pad = (sp->flags & FLAG_ZERO) && !(sp->flags & FLAG_LEFT) &&
		       sp->precision < 0;
	int n = 0;
	if (!(sp->flags & FLAG_LEFT) && !zero_pad)
		n += emit_repeat(put, ctx, ' ', pad);
	if (sign) {
		put(ctx, sign);
		n++;
	}
	for (int i = 0; i < plen; i++)
		put(ctx, prefix[i]);
	n += plen;
	if (zero_pad)
		n += emit_repeat(put, ctx, '0', pad);
	n += emit_repeat(put, ctx, '0', zeros);
	while (ndig)
		put(ctx, tmp[--ndig]);
	n += body - zeros - (sign ? 1 : 0) - plen;
	if (sp->flags & FLAG_LEFT)
		n += emit_repeat(put, ctx, ' ', pad);
	return n;
}

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE,
	      LEN_MAX, LEN_PTRDIFF };

static int64_t signed_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR: return (signed char)va_arg(*ap, int);
	case LEN_SHORT: return (short)va_arg(*ap, int);
	case LEN_LONG: return va_arg(*ap, long);
	case LEN_LLONG: return va_arg(*ap, long long);
	case LEN_SIZE: return (int64_t)va_arg(*ap, size_t);
	case LEN_MAX: return va_arg(*ap, intmax_t);
	case LEN_PTRDIFF: return va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, int);
	}
}

static uint64_t unsigned_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR: return (unsigned char)va_arg(*ap, unsigned);
	case LEN_SHORT: return (unsigned short)va_arg(*ap, unsigned);
	case LEN_LONG: return va_arg(*ap, unsigned long);
	case LEN_LLONG: return va_arg(*ap, unsigned long long);
	case LEN_SIZE: return va_arg(*ap, size_t);
	case LEN_MAX: return va_arg(*ap, uintmax_t);
	case LEN_PTRDIFF: return (uint64_t)va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, unsigned);
	}
}

int fmt_vformat(fmt_put_fn put, void *ctx, const char *f, va_list ap_in)
{
	va_list ap;
	va_copy(ap, ap_in);
	int n = 0;
	while (*f) {
		if (*f != '%') {
			put(ctx, *f++);
			n++;
			continue;
		}
		f++;
		struct spec sp = { 0, 0, -1 };
		for (;; f++) {
			if (*f == '-') sp.flags |= FLAG_LEFT;
			else if (*f == '0') sp.flags |= FLAG_ZERO;
			else if (*f == ' ') sp.flags |= FLAG_SPACE;
			else if (*f == '+') sp.flags |= FLAG_PLUS;
			else if (*f == '#') sp.flags |= FLAG_ALT;
			else break;
		}
		if (*f == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.flags |= FLAG_LEFT;
				sp.width = -sp.width;
			}
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp.width = sp.width * 10 + (*f++ - '0');
		}
		if (*f == '.') {
			f++;
			sp.precision = 0;
			if (*f == '*') {
				sp.precision = va_arg(ap, int);
				if (sp.precision < 0)
					sp.precision = -1;
				f++;
			} else {
				while (*f >= '0' && *f <= '9')
					sp.precision = sp.precision * 10 + (*f++ - '0');
			}
		}
		enum length len = LEN_INT;
		if (*f == 'h') {
			f++;
			len = LEN_SHORT;
			if (*f == 'h') { f++; len = LEN_CHAR; }
		} else if (*f == 'l') {
			f++;
			len = LEN_LONG;
			if (*f == 'l') { f++; len = LEN_LLONG; }
		} else if (*f == 'z') { f++; len = LEN_SIZE; }
		else if (*f == 'j') { f++; len = LEN_MAX; }
		else if (*f == 't') { f++; len = LEN_PTRDIFF; }

		char conv = *f;
		if (conv)
			f++;
		switch (conv) {
		case 'd':
		case 'i': {
			int64_t v = signed_arg(&ap, len);
			uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			n += emit_number(put, ctx, &sp, mag, v < 0, 10, 0, 0);
			break;
		}
		case 'u':
			n += emit_number(put, ctx, &sp, unsigned_arg(&ap, len), 0, 10, 0, 0);
			break;
		case 'x':
		case 'X': {
			uint64_t v = unsigned_arg(&ap, len);
			const char *prefix = 0;
			if ((sp.flags & FLAG_ALT) && v)
				prefix = conv == 'X' ? "0X" : "0x";
			n += emit_number(put, ctx, &sp, v, 0, 16, conv == 'X', prefix);
			break;
		}
		case 'o':
			n += emit_number(put, ctx, &sp, unsigned_arg(&ap, len), 0, 8, 0, 0);
			break;
		case 'p': {
			struct spec ps = { sp.flags, sp.width, 16 };
			n += emit_number(put, ctx, &ps,
					 (uint64_t)(uintptr_t)va_arg(ap, void *), 0, 16, 0,
					 "0x");
			break;
		}
		case 'c': {
			char s[2] = { (char)va_arg(ap, int), 0 };
			struct spec cs = { sp.flags, sp.width, 1 };
			n += emit_string(put, ctx, &cs, s);
			break;
		}
		case 's':
			n += emit_string(put, ctx, &sp, va_arg(ap, const char *));
			break;
		case '%':
			put(ctx, '%');
			n++;
			break;
		default:
			/* An unknown conversion is printed as written, so it shows. */
			put(ctx, '%');
			n++;
			if (conv) {
				put(ctx, conv);
				n++;
			}
			break;
		}
	}
	va_end(ap);
	return n;
}

struct buf_sink {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_put(void *ctx, char c)
{
	struct buf_sink *b = ctx;
	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int fmt_vsnprintf(char *buf, size_t size, const char *format, va_list ap)
{
	struct buf_sink b = { buf, size, 0 };
	int n = fmt_vformat(buf_put, &b, format, ap);
	if (size > 0)
		buf[b.pos < size ? b.pos : size - 1] = 0;
	return n;
}

int fmt_snprintf(char *buf, size_t size, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = fmt_vsnprintf(buf, size, format, ap);
	va_end(ap);
	return n;
}
