/*
 * tools/qemu/insn_count.c: a QEMU TCG plugin that counts the instructions
 * each virtual CPU executes and notes the count at every mark the kernel
 * makes, so that a span of the trace can be costed in the instructions of
 * the CPU that ran it alone. Under -icount the TSC follows one instruction
 * counter for the whole machine, so with several CPUs a span measured by
 * the TSC also counts whatever the other CPUs ran meanwhile; this plugin
 * counts per CPU (docs/trace-format.md, "Instructions per CPU").
 *
 * A mark is the 7-byte no-op `nopl 0x52544bNN(%rax)` (0f 1f 80 and a
 * 32-bit displacement whose top three bytes are "RTK"): a real NOP on
 * every x86-64, free on hardware, and never emitted by a compiler with
 * such a displacement. The kernel places one in trace_put, where every
 * trace record is written (NN = 01), and one in trace_reset (NN = 02);
 * records it puts into a scratch buffer go between 03 and 04. The plugin
 * keeps, for each CPU, the count before each 01 mark since the last 02
 * mark, less those between a 03 and the next 04 of that CPU, and at
 * QEMU's exit writes them to the file given as
 * out=PATH: a line `cpu C marks N` and then the N counts, one a line. The
 * k-th count of CPU C is the count at the record of sequence number k in
 * C's trace buffer (a dropped record too: its seq is taken before the
 * buffer is checked), which is how tools/rtktrace joins them.
 *
 * Two more marks are the kernel's way in and out: NN = 05 at the first
 * instruction of every interrupt, exception and system-call entry, 06 on
 * every return to ring 3 (arch/x86/marks.inc says where). Each CPU's since the
 * last 02 follow its counts as `cpu C events N` and N lines `in COUNT` or
 * `out COUNT`, in the order they ran: with them a release's path is costed
 * from the timer interrupt to the task's first instruction.
 *
 * Counting: every instruction adds one to a single counter just before it
 * runs (an inline add in the translated code), and each translated block,
 * as it starts, checks which CPU runs it: when that changes, the counter's
 * advance since the last change goes to the CPU that ran until then. So
 * an instruction is counted for its CPU exactly when it runs; counting a
 * whole block as it starts would also count the rest of a block that
 * stops at an instruction doing I/O (under -icount QEMU ends the block
 * there and runs that instruction again, uninstrumented). This needs the
 * CPUs to run one at a time, as they do under -icount (one host thread
 * for all); without -icount the counts are not to be trusted. Under
 * -icount with one CPU the count between two records equals the TSC's
 * (tests/boot/test_insn_count.py checks it).
 *
 * Built by `make host` as build/host/insn_count.so against the plugin
 * interface of QEMU 7.2 (version 1), declared below from its
 * documentation; load it with `-plugin build/host/insn_count.so,out=F`.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the part of QEMU's plugin interface used here */
typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};
enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*udata_cb_t)(qemu_plugin_id_t id, void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb_t cb,
				    void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- the counter */
#define MAX_CPUS 256
#define MARK_RECORD 0x01
#define MARK_RESET 0x02
#define MARK_SAVE 0x03
#define MARK_RESTORE 0x04
#define MARK_IN 0x05
#define MARK_OUT 0x06

struct cpu_marks {
	uint64_t executed;      /* instructions this CPU ran before `running` */
	uint64_t *at;           /* the count at each record mark */
	size_t n, cap;
	size_t saved;           /* n at its last MARK_SAVE */
	int ran;
	/* MARK_IN and MARK_OUT: the count, shifted left by one, the low bit
	 * 1 for an out. */
	uint64_t *ev;
	size_t nev, capev;
};

static struct cpu_marks cpus[MAX_CPUS];
static uint64_t all;            /* every CPU's instructions: inline adds */
static unsigned running;        /* the CPU running since `since` */
static uint64_t since;
static char *out_path;
static int bad_cpu;

/* CPU vcpu's instructions so far. */
static uint64_t executed(unsigned vcpu)
{
	return cpus[vcpu].executed + (vcpu == running ? all - since : 0);
}

static void block_begins(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (vcpu >= MAX_CPUS) {
		bad_cpu = 1;
		return;
	}
	if (vcpu != running) {
		cpus[running].executed += all - since;
		since = all;
		running = vcpu;
	}
	cpus[vcpu].ran = 1;
}

/* Room for one more in *v, which holds n of *cap. */
static void grow(uint64_t **v, size_t *cap, size_t n, unsigned vcpu)
{
	if (n < *cap)
		return;
	size_t c = *cap ? 2 * *cap : 4096;
	uint64_t *p = realloc(*v, c * sizeof *p);
	if (!p) {
		fprintf(stderr, "insn_count: out of memory at %zu marks of "
			"CPU %u\n", n, vcpu);
		exit(1);
	}
	*v = p;
	*cap = c;
}

static void mark(unsigned int vcpu, void *udata)
{
	uintptr_t tag = (uintptr_t)udata;
	if (vcpu >= MAX_CPUS) {
		bad_cpu = 1;
		return;
	}
	if (tag == MARK_RESET) {
		for (unsigned c = 0; c < MAX_CPUS; c++)
			cpus[c].n = cpus[c].nev = 0;
		return;
	}
	struct cpu_marks *m = &cpus[vcpu];
	if (tag == MARK_IN || tag == MARK_OUT) {
		grow(&m->ev, &m->capev, m->nev, vcpu);
		m->ev[m->nev++] = executed(vcpu) << 1 | (tag == MARK_OUT);
		return;
	}
	if (tag == MARK_SAVE) {
		m->saved = m->n;
		return;
	}
	if (tag == MARK_RESTORE) {
		m->n = m->saved < m->n ? m->saved : m->n;
		return;
	}
	grow(&m->at, &m->cap, m->n, vcpu);
	m->at[m->n++] = executed(vcpu);
}

/* The mark's tag (01 to 06), or 0 for any other instruction. */
static unsigned mark_tag(const struct qemu_plugin_insn *insn)
{
	if (qemu_plugin_insn_size(insn) != 7)
		return 0;
	const uint8_t *b = qemu_plugin_insn_data(insn);
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 || b[4] != 0x4b ||
	    b[5] != 0x54 || b[6] != 0x52)
		return 0;
	return b[3] >= MARK_RECORD && b[3] <= MARK_OUT ? b[3] : 0;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_begins,
					     QEMU_PLUGIN_CB_NO_REGS, NULL);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		unsigned tag = mark_tag(insn);
		/* The mark's callback first: a mark's count leaves it out. */
		if (tag)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, mark, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)tag);
		qemu_plugin_register_vcpu_insn_exec_inline(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, &all, 1);
	}
}

static void write_out(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	FILE *f = fopen(out_path, "w");
	if (!f) {
		fprintf(stderr, "insn_count: cannot write %s\n", out_path);
		return;
	}
	if (bad_cpu)
		fprintf(f, "error a CPU index past %d\n", MAX_CPUS - 1);
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		if (!cpus[c].ran)
			continue;
		fprintf(f, "cpu %u marks %zu executed %llu\n", c, cpus[c].n,
			(unsigned long long)executed(c));
		for (size_t k = 0; k < cpus[c].n; k++)
			fprintf(f, "%llu\n", (unsigned long long)cpus[c].at[k]);
		fprintf(f, "cpu %u events %zu\n", c, cpus[c].nev);
		for (size_t k = 0; k < cpus[c].nev; k++)
			fprintf(f, "%s %llu\n", cpus[c].ev[k] & 1 ? "out" : "in",
				(unsigned long long)(cpus[c].ev[k] >> 1));
	}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "insn_count: give out=PATH\n");
		return 1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn_count: for qemu-system-x86_64 only, "
			"not %s\n", info->target_name);
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, write_out, NULL);
	return 0;
}
