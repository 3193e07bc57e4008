/* drivers/apic/lapic: the local APIC in xAPIC or x2APIC mode: IPIs, EOI and
 * the timer in TSC-deadline or one-shot mode. */
#ifndef DRIVERS_APIC_LAPIC_H
#define DRIVERS_APIC_LAPIC_H

#include <stdint.h>

/* Chooses the mode on the boot CPU: x2APIC when the CPU has it or the
 * firmware already enabled it, else xAPIC at mmio_base. */
void lapic_init_bsp(uint64_t mmio_base);
/* Enables the local APIC of the calling CPU (every CPU, BSP included). */
void lapic_init_cpu(void);
int lapic_ready(void);
int lapic_is_x2apic(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
/* Reads and clears the error status register (SDM vol. 3, 11.5.3). */
uint32_t lapic_error_status(void);

void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t page);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
/* One fixed IPI to every CPU but the sender (destination shorthand, SDM
 * vol. 3, 11.6.1). A CPU never started runs nothing for it: it waits for
 * a SIPI with its local APIC software-disabled (SDM vol. 3, 11.4.7.2). */
void lapic_send_ipi_others(uint8_t vector);
void lapic_send_nmi_others(void);

/* CPUID.1:ECX[24]: the timer has TSC-deadline mode. */
int lapic_has_tsc_deadline(void);
/* Sets the timer's LVT: TSC-deadline mode when deadline is set, else
 * one-shot with divide-by-1. Interrupts arrive on vector. */
void lapic_timer_setup(uint8_t vector, int deadline);
/* TSC-deadline mode: fire when the TSC reaches tsc (0 disarms). */
void lapic_timer_arm_deadline(uint64_t tsc);
/* One-shot mode: fire after count timer ticks (0 disarms). */
void lapic_timer_arm_count(uint32_t count);
uint32_t lapic_timer_current_count(void);
void lapic_timer_stop(void);

#endif
