/* kernel/report/hwreport: the hardware report. */
#include "hwreport.h"

#include "../../arch/x86/acpi.h"
#include "../../arch/x86/hpet.h"
#include "../../arch/x86/msr_safe.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../drivers/apic/lapic.h"
#include "../../lib/hwblock.h"
#include "../../lib/sort.h"
#include "../../lib/str.h"
#include "../core/console.h"
#include "../core/options.h"
#include "../core/smp.h"
#include "../time/clock_selftest.h"
#include "../time/quantum_clock.h"
#include "cpu_report.h"

/* MSR_SMI_COUNT (SDM vol. 4, the Nehalem and later tables): SMIs since
 * reset, bits 31:0. Intel family 6 only; a #GP says it is not there. */
#define MSR_SMI_COUNT 0x34
/* An MSR in no range the SDM or the APM defines (selftest=msr_gp). */
#define MSR_NONE 0xdead0000u
/* How many of each clock's latest boundaries the block names. */
#define WORST 3

static struct cpu_report cpu;

struct smi {
	const char *missing;    /* why there is no count; NULL: count */
	uint64_t count;
};

static struct smi smi_read(void)
{
	if (!str_eq(cpu.id.vendor, "GenuineIntel") || cpu.id.family != 6)
		return (struct smi){ "vendor", 0 };
	uint64_t v;
	if (msr_read_safe(MSR_SMI_COUNT, &v))
		return (struct smi){ "gp", 0 };
	return (struct smi){ 0, v & 0xffffffffu };
}

struct clock_run {
	struct clock_stats st;
	struct clock_late worst[WORST];
	unsigned nworst;
};

static void emit(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("%s\n", line);
}

#define US(ns) (unsigned long long)((ns) / 1000), \
	(unsigned long long)((ns) % 1000)

/* Online CPUs' APIC IDs, sorted, in v; returns how many. */
static unsigned sorted_ids(uint64_t *v)
{
	unsigned n = smp.online;
	for (unsigned k = 0; k < n; k++)
		v[k] = percpu[k].apic_id;
	sort_u64(v, n);
	return n;
}

static unsigned distinct(const uint64_t *sorted, unsigned n)
{
	unsigned d = 0;
	for (unsigned i = 0; i < n; i++)
		d += !i || sorted[i] != sorted[i - 1];
	return d;
}

static void topology(struct hwblock *b)
{
	static uint64_t pkg[MAX_CPUS], core[MAX_CPUS];
	unsigned n = smp.online;
	for (unsigned k = 0; k < n; k++) {
		uint32_t p, c, t;
		cpuinfo_split_apic_id(&cpu.id.topo, percpu[k].apic_id, &p, &c, &t);
		pkg[k] = p;
		core[k] = (uint64_t)p << 32 | c;
	}
	sort_u64(pkg, n);
	sort_u64(core, n);
	hwblock_key(b, "topo");
	hwblock_add(b, "src=%s", cpu_topo_names[cpu.id.topo.source]);
	hwblock_add(b, "smt_bits=%u", cpu.id.topo.smt_bits);
	hwblock_add(b, "core_bits=%u", cpu.id.topo.core_bits);
	hwblock_add(b, "packages=%u", distinct(pkg, n));
	hwblock_add(b, "cores=%u", distinct(core, n));
}

static void apic(struct hwblock *b)
{
	static uint64_t id[MAX_CPUS];
	unsigned n = sorted_ids(id);
	hwblock_key(b, "apic");
	hwblock_add(b, "mode=%s", lapic_is_x2apic() ? "x2apic" : "xapic");
	hwblock_add(b, "bsp=%u", percpu[0].apic_id);
	hwblock_add(b, "online=%u", smp.online);
	hwblock_add(b, "found=%u", smp.found);
	hwblock_key(b, "ids");
	for (unsigned i = 0; i < n;) {
		unsigned j = i;
		while (j + 1 < n && id[j + 1] == id[j] + 1)
			j++;
		if (j == i)
			hwblock_add(b, "%llu", (unsigned long long)id[i]);
		else
			hwblock_add(b, "%llu-%llu", (unsigned long long)id[i],
				    (unsigned long long)id[j]);
		i = j + 1;
	}
}

static void clock_tsc(struct hwblock *b)
{
	hwblock_key(b, "tsc");
	hwblock_add(b, "khz=%llu", (unsigned long long)tsc.khz);
	hwblock_add(b, "via=%s", tsc.method);
	hwblock_add(b, "invariant=%d", tsc.invariant);
	hwblock_add(b, "skew_cycles=%lld", (long long)smp.max_skew_cycles);
	/* Every reference against the rate chosen, and the reads left out. */
	hwblock_key(b, "ref");
	for (unsigned i = 0; i < tsc.ntried; i++) {
		const struct tsc_method *m = &tsc.tried[i];
		if (m->coarse)
			hwblock_add(b, "%s=%llumhz", m->name,
				    (unsigned long long)(m->khz / 1000));
		else if (!m->khz)
			hwblock_add(b, "%s=failed", m->name);
		else
			hwblock_add(b, "%s=%+lldppm", m->name,
				    (long long)(((int64_t)m->khz -
						 (int64_t)tsc.khz) * 1000000 /
						(int64_t)tsc.khz));
	}
	hwblock_add(b, "rejected=%u", tsc.rejected_reads);
}

static void timers(struct hwblock *b)
{
	hwblock_key(b, "timer");
	hwblock_add(b, "tsc_deadline=%d", lapic_has_tsc_deadline());
	hwblock_add(b, "used=%s", qclock_deadline_mode() ? "deadline" :
		    "oneshot");
	hwblock_add(b, "arat=%d", cpuinfo_has(&cpu.id, CPUF_ARAT));
	uint64_t hz = hpet_init();
	hwblock_key(b, "refclocks");
	if (hz) {
		hwblock_add(b, "hpet_mhz=%llu.%03llu",
			    (unsigned long long)(hz / 1000000),
			    (unsigned long long)(hz / 1000 % 1000));
		hwblock_add(b, "hpet_bits=%d", hpet_counter_64() ? 64 : 32);
	} else {
		hwblock_add(b, "hpet_mhz=none");
		hwblock_add(b, "hpet_bits=none");
	}
	if (acpi.pm_timer_port)
		hwblock_add(b, "pmtimer_bits=%d", acpi.pm_timer_32bit ? 32 : 24);
	else
		hwblock_add(b, "pmtimer_bits=none");
}

/* The measurement's length, and the SMIs counted before and after it. */
static void run_line(struct hwblock *b, struct smi before, struct smi after)
{
	hwblock_key(b, "run");
	hwblock_add(b, "q_us=%llu", (unsigned long long)options.quantum_us);
	hwblock_add(b, "quanta=%llu", (unsigned long long)options.slots);
	if (before.missing || after.missing) {
		hwblock_add(b, "smi=none:%s", before.missing ? before.missing :
			    after.missing);
		return;
	}
	hwblock_add(b, "smi_before=%llu", (unsigned long long)before.count);
	hwblock_add(b, "smi_after=%llu", (unsigned long long)after.count);
}

static void clock_lines(struct hwblock *b, const char *mode,
			const char *worst_key, const struct clock_run *r)
{
	hwblock_key(b, mode);
	hwblock_add(b, "missed=%llu", (unsigned long long)r->st.missed);
	hwblock_add(b, "p50_us=%llu.%03llu", US(r->st.err_p50_ns));
	hwblock_add(b, "p99_us=%llu.%03llu", US(r->st.err_p99_ns));
	hwblock_add(b, "max_us=%llu.%03llu", US(r->st.err_max_ns));
	hwblock_key(b, worst_key);
	for (unsigned i = 0; i < r->nworst; i++)
		hwblock_add(b, "%llu.%03lluus@%u:%llu", US(r->worst[i].ns),
			    r->worst[i].cpu, (unsigned long long)r->worst[i].slot);
	if (!r->nworst)
		hwblock_add(b, "none");
}

static void features(struct hwblock *b, const char *key, enum feature_use u)
{
	hwblock_key(b, key);
	int any = 0;
	for (unsigned f = 0; f < CPUF_COUNT; f++)
		if (cpu.use[f] == u) {
			hwblock_add(b, "%s", cpu_feature_names[f]);
			any = 1;
		}
	if (!any)
		hwblock_add(b, "none");
}

static void block(struct smi before, struct smi after,
		  const struct clock_run *aligned,
		  const struct clock_run *staggered)
{
	struct hwblock b;
	hwblock_begin(&b, emit, 0);
	hwblock_key(&b, "cpu");
	hwblock_add(&b, "vendor=%s", cpu.vendor);
	hwblock_add(&b, "family=%u", cpu.id.family);
	hwblock_add(&b, "model=%u", cpu.id.model);
	hwblock_add(&b, "stepping=%u", cpu.id.stepping);
	hwblock_key(&b, "name");
	/* The brand string word by word (a token has no spaces). */
	const char *s = cpu.id.brand;
	if (!*s)
		hwblock_add(&b, "none");
	while (*s) {
		unsigned n = 0;
		while (s[n] && s[n] != ' ')
			n++;
		if (n)
			hwblock_add(&b, "%.*s", (int)n, s);
		s += n;
		while (*s == ' ')
			s++;
	}
	features(&b, "uses", FEATURE_USED);
	features(&b, "lacks", FEATURE_LACKED);
	features(&b, "unused", FEATURE_UNUSED);
	topology(&b);
	apic(&b);
	clock_tsc(&b);
	timers(&b);
	run_line(&b, before, after);
	clock_lines(&b, "aligned", "aligned_late", aligned);
	clock_lines(&b, "staggered", "staggered_late", staggered);
	hwblock_end(&b);
}

static int run(const char **reason)
{
	static struct clock_run aligned, staggered;
	kprintf("hwreport: the machine, and both quantum clocks over %llu "
		"quanta of %llu us\n", (unsigned long long)options.slots,
		(unsigned long long)options.quantum_us);
	struct smi before = smi_read();
	for (int stag = 0; stag <= 1; stag++) {
		struct clock_run *r = stag ? &staggered : &aligned;
		if (clock_selftest_stats(stag, options.slots, options.quantum_us,
					 options.trace == TRACE_TICK_LINES,
					 &r->st, reason))
			return -1;
		r->nworst = clock_stats_latest(r->worst, WORST);
	}
	struct smi after = smi_read();
	kprintf("\nhwreport: send the block below, begin to end\n");
	block(before, after, &aligned, &staggered);
	return 0;
}

/* The safe read's fault path, where the machine faults at all (Bochs and
 * KVM do; QEMU's TCG reads 0). */
static void msr_selftest(void)
{
	uint64_t v;
	if (msr_read_safe(MSR_NONE, &v))
		kprintf("selftest: RDMSR %#x raised #GP, caught\n", MSR_NONE);
	else
		kprintf("selftest: RDMSR %#x read %#llx without a fault\n",
			MSR_NONE, (unsigned long long)v);
}

int hwreport_boot(const char **reason)
{
	cpu_report_collect(&cpu);
	cpu_report_print(&cpu);
	if (options.selftest == SELFTEST_MSR_GP)
		msr_selftest();
	if (!options.hwreport)
		return -1;
	return run(reason) == 0;
}
