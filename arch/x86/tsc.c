/* arch/x86/tsc: calibration against CPUID and the reference clocks. */
#include "tsc.h"

#include "cpu.h"
#include "log.h"
#include "refclock.h"

struct tsc_info tsc;

/*
 * Every reference clock is read over one window of WINDOW_MS, each read
 * bracketed by two TSC reads. The reads of the window's first and last
 * EDGE_MS are averaged per clock -- TSC midpoints and clock ticks -- and the
 * frequency is the ratio of the differences of the averages. One window
 * shared by all the clocks keeps calibration under 50 ms; averaging
 * hundreds of reads at each end takes the error of one read (its place in
 * the bracket, the clock's last tick) down with it. Each (TSC, ticks) pair
 * lies on the same line whenever it was taken, so an edge may run long --
 * until it has MIN_READS clean reads -- when the CPU was away (an SMI, the
 * emulator's thread descheduled by its host).
 */
#define WINDOW_MS 32
#define EDGE_MS 4
/* A read bracket longer than this many times the fastest one means
 * something got between the two clock reads: the read is left out. */
#define BRACKET_SLACK 4
#define MIN_READS 8
/* Before any clock has covered the window, give up after this many TSC
 * cycles (1.7 s at 10 GHz): a clock that never advances must not hang the
 * boot. */
#define GIVE_UP_CYCLES (1ull << 34)

struct track {
	const struct refclock *rc;
	uint64_t max_bracket;
	uint64_t prev, ticks;           /* ticks since the window began */
	uint64_t edge, window;          /* EDGE_MS and WINDOW_MS in ticks */
	int in_last, lost, done;
	uint64_t n[2], sum_tsc[2], sum_ticks[2];   /* [0] first edge, [1] last */
};

/* Reads the reference clock between two TSC reads; returns the bracket. */
static uint64_t bracketed(const struct refclock *rc, uint64_t *ref,
			  uint64_t *tsc_mid)
{
	uint64_t a = rdtsc_ordered();
	*ref = rc->read();
	uint64_t b = rdtsc_ordered();
	*tsc_mid = a + (b - a) / 2;
	return b - a;
}

/* The cheapest read of this clock, for judging brackets. */
static uint64_t fastest_read(const struct refclock *rc)
{
	uint64_t best = ~0ull, ref, mid;
	for (int i = 0; i < 32; i++) {
		uint64_t w = bracketed(rc, &ref, &mid);
		if (w < best)
			best = w;
	}
	return best;
}

/* a * b / c without overflow while c and b are below 2^30: b is a clock's
 * rate (at most 1 GHz, refclock.h), c its ticks in a window, in 1/16ths. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return a / c * b + a % c * b / c;
}

/* The average of the last edge minus that of the first, in 1/16ths. */
static uint64_t edge_span(const uint64_t *sum, const uint64_t *n)
{
	return sum[1] * 16 / n[1] - sum[0] * 16 / n[0];
}

/* One read of t's clock, at base + TSC-relative time. */
static void sample(struct track *t, uint64_t base)
{
	uint64_t ref, mid;
	uint64_t w = bracketed(t->rc, &ref, &mid);
	t->ticks += (ref - t->prev) & t->rc->mask;
	t->prev = ref;
	int first = t->ticks < t->edge || t->n[0] < MIN_READS;
	t->in_last |= !first && t->ticks + t->edge >= t->window;
	if (first || t->in_last) {
		if (w <= t->max_bracket) {
			unsigned e = !first;
			t->n[e]++;
			t->sum_tsc[e] += mid - base;
			t->sum_ticks[e] += t->ticks;
		} else {
			tsc.rejected_reads++;
		}
	}
	/* The edges' averages half a window apart at least, however long
	 * the CPU was away. */
	t->done = t->ticks >= t->window && t->n[1] >= MIN_READS &&
		  edge_span(t->sum_ticks, t->n) >= t->window * 8;
}

static uint64_t track_khz(const struct track *t)
{
	if (!t->done || t->lost)
		return 0;
	uint64_t hz = mul_div(edge_span(t->sum_tsc, t->n), t->rc->hz,
			      edge_span(t->sum_ticks, t->n));
	return (hz + 500) / 1000;
}

/* Calibrates against every clock at once; out[i] gets clock i's kHz (0:
 * it failed). */
static void measure(const struct refclock *rc, unsigned nrc, uint64_t *out)
{
	struct track t[3];
	for (unsigned i = 0; i < nrc; i++) {
		t[i] = (struct track){
			.rc = &rc[i],
			.max_bracket = fastest_read(&rc[i]) * BRACKET_SLACK + 200,
			.edge = rc[i].hz * EDGE_MS / 1000,
			.window = rc[i].hz * WINDOW_MS / 1000,
		};
		t[i].prev = rc[i].read();
	}
	uint64_t base = rdtsc_ordered(), first_done = 0;
	unsigned done = 0, lost = 0;
	while (done + lost < nrc) {
		uint64_t ticks0 = t[0].ticks;
		done = lost = 0;
		/* A clock that is done is read on (its last edge grows):
		 * the first clock times the others' gaps. */
		for (unsigned i = 0; i < nrc; i++) {
			if (!t[i].lost)
				sample(&t[i], base);
			done += t[i].done;
			lost += t[i].lost;
		}
		/* Reads of a clock further apart than half its counter's
		 * period (timed by the first clock, which has the longest)
		 * may have missed a wrap: its count is lost. */
		uint64_t gap = t[0].ticks - ticks0;
		for (unsigned i = 1; i < nrc; i++)
			if (rc[i].period &&
			    gap * rc[i].hz >= rc[i].period / 2 * rc[0].hz)
				t[i].lost = 1;
		uint64_t now = rdtsc() - base;
		if (done && !first_done)
			first_done = now;
		/* A clock that has not covered the window in twice the time
		 * another took is broken (or far off its stated rate). */
		if (now > (first_done ? 2 * first_done : GIVE_UP_CYCLES))
			break;
	}
	for (unsigned i = 0; i < nrc; i++)
		out[i] = track_khz(&t[i]);
}

/* CPUID 0x15 (SDM vol. 2A): TSC = crystal * EBX / EAX when ECX gives the
 * crystal frequency. */
static uint64_t cpuid15_khz(void)
{
	if (cpuid(0, 0).eax < 0x15)
		return 0;
	struct cpuid_regs r = cpuid(0x15, 0);
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (uint64_t)r.ecx * r.ebx / r.eax / 1000;
}

static uint64_t ppm(uint64_t a, uint64_t ref)
{
	uint64_t d = a > ref ? a - ref : ref - a;
	return d * 1000000 / ref;
}

void tsc_calibrate(void)
{
	uint64_t start = rdtsc();
	tsc.invariant = cpuid(0x80000000, 0).eax >= 0x80000007 &&
			((cpuid(0x80000007, 0).edx >> 8) & 1);
	struct refclock rc[3];
	uint64_t khz[3];
	unsigned nrc = refclock_probe(rc);
	measure(rc, nrc, khz);
	for (unsigned i = 0; i < nrc; i++)
		tsc.tried[tsc.ntried++] = (struct tsc_method){ rc[i].name,
							      khz[i], 0 };
	/* The reference clocks come best first; take the first that worked. */
	for (unsigned i = 0; i < tsc.ntried && !tsc.khz; i++)
		if (tsc.tried[i].khz) {
			tsc.khz = tsc.tried[i].khz;
			tsc.method = tsc.tried[i].name;
		}
	/* CPUID 0x15 is exact when the crystal is given; believe it only when
	 * a measurement agrees within 1%. */
	uint64_t c15 = cpuid15_khz();
	if (c15) {
		tsc.tried[tsc.ntried++] = (struct tsc_method){ "cpuid15", c15, 0 };
		if (!tsc.khz || ppm(c15, tsc.khz) < 10000) {
			tsc.khz = c15;
			tsc.method = "cpuid15";
		} else {
			arch_log("tsc: CPUID 0x15 says %llu kHz, measurements say "
				"%llu kHz; not believed\n",
				(unsigned long long)c15, (unsigned long long)tsc.khz);
		}
	}
	/* CPUID 0x16 EAX: the base frequency in whole MHz (SDM vol. 2A) --
	 * hundreds of ppm too coarse to calibrate with; shown for comparison. */
	if (cpuid(0, 0).eax >= 0x16 && (cpuid(0x16, 0).eax & 0xffff))
		tsc.tried[tsc.ntried++] = (struct tsc_method){
			"cpuid16", (uint64_t)(cpuid(0x16, 0).eax & 0xffff) * 1000, 1 };
	if (!tsc.khz)
		return;
	for (unsigned i = 0; i < tsc.ntried; i++)
		if (tsc.tried[i].khz && !tsc.tried[i].coarse &&
		    ppm(tsc.tried[i].khz, tsc.khz) > tsc.disagree_ppm)
			tsc.disagree_ppm = ppm(tsc.tried[i].khz, tsc.khz);
	tsc.calib_us = tsc_to_us(rdtsc() - start);
}

uint64_t tsc_from_us(uint64_t us)
{
	return us * tsc.khz / 1000;
}

uint64_t tsc_from_ns(uint64_t ns)
{
	return ns * tsc.khz / 1000000;
}

uint64_t tsc_to_us(uint64_t cycles)
{
	return tsc_to_ns(cycles) / 1000;
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	/* Split to keep cycles * 10^6 inside 64 bits. */
	return cycles / tsc.khz * 1000000 + cycles % tsc.khz * 1000000 / tsc.khz;
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + tsc_from_us(us);
	while (rdtsc() < end)
		cpu_relax();
}
