/* kernel/core/panic: the report of a fatal error, and stopping the machine. */
#include "panic.h"

#include <stdarg.h>

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/power.h"
#include "../../drivers/apic/lapic.h"
#include "console.h"
#include "ksyms.h"

static volatile int stopping;
static trap_handler user_fault;
static const struct panic_debugger *debugger;

void panic_set_user_fault_handler(trap_handler h)
{
	user_fault = h;
}

void panic_set_debugger(const struct panic_debugger *d)
{
	debugger = d;
}

int panic_in_progress(void)
{
	return stopping;
}

static unsigned cpu_index(void)
{
	/* GS base may not be set yet on a CPU that faults early. */
	return rdmsr(MSR_GS_BASE) ? this_cpu()->cpu : 0;
}

static void trace_line(int depth, uint64_t addr)
{
	uint64_t off;
	const char *name = ksyms_lookup(addr, &off);
	if (name)
		kprintf("  #%d %#018llx %s+%#llx\n", depth,
			(unsigned long long)addr, name, (unsigned long long)off);
	else
		kprintf("  #%d %#018llx\n", depth, (unsigned long long)addr);
}

static void stack_trace(uint64_t rbp, uint64_t rip)
{
	kprintf("stack trace (addr2line -e build/kernel/kernel.elf):\n");
	trace_line(0, rip);
	/* Frame pointers: [rbp] = caller's rbp, [rbp + 8] = return address.
	 * Only follow frames inside the kernel's higher-half image. A leaf
	 * function without a frame of its own hides its caller. */
	for (int depth = 1; depth < 24; depth++) {
		if (rbp < 0xffffffff80000000ull || (rbp & 7) ||
		    rbp >= 0xfffffffffffff000ull)
			break;
		uint64_t ret = ((uint64_t *)rbp)[1];
		if (ret < 0xffffffff80000000ull)
			break;
		trace_line(depth, ret);
		rbp = ((uint64_t *)rbp)[0];
	}
}

/* Sends NMI to every other CPU: they halt in on_nmi. */
static void stop_other_cpus(void)
{
	stopping = 1;
	if (lapic_ready())
		lapic_send_nmi_others();
	for (volatile int i = 0; i < 1000000; i++)
		;
}

static void __attribute__((noreturn)) finish(const char *reason)
{
	stop_other_cpus();
	kprintf("RESULT exit status=fail reason=%s\n", reason);
	power_exit(POWER_FAIL);
}

/* Only the first CPU to fail reports; a second one waits for its NMI. */
static void claim_report(void)
{
	static volatile int first;
	if (__atomic_exchange_n(&first, 1, __ATOMIC_SEQ_CST)) {
		for (;;)
			cpu_halt();
	}
	console_panic_mode();
}

void panic_frame(const struct trap_frame *f)
{
	claim_report();
	unsigned v = (unsigned)f->vector;
	kprintf("PANIC cpu=%u vector=%u (%s) error=%#llx rip=%#llx cr2=%#llx\n",
		cpu_index(), v, trap_exception_name(v),
		(unsigned long long)f->error, (unsigned long long)f->rip,
		(unsigned long long)read_cr2());
	kprintf("  rax=%016llx rbx=%016llx rcx=%016llx rdx=%016llx\n",
		(unsigned long long)f->rax, (unsigned long long)f->rbx,
		(unsigned long long)f->rcx, (unsigned long long)f->rdx);
	kprintf("  rsi=%016llx rdi=%016llx rbp=%016llx rsp=%016llx\n",
		(unsigned long long)f->rsi, (unsigned long long)f->rdi,
		(unsigned long long)f->rbp, (unsigned long long)f->rsp);
	kprintf("  r8 =%016llx r9 =%016llx r10=%016llx r11=%016llx\n",
		(unsigned long long)f->r8, (unsigned long long)f->r9,
		(unsigned long long)f->r10, (unsigned long long)f->r11);
	kprintf("  r12=%016llx r13=%016llx r14=%016llx r15=%016llx\n",
		(unsigned long long)f->r12, (unsigned long long)f->r13,
		(unsigned long long)f->r14, (unsigned long long)f->r15);
	kprintf("  cs=%llx ss=%llx rflags=%016llx cr3=%016llx\n",
		(unsigned long long)f->cs, (unsigned long long)f->ss,
		(unsigned long long)f->rflags, (unsigned long long)read_cr3());
	stack_trace(f->rbp, f->rip);
	if (debugger)
		debugger->stop(f);
	finish("exception");
}

void panic(const char *reason, const char *format, ...)
{
	irq_disable();
	claim_report();
	va_list ap;
	va_start(ap, format);
	kprintf("PANIC cpu=%u: ", cpu_index());
	kvprintf(format, ap);
	va_end(ap);
	kprintf("\n");
	uint64_t rbp;
	__asm__ volatile("movq %%rbp, %0" : "=r"(rbp));
	stack_trace(rbp, (uint64_t)__builtin_return_address(0));
	if (debugger)
		debugger->stop(0);
	finish(reason);
}

static void on_nmi(struct trap_frame *f)
{
	if (debugger && debugger->nmi(f))
		return;
	if (!stopping)
		panic_frame(f);     /* nobody asked for it: a hardware error */
	if (rdmsr(MSR_GS_BASE))
		this_cpu()->state = CPU_HALTED;
	for (;;)
		cpu_halt();
}

static void on_unhandled(struct trap_frame *f)
{
	if (f->vector < 32 && trap_from_user(f) && user_fault) {
		user_fault(f);
		return;
	}
	if (f->vector < 32)
		panic_frame(f);
	kprintf("trap: unexpected interrupt %llu on cpu %u\n",
		(unsigned long long)f->vector, cpu_index());
	lapic_eoi();
}

void panic_init(void)
{
	trap_set_fallback(on_unhandled);
	trap_set_handler(VEC_NMI, on_nmi);
}
