/* arch/x86/hpet: the HPET's main counter and comparator 0 (IA-PC HPET
 * specification 1.0a, section 2.3). */
#include "hpet.h"

#include "acpi.h"

/* 2.3.1, table 1: register offsets. */
#define HPET_CAPS 0x000
#define HPET_CONFIG 0x010
#define HPET_COUNTER 0x0f0
#define HPET_T0_CONFIG 0x100
#define HPET_T0_COMPARATOR 0x108
/* 2.3.4: general capabilities. */
#define CAPS_COUNT_64 (1ull << 13)
#define CAPS_LEGACY_ROUTE (1ull << 15)
#define CAPS_PERIOD_FS(c) ((c) >> 32)   /* femtoseconds per tick */
/* 2.3.5: general configuration. */
#define CONFIG_ENABLE (1ull << 0)
#define CONFIG_LEGACY_ROUTE (1ull << 1)
/* 2.3.8: timer N configuration and capabilities. Tn_INT_TYPE_CNF 0 is
 * edge, Tn_TYPE_CNF 0 one-shot: the zero fields. */
#define TN_INT_ENABLE (1ull << 2)
#define TN_PERIODIC (1ull << 3)
#define TN_SIZE_64 (1ull << 5)
#define TN_32BIT_MODE (1ull << 8)
#define TN_ROUTE_SHIFT 9
#define TN_ROUTE_MASK (0x1full << TN_ROUTE_SHIFT)
#define TN_FSB_ENABLE (1ull << 14)
#define TN_ROUTE_CAPS(c) ((uint32_t)((c) >> 32))
/* The boot identity map (boot/boot.asm) reaches it below 4 GiB, uncached
 * in the top GiB, where PCs put it. */
#define IDENTITY_LIMIT 0x100000000ull

static volatile uint64_t *regs;
static uint64_t hz;

uint64_t hpet_init(void)
{
	if (regs)
		return hz;
	uint64_t addr = acpi.hpet_addr;
	if (!addr || addr >= IDENTITY_LIMIT)
		return 0;
	volatile uint64_t *r = (volatile uint64_t *)addr;
	uint64_t period_fs = CAPS_PERIOD_FS(r[HPET_CAPS / 8]);
	/* 2.3.4 bounds the period by 100 ns; one below 1 ns (above 1 GHz,
	 * which the TSC's calibration arithmetic assumes no clock exceeds)
	 * is no HPET either. */
	if (period_fs < 1000000ull || period_fs > 100000000ull)
		return 0;
	r[HPET_CONFIG / 8] |= CONFIG_ENABLE;
	hz = 1000000000000000ull / period_fs;
	regs = r;
	return hz;
}

uint64_t hpet_counter(void)
{
	return regs[HPET_COUNTER / 8];
}

int hpet_counter_64(void)
{
	return (regs[HPET_CAPS / 8] & CAPS_COUNT_64) != 0;
}

int hpet_comparator_routes(uint32_t *route_caps, int *legacy)
{
	uint64_t t0 = regs[HPET_T0_CONFIG / 8];
	*route_caps = TN_ROUTE_CAPS(t0);
	*legacy = (regs[HPET_CAPS / 8] & CAPS_LEGACY_ROUTE) != 0;
	return t0 & TN_SIZE_64 ? 0 : -1;
}

void hpet_comparator_setup(int input)
{
	uint64_t c = regs[HPET_T0_CONFIG / 8];
	c &= ~(TN_INT_ENABLE | TN_PERIODIC | TN_32BIT_MODE | TN_ROUTE_MASK |
	       TN_FSB_ENABLE);
	if (input >= 0)
		c |= (uint64_t)input << TN_ROUTE_SHIFT;
	regs[HPET_T0_CONFIG / 8] = c;
	/* Disarmed: the last count of a 64-bit counter is centuries away
	 * (an emulator may fire at once for a count already passed). */
	regs[HPET_T0_COMPARATOR / 8] = ~0ull;
	uint64_t g = regs[HPET_CONFIG / 8];
	if (input < 0)
		g |= CONFIG_LEGACY_ROUTE;
	else
		g &= ~CONFIG_LEGACY_ROUTE;
	regs[HPET_CONFIG / 8] = g;
	regs[HPET_T0_CONFIG / 8] = c | TN_INT_ENABLE;
}

void hpet_comparator_arm(uint64_t count)
{
	regs[HPET_T0_COMPARATOR / 8] = count;
}

void hpet_comparator_stop(void)
{
	regs[HPET_T0_CONFIG / 8] &= ~TN_INT_ENABLE;
	regs[HPET_CONFIG / 8] &= ~CONFIG_LEGACY_ROUTE;
}
