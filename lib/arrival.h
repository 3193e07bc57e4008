/*
 * lib/arrival: the aperiodic arrivals of a task set in time order
 * (docs/formats.md, "`arrivals` lines"): its `at TIME arrive` events, and for each server
 * with an `arrivals` line a Poisson stream -- exponential gaps of mean
 * 10^6 / rate_hz microseconds from 0 on, drawn from a seeded generator.
 * Integer arithmetic only (the kernel has no floating point), so the
 * kernel and the simulator draw the very same times.
 *
 * At one time, scripted arrivals come first (in file order), then the
 * generated ones in server declaration order.
 */
#ifndef LIB_ARRIVAL_H
#define LIB_ARRIVAL_H

#include <stdint.h>

#include "taskset.h"

struct arrival {
	uint64_t t_us;
	unsigned server;       /* index into the task set */
	uint32_t cost_us;
};

struct arrival_gen {
	uint64_t state;        /* xorshift64 */
	uint64_t next_us;      /* its next arrival */
	unsigned server;
};

struct arrival_stream {
	const struct taskset *ts;
	unsigned next_event;   /* the next `at ... arrive` in ts->event */
	struct arrival_gen *gen;
	unsigned ngen;
};

/* How many generators ts needs (servers with an `arrivals` line). */
unsigned arrival_generators(const struct taskset *ts);

/* Starts the stream of ts; gen has room for arrival_generators(ts). */
void arrival_init(struct arrival_stream *st, const struct taskset *ts,
		  struct arrival_gen *gen);

/* The next arrival into *out and 1, or 0 when there is none. */
int arrival_next(struct arrival_stream *st, struct arrival *out);

/* The time of the next arrival, or UINT64_MAX. */
uint64_t arrival_peek(const struct arrival_stream *st);

/*
 * One exponential gap of mean 10^6 / rate_hz microseconds, rounded to the
 * nearest microsecond, by inversion: -ln(u) * mean with u = (x + 1) / 2^53
 * for the top 53 bits x of the next xorshift64 number, -ln(u) taken as
 * (53 - log2(x + 1)) ln 2 with log2 to 32 fractional bits.
 */
uint64_t arrival_exp_gap(uint64_t *state, uint32_t rate_hz);

/* log2(v) for v >= 1 in 32.32 fixed point, rounded down. */
uint64_t arrival_log2_q32(uint64_t v);

/* The generator state for a seed: never 0 (splitmix64's finaliser). */
uint64_t arrival_seed_state(uint64_t seed);

#endif
