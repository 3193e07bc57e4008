/*
 * user/writer: work=writer, the contention workload of staggered Pfair
 * (Sec. 5, "worst-case contention under the aligned model": each task
 * writes each cache line of its working set at the start of every
 * quantum). It writes one byte in every line of the ws bytes at RT_WS_BASE,
 * over and over, so whenever it runs it pulls its whole working set back
 * into the cache; between lines it reads the TSC for its own hourglass
 * measurement. ctl->iterations counts whole passes.
 *
 * Reload cost (LITMUS^RT Sec. 4.1, Fig. 4(a)): after a gap in which the
 * kernel dispatched it again (ctl->dispatches moved), the next working
 * set's worth of lines is timed as one window -- on hardware the lines
 * another task evicted come back from memory -- and added to resume_*[0]
 * when ctl->cpu is the CPU it ran on before (a preemption) or resume_*[1]
 * when not (a migration). Lines written with no gap since the window add
 * to steady_*. A gap without a dispatch (an interrupt) ends no window; a
 * dispatch inside a window starts a new one.
 */
#include "lib/hourglass.h"
#include "lib/start.h"

/* It times its reload after each dispatch, for RESULT reload. */
RT_PROGRAM(RT_PROG_RELOAD);

/*
 * The line size is CPUID.01H:EBX[15:8] x 8, the CLFLUSH line size (SDM
 * vol. 2A, CPUID); 64 bytes when the field is 0 (it is defined only when
 * CPUID.01H:EDX.CLFSH is set).
 */
static uint32_t cache_line_bytes(void)
{
	uint32_t a = 1, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	uint32_t bytes = (b >> 8 & 0xff) * 8;
	return bytes ? bytes : 64;
}

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	volatile uint8_t *ws = (volatile uint8_t *)RT_WS_BASE;
	uint32_t bytes = ctl->ws_bytes, line = cache_line_bytes();
	uint32_t lines = (bytes + line - 1) / line;
	uint64_t cpu = ctl->cpu, dispatches = ctl->dispatches;
	uint64_t window_cycles = 0;
	uint32_t window = 0, kind = 0;
	struct hourglass h;
	hourglass_start(&h, ctl);
	for (uint64_t pass = 1;; pass++) {
		for (uint32_t off = 0; off < bytes; off += line) {
			ws[off] = (uint8_t)pass;
			uint64_t step = hourglass_step(&h);
			if (step > h.threshold) {
				if (ctl->dispatches == dispatches)
					continue;    /* an interrupt */
				dispatches = ctl->dispatches;
				kind = ctl->cpu != cpu;
				cpu = ctl->cpu;
				window = lines;
				window_cycles = 0;
			} else if (window) {
				window_cycles += step;
				if (--window == 0) {
					ctl->resume_n[kind]++;
					ctl->resume_cycles[kind] += window_cycles;
				}
			} else {
				ctl->steady_lines++;
				ctl->steady_cycles += step;
			}
		}
		ctl->iterations = pass;
	}
}
