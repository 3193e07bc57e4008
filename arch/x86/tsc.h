/* arch/x86/tsc: the time-stamp counter, the kernel's one clock. */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include <stdint.h>

#define TSC_MAX_METHODS 5

struct tsc_method {
	const char *name;
	uint64_t khz;           /* 0: the method failed */
	int coarse;             /* whole MHz only: shown, never chosen or compared */
};

struct tsc_info {
	uint64_t khz;           /* the chosen frequency */
	const char *method;
	uint64_t disagree_ppm;  /* largest disagreement of another method */
	int invariant;          /* CPUID 0x80000007 EDX[8] */
	uint64_t calib_us;      /* how long calibration took */
	struct tsc_method tried[TSC_MAX_METHODS];
	unsigned ntried;
	unsigned rejected_reads;   /* clock reads an SMI (or emulator) disturbed */
};

extern struct tsc_info tsc;

/* Calibrates against CPUID 0x15 and every reference clock there is. */
void tsc_calibrate(void);

/* Microseconds to TSC cycles and back (valid after calibration). */
uint64_t tsc_from_us(uint64_t us);
uint64_t tsc_from_ns(uint64_t ns);
uint64_t tsc_to_ns(uint64_t cycles);
uint64_t tsc_to_us(uint64_t cycles);
void tsc_delay_us(uint64_t us);

#endif
