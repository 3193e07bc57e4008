/*
 * tools/host_tsc_mhz: the host's TSC frequency in MHz, measured against
 * CLOCK_MONOTONIC. Under QEMU TCG the guest's TSC is the host's, and the
 * guest's reference timers (HPET, PM timer, PIT) run on QEMU's virtual
 * clock, which follows CLOCK_MONOTONIC -- NTP's slew included, up to
 * 500 ppm, which CLOCK_MONOTONIC_RAW would leave out -- so this is the rate
 * the kernel's calibration must find.
 *
 *   host_tsc_mhz [milliseconds]      (default 500)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double window = (argc > 1 ? atof(argv[1]) : 500.0) / 1000.0;
	/* Best of several windows: a preempted window only looks slower or
	 * faster by the time lost between the two clock reads around it, so
	 * keep the pair whose reads were closest together. */
	double best_mhz = 0, best_slack = 1e9;
	for (int round = 0; round < 5; round++) {
		double a0 = now_s();
		uint64_t t0 = __rdtsc();
		double a1 = now_s();
		double target = a1 + window / 5;
		while (now_s() < target)
			;
		double b0 = now_s();
		uint64_t t1 = __rdtsc();
		double b1 = now_s();
		double slack = (a1 - a0) + (b1 - b0);
		double mhz = (double)(t1 - t0) / (((b0 + b1) - (a0 + a1)) / 2) / 1e6;
		if (slack < best_slack) {
			best_slack = slack;
			best_mhz = mhz;
		}
	}
	printf("%.3f\n", best_mhz);
	return 0;
}
