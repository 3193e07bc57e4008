/*
 * kernel/trace/trace: the per-CPU event buffers of docs/trace-format.md, in the
 * spirit of Feather-Trace. Each CPU writes only its own buffer, with
 * interrupts off, and publishes a record by a release store of its count
 * after the record is whole; a full buffer keeps what it has and counts
 * what it could not take. Always compiled in; recording is switched on and
 * off around a run (trace_enable), the dump (trace=events) comes after it.
 *
 * GDB reads the state directly (docs/trace-format.md, "From GDB"):
 * trace_ncpus, trace_buf[k].rec/.count/.dropped and trace_header. Keep
 * these names.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../lib/taskset.h"
#include "../../lib/trace_rec.h"
#include "../../lib/trace_stats.h"

/* One CPU's buffer; a cache line of its own, written by that CPU only. */
struct trace_buf {
	struct trace_rec *rec;
	uint32_t cap;                   /* records rec holds */
	volatile uint32_t count;        /* records published */
	uint32_t seq;                   /* the next record's seq (dropped too) */
	volatile uint64_t dropped;
} __attribute__((aligned(64)));

extern struct trace_buf *trace_buf;    /* trace_ncpus of them */
extern unsigned trace_ncpus;
extern volatile int trace_on;

/* What the dump's TRACE-BEGIN, TRACE-TASK and TRACE-SUMMARY lines say. */
struct trace_dump_info {
	struct trace_params p;
	const char *sched;
	const struct taskset *ts;
	const char *summary;            /* the schedule summary line, no '\n' */
	size_t summary_len;
};

extern struct trace_dump_info trace_header;

/* Room for records_per_cpu records on each of cpus CPUs (kernel/core/bootmem):
 * a buffer smaller than that is replaced. Returns -1 after saying why
 * when memory is short. */
int trace_setup(unsigned cpus, uint32_t records_per_cpu);
/* Empties every buffer (counts, seq, dropped): call while none records. */
void trace_reset(void);
/* Recording on or off on every CPU. */
void trace_enable(int on);

/*
 * Marks for the instruction-counting QEMU plugin (tools/qemu/insn_count.c):
 * the 7-byte no-op `nopl 0x52544bNN(%rax)`, free on hardware. The plugin
 * notes the executing CPU's instruction count at every TRACE_MARK_RECORD,
 * one per record taken (dropped ones too), and forgets them all at
 * TRACE_MARK_RESET; the k-th count of CPU c is then the count at its
 * record of seq k (docs/trace-format.md, "Instructions per CPU"). Records
 * put into a buffer other than the run's (trace_cost_cycles' scratch) go
 * between TRACE_MARK_SAVE and TRACE_MARK_RESTORE, which drops their
 * counts again.
 */
/* No clobber: a mark orders nothing, and trace_put is on the tick's and
 * the decision's paths. */
#define TRACE_MARK(tag)                                                      \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, " #tag ", 0x4b, 0x54, 0x52")
#define TRACE_MARK_RECORD() TRACE_MARK(0x01)
#define TRACE_MARK_RESET() TRACE_MARK(0x02)
#define TRACE_MARK_SAVE() TRACE_MARK(0x03)
#define TRACE_MARK_RESTORE() TRACE_MARK(0x04)

/* A record stamped stamp (BSP-time TSC: this CPU's offset already
 * removed) into b, the calling CPU's buffer. */
static inline void trace_put(struct trace_buf *b, uint64_t stamp, unsigned cpu,
			     uint8_t event, uint8_t flags, uint32_t task,
			     uint32_t job, uint64_t arg)
{
	uint32_t n = b->count;
	uint32_t seq = b->seq++;
	TRACE_MARK_RECORD();
	if (n >= b->cap) {
		b->dropped++;
		return;
	}
	b->rec[n] = (struct trace_rec){ stamp, (uint16_t)cpu, event, flags,
					task, job, seq, arg };
	__atomic_store_n(&b->count, n + 1, __ATOMIC_RELEASE);
}

static inline void trace_emit_at(uint64_t stamp, uint8_t event,
				 uint8_t flags, uint32_t task, uint32_t job,
				 uint64_t arg)
{
	if (!__atomic_load_n(&trace_on, __ATOMIC_RELAXED))
		return;
	/* Interrupts off before this_cpu(): the writer must stay on the CPU
	 * whose buffer it writes, and nothing may write it in between. */
	uint64_t flags_saved = irq_save();
	struct percpu *p = this_cpu();
	trace_put(&trace_buf[p->cpu], stamp, p->cpu, event, flags, task, job,
		  arg);
	irq_restore(flags_saved);
}

/* A record stamped now. The stamp is taken with interrupts off, so seq
 * order and time order agree on a CPU. */
static inline void trace_emit(uint8_t event, uint8_t flags, uint32_t task,
			      uint32_t job, uint64_t arg)
{
	if (!__atomic_load_n(&trace_on, __ATOMIC_RELAXED))
		return;
	uint64_t flags_saved = irq_save();
	struct percpu *p = this_cpu();
	trace_put(&trace_buf[p->cpu], rdtsc() - (uint64_t)p->tsc_offset, p->cpu,
		  event, flags, task, job, arg);
	irq_restore(flags_saved);
}

/* CPU cpu's published records: their number in *n, the dropped in
 * *dropped. */
const struct trace_rec *trace_records(unsigned cpu, uint32_t *n,
				      uint64_t *dropped);

/* Says what the run is (copied into trace_header, where GDB finds it too);
 * call before trace_stats_of_run and trace_dump, again when end is known. */
void trace_describe(const struct trace_dump_info *info);

/* lib/trace_stats over every CPU's records and trace_header.p, with memory
 * from kernel/bootmem. Returns -1 after saying why when memory is short. */
int trace_stats_of_run(struct trace_stats *st);

/* Prints the RESULT overhead lines and one RESULT hourglass line per CPU. */
void trace_print_results(const struct trace_stats *st);

/* Prints the dump (TRACE- lines) of trace_header's run on the console. */
void trace_dump(void);

/* The cost of one trace_emit in cycles: the median over rounds of many
 * writes into a scratch buffer on the calling CPU. Call between runs: it
 * turns recording on for the measurement and restores it. */
uint64_t trace_cost_cycles(void);

#endif
