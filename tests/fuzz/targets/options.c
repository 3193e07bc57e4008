/*
 * Fuzz target `options`: the kernel's command line as kernel/core/
 * options.c applies it (with lib/cmdline and lib/parse_num), built on the
 * host with a console that formats into a buffer (tests/fuzz/shim). Every
 * option must stay within the range the word's documentation gives
 * (README's command-line table), every message be one whole line, and only
 * a sched= word may make the boot fail.
 */
#include "../../../arch/x86/percpu.h"
#include "../../../kernel/core/options.h"
#include "../fuzz.h"
#include "../shim/console_shim.h"

static struct kernel_options defaults;
static int have_defaults;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!have_defaults) {
		defaults = options;
		have_defaults = 1;
	}
	options = defaults;
	console_len = 0;
	char *line = fuzz_cstring(data, size);
	options_parse(line);
	const struct kernel_options *o = &options;
	FUZZ_CHECK(o->quantum_us >= 50 && o->quantum_us <= 1000000,
		   "quantum_us=%llu", (unsigned long long)o->quantum_us);
	FUZZ_CHECK(o->slots >= 1 && o->slots <= 1000000, "slots=%llu",
		   (unsigned long long)o->slots);
	FUZZ_CHECK(o->spin_us <= 1000000, "spin_us");
	FUZZ_CHECK(o->hourglass_ns >= 50 && o->hourglass_ns <= 1000000,
		   "hourglass_ns");
	FUZZ_CHECK(o->ticks >= TICKS_ALIGNED && o->ticks <= TICKS_BOTH,
		   "ticks=%d", o->ticks);
	FUZZ_CHECK(o->trace <= TRACE_EVENTS && o->gdb <= GDB_WAIT &&
		   o->selftest <= SELFTEST_PF_BSP &&
		   o->arrivals <= ARRIVALS_IRQ &&
		   o->irqcheck <= IRQCHECK_UART &&
		   o->dumpstate <= DUMPSTATE_END, "an enum out of range");
	FUZZ_CHECK(o->late_cpu < MAX_CPUS && o->irq_cpu < MAX_CPUS, "a CPU");
	FUZZ_CHECK(o->late_us <= 1000000 && o->late_slot <= 1000000 &&
		   o->dumpstate_slot <= 1000000, "late_boundary or dumpstate");
	FUZZ_CHECK(o->nparams <= sizeof o->params / sizeof o->params[0],
		   "%u parameters", o->nparams);
	for (unsigned i = 0; i < o->nparams; i++)
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(o->params[i].name, o->params[j].name),
				   "parameter %s twice", o->params[i].name);
	FUZZ_CHECK(!o->fatal || strstr(line, "sched="), "fatal without sched=");
	/* The shim's buffer holds a megabyte: far more than the messages
	 * of the longest input libFuzzer makes here (-max_len 4096). */
	FUZZ_CHECK(console_len == 0 || console_text[console_len - 1] == '\n',
		   "a message without its line end");
	free(line);
	return 0;
}
