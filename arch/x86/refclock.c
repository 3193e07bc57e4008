/* arch/x86/refclock: PIT, HPET and ACPI PM timer as up-counters. */
#include "refclock.h"

#include "acpi.h"
#include "cpu.h"
#include "hpet.h"

/* 8254 PIT: 1.193182 MHz (the 14.31818 MHz crystal divided by 12). */
#define PIT_HZ 1193182
#define PIT_CH2_DATA 0x42
#define PIT_COMMAND 0x43
#define PIT_GATE_PORT 0x61          /* bit 0: channel 2 gate, bit 1: speaker */
#define PIT_CH2_MODE2_LOHI 0xb4     /* channel 2, lo/hi byte, mode 2 */
#define PIT_CH2_LATCH 0x80

#define PM_TIMER_HZ 3579545         /* ACPI 6.4, 4.8.3.3 */

static uint16_t pit_last;
static uint64_t pit_count;

/* The PIT counts down from 65536 and wraps every 55 ms; extend it to an
 * up-counter, which is exact as long as reads are less than a wrap apart
 * (the calibration polls continuously). */
static uint64_t pit_read(void)
{
	outb(PIT_COMMAND, PIT_CH2_LATCH);
	uint16_t v = inb(PIT_CH2_DATA);
	v |= (uint16_t)inb(PIT_CH2_DATA) << 8;
	pit_count += (uint16_t)(pit_last - v);
	pit_last = v;
	return pit_count;
}

static void pit_start(void)
{
	/* Gate on, speaker off; mode 2 reload 0 means 65536. */
	outb(PIT_GATE_PORT, (inb(PIT_GATE_PORT) & ~0x02) | 0x01);
	outb(PIT_COMMAND, PIT_CH2_MODE2_LOHI);
	outb(PIT_CH2_DATA, 0);
	outb(PIT_CH2_DATA, 0);
	pit_count = 0;
	outb(PIT_COMMAND, PIT_CH2_LATCH);
	pit_last = inb(PIT_CH2_DATA);
	pit_last |= (uint16_t)inb(PIT_CH2_DATA) << 8;
}

static uint64_t pm_read(void)
{
	return inl(acpi.pm_timer_port);
}

unsigned refclock_probe(struct refclock *out)
{
	unsigned n = 0;
	uint64_t hpet_hz = hpet_init();
	if (hpet_hz) {
		int counter_64 = hpet_counter_64();
		out[n++] = (struct refclock){
			.name = "hpet", .hz = hpet_hz,
			.mask = counter_64 ? ~0ull : 0xffffffffull,
			.period = counter_64 ? 0 : 1ull << 32,
			.read = hpet_counter };
	}
	if (acpi.pm_timer_port)
		out[n++] = (struct refclock){
			.name = "pmtimer", .hz = PM_TIMER_HZ,
			.mask = acpi.pm_timer_32bit ? 0xffffffffull : 0xffffffull,
			.period = acpi.pm_timer_32bit ? 1ull << 32 : 1ull << 24,
			.read = pm_read };
	pit_start();
	/* pit_read extends the 16-bit count, as long as reads come less
	 * than a period apart. */
	out[n++] = (struct refclock){ .name = "pit", .hz = PIT_HZ, .mask = ~0ull,
				      .period = 1ull << 16, .read = pit_read };
	return n;
}
