/* drivers/apic/ioapic: the I/O APICs (Intel 82093AA I/O APIC datasheet,
 * order no. 290566-001, sections 3.0-3.2). */
#include "ioapic.h"

#include "../../arch/x86/acpi.h"
#include "../../arch/x86/cpu.h"
#include "../../arch/x86/log.h"

/* 82093AA, 3.0: two memory-mapped registers select and reach the others. */
#define IOREGSEL 0x00
#define IOWIN 0x10
/* 82093AA, 3.2: the indirect registers. */
#define IOAPICVER 0x01
#define IOREDTBL(n) (0x10 + 2 * (n))
#define VER_MAX_ENTRY(v) (((v) >> 16) & 0xff)   /* entries - 1 */
/* 82093AA, 3.2.4: redirection entry bits. Delivery mode 000 (fixed) and
 * destination mode 0 (physical) are the zero fields. */
#define RTE_ACTIVE_LOW (1ull << 13)
#define RTE_LEVEL (1ull << 15)
#define RTE_MASKED (1ull << 16)
#define RTE_DEST_SHIFT 56
/* The physical destination field holds an 8-bit APIC ID (4 bits on the
 * 82093AA itself; the later I/O APICs of chipsets take 8). */
#define DEST_MAX 0xff
/* Above 240 inputs the version register's 8-bit field could not count. */
#define INPUTS_MAX 240

struct ioapic {
	volatile uint32_t *mmio;
	uint32_t gsi_base, inputs;
};

static struct ioapic chips[ACPI_MAX_IOAPICS];
static unsigned nchips, total_inputs;
/* IOREGSEL then IOWIN is two accesses: one CPU at a time. */
static volatile uint32_t busy;

static uint64_t lock(void)
{
	uint64_t flags = irq_save();
	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	return flags;
}

static void unlock(uint64_t flags)
{
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	irq_restore(flags);
}

static uint32_t rd(const struct ioapic *c, uint32_t reg)
{
	c->mmio[IOREGSEL / 4] = reg;
	return c->mmio[IOWIN / 4];
}

static void wr(const struct ioapic *c, uint32_t reg, uint32_t v)
{
	c->mmio[IOREGSEL / 4] = reg;
	c->mmio[IOWIN / 4] = v;
}

/* The chip and input of a GSI, or NULL. */
static const struct ioapic *chip_of(uint32_t gsi, uint32_t *pin)
{
	for (unsigned i = 0; i < nchips; i++)
		if (gsi >= chips[i].gsi_base &&
		    gsi - chips[i].gsi_base < chips[i].inputs) {
			*pin = gsi - chips[i].gsi_base;
			return &chips[i];
		}
	return 0;
}

/* Writes an entry masked first, so that it is never live half written
 * (82093AA, 3.2.4: the two halves are separate registers). */
static void write_entry(const struct ioapic *c, uint32_t pin, uint64_t e)
{
	wr(c, IOREDTBL(pin), (uint32_t)RTE_MASKED);
	wr(c, IOREDTBL(pin) + 1, (uint32_t)(e >> 32));
	wr(c, IOREDTBL(pin), (uint32_t)e);
}

unsigned ioapic_init(void)
{
	nchips = total_inputs = 0;
	for (unsigned i = 0; i < acpi.nioapics; i++) {
		const struct acpi_ioapic *a = &acpi.ioapic[i];
		/* The boot identity map covers 4 GiB, its top GiB uncached
		 * (boot/boot.asm): where every I/O APIC of a PC sits. */
		if (a->addr < 0xc0000000u) {
			arch_log("ioapic: I/O APIC %u at %#x is outside the "
				"uncached MMIO window; not used\n", a->id, a->addr);
			continue;
		}
		struct ioapic *c = &chips[nchips];
		c->mmio = (volatile uint32_t *)(uint64_t)a->addr;
		c->gsi_base = a->gsi_base;
		uint32_t ver = rd(c, IOAPICVER);
		if (ver == 0xffffffffu || VER_MAX_ENTRY(ver) + 1 > INPUTS_MAX) {
			arch_log("ioapic: I/O APIC %u at %#x does not answer "
				"(version register %#x); not used\n", a->id,
				a->addr, ver);
			continue;
		}
		c->inputs = VER_MAX_ENTRY(ver) + 1;
		for (uint32_t pin = 0; pin < c->inputs; pin++)
			write_entry(c, pin, RTE_MASKED);
		total_inputs += c->inputs;
		nchips++;
	}
	return total_inputs;
}

unsigned ioapic_inputs(void)
{
	return total_inputs;
}

int ioapic_has_gsi(uint32_t gsi)
{
	uint32_t pin;
	return chip_of(gsi, &pin) != 0;
}

struct ioapic_wiring ioapic_isa_wiring(unsigned irq)
{
	struct ioapic_wiring w = { .gsi = irq, .level = 0, .active_low = 0 };
	for (unsigned i = 0; i < acpi.noverrides; i++) {
		const struct acpi_override *o = &acpi.override[i];
		if (o->isa_irq != irq)
			continue;
		w.gsi = o->gsi;
		/* ACPI 6.4, table 5.50: 0 conforms to the bus (ISA: edge,
		 * active high); 2 is reserved and read as the bus's too. */
		w.active_low = ACPI_INTI_POLARITY(o->flags) ==
			       ACPI_INTI_ACTIVE_LOW;
		w.level = ACPI_INTI_TRIGGER(o->flags) == ACPI_INTI_LEVEL;
	}
	return w;
}

int ioapic_route(struct ioapic_wiring w, uint8_t vector, uint32_t apic_id)
{
	uint32_t pin;
	const struct ioapic *c = chip_of(w.gsi, &pin);
	if (!c) {
		arch_log("ioapic: no I/O APIC has GSI %u\n", w.gsi);
		return -1;
	}
	if (apic_id > DEST_MAX) {
		arch_log("ioapic: APIC ID %u does not fit the 8-bit physical "
			"destination (x2APIC IDs need interrupt remapping)\n",
			apic_id);
		return -1;
	}
	uint64_t e = vector | RTE_MASKED | (uint64_t)apic_id << RTE_DEST_SHIFT;
	if (w.level)
		e |= RTE_LEVEL;
	if (w.active_low)
		e |= RTE_ACTIVE_LOW;
	uint64_t flags = lock();
	write_entry(c, pin, e);
	unlock(flags);
	return 0;
}

static void set_mask(uint32_t gsi, int masked)
{
	uint32_t pin;
	const struct ioapic *c = chip_of(gsi, &pin);
	if (!c)
		return;
	uint64_t flags = lock();
	uint32_t lo = rd(c, IOREDTBL(pin));
	lo = masked ? lo | (uint32_t)RTE_MASKED : lo & ~(uint32_t)RTE_MASKED;
	wr(c, IOREDTBL(pin), lo);
	unlock(flags);
}

void ioapic_unmask(uint32_t gsi)
{
	set_mask(gsi, 0);
}

void ioapic_mask(uint32_t gsi)
{
	set_mask(gsi, 1);
}

uint64_t ioapic_entry(uint32_t gsi)
{
	uint32_t pin;
	const struct ioapic *c = chip_of(gsi, &pin);
	if (!c)
		return 0;
	uint64_t flags = lock();
	uint64_t e = rd(c, IOREDTBL(pin)) |
		     (uint64_t)rd(c, IOREDTBL(pin) + 1) << 32;
	unlock(flags);
	return e;
}
