/* drivers/apic/lapic: the local APIC (SDM vol. 3, chapter 11). */
#include "lapic.h"

#include "../../arch/x86/cpu.h"

/* Register offsets in the xAPIC page (SDM vol. 3, table 11-1); in x2APIC
 * mode the MSR is 0x800 + offset / 16 (table 11-6). */
#define LAPIC_ID        0x020
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0b0
#define LAPIC_SVR       0x0f0
#define LAPIC_ESR       0x280
#define LAPIC_ICR_LOW   0x300
#define LAPIC_ICR_HIGH  0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_THERMAL 0x330
#define LAPIC_LVT_PERF  0x340
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE 0x3e0

#define X2APIC_MSR_BASE 0x800
#define X2APIC_ICR_MSR  0x830

#define APIC_BASE_ENABLE (1ull << 11)   /* IA32_APIC_BASE, SDM 11.4.4 */
#define APIC_BASE_X2APIC (1ull << 10)   /* SDM 11.12.1 */
#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)  /* SDM 11.5.1 */
#define TIMER_DIVIDE_BY_1 0xb              /* SDM figure 11-10 */
/* ICR fields, SDM vol. 3, 11.6.1 */
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_NMI (4u << 8)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_ALL_EXCLUDING_SELF (3u << 18)

static volatile uint32_t *mmio;
static int x2apic;
static int ready;

static uint32_t rd(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR_BASE + (reg >> 4));
	return mmio[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + (reg >> 4), v);
	else
		mmio[reg / 4] = v;
}

void lapic_init_bsp(uint64_t mmio_base)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	int cpu_has_x2apic = (cpuid(1, 0).ecx >> 21) & 1;
	x2apic = cpu_has_x2apic || (base & APIC_BASE_X2APIC);
	if (!mmio_base)
		mmio_base = base & ~0xfffull;
	mmio = (volatile uint32_t *)(mmio_base & ~0xfffull);
}

void lapic_init_cpu(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;
	if (x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_APIC_BASE, base);
	wr(LAPIC_TPR, 0);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_LVT_THERMAL, LVT_MASKED);
	wr(LAPIC_LVT_PERF, LVT_MASKED);
	wr(LAPIC_LVT_LINT0, LVT_MASKED);
	wr(LAPIC_LVT_LINT1, LVT_MASKED);
	wr(LAPIC_LVT_ERROR, LVT_MASKED);
	wr(LAPIC_SVR, SVR_ENABLE | 0xff);
	lapic_error_status();
	ready = 1;
}

int lapic_ready(void)
{
	return ready;
}

int lapic_is_x2apic(void)
{
	return x2apic;
}

uint32_t lapic_id(void)
{
	return x2apic ? rd(LAPIC_ID) : rd(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

uint32_t lapic_error_status(void)
{
	/* A write arms the register with the errors since the last one. */
	wr(LAPIC_ESR, 0);
	return rd(LAPIC_ESR);
}

/* WRMSR to the x2APIC and deadline MSRs is not serialising (SDM vol. 3,
 * 11.12.3): fenced, so the write is not reordered with earlier stores (an
 * IPI must not overtake the data it announces). */
static void wrmsr_fenced(uint32_t msr, uint64_t v)
{
	mfence();
	lfence();
	wrmsr(msr, v);
}

static void send_icr(uint32_t apic_id, uint32_t low)
{
	if (x2apic) {
		wrmsr_fenced(X2APIC_ICR_MSR, (uint64_t)apic_id << 32 | low);
		return;
	}
	while (rd(LAPIC_ICR_LOW) & ICR_DELIVERY_PENDING)
		cpu_relax();
	wr(LAPIC_ICR_HIGH, apic_id << 24);
	wr(LAPIC_ICR_LOW, low);
	while (rd(LAPIC_ICR_LOW) & ICR_DELIVERY_PENDING)
		cpu_relax();
}

void lapic_send_init(uint32_t apic_id)
{
	send_icr(apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
}

void lapic_send_startup(uint32_t apic_id, uint8_t page)
{
	send_icr(apic_id, ICR_STARTUP | ICR_LEVEL_ASSERT | page);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send_icr(apic_id, ICR_LEVEL_ASSERT | vector);
}

void lapic_send_ipi_others(uint8_t vector)
{
	send_icr(0, ICR_LEVEL_ASSERT | ICR_ALL_EXCLUDING_SELF | vector);
}

void lapic_send_nmi_others(void)
{
	send_icr(0, ICR_NMI | ICR_LEVEL_ASSERT | ICR_ALL_EXCLUDING_SELF);
}

int lapic_has_tsc_deadline(void)
{
	return (cpuid(1, 0).ecx >> 24) & 1;
}

void lapic_timer_setup(uint8_t vector, int deadline)
{
	if (deadline) {
		wr(LAPIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | vector);
		/* SDM vol. 3, 11.5.4.1: the LVT write must be complete before
		 * IA32_TSC_DEADLINE is written; in xAPIC mode the MMIO write is
		 * ordered by MFENCE. */
		mfence();
	} else {
		wr(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_1);
		wr(LAPIC_LVT_TIMER, vector);
	}
}

void lapic_timer_arm_deadline(uint64_t tsc)
{
	wrmsr_fenced(MSR_TSC_DEADLINE, tsc);
}

void lapic_timer_arm_count(uint32_t count)
{
	wr(LAPIC_TIMER_INITIAL, count);
}

uint32_t lapic_timer_current_count(void)
{
	return rd(LAPIC_TIMER_CURRENT);
}

void lapic_timer_stop(void)
{
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INITIAL, 0);
}
