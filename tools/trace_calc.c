/*
 * tools/trace_calc: lib/trace_stats, lib/crc32 and lib/base64 on the host,
 * so the tests can hold them against the Python decoder and Python's own
 * zlib and base64 (tests/host/test_trace_lib.py).
 *
 *   trace_calc crc32  < BYTES     the CRC-32, 8 hex digits
 *   trace_calc base64 < BYTES     the encoding, one line
 *   trace_calc stats  < RUN       the derived numbers of a run
 *   trace_calc dump   < RUN       the run's TRACE- lines (lib/trace_dump)
 *
 * RUN is text: a line `params cpus= tsc_khz= t0= end= quantum_us= slots=
 * staggered= tasks= sched=` (in that order); a line `task NAME E P D` per
 * task; for each CPU in order `cpu K N DROPPED` and N lines `tsc event
 * flags task job seq arg`; last `summary TEXT`. The stats output: `slot T`
 * with each CPU's task (-1 idle); `task I jobs misses faults max_tardiness
 * ran self` (cycles); `samples KIND` and the sorted cycles, `gaps CPU`
 * likewise; then the RESULT lines as the kernel prints them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/base64.h"
#include "../lib/crc32.h"
#include "../lib/trace_dump.h"
#include "../lib/trace_stats.h"

#define LINE 256

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	/* Records and samples live until exit: nothing to report as leaks. */
	return "detect_leaks=0";
}

static void die(const char *what)
{
	fprintf(stderr, "trace_calc: %s\n", what);
	exit(2);
}

static unsigned char *read_all(size_t *len)
{
	size_t cap = 4096;
	unsigned char *buf = malloc(cap);
	*len = 0;
	for (;;) {
		if (!buf)
			die("out of memory");
		*len += fread(buf + *len, 1, cap - *len, stdin);
		if (*len < cap)
			return buf;
		cap *= 2;
		buf = realloc(buf, cap);
	}
}

static void *host_alloc(void *ctx, size_t size)
{
	(void)ctx;
	void *p = calloc(1, size);
	if (!p)
		die("out of memory");
	return p;
}

struct run {
	struct trace_params p;
	char sched[32];
	struct task_spec *task;
	const struct trace_rec **rec;
	uint32_t *n;
	uint64_t *dropped;
	char summary[8192];
};

static void read_params(struct run *r)
{
	struct trace_params *p = &r->p;
	unsigned long long khz, t0, end, q, slots;
	int staggered;
	if (scanf(" params cpus=%u tsc_khz=%llu t0=%llu end=%llu quantum_us=%llu "
		  "slots=%llu staggered=%d tasks=%u sched=%31s", &p->cpus, &khz,
		  &t0, &end, &q, &slots, &staggered, &p->ntasks, r->sched) != 9)
		die("expected 'params cpus= tsc_khz= t0= end= quantum_us= slots= "
		    "staggered= tasks= sched='");
	*p = (struct trace_params){ p->cpus, khz, t0, end, q, slots, staggered,
				    p->ntasks };
	if (p->cpus == 0 || p->cpus > 1024)
		die("cpus must be 1..1024");
}

static void read_tasks(struct run *r)
{
	r->task = host_alloc(0, (r->p.ntasks + 1) * sizeof *r->task);
	for (unsigned i = 0; i < r->p.ntasks; i++) {
		struct task_spec *t = &r->task[i];
		if (scanf(" task %31s %u %u %u", t->name, &t->e, &t->p, &t->d) != 4)
			die("expected 'task NAME E P D'");
		snprintf(t->work, sizeof t->work, "%s", TASKSET_WORK_DEFAULT);
	}
}

static struct trace_rec *read_cpu(unsigned k, uint32_t *n, uint64_t *dropped)
{
	unsigned cpu;
	unsigned long long drop;
	if (scanf(" cpu %u %u %llu", &cpu, n, &drop) != 3 || cpu != k)
		die("expected 'cpu K N DROPPED' for the next CPU");
	*dropped = drop;
	struct trace_rec *rec = host_alloc(0, (*n ? *n : 1) * sizeof *rec);
	for (uint32_t i = 0; i < *n; i++) {
		unsigned long long tsc, arg;
		unsigned event, flags, task, job, seq;
		if (scanf("%llu %u %u %u %u %u %llu", &tsc, &event, &flags, &task,
			  &job, &seq, &arg) != 7)
			die("expected 'tsc event flags task job seq arg'");
		rec[i] = (struct trace_rec){ tsc, (uint16_t)k, (uint8_t)event,
					     (uint8_t)flags, task, job, seq, arg };
	}
	return rec;
}

static void read_run(struct run *r)
{
	read_params(r);
	read_tasks(r);
	unsigned cpus = r->p.cpus;
	r->rec = host_alloc(0, cpus * sizeof *r->rec);
	r->n = host_alloc(0, cpus * sizeof *r->n);
	r->dropped = host_alloc(0, cpus * sizeof *r->dropped);
	for (unsigned k = 0; k < cpus; k++)
		r->rec[k] = read_cpu(k, &r->n[k], &r->dropped[k]);
	if (scanf(" summary") != 0 ||
	    !fgets(r->summary, sizeof r->summary, stdin) || r->summary[0] != ' ')
		die("expected 'summary TEXT'");
	r->summary[strcspn(r->summary, "\n")] = 0;
	memmove(r->summary, r->summary + 1, strlen(r->summary));
}

static void print_samples(const char *what, const char *name,
			  const struct trace_samples *s)
{
	printf("%s %s", what, name);
	for (size_t i = 0; i < s->n; i++)
		printf(" %llu", (unsigned long long)s->cycles[i]);
	printf("\n");
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
}

static int dump(void)
{
	static struct run r;
	read_run(&r);
	struct trace_dumper *d = host_alloc(0, sizeof *d);
	d->out = print_line;
	trace_dump_begin(d, &r.p, r.sched);
	for (unsigned i = 0; i < r.p.ntasks; i++)
		trace_dump_task(d, i, &r.task[i]);
	for (unsigned k = 0; k < r.p.cpus; k++)
		trace_dump_cpu(d, k, r.rec[k], r.n[k], r.dropped[k]);
	trace_dump_summary(d, r.summary, strlen(r.summary));
	trace_dump_end(d);
	return 0;
}

static int stats(void)
{
	static struct run r;
	read_run(&r);
	const struct trace_params p = r.p;
	struct trace_stats st;
	if (trace_stats_compute(&st, &p, r.rec, r.n, host_alloc, 0))
		die("trace_stats_compute refused the parameters");
	for (uint64_t t = 0; t < p.slots; t++) {
		printf("slot %llu", (unsigned long long)t);
		for (unsigned k = 0; k < p.cpus; k++)
			printf(" %d", st.schedule[t * p.cpus + k]);
		printf("\n");
	}
	for (unsigned i = 0; i < p.ntasks; i++) {
		const struct trace_task_stats *t = &st.task[i];
		printf("task %u %llu %llu %llu %llu %llu %llu\n", i,
		       (unsigned long long)t->jobs, (unsigned long long)t->misses,
		       (unsigned long long)t->faults,
		       (unsigned long long)t->max_tardiness_cycles,
		       (unsigned long long)t->ran_cycles,
		       (unsigned long long)t->self_cycles);
	}
	for (unsigned i = 0; i < TRACE_OVH_KINDS; i++)
		print_samples("samples", trace_overhead_name(i), &st.overhead[i]);
	for (unsigned k = 0; k < p.cpus; k++) {
		char cpu[16];
		snprintf(cpu, sizeof cpu, "%u", k);
		print_samples("gaps", cpu, &st.hourglass[k].gaps);
	}
	char line[LINE];
	for (unsigned i = 0; i < TRACE_OVH_KINDS; i++) {
		trace_stats_overhead_line(line, sizeof line, &st, i);
		printf("%s\n", line);
	}
	for (unsigned k = 0; k < p.cpus; k++) {
		trace_stats_hourglass_line(line, sizeof line, &st, k);
		printf("%s\n", line);
	}
	for (unsigned i = 0; i < p.ntasks; i++) {
		trace_stats_task_keys(line, sizeof line, &st, i);
		printf("RESULT task name=%s %s\n", r.task[i].name, line);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: trace_calc crc32|base64|stats|dump < INPUT");
	if (!strcmp(argv[1], "stats"))
		return stats();
	if (!strcmp(argv[1], "dump"))
		return dump();
	size_t len;
	unsigned char *data = read_all(&len);
	if (!strcmp(argv[1], "crc32")) {
		uint32_t whole = crc32_ieee(0, data, len);
		if (crc32_ieee(crc32_ieee(0, data, len / 3), data + len / 3,
			       len - len / 3) != whole)
			die("crc32_ieee: continuing a CRC differs from the whole");
		printf("%08x\n", whole);
	} else if (!strcmp(argv[1], "base64")) {
		size_t size = base64_encoded_len(len) + 1;
		char *out = host_alloc(0, size);
		if (base64_encode(out, size, data, len) != size - 1 ||
		    base64_encode(out, size - 1, data, len) != 0)
			die("base64_encode: wrong length or overran a short buffer");
		base64_encode(out, size, data, len);
		printf("%s\n", out);
	} else {
		die("usage: trace_calc crc32|base64|stats|dump < INPUT");
	}
	return 0;
}
