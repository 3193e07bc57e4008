/* arch/x86/tsc: calibration against CPUID and the reference clocks. */
#include "tsc.h"

#include "../../lib/sort.h"
#include "cpu.h"
#include "log.h"
#include "refclock.h"

struct tsc_info tsc;

#define WINDOWS 5
#define WINDOW_MS 20
/* A read bracket longer than this many times the fastest one means
 * something (an SMI, the emulator) got between the two clock reads. */
#define BRACKET_SLACK 4

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

/* One window: TSC cycles per reference tick, as a frequency in Hz; 0 when
 * the endpoints could not be read cleanly. */
static uint64_t window_hz(const struct refclock *rc, uint64_t max_bracket)
{
	uint64_t ref0, tsc0, ref, tscm;
	int tries = 0;
	while (bracketed(rc, &ref0, &tsc0) > max_bracket)
		if (++tries > 100)
			return 0;
	uint64_t want = rc->hz * WINDOW_MS / 1000, elapsed = 0, prev = ref0;
	uint64_t w;
	for (;;) {
		w = bracketed(rc, &ref, &tscm);
		elapsed += (ref - prev) & rc->mask;
		prev = ref;
		if (elapsed >= want && w <= max_bracket)
			break;
		if (elapsed > 4 * want)
			return 0;
	}
	/* (tsc delta) * hz / ticks: both fit 64 bits for windows of tens of
	 * ms at up to ~10 GHz TSC and ~100 MHz reference. */
	return (tscm - tsc0) * rc->hz / elapsed;
}

static uint64_t measure(const struct refclock *rc)
{
	uint64_t max_bracket = fastest_read(rc) * BRACKET_SLACK + 200;
	uint64_t hz[WINDOWS];
	unsigned n = 0;
	for (int k = 0; k < WINDOWS * 2 && n < WINDOWS; k++) {
		uint64_t f = window_hz(rc, max_bracket);
		if (f)
			hz[n++] = f;
		else
			tsc.rejected_windows++;
	}
	if (!n)
		return 0;
	sort_u64(hz, n);
	return (hz[n / 2] + 500) / 1000;        /* the median, in kHz */
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
	unsigned nrc = refclock_probe(rc);
	for (unsigned i = 0; i < nrc; i++)
		tsc.tried[tsc.ntried++] = (struct tsc_method){ rc[i].name,
							      measure(&rc[i]), 0 };
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
