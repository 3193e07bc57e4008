/*
 * kernel/events/event_work: the work of an event-driven run's jobs, from the CPU
 * time of their threads (kernel/run/dispatch.c measures it at every switch).
 * A periodic job needs e * quantum_us microseconds of its task's thread
 * (exec * quantum_us for a task given exec=: its jobs end early); a
 * server's jobs wait in its FIFO queue and the head job needs its cost_us
 * of the server's thread. A job's work is the CPU time its thread had as
 * its CPU's answer: from the moment the answer moves away from it to the
 * switch that follows, a thread runs as no job's work.
 *
 * Called under the plugin lock (kernel/events/event_run.c). A thread's CPU time
 * read on the CPU it runs on, interrupts off, is exact; read from another
 * CPU the stretch in progress is an estimate, used only when a job reaches
 * an empty queue's head and when another CPU's answer changes.
 */
#ifndef KERNEL_EVENT_WORK_H
#define KERNEL_EVENT_WORK_H

#include <stdint.h>

#include "../../lib/taskset.h"

/* Aperiodic jobs a server's queue holds at once. */
#define EVWORK_QUEUE_MAX 4096

/* Before the run (boot memory). */
void evwork_setup(const struct taskset *ts, uint64_t quantum_us);

/* What entry i's current job (a server's head job) still needs, in TSC
 * cycles: 0 when it is done; UINT64_MAX for a server with nothing
 * queued. */
uint64_t evwork_remaining(unsigned i);

/* Entry i's current job ended: its index (0 for the first) into *job
 * and, for a server, the head job's response time at now (us) -- the job
 * leaves the queue. */
uint64_t evwork_finish(unsigned i, uint64_t now, uint64_t *job);

/* An aperiodic job of cost_us for server i, arrived at arrival_us: its
 * index, or -1 when the queue is full (the arrival is counted dropped). */
int64_t evwork_push(unsigned i, uint32_t cost_us, uint64_t arrival_us);

/* A CPU's answer goes from task `from` to task `to` (SCHED_IDLE for
 * none). */
void evwork_move(int from, int to);

/* Entry i's current job (a server's head job): its index (0 for the
 * first), the cycles of work it has had into *ran and, for a server, its
 * arrival (us) into *arrival_us (0 with nothing queued). */
uint64_t evwork_job(unsigned i, uint64_t *ran, uint64_t *arrival_us);

/* Entry i's thread's CPU time so far, in cycles. */
uint64_t evwork_cpu_cycles(unsigned i);

/* After the run: jobs still queued, arrivals a full queue refused. */
uint64_t evwork_queued(unsigned i);
uint64_t evwork_dropped(unsigned i);

#endif
