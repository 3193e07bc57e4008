/* lib/arrival: aperiodic arrivals, scripted and generated (arrival.h). */
#include "arrival.h"

#include "xorshift.h"

/* ln 2 in 0.64 fixed point, rounded down: 0xb17217f7d1cf79ab. */
#define LN2_Q64 0xb17217f7d1cf79abull

typedef unsigned __int128 u128;

uint64_t arrival_log2_q32(uint64_t v)
{
	unsigned k = 63u - (unsigned)__builtin_clzll(v);
	/* y = v / 2^k in [1, 2) as 2.62 fixed point; each squaring moves one
	 * bit of the fraction into the integer part. */
	uint64_t y = k <= 62 ? v << (62 - k) : v >> 1;
	uint64_t frac = 0;
	for (int i = 31; i >= 0; i--) {
		y = (uint64_t)(((u128)y * y) >> 62);
		if (y >= 1ull << 63) {
			y >>= 1;
			frac |= 1ull << i;
		}
	}
	return (uint64_t)k << 32 | frac;
}

uint64_t arrival_seed_state(uint64_t seed)
{
	/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014): distinct seeds
	 * give unrelated states; a zero result is replaced. */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 0x9e3779b97f4a7c15ull;
}

uint64_t arrival_exp_gap(uint64_t *state, uint32_t rate_hz)
{
	uint64_t v = (xorshift64(state) >> 11) + 1;          /* 1 .. 2^53 */
	uint64_t minus_log2 = (53ull << 32) - arrival_log2_q32(v);
	/* -ln(u) in 32.32: times ln 2 (0.64) -> 32.96, keep 32.32. */
	uint64_t minus_ln = (uint64_t)(((u128)minus_log2 * LN2_Q64) >> 64);
	/* mean in 32.32 microseconds; the product is in 64.64. */
	uint64_t mean = (1000000ull << 32) / rate_hz;
	u128 gap = (u128)minus_ln * mean;
	return (uint64_t)((gap + ((u128)1 << 63)) >> 64);
}

unsigned arrival_generators(const struct taskset *ts)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ts->ntasks; i++)
		n += ts->task[i].server.rate_hz != 0;
	return n;
}

static void skip_other_events(struct arrival_stream *st)
{
	while (st->next_event < st->ts->nevents &&
	       st->ts->event[st->next_event].action != TASKSET_ARRIVE)
		st->next_event++;
}

void arrival_init(struct arrival_stream *st, const struct taskset *ts,
		  struct arrival_gen *gen)
{
	st->ts = ts;
	st->next_event = 0;
	st->gen = gen;
	st->ngen = 0;
	skip_other_events(st);
	for (unsigned i = 0; i < ts->ntasks; i++) {
		const struct server_spec *sv = &ts->task[i].server;
		if (!sv->rate_hz)
			continue;
		struct arrival_gen *g = &gen[st->ngen++];
		g->server = i;
		g->state = arrival_seed_state(sv->seed);
		g->next_us = arrival_exp_gap(&g->state, sv->rate_hz);
	}
}

/* The generator due first (the earlier-declared server on ties), or -1. */
static int first_gen(const struct arrival_stream *st)
{
	int best = -1;
	for (unsigned k = 0; k < st->ngen; k++)
		if (best < 0 || st->gen[k].next_us < st->gen[best].next_us)
			best = (int)k;
	return best;
}

uint64_t arrival_peek(const struct arrival_stream *st)
{
	uint64_t t = UINT64_MAX;
	if (st->next_event < st->ts->nevents)
		t = st->ts->event[st->next_event].t;
	int g = first_gen(st);
	if (g >= 0 && st->gen[g].next_us < t)
		t = st->gen[g].next_us;
	return t;
}

int arrival_next(struct arrival_stream *st, struct arrival *out)
{
	int g = first_gen(st);
	if (st->next_event < st->ts->nevents &&
	    (g < 0 || st->ts->event[st->next_event].t <= st->gen[g].next_us)) {
		const struct taskset_event *ev = &st->ts->event[st->next_event++];
		out->t_us = ev->t;
		out->server = ev->task;
		out->cost_us = ev->cost_us;
		skip_other_events(st);
		return 1;
	}
	if (g < 0)
		return 0;
	struct arrival_gen *gen = &st->gen[g];
	const struct server_spec *sv = &st->ts->task[gen->server].server;
	out->t_us = gen->next_us;
	out->server = gen->server;
	out->cost_us = sv->cost_us;
	gen->next_us += arrival_exp_gap(&gen->state, sv->rate_hz);
	return 1;
}
