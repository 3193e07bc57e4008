/* arch/x86/percpu: the per-CPU records and each CPU's own descriptors. */
#include "percpu.h"

#include "cpu.h"

struct percpu percpu[MAX_CPUS];
volatile unsigned cpu_count;

static uint8_t ist_stacks[MAX_CPUS][3 * IST_STACK_SIZE]
	__attribute__((aligned(16)));

void percpu_install(unsigned cpu)
{
	struct percpu *p = &percpu[cpu];
	p->self = p;
	p->cpu = cpu;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
}

void percpu_setup_cpu(unsigned cpu)
{
	percpu_install(cpu);
	desc_load_cpu(&percpu[cpu].gdt, &percpu[cpu].tss, ist_stacks[cpu],
		      IST_STACK_SIZE);
}
