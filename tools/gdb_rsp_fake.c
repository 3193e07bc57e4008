/*
 * tools/gdb_rsp_fake: lib/gdb_rsp on the host against a fake target, for
 * the property tests (tests/host/test_gdb_rsp.py) and for a real GDB
 * (`target remote | build/host/gdb_rsp_fake`). Bytes from GDB on stdin,
 * to GDB on stdout; at the end of the input one JSON line on stderr with
 * the layer's counters and what the target saw.
 *
 *   gdb_rsp_fake [--threads N] [--dead T] [--exit CODE]
 *
 * The fake target (tests/host/gdb_rsp_ref.py models the same one):
 *  - threads 1..N (default 4), thread T absent when --dead T;
 *  - register r of thread t reads (t << 56 | r << 48 | 0x1234), truncated
 *    to the register's size; st0..st7 are unavailable; writes stick;
 *  - memory: [0x1000, 0x11000) read-write, [0x20000, 0x21000) read-only,
 *    both zero at the start; everything else faults;
 *  - points: software breakpoints inside memory; at most four hardware
 *    breakpoints and watchpoints together; removing one not set fails;
 *  - resuming: a stepped thread's rip grows by one and it stops with
 *    SIGTRAP; a continue stops at the lowest software breakpoint (swbreak,
 *    on the lowest running thread), else at the first watchpoint in
 *    (Z number, address) order (watch, rwatch or awatch; a watched write
 *    adds one to the byte at its address), else runs until Ctrl-C
 *    (SIGINT) or the end -- or, with --exit CODE, exits with CODE at once
 *    (a W packet) and takes no more packets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/gdb_rsp.h"
#include "../lib/gdb_rsp_amd64.h"

#define RW_BASE 0x1000u
#define RW_SIZE 0x10000u
#define RO_BASE 0x20000u
#define RO_SIZE 0x1000u
#define MAX_POINTS 64
#define HW_SLOTS 4

static unsigned nthreads = 4;
static int exit_code = -1;      /* --exit: a free run ends the program */
static unsigned dead;
static uint8_t regs[GDB_RSP_MAX_THREADS + 1][GDB_AMD64_NREGS][16];
static uint8_t rw_mem[RW_SIZE], ro_mem[RO_SIZE];

struct point {
	enum gdb_rsp_point type;
	uint64_t addr, kind;
};
static struct point points[MAX_POINTS];
static unsigned npoints;
static unsigned events[4];   /* resumes, steps, detaches, break-ins */

static void put(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	fwrite(s, 1, n, stdout);
}

static bool alive(void *ctx, unsigned t)
{
	(void)ctx;
	return t <= nthreads && t != dead;
}

static void describe(void *ctx, unsigned t, char *buf, size_t size)
{
	(void)ctx;
	snprintf(buf, size, "fake cpu %u", t - 1);
}

static unsigned reg_bytes(unsigned r)
{
	return gdb_rsp_reg(&gdb_rsp_amd64, r)->bits / 8;
}

static int read_reg(void *ctx, unsigned t, unsigned r, uint8_t *v)
{
	(void)ctx;
	if (r >= GDB_AMD64_ST0 && r < GDB_AMD64_ST0 + 8)
		return GDB_RSP_UNAVAILABLE;
	memcpy(v, regs[t][r], reg_bytes(r));
	return GDB_RSP_OK;
}

static int write_reg(void *ctx, unsigned t, unsigned r, const uint8_t *v)
{
	(void)ctx;
	if (r >= GDB_AMD64_ST0 && r < GDB_AMD64_ST0 + 8)
		return GDB_RSP_ERROR;
	memcpy(regs[t][r], v, reg_bytes(r));
	return GDB_RSP_OK;
}

/* The byte at addr, or NULL; *writable says whether it may change. */
static uint8_t *byte_at(uint64_t addr, bool *writable)
{
	if (addr >= RW_BASE && addr - RW_BASE < RW_SIZE) {
		*writable = true;
		return &rw_mem[addr - RW_BASE];
	}
	if (addr >= RO_BASE && addr - RO_BASE < RO_SIZE) {
		*writable = false;
		return &ro_mem[addr - RO_BASE];
	}
	return NULL;
}

static size_t read_mem(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	(void)ctx;
	size_t i = 0;
	bool w;
	for (; i < n; i++) {
		uint8_t *b = byte_at(addr + i, &w);
		if (!b)
			break;
		buf[i] = *b;
	}
	return i;
}

static int write_mem(void *ctx, uint64_t addr, const uint8_t *buf, size_t n)
{
	(void)ctx;
	bool w;
	for (size_t i = 0; i < n; i++)
		if (!byte_at(addr + i, &w) || !w)
			return GDB_RSP_ERROR;
	for (size_t i = 0; i < n; i++)
		*byte_at(addr + i, &w) = buf[i];
	return GDB_RSP_OK;
}

static int find_point(enum gdb_rsp_point type, uint64_t addr, uint64_t kind)
{
	for (unsigned i = 0; i < npoints; i++)
		if (points[i].type == type && points[i].addr == addr &&
		    points[i].kind == kind)
			return (int)i;
	return -1;
}

static int insert(void *ctx, enum gdb_rsp_point type, uint64_t addr,
		  uint64_t kind)
{
	(void)ctx;
	bool w;
	unsigned hw = 0;
	for (unsigned i = 0; i < npoints; i++)
		hw += points[i].type != GDB_RSP_SW_BREAK;
	if (type == GDB_RSP_SW_BREAK ? !byte_at(addr, &w) : hw == HW_SLOTS)
		return GDB_RSP_ERROR;
	if (find_point(type, addr, kind) >= 0)
		return GDB_RSP_OK;
	if (npoints == MAX_POINTS)
		return GDB_RSP_ERROR;
	points[npoints++] = (struct point){ type, addr, kind };
	return GDB_RSP_OK;
}

static int remove_point(void *ctx, enum gdb_rsp_point type, uint64_t addr,
			uint64_t kind)
{
	(void)ctx;
	int i = find_point(type, addr, kind);
	if (i < 0)
		return GDB_RSP_ERROR;
	points[i] = points[--npoints];
	return GDB_RSP_OK;
}

static const struct gdb_rsp_target target = {
	.arch = &gdb_rsp_amd64,
	.put = put,
	.alive = alive,
	.describe = describe,
	.read_reg = read_reg,
	.write_reg = write_reg,
	.read_mem = read_mem,
	.write_mem = write_mem,
	.insert = insert,
	.remove = remove_point,
};

static void set_rip(unsigned t, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		regs[t][GDB_AMD64_RIP][i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rip(unsigned t)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)regs[t][GDB_AMD64_RIP][i] << (8 * i);
	return v;
}

/* Runs the fake after a resume; returns whether it stopped at once. */
static bool run(struct gdb_rsp *r)
{
	struct gdb_rsp_stop s = { .signal = 5 };
	unsigned first = 0;
	bool w;
	for (unsigned t = 1; t <= nthreads; t++) {
		if (r->run[t] == GDB_RSP_STEP) {
			events[1]++;
			set_rip(t, rip(t) + 1);
			s.thread = t;
			gdb_rsp_stopped(r, &s, true);
			return true;
		}
		if (r->run[t] == GDB_RSP_CONTINUE && !first)
			first = t;
	}
	const struct point *best = NULL;
	for (unsigned i = 0; i < npoints; i++) {
		const struct point *p = &points[i];
		if (p->type == GDB_RSP_HW_BREAK)
			continue;
		if (!best || p->type < best->type ||
		    (p->type == best->type && p->addr < best->addr))
			best = p;
	}
	if (!first || !best)
		return false;
	s.thread = first;
	s.addr = best->addr;
	switch (best->type) {
	case GDB_RSP_SW_BREAK:
		s.why = GDB_RSP_STOP_SWBREAK;
		set_rip(first, best->addr);
		break;
	case GDB_RSP_WATCH_WRITE:
		/* A write it watched: GDB reports it only when the value
		 * changed. */
		s.why = GDB_RSP_STOP_WATCH;
		if (byte_at(best->addr, &w) && w)
			(*byte_at(best->addr, &w))++;
		break;
	case GDB_RSP_WATCH_READ:
		s.why = GDB_RSP_STOP_RWATCH;
		break;
	default:
		s.why = GDB_RSP_STOP_AWATCH;
		break;
	}
	gdb_rsp_stopped(r, &s, true);
	return true;
}

static void init_regs(void)
{
	for (unsigned t = 1; t <= GDB_RSP_MAX_THREADS; t++)
		for (unsigned r = 0; r < GDB_AMD64_NREGS; r++) {
			uint64_t v = (uint64_t)t << 56 | (uint64_t)r << 48 |
				     0x1234;
			for (unsigned i = 0; i < 8; i++)
				regs[t][r][i] = (uint8_t)(v >> (8 * i));
		}
}

static unsigned number(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s == 0 || *end || v < 1 || v > GDB_RSP_MAX_THREADS) {
		fprintf(stderr, "gdb_rsp_fake: %s wants a number from 1 to "
			"%u, not '%s'\n", what, GDB_RSP_MAX_THREADS, s);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			nthreads = number(argv[++i], "--threads");
		} else if (!strcmp(argv[i], "--dead") && i + 1 < argc) {
			dead = number(argv[++i], "--dead");
		} else if (!strcmp(argv[i], "--exit") && i + 1 < argc) {
			char *end;
			const char *s = argv[++i];
			unsigned long v = strtoul(s, &end, 10);
			if (*s == 0 || *end || v > 255) {
				fprintf(stderr, "gdb_rsp_fake: --exit wants a code "
					"from 0 to 255, not '%s'\n", s);
				return 2;
			}
			exit_code = (int)v;
		} else {
			fprintf(stderr, "usage: gdb_rsp_fake [--threads N] "
				"[--dead T] [--exit CODE]\n");
			return 2;
		}
	}
	init_regs();
	struct gdb_rsp_target t = target;
	t.nthreads = nthreads;
	static struct gdb_rsp r;
	gdb_rsp_init(&r, &t);
	bool running = false, exited = false;
	int c;
	while ((c = getchar()) != EOF) {
		if (exited)
			continue;       /* GDB's ack of W, and its goodbye */
		if (running) {
			/* While it runs, only Ctrl-C is heard. */
			if (c == GDB_RSP_INTERRUPT) {
				events[3]++;
				running = false;
				struct gdb_rsp_stop s = { .thread = 1,
							  .signal = 2 };
				gdb_rsp_stopped(&r, &s, true);
				fflush(stdout);
			}
			continue;
		}
		enum gdb_rsp_event ev = gdb_rsp_input(&r, (uint8_t)c);
		if (ev == GDB_RSP_RESUME) {
			events[0]++;
			running = !run(&r);
			if (running && exit_code >= 0) {
				gdb_rsp_exited(&r, (uint8_t)exit_code);
				exited = true;
			}
		} else if (ev == GDB_RSP_DETACH) {
			events[2]++;
			npoints = 0;
			running = true;
		}
		fflush(stdout);
	}
	fprintf(stderr, "{\"packets\": %llu, \"bad_checksums\": %llu, "
		"\"overlong\": %llu, \"resent\": %llu, \"resumes\": %u, "
		"\"steps\": %u, \"detaches\": %u, \"break_ins\": %u, "
		"\"points\": %u}\n",
		(unsigned long long)r.packets,
		(unsigned long long)r.bad_checksums,
		(unsigned long long)r.overlong, (unsigned long long)r.resent,
		events[0], events[1], events[2], events[3], npoints);
	return 0;
}
