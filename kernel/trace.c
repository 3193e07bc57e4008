/* kernel/trace: per-CPU event buffers. */
#include "trace.h"

#include "../arch/x86/cpu.h"
#include "../arch/x86/percpu.h"
#include "bootmem.h"

struct trace_buf {
	struct trace_rec *rec;
	uint64_t cap;
	volatile uint64_t n;       /* records published */
	uint64_t dropped;
	uint32_t seq;
} __attribute__((aligned(64)));

static struct trace_buf *bufs;
static unsigned nbufs;
static volatile int enabled;

void trace_setup(unsigned cpus, uint64_t records_per_cpu)
{
	if (bufs)
		return;
	bufs = bootmem_alloc(cpus * sizeof *bufs);
	for (unsigned k = 0; k < cpus; k++) {
		bufs[k].rec = bootmem_alloc(records_per_cpu * sizeof(struct trace_rec));
		bufs[k].cap = records_per_cpu;
	}
	nbufs = cpus;
}

void trace_reset(void)
{
	for (unsigned k = 0; k < nbufs; k++) {
		bufs[k].n = 0;
		bufs[k].dropped = 0;
		bufs[k].seq = 0;
	}
}

void trace_enable(int on)
{
	enabled = on;
}

void trace_emit_at(uint64_t tsc, enum trace_event ev, unsigned flags,
		   uint32_t task, uint32_t job, uint64_t arg)
{
	if (!enabled)
		return;
	uint64_t irq = irq_save();
	unsigned k = this_cpu()->cpu;
	struct trace_buf *b = &bufs[k];
	uint32_t seq = b->seq++;
	if (b->n < b->cap) {
		struct trace_rec *r = &b->rec[b->n];
		r->tsc = tsc;
		r->cpu = (uint16_t)k;
		r->event = (uint8_t)ev;
		r->flags = (uint8_t)flags;
		r->task = task;
		r->job = job;
		r->seq = seq;
		r->arg = arg;
		__atomic_store_n(&b->n, b->n + 1, __ATOMIC_RELEASE);
	} else {
		b->dropped++;
	}
	irq_restore(irq);
}

void trace_emit(enum trace_event ev, unsigned flags, uint32_t task,
		uint32_t job, uint64_t arg)
{
	trace_emit_at(rdtsc() - (uint64_t)this_cpu()->tsc_offset, ev, flags,
		      task, job, arg);
}

const struct trace_rec *trace_records(unsigned cpu, uint64_t *n,
				      uint64_t *dropped)
{
	*n = bufs[cpu].n;
	*dropped = bufs[cpu].dropped;
	return bufs[cpu].rec;
}
