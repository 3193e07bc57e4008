/*
 * user/lib/measure: what a program measures against the kernel's clock --
 * a TSC value as the kernel's nanoseconds since the epoch, and a sample
 * added to a count/sum/max triple of the control page.
 */
#ifndef USER_LIB_MEASURE_H
#define USER_LIB_MEASURE_H

#include <stdint.h>

#include "../../lib/rt_abi.h"

/*
 * (tsc - epoch_tsc) * 10^6 / tsc_khz, split so that nothing overflows. A
 * TSC read on another CPU than the boot CPU is off by at most RESULT tsc
 * max_skew_cycles.
 */
static inline uint64_t measure_tsc_to_ns(volatile struct rt_control *ctl,
					 uint64_t tsc)
{
	uint64_t khz = ctl->tsc_khz;
	if (tsc <= ctl->epoch_tsc || khz == 0)
		return 0;
	uint64_t d = tsc - ctl->epoch_tsc;
	return d / khz * 1000000 + d % khz * 1000000 / khz;
}

static inline void measure_record(volatile uint64_t *count,
				  volatile uint64_t *sum,
				  volatile uint64_t *max, uint64_t v)
{
	*count += 1;
	*sum += v;
	if (v > *max)
		*max = v;
}

/* The release latency of the job that began when the TSC read woke, after
 * sleep_next_period returned: woke minus the job's release (0 if the clocks'
 * skew put it before), recorded and returned. */
static inline uint64_t measure_release_latency(volatile struct rt_control *ctl,
					       uint64_t woke, uint64_t release_ns)
{
	uint64_t ns = measure_tsc_to_ns(ctl, woke);
	uint64_t lat = ns > release_ns ? ns - release_ns : 0;
	measure_record(&ctl->lat_count, &ctl->lat_sum_ns, &ctl->lat_max_ns, lat);
	return lat;
}

#endif
