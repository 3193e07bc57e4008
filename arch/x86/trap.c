/* arch/x86/trap: the one place every exception and interrupt arrives. */
#include "trap.h"

#include "msr_safe.h"

static trap_handler handlers[256];
static trap_handler fallback;

/* SDM vol. 3, table 6-1. */
static const char *const exception_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
	"#DF", "#CSO", "#TS", "#NP", "#SS", "#GP", "#PF", "#15",
	"#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "#22", "#23",
	"#24", "#25", "#26", "#27", "#HV", "#VC", "#SX", "#31",
};

const char *trap_exception_name(unsigned vector)
{
	return vector < 32 ? exception_names[vector] : "interrupt";
}

void trap_set_handler(unsigned vector, trap_handler h)
{
	handlers[vector & 0xff] = h;
}

void trap_set_fallback(trap_handler h)
{
	fallback = h;
}

void trap_dispatch(struct trap_frame *f)
{
	unsigned v = (unsigned)f->vector & 0xff;
	if (v == VEC_SPURIOUS)
		return;         /* SDM vol. 3, 11.9: no EOI for spurious */
	/* A probe for an MSR that is not there (msr_read_safe). */
	if (v == VEC_GENERAL_PROTECTION && !trap_from_user(f) &&
	    f->rip == (uint64_t)msr_read_safe_insn) {
		f->rip = (uint64_t)msr_read_safe_fault;
		return;
	}
	trap_handler h = handlers[v] ? handlers[v] : fallback;
	if (h) {
		h(f);
		return;
	}
	/* Nothing installed yet: an exception this early cannot be reported. */
	for (;;)
		__asm__ volatile("cli; hlt");
}
