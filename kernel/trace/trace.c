/* kernel/trace/trace: per-CPU trace buffers, their statistics and their dump. */
#include "trace.h"

#include "../../lib/sort.h"
#include "../../lib/trace_dump.h"
#include "../core/bootmem.h"
#include "../core/console.h"

/* trace_cost_cycles: rounds of writes into a scratch buffer. */
#define COST_RECORDS 256
#define COST_ROUNDS 15

struct trace_buf *trace_buf;
unsigned trace_ncpus;
volatile int trace_on;
struct trace_dump_info trace_header;

int trace_setup(unsigned cpus, uint32_t records_per_cpu)
{
	uint64_t bytes = (uint64_t)records_per_cpu * sizeof(struct trace_rec);
	uint64_t need = 0;
	for (unsigned k = 0; k < cpus; k++)
		if (k >= trace_ncpus || trace_buf[k].cap < records_per_cpu)
			need += bytes + 64;
	if (need > bootmem_free_bytes()) {
		kprintf("trace: no memory for %u records on each of %u CPUs "
			"(%llu bytes left)\n", records_per_cpu, cpus,
			(unsigned long long)bootmem_free_bytes());
		return -1;
	}
	if (cpus > trace_ncpus) {
		/* Sized for the CPUs of the run, not MAX_CPUS; before any
		 * record, so no CPU writes the old array while it is copied. */
		struct trace_buf *bufs = bootmem_alloc(cpus * sizeof *bufs);
		for (unsigned k = 0; k < trace_ncpus; k++)
			bufs[k] = trace_buf[k];
		trace_buf = bufs;
		trace_ncpus = cpus;
	}
	for (unsigned k = 0; k < cpus; k++) {
		if (trace_buf[k].cap >= records_per_cpu)
			continue;
		trace_buf[k].rec = bootmem_alloc(bytes);
		trace_buf[k].cap = records_per_cpu;
	}
	return 0;
}

void trace_reset(void)
{
	TRACE_MARK_RESET();
	for (unsigned k = 0; k < trace_ncpus; k++) {
		trace_buf[k].seq = 0;
		trace_buf[k].dropped = 0;
		__atomic_store_n(&trace_buf[k].count, 0, __ATOMIC_RELEASE);
	}
}

void trace_enable(int on)
{
	__atomic_store_n(&trace_on, on, __ATOMIC_SEQ_CST);
}

const struct trace_rec *trace_records(unsigned cpu, uint32_t *n,
				      uint64_t *dropped)
{
	if (cpu >= trace_ncpus) {
		*n = 0;
		*dropped = 0;
		return 0;
	}
	*n = __atomic_load_n(&trace_buf[cpu].count, __ATOMIC_ACQUIRE);
	*dropped = trace_buf[cpu].dropped;
	return trace_buf[cpu].rec;
}

void trace_describe(const struct trace_dump_info *info)
{
	trace_header = *info;
}

static void *stats_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return bootmem_alloc(size);
}

int trace_stats_of_run(struct trace_stats *st)
{
	const struct trace_params *p = &trace_header.p;
	const struct trace_rec **rec = bootmem_alloc(p->cpus * sizeof *rec);
	uint32_t *n = bootmem_alloc(p->cpus * sizeof *n);
	for (unsigned k = 0; k < p->cpus; k++) {
		uint64_t dropped;
		rec[k] = trace_records(k, &n[k], &dropped);
	}
	/* Each task's e, for its short jobs (none for weight-only tasks). */
	uint32_t *budget = bootmem_alloc((p->ntasks + 1) * sizeof *budget);
	for (unsigned i = 0; trace_header.ts && i < p->ntasks; i++)
		budget[i] = trace_header.ts->task[i].e;
	if (trace_stats_compute(st, p, rec, n, budget, stats_alloc, 0)) {
		kprintf("trace: cannot compute the run's statistics (%u CPUs, "
			"%llu bytes of memory left)\n", p->cpus,
			(unsigned long long)bootmem_free_bytes());
		return -1;
	}
	return 0;
}

void trace_print_results(const struct trace_stats *st)
{
	char line[160];
	for (unsigned i = 0; i < TRACE_OVH_KINDS; i++) {
		trace_stats_overhead_line(line, sizeof line, st, i);
		kprintf("%s\n", line);
	}
	for (unsigned k = 0; k < st->p.cpus; k++) {
		trace_stats_hourglass_line(line, sizeof line, st, k);
		kprintf("%s\n", line);
	}
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("%s\n", line);
}

void trace_dump(void)
{
	/* The dumper's line buffer is too large for a kernel stack frame. */
	static struct trace_dumper d;
	const struct trace_dump_info *h = &trace_header;
	d.out = print_line;
	trace_dump_begin(&d, &h->p, h->sched ? h->sched : "none");
	for (unsigned i = 0; i < h->p.ntasks && h->ts && i < h->ts->ntasks; i++)
		trace_dump_task(&d, i, &h->ts->task[i]);
	for (unsigned r = 0; h->ts && r < h->ts->nres; r++)
		trace_dump_resource(&d, r, &h->ts->res[r]);
	for (unsigned k = 0; k < h->p.cpus; k++) {
		uint32_t n;
		uint64_t dropped;
		const struct trace_rec *rec = trace_records(k, &n, &dropped);
		trace_dump_cpu(&d, k, rec, n, dropped);
	}
	trace_dump_summary(&d, h->summary ? h->summary : "",
			   h->summary ? h->summary_len : 0);
	trace_dump_end(&d);
}

uint64_t trace_cost_cycles(void)
{
	static struct trace_rec scratch[COST_RECORDS];
	uint64_t cost[COST_ROUNDS];
	uint64_t flags = irq_save();
	unsigned cpu = this_cpu()->cpu;
	struct trace_buf saved = trace_buf[cpu];
	int was_on = trace_on;
	trace_enable(1);
	TRACE_MARK_SAVE();
	for (unsigned r = 0; r < COST_ROUNDS; r++) {
		trace_buf[cpu] = (struct trace_buf){ .rec = scratch,
						     .cap = COST_RECORDS };
		uint64_t t0 = rdtsc_ordered();
		for (uint32_t i = 0; i < COST_RECORDS; i++)
			trace_emit(TRACE_TIMER, 0, TRACE_NO_TASK, 0, i);
		cost[r] = (rdtsc_ordered() - t0 + COST_RECORDS / 2) / COST_RECORDS;
	}
	TRACE_MARK_RESTORE();
	trace_enable(was_on);
	trace_buf[cpu] = saved;
	irq_restore(flags);
	sort_u64(cost, COST_ROUNDS);
	return cost[COST_ROUNDS / 2];
}
