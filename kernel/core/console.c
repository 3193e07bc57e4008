/* kernel/core/console: COM1 and the framebuffer, one whole message at a time. */
#include "console.h"

#include "../../drivers/fb/fbcon.h"
#include "../../drivers/fb/vgacon.h"
#include "../../drivers/serial/uart.h"
#include "../../lib/fmt.h"
#include "spinlock.h"

static struct spinlock lock;
static int fb_on, vga_on;
static int panic_mode;

/* What the boot printed before a screen was ready (the banner, command-line
 * errors, the framebuffer's own line), shown on it once it is; later text
 * that does not fit is dropped from the replay only. */
#define EARLY_MAX 4096
static char early[EARLY_MAX];
static size_t early_len;

static void keep_early(const char *s, size_t n)
{
	if (n > EARLY_MAX - early_len)
		n = EARLY_MAX - early_len;
	for (size_t i = 0; i < n; i++)
		early[early_len + i] = s[i];
	early_len += n;
}

void console_init(void)
{
	uart_init();
}

void console_enable_fb(void)
{
	uint64_t flags = spin_lock_irqsave(&lock);
	fbcon_write(early, early_len);
	fb_on = 1;
	spin_unlock_irqrestore(&lock, flags);
}

void console_enable_vga_text(void)
{
	uint64_t flags = spin_lock_irqsave(&lock);
	vgacon_init();
	vgacon_write(early, early_len);
	vga_on = 1;
	spin_unlock_irqrestore(&lock, flags);
}

void console_panic_mode(void)
{
	panic_mode = 1;
}

/* Output goes to the devices in chunks of this many bytes, so a message
 * of any length prints whole, newline included, under one hold of the
 * lock. */
#define CHUNK 256

struct chunk {
	char buf[CHUNK];
	size_t len;
};

static void flush(struct chunk *c)
{
	uart_write(c->buf, c->len);
	if (!fb_on && !vga_on)
		keep_early(c->buf, c->len);
	if (fb_on)
		fbcon_write(c->buf, c->len);
	if (vga_on)
		vgacon_write(c->buf, c->len);
	c->len = 0;
}

static void put(void *ctx, char ch)
{
	struct chunk *c = ctx;
	c->buf[c->len++] = ch;
	if (c->len == CHUNK)
		flush(c);
}

void kvprintf(const char *format, va_list ap)
{
	struct chunk c = { .len = 0 };
	uint64_t flags = irq_save();
	/* A CPU stopped while holding the lock must not silence the panic
	 * report: after a bounded wait the panicking CPU prints anyway. */
	int locked = 1;
	if (panic_mode)
		locked = spin_trylock_for(&lock, 10000000);
	else
		spin_lock(&lock);
	fmt_vformat(put, &c, format, ap);
	flush(&c);
	if (locked)
		spin_unlock(&lock);
	irq_restore(flags);
}

void kprintf(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	kvprintf(format, ap);
	va_end(ap);
}
