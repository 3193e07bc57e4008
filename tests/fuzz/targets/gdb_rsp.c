/*
 * Fuzz target `gdb_rsp`: lib/gdb_rsp, the GDB remote serial protocol the
 * kernel's stub speaks on COM2, fed the input one byte at a time as GDB's
 * side of the line, against a small target (two threads, 256 bytes of
 * memory at 0x1000, two hardware points). Whatever arrives, everything the
 * layer sends back must be well framed (GDB manual, E.1): acknowledgements
 * '+' and '-' between packets, and packets "$BODY#XX" whose checksum XX is
 * the sum of BODY, with no '$' or '#' inside it, a '}' escape or a '*'
 * count always followed by a byte, counts never '#' or '$', and at most
 * GDB_RSP_PACKET_MAX bytes once escapes and counts are undone.
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

static void put(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		check_out((uint8_t)s[i]);
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
	memset(&out, 0, sizeof out);
	memset(mem, 0, sizeof mem);
	points = 0;
	gdb_rsp_init(&r, &target);
	struct gdb_rsp_stop stop = { .thread = 1, .signal = 5 };
	gdb_rsp_stopped(&r, &stop, false);
	for (size_t i = 0; i < size; i++) {
		enum gdb_rsp_event ev = gdb_rsp_input(&r, data[i]);
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
	return 0;
}
