/*
 * Fuzz target `gdb_rsp`: lib/gdb_rsp, the GDB remote serial protocol the
 * kernel's stub speaks on COM2, fed the input one byte at a time as GDB's
 * side of the line, against a small target (two threads, 256 bytes of
 * memory at 0x1000, two hardware points). Whatever arrives, everything the
 * layer sends back must be well framed (GDB manual, E.1): acknowledgements
 * '+' and '-' between packets, and packets "$BODY#XX" whose checksum XX is
 * the sum of BODY, with no '$' or '#' inside it, a '}' escape or a '*'
 * count always followed by a byte, counts never '#' or '$', and at most
 * GDB_RSP_PACKET_MAX bytes once escapes and counts are undone. A packet
 * from GDB whose body is longer than GDB_RSP_PACKET_MAX, checksum right,
 * is acknowledged, counted as too long and answered with an error; one of
 * GDB_RSP_PACKET_MAX bytes or fewer is not counted so.
 *
 * The input's first byte is a flag: with bit 0 set the target first makes
 * the checksum of every "$BODY#XX" in the rest hold, so that mutations
 * reach the packets' meaning rather than stop at their checksums.
 */
#include "../../../lib/gdb_rsp.h"
#include "../../../lib/gdb_rsp_amd64.h"
#include "../fuzz.h"

#define MEM_BASE 0x1000u
#define MEM_SIZE 256u

static uint8_t mem[MEM_SIZE];
static unsigned points;

/* The layer's output, checked as it comes: a state machine of the
 * framing. */
static struct {
	enum { BETWEEN, IN_BODY, ESCAPE, COUNT, SUM1, SUM2 } state;
	uint8_t sum;
	unsigned sum_digits;
	size_t decoded;
	uint8_t last;
} out;

static int hex(uint8_t c)
{
	return (c >= '0' && c <= '9') ? c - '0' :
	       (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

static void check_out(uint8_t c)
{
	switch (out.state) {
	case BETWEEN:
		FUZZ_CHECK(c == '+' || c == '-' || c == '$',
			   "byte %#x between packets", c);
		if (c == '$') {
			out.state = IN_BODY;
			out.sum = 0;
			out.decoded = 0;
		}
		return;
	case IN_BODY:
		FUZZ_CHECK(c != '$', "'$' inside a packet");
		if (c == '#') {
			out.state = SUM1;
			return;
		}
		out.sum = (uint8_t)(out.sum + c);
		if (c == '}') {
			out.state = ESCAPE;
			return;
		}
		if (c == '*') {
			FUZZ_CHECK(out.decoded > 0, "a count before any byte");
			out.state = COUNT;
			return;
		}
		out.decoded++;
		out.last = c;
		break;
	case ESCAPE:
		FUZZ_CHECK(c != '#' && c != '$', "an escape at the end");
		out.sum = (uint8_t)(out.sum + c);
		out.decoded++;
		out.state = IN_BODY;
		break;
	case COUNT:
		FUZZ_CHECK(c >= 29 + 3 && c <= 126 && c != '#' && c != '$',
			   "count byte %#x", c);
		out.sum = (uint8_t)(out.sum + c);
		out.decoded += (size_t)(c - 29);
		out.state = IN_BODY;
		break;
	case SUM1:
	case SUM2: {
		int v = hex(c);
		FUZZ_CHECK(v >= 0, "checksum digit %#x", c);
		FUZZ_CHECK((out.sum >> (out.state == SUM1 ? 4 : 0) & 15) == v,
			   "checksum digit %c where the sum is %02x", c,
			   out.sum);
		out.state = out.state == SUM1 ? SUM2 : BETWEEN;
		return;
	}
	}
	FUZZ_CHECK(out.decoded <= GDB_RSP_PACKET_MAX, "a reply of %zu bytes",
		   out.decoded);
}

/* What the layer sent while the current input byte was fed. */
static char sent[64];
static size_t nsent;

static void put(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		check_out((uint8_t)s[i]);
		if (nsent < sizeof sent)
			sent[nsent++] = s[i];
	}
}

/* GDB's side, followed independently: the body length of the packet
 * being received, and whether the byte just fed completed one with a
 * correct checksum. */
static struct {
	enum { G_IDLE, G_BODY, G_SUM1, G_SUM2 } state;
	size_t len;
	uint8_t sum, seen;
} in;

static int completes_packet(uint8_t c, size_t *len)
{
	int v;
	switch (in.state) {
	case G_IDLE:
		if (c == '$')
			in.state = G_BODY, in.len = 0, in.sum = 0;
		return 0;
	case G_BODY:
		if (c == '#')
			in.state = G_SUM1;
		else if (c == '$')
			in.len = 0, in.sum = 0;
		else
			in.len++, in.sum = (uint8_t)(in.sum + c);
		return 0;
	case G_SUM1:
		v = hex((uint8_t)(c | 0x20));     /* either case */
		in.state = v >= 0 ? G_SUM2 : G_IDLE;
		in.seen = (uint8_t)(v >= 0 ? v << 4 : 0);
		return 0;
	case G_SUM2:
		v = hex((uint8_t)(c | 0x20));
		in.state = G_IDLE;
		*len = in.len;
		return v >= 0 && (uint8_t)(in.seen | v) == in.sum;
	}
	return 0;
}

static void seal(uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '$')
			continue;
		size_t j = i + 1;
		uint8_t sum = 0;
		while (j < n && p[j] != '#' && p[j] != '$')
			sum = (uint8_t)(sum + p[j++]);
		if (j + 2 < n && p[j] == '#') {
			p[j + 1] = (uint8_t)digits[sum >> 4];
			p[j + 2] = (uint8_t)digits[sum & 15];
		}
		i = j - 1;
	}
}

static bool alive(void *ctx, unsigned t)
{
	(void)ctx;
	return t >= 1 && t <= 2;
}

static void describe(void *ctx, unsigned t, char *buf, size_t size)
{
	(void)ctx;
	snprintf(buf, size, "cpu %u", t - 1);
}

static int read_reg(void *ctx, unsigned t, unsigned r, uint8_t *v)
{
	(void)ctx;
	const struct gdb_rsp_reg *d = gdb_rsp_reg(&gdb_rsp_amd64, r);
	FUZZ_CHECK(d && t >= 1 && t <= 2, "register %u of thread %u", r, t);
	memset(v, (int)(r + t), d->bits / 8);
	return r == GDB_AMD64_ST0 ? GDB_RSP_UNAVAILABLE : GDB_RSP_OK;
}

static int write_reg(void *ctx, unsigned t, unsigned r, const uint8_t *v)
{
	(void)ctx;
	(void)v;
	FUZZ_CHECK(gdb_rsp_reg(&gdb_rsp_amd64, r) && t >= 1 && t <= 2,
		   "register %u of thread %u", r, t);
	return r == GDB_AMD64_ST0 ? GDB_RSP_ERROR : GDB_RSP_OK;
}

static size_t read_mem(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	size_t i = 0;
	for (; i < n && addr + i >= MEM_BASE && addr + i < MEM_BASE + MEM_SIZE;
	     i++)
		buf[i] = mem[addr + i - MEM_BASE];
	return i;
}

static int write_mem(void *ctx, uint64_t addr, const uint8_t *buf, size_t n)
{
	(void)ctx;
	if (addr < MEM_BASE || addr > MEM_BASE + MEM_SIZE ||
	    n > MEM_BASE + MEM_SIZE - addr)
		return GDB_RSP_ERROR;
	memcpy(mem + (addr - MEM_BASE), buf, n);
	return GDB_RSP_OK;
}

static int insert(void *ctx, enum gdb_rsp_point type, uint64_t addr,
		  uint64_t kind)
{
	(void)ctx;
	(void)addr;
	(void)kind;
	FUZZ_CHECK(type <= GDB_RSP_WATCH_ACCESS, "point type %d", type);
	if (type == GDB_RSP_SW_BREAK)
		return GDB_RSP_OK;
	return points < 2 ? (points++, GDB_RSP_OK) : GDB_RSP_UNSUPPORTED;
}

static int remove_point(void *ctx, enum gdb_rsp_point type, uint64_t addr,
			uint64_t kind)
{
	(void)ctx;
	(void)addr;
	(void)kind;
	FUZZ_CHECK(type <= GDB_RSP_WATCH_ACCESS, "point type %d", type);
	if (type != GDB_RSP_SW_BREAK && points)
		points--;
	return GDB_RSP_OK;
}

static const struct gdb_rsp_target target = {
	.arch = &gdb_rsp_amd64, .put = put, .nthreads = 2, .alive = alive,
	.describe = describe, .read_reg = read_reg, .write_reg = write_reg,
	.read_mem = read_mem, .write_mem = write_mem, .insert = insert,
	.remove = remove_point,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gdb_rsp r;
	if (size < 1)
		return 0;
	uint8_t *bytes = malloc(size - 1 ? size - 1 : 1);
	memcpy(bytes, data + 1, size - 1);
	if (data[0] & 1)
		seal(bytes, size - 1);
	data = bytes;
	size--;
	memset(&out, 0, sizeof out);
	memset(&in, 0, sizeof in);
	memset(mem, 0, sizeof mem);
	points = 0;
	gdb_rsp_init(&r, &target);
	struct gdb_rsp_stop stop = { .thread = 1, .signal = 5 };
	gdb_rsp_stopped(&r, &stop, false);
	for (size_t i = 0; i < size; i++) {
		nsent = 0;
		uint64_t overlong = r.overlong;
		enum gdb_rsp_event ev = gdb_rsp_input(&r, data[i]);
		size_t len = 0;
		if (completes_packet(data[i], &len)) {
			FUZZ_CHECK((r.overlong > overlong) ==
				   (len > GDB_RSP_PACKET_MAX), "a packet of %zu "
				   "bytes %s as too long", len, r.overlong >
				   overlong ? "refused" : "not refused");
			FUZZ_CHECK(len <= GDB_RSP_PACKET_MAX ||
				   (nsent >= 3 && !memcmp(sent, "+$E", 3)),
				   "a packet of %zu bytes answered '%.*s'", len,
				   (int)nsent, sent);
		}
		if (ev == GDB_RSP_RESUME) {
			unsigned moving = 0;
			for (unsigned t = 1; t <= 2; t++)
				moving += r.run[t] != GDB_RSP_STAY;
			FUZZ_CHECK(moving > 0, "a resume that runs no thread");
			stop.thread = r.run[2] != GDB_RSP_STAY ? 2 : 1;
			stop.why = (enum gdb_rsp_why)(i % 6);
			stop.addr = MEM_BASE + i % MEM_SIZE;
			gdb_rsp_stopped(&r, &stop, true);
		}
		FUZZ_CHECK(out.state == BETWEEN, "a reply left unfinished");
	}
	free(bytes);
	return 0;
}
