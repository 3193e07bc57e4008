/* kernel/core/spinlock: a test-and-test-and-set lock that also masks interrupts. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>

#include "../../arch/x86/cpu.h"

struct spinlock {
	volatile uint32_t locked;
};

/* With interrupts already masked by the caller. */
static inline void spin_lock(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (l->locked)
			cpu_relax();
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = irq_save();
	spin_lock(l);
	return flags;
}

/* Gives up after spins attempts (the panic path must not deadlock on a
 * lock a stopped CPU held). Returns 1 when it got the lock. */
static inline int spin_trylock_for(struct spinlock *l, uint64_t spins)
{
	for (uint64_t i = 0; i < spins; i++) {
		if (!l->locked &&
		    !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
			return 1;
		cpu_relax();
	}
	return 0;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

#endif
