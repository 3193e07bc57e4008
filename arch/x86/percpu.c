/* arch/x86/percpu: the per-CPU records and each CPU's own descriptors. */
#include "percpu.h"

#include "cpu.h"

static struct percpu boot_record;
static uint8_t boot_ist_stacks[PERCPU_IST_BYTES] __attribute__((aligned(16)));

struct percpu *volatile percpu = &boot_record;
volatile unsigned cpu_count = 1;

void percpu_setup(struct percpu *p)
{
	p->self = p;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
	/* What a task's GS base is once SWAPGS enters ring 3: always 0, which
	 * is how arch/x86/isr.asm tells the two apart. */
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	desc_load_cpu(&p->gdt, &p->tss, p->ist_stacks, IST_STACK_SIZE);
}

void percpu_setup_boot_cpu(void)
{
	boot_record.cpu = 0;
	boot_record.ist_stacks = boot_ist_stacks;
	percpu_setup(&boot_record);
}

void percpu_move(struct percpu *to, unsigned cpu)
{
	*to = *this_cpu();
	to->cpu = cpu;
	/* desc_load_cpu rebuilds the GDT, so the copied TSS descriptor's busy
	 * bit (set by the first LTR, SDM vol. 3, 8.2.2) is not loaded again. */
	percpu_setup(to);
}
