/*
 * lib/gdb_rsp: the GDB remote serial protocol (GDB manual, appendix E
 * "Remote Serial Protocol"), hardware-free: framing, checksums, escapes,
 * run-length encoding, hex, and the dispatch of each packet onto a small
 * table of target operations. The kernel's stub (kernel/debug/gdbstub.c) binds it
 * to COM2 and the CPUs; tools/gdb_rsp_fake drives it on the host.
 *
 * Threads are numbered 1..nthreads (GDB reserves 0 for "any" and -1 for
 * "all"); the kernel maps thread n to CPU n - 1. All-stop only: the layer
 * sees a target that is stopped whenever it is fed bytes.
 *
 * Robustness (tests/host/test_gdb_rsp.py drives it with garbage): every
 * byte is accepted in every state; a packet with a bad checksum is answered
 * '-' so GDB sends it again; one longer than GDB_RSP_PACKET_MAX is
 * acknowledged and answered with an error; a '-' from GDB resends the last
 * reply.
 */
#ifndef LIB_GDB_RSP_H
#define LIB_GDB_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest packet body accepted and sent, told to GDB in qSupported. */
#define GDB_RSP_PACKET_MAX 4096
#define GDB_RSP_MAX_THREADS 256
/* Ctrl-C: GDB's interrupt request, sent outside any packet. */
#define GDB_RSP_INTERRUPT 0x03

/* One register of the target description (qXfer:features:read). */
struct gdb_rsp_reg {
	const char *name;
	unsigned bits;          /* a multiple of 8, at most 128 */
	const char *type;       /* a GDB predefined type or one of `types` */
	const char *group;      /* NULL: GDB's default for the type */
};

struct gdb_rsp_feature {
	const char *name;       /* e.g. "org.gnu.gdb.i386.core" */
	const char *types;      /* XML type definitions, or NULL */
	const struct gdb_rsp_reg *regs;
	unsigned nregs;
};

struct gdb_rsp_arch {
	const char *architecture;      /* e.g. "i386:x86-64" */
	const struct gdb_rsp_feature *features;
	unsigned nfeatures;
	unsigned pc_regno;             /* what `c ADDR` and `s ADDR` set */
};

/* Z0..Z4, in the packet's numbering. */
enum gdb_rsp_point {
	GDB_RSP_SW_BREAK,
	GDB_RSP_HW_BREAK,
	GDB_RSP_WATCH_WRITE,
	GDB_RSP_WATCH_READ,
	GDB_RSP_WATCH_ACCESS,
};

/* What the target returns from an operation. */
#define GDB_RSP_OK 0
#define GDB_RSP_ERROR (-1)
#define GDB_RSP_UNSUPPORTED 1   /* a point kind the target has not */
#define GDB_RSP_UNAVAILABLE 1   /* a register the target cannot show */

struct gdb_rsp_target {
	const struct gdb_rsp_arch *arch;
	void *ctx;
	/* Bytes to GDB. */
	void (*put)(void *ctx, const char *s, size_t n);
	/* Threads 1..nthreads exist; alive() says which of them GDB sees. */
	unsigned nthreads;
	bool (*alive)(void *ctx, unsigned thread);
	/* A one-line description for `info threads` (qThreadExtraInfo). */
	void (*describe)(void *ctx, unsigned thread, char *buf, size_t size);
	/* Register regno (numbered over the features in order) as bits/8
	 * little-endian bytes: GDB_RSP_OK, GDB_RSP_UNAVAILABLE or
	 * GDB_RSP_ERROR. */
	int (*read_reg)(void *ctx, unsigned thread, unsigned regno,
			uint8_t *val);
	int (*write_reg)(void *ctx, unsigned thread, unsigned regno,
			 const uint8_t *val);
	/* Reads up to n bytes from addr; returns how many could be read
	 * (0: none, the address is bad). */
	size_t (*read_mem)(void *ctx, uint64_t addr, uint8_t *buf, size_t n);
	/* Writes all n bytes or none: GDB_RSP_OK or GDB_RSP_ERROR. */
	int (*write_mem)(void *ctx, uint64_t addr, const uint8_t *buf,
			 size_t n);
	/* Z and z packets: GDB_RSP_OK, GDB_RSP_ERROR or GDB_RSP_UNSUPPORTED. */
	int (*insert)(void *ctx, enum gdb_rsp_point type, uint64_t addr,
		      uint64_t kind);
	int (*remove)(void *ctx, enum gdb_rsp_point type, uint64_t addr,
		      uint64_t kind);
};

/* Why the target stopped, for the stop reply (T packet). */
enum gdb_rsp_why {
	GDB_RSP_STOP_SIGNAL,    /* only the signal: a step, Ctrl-C, a fault */
	GDB_RSP_STOP_SWBREAK,   /* a Z0 breakpoint (the PC is at it) */
	GDB_RSP_STOP_HWBREAK,   /* a Z1 breakpoint */
	GDB_RSP_STOP_WATCH,     /* Z2, Z3, Z4 watchpoints, at addr */
	GDB_RSP_STOP_RWATCH,
	GDB_RSP_STOP_AWATCH,
};

struct gdb_rsp_stop {
	unsigned thread;
	unsigned signal;        /* GDB's numbering: 5 SIGTRAP, 2 SIGINT ... */
	enum gdb_rsp_why why;
	uint64_t addr;          /* the watched address GDB asked for */
};

/* What a thread does when the target resumes. */
enum gdb_rsp_run {
	GDB_RSP_STAY,           /* stays stopped */
	GDB_RSP_CONTINUE,
	GDB_RSP_STEP,
};

/* What a byte fed to the layer asked of the caller. */
enum gdb_rsp_event {
	GDB_RSP_NONE,
	GDB_RSP_RESUME,         /* run[] says what each thread does */
	GDB_RSP_DETACH,         /* D or k: remove every point, run on */
	GDB_RSP_BREAK_IN,       /* Ctrl-C while stopped: nothing to do */
};

struct gdb_rsp {
	const struct gdb_rsp_target *t;
	/* Framing. */
	int state;
	uint8_t sum, sum_seen;
	bool overflow;
	size_t len;
	char in[GDB_RSP_PACKET_MAX + 1];
	/* The last reply, kept to send again after a '-'. */
	char out[GDB_RSP_PACKET_MAX];
	size_t out_len;
	bool out_binary;
	bool replied;           /* out holds a reply that was sent */
	/* H packets: the thread for register access and for s/c. */
	unsigned g_thread, c_thread;
	struct gdb_rsp_stop last;
	/* After GDB_RSP_RESUME: per thread, indexed by thread number. */
	uint8_t run[GDB_RSP_MAX_THREADS + 1];   /* enum gdb_rsp_run */
	uint8_t mem[GDB_RSP_PACKET_MAX / 2];    /* m, M and X data */
	/* Counters the tests read. */
	uint64_t packets, bad_checksums, overlong, resent;
};

void gdb_rsp_init(struct gdb_rsp *r, const struct gdb_rsp_target *t);

/* One byte from GDB. */
enum gdb_rsp_event gdb_rsp_input(struct gdb_rsp *r, uint8_t c);

/*
 * The target has stopped: remembers why (for '?') and makes s->thread the
 * current thread; sends the stop reply when `tell` (GDB waits for one after
 * a resume or a Ctrl-C, not when the stop is an attach).
 */
void gdb_rsp_stopped(struct gdb_rsp *r, const struct gdb_rsp_stop *s,
		     bool tell);

/* The target description's register count (regno runs below it). */
unsigned gdb_rsp_nregs(const struct gdb_rsp_arch *a);
/* Register regno's description, or NULL. */
const struct gdb_rsp_reg *gdb_rsp_reg(const struct gdb_rsp_arch *a,
				      unsigned regno);

#endif
