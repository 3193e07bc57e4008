/*
 * kernel/run/sched_decide: asking the plugin, serialised the way it needs
 * (sched/sched.h, `ordered`):
 *  - ordered (staggered Pfair): CPU k's call for slot t waits for its turn
 *    in boundary order -- (t, k) after (t, k-1), and (t, 0) after
 *    (t-1, M-1) -- and is made by CPU k itself;
 *  - otherwise the first CPU to reach slot t decides slot t for every CPU,
 *    CPU 0 to M-1, as the simulator does; the others read their answer and
 *    never queue behind one another.
 * Either way every call into the plugin holds one lock, so the kernel's own
 * events (a job completed, a task killed) can come from any CPU at any
 * time. The decisions are kept per CPU for the few slots they may be
 * ahead of it.
 */
#ifndef KERNEL_SCHED_DECIDE_H
#define KERNEL_SCHED_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "../../sched/driver.h"

/*
 * A decision for CPU cpu's slot changed after the CPU may have started
 * that slot (an event-driven plugin's reschedule): the kernel tells that
 * CPU. Called with the plugin lock held.
 */
typedef void (*decide_changed_fn)(unsigned cpu, uint64_t slot, int task);

/* Before the run, on the boot CPU, before the driver is created: the
 * driver, its plugin's order, whether to run it at events (when it can),
 * how many CPUs. */
void decide_setup(struct sched_driver *d, int ordered, int at_events,
		  unsigned cpus, decide_changed_fn changed);
/* The plugin runs at events: slots between them are not decided, and a
 * CPU runs the answer of the latest slot that was. */
int decide_at_events(void);
/* The driver's on_choice (sched_driver_create). */
void decide_on_choice(void *ctx, unsigned cpu, uint64_t t, int task);

/*
 * CPU cpu is at its boundary slot: the plugin's answer for it (a task
 * index or SCHED_IDLE), deciding as needed. Returns -1 in *failed (and
 * SCHED_IDLE) once any call failed: the driver's message says why.
 * Interrupts off.
 */
int decide_boundary(unsigned cpu, uint64_t slot, int *failed);

/* The latest answer for CPU cpu's slot (after decide_boundary for it). */
int decide_answer(unsigned cpu, uint64_t slot);
/* The same, and in *until the first later slot whose answer may differ
 * (slot + 1 when every slot is decided; at events the next slot decided
 * for cpu, UINT64_MAX if none yet). A slot older than the decisions kept
 * answers SCHED_IDLE. */
int decide_answer_run(unsigned cpu, uint64_t slot, uint64_t *until);

/* After CPU's boundary at slot: the slot its timer is armed for next --
 * slot + 1, or at events the next slot to decide. */
uint64_t decide_next(uint64_t slot);
/* At events: this CPU's timer comes no later than the next slot to
 * decide, which a kernel event may have brought forward. */
void decide_rearm(void);

/* A kernel event for a task at CPU time `slot` (the slot in progress on the
 * calling CPU), under the plugin lock; answers that change reach the
 * `changed` callback. At events, a slot not decided yet is decided first
 * (for every CPU, as at a boundary there), so the plugin answers for it
 * again as it would with calls at every boundary. again, when not NULL,
 * gets whether the plugin answered the calling CPU anew for that slot in
 * reply to the event. Returns 0, or -1 with the driver's message. */
int decide_event(enum sched_driver_event ev, unsigned task, uint64_t slot,
		 int *again);

/* The task's job ended by its own call, which makes `done` jobs the
 * kernel counts: SCHED_EV_COMPLETE as decide_event, unless the plugin
 * counts that many already (it ended the job by its budget while the
 * task ran late: the kernel's count had fallen behind), when the plugin
 * is not told and 1 is returned. */
int decide_complete(unsigned task, uint64_t slot, uint64_t done, int *again);

/*
 * A task's program locks (unlock = 0) or unlocks resource res at CPU time
 * `slot` (the lock variant's lock_op, under the plugin lock); the next
 * decision is brought forward to where it takes effect. Returns 0, or a
 * negative SCHED_LOCK_E* with the plugin's message in why.
 */
int decide_lock(unsigned task, int unlock, unsigned res, uint64_t slot,
		char *why, size_t size);

/* Any plugin call failed. */
int decide_failed(void);

/* Stops asking the plugin and releases every CPU waiting for a turn
 * (something else failed). */
void decide_abort(void);

#endif
