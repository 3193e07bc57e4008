/* kernel/core/options: the kernel command line (docs/formats.md, "The
 * kernel command line", which tests/host/test_docs_formats.py holds to
 * this file). */
#include "options.h"

#include "../../arch/x86/percpu.h"
#include "../../lib/cmdline.h"
#include "../../lib/fmt.h"
#include "../../lib/parse_num.h"
#include "../../lib/str.h"
#include "console.h"

#define QUANTUM_US_MIN 50        /* below this the timer interrupt cost dominates */
#define QUANTUM_US_MAX 1000000
#define SLOTS_MAX 1000000
#define AHEAD_US_MAX 500000     /* half the longest quantum */
#define SPIN_US_MAX 1000000
#define HOURGLASS_NS_MIN 50
#define HOURGLASS_NS_MAX 1000000
#define LATE_US_MAX 1000000
#define RELEASE_TIMEOUT_MS_MAX 600000

struct kernel_options options = {
	.quantum_us = 1000,
	.ticks = TICKS_BOTH,
	.slots = 1000,
	.sched = 0,
	.spin_us = 50,
	.hourglass = 1,
	.events = 1,
	.hourglass_ns = 1000,
	.release_timeout_ms = 1000,
	.trace = 0,
	.record = 1,
	.schedule = 1,
	.selftest = SELFTEST_NONE,
	.late_count = 1,
};

static void bad(const struct cmdline_word *w, const char *why, const char *def)
{
	kprintf("cmdline: bad value '%.*s' (%s); using default %s\n",
		(int)w->len, w->word, why, def);
}

static void number(const struct cmdline_word *w, uint64_t *out, uint64_t min,
		   uint64_t max, const char *def)
{
	uint64_t v;
	enum parse_num_status st = parse_u64(w->value, w->value_len, max, &v);
	if (st != PARSE_NUM_OK) {
		bad(w, parse_num_reason(st), def);
		return;
	}
	if (v < min) {
		bad(w, "too small", def);
		return;
	}
	*out = v;
}

/* An on/off word; a bad value leaves the default. */
static void on_off(const struct cmdline_word *w, int *out)
{
	if (cmdline_value_is(w, "on"))
		*out = 1;
	else if (cmdline_value_is(w, "off"))
		*out = 0;
	else
		bad(w, "on or off", *out ? "on" : "off");
}

static const char *const arrivals_names[] = {
	[ARRIVALS_TIMER] = "timer", [ARRIVALS_HPET] = "hpet",
	[ARRIVALS_UART] = "uart", [ARRIVALS_IRQ] = "irq",
};
static const char *const late_mode_names[] = {
	[LATE_HOLD] = "hold", [LATE_STALL] = "stall",
	[LATE_SYSCALL] = "syscall",
};
static const char *const irqcheck_names[] = {
	[IRQCHECK_OFF] = "off", [IRQCHECK_HPET] = "hpet",
	[IRQCHECK_UART] = "uart",
};

/* The index of the word's value in names[n]; a value not there is named,
 * with the choices, and cur stays. */
static unsigned one_of(const struct cmdline_word *w, const char *const *names,
		       unsigned n, unsigned cur)
{
	char expect[64];
	size_t len = 0;
	for (unsigned i = 0; i < n; i++) {
		if (cmdline_value_is(w, names[i]))
			return i;
		len += (size_t)fmt_snprintf(expect + len, sizeof expect - len,
					    "%s%s", i ? (i + 1 < n ? ", " : " or ")
						      : "", names[i]);
	}
	bad(w, expect, names[cur]);
	return cur;
}

/* The one bad value the boot does not survive (options.fatal). */
static void unknown_scheduler(const struct cmdline_word *w)
{
	char names[256];
	size_t n = 0;
	for (unsigned i = 0; i < sched_nplugins && n < sizeof names; i++)
		n += (size_t)fmt_snprintf(names + n, sizeof names - n, " %s",
					  sched_plugins[i]->name);
	kprintf("cmdline: bad value '%.*s': no such scheduler; this kernel "
		"has%s\n", (int)w->len, w->word, names);
	options.fatal = 1;
}

static void gdb_word(const struct cmdline_word *w)
{
	static const char *const modes[] = {
		[GDB_OFF] = "off", [GDB_ON] = "on", [GDB_PANIC] = "panic",
		[GDB_WAIT] = "wait",
	};
	for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (cmdline_value_is(w, modes[i])) {
			options.gdb = (enum gdb_mode)i;
			return;
		}
	bad(w, "off, on, panic or wait", "off");
}

/* dumpstate=SLOT or dumpstate=end. */
static void dumpstate_word(const struct cmdline_word *w)
{
	if (cmdline_value_is(w, "end")) {
		options.dumpstate = DUMPSTATE_END;
		return;
	}
	uint64_t slot;
	enum parse_num_status st = parse_u64(w->value, w->value_len,
					     SLOTS_MAX, &slot);
	if (st != PARSE_NUM_OK) {
		bad(w, "a slot number or end", "none");
		return;
	}
	options.dumpstate = DUMPSTATE_SLOT;
	options.dumpstate_slot = slot;
}

/* late_boundary=CPU:SLOT:US, each a number; CPU may be `all`. */
static void late_word(const struct cmdline_word *w)
{
	static const uint64_t max[3] = { MAX_CPUS - 1, SLOTS_MAX, LATE_US_MAX };
	uint64_t v[3];
	int all = 0;
	const char *s = w->value, *end = w->value + w->value_len;
	for (unsigned i = 0; i < 3; i++) {
		const char *e = s;
		while (e < end && *e != ':')
			e++;
		int is_all = i == 0 && str_eq_n(s, (size_t)(e - s), "all");
		if ((e == end) != (i == 2) ||
		    (!is_all && parse_u64(s, (size_t)(e - s), max[i], &v[i]) !=
					PARSE_NUM_OK)) {
			bad(w, "CPU:SLOT:US: a CPU or all, a slot, at most "
			    "1000000 us", "none");
			return;
		}
		if (is_all) {
			all = 1;
			v[0] = 0;
		}
		s = e + 1;
	}
	options.late_all = all;
	options.late_cpu = (unsigned)v[0];
	options.late_slot = v[1];
	options.late_us = v[2];
}

/* A parameter some plugin lists (sched= may come later on the line): its
 * name as the plugin spells it, or NULL. */
static const char *param_name(const struct cmdline_word *w)
{
	for (unsigned i = 0; i < sched_nplugins; i++)
		for (const char *const *q = sched_plugins[i]->params; q && *q; q++)
			if (cmdline_key_is(w, *q))
				return *q;
	return 0;
}

static int sched_param_word(const struct cmdline_word *w)
{
	const char *name = param_name(w);
	if (!name)
		return 0;
	uint64_t v;
	enum parse_num_status st = parse_u64(w->value, w->value_len,
					     0xffffffffu, &v);
	if (st != PARSE_NUM_OK) {
		bad(w, parse_num_reason(st), "the scheduler's");
		return 1;
	}
	unsigned k = 0;
	while (k < options.nparams && !str_eq(options.params[k].name, name))
		k++;
	if (k == sizeof options.params / sizeof options.params[0])
		return 1;
	options.params[k].name = name;
	options.params[k].value = v;
	if (k == options.nparams)
		options.nparams++;
	return 1;
}

void options_parse(const char *cmdline)
{
	const char *cur = cmdline;
	struct cmdline_word w;
	int first = 1;
	while (cmdline_next(&cur, &w)) {
		/* GRUB may pass the kernel's path as the first word. */
		if (first && !w.value && w.word[0] == '/') {
			first = 0;
			continue;
		}
		first = 0;
		if (!w.value) {
			kprintf("cmdline: unknown word '%.*s' (expected key=value)\n",
				(int)w.len, w.word);
		} else if (cmdline_key_is(&w, "quantum_us")) {
			number(&w, &options.quantum_us, QUANTUM_US_MIN, QUANTUM_US_MAX,
			       "1000");
		} else if (cmdline_key_is(&w, "ahead_us")) {
			number(&w, &options.ahead_us, 0, AHEAD_US_MAX, "0");
		} else if (cmdline_key_is(&w, "slots")) {
			number(&w, &options.slots, 1, SLOTS_MAX, "1000");
		} else if (cmdline_key_is(&w, "spin_us")) {
			number(&w, &options.spin_us, 0, SPIN_US_MAX, "50");
		} else if (cmdline_key_is(&w, "ticks")) {
			if (cmdline_value_is(&w, "aligned"))
				options.ticks = TICKS_ALIGNED;
			else if (cmdline_value_is(&w, "staggered"))
				options.ticks = TICKS_STAGGERED;
			else if (cmdline_value_is(&w, "both"))
				options.ticks = TICKS_BOTH;
			else
				bad(&w, "aligned, staggered or both", "both");
		} else if (cmdline_key_is(&w, "hourglass")) {
			on_off(&w, &options.hourglass);
		} else if (cmdline_key_is(&w, "events")) {
			on_off(&w, &options.events);
		} else if (cmdline_key_is(&w, "release_timeout_ms")) {
			number(&w, &options.release_timeout_ms, 1,
			       RELEASE_TIMEOUT_MS_MAX, "1000");
		} else if (cmdline_key_is(&w, "hourglass_ns")) {
			number(&w, &options.hourglass_ns, HOURGLASS_NS_MIN,
			       HOURGLASS_NS_MAX, "1000");
		} else if (cmdline_key_is(&w, "trace")) {
			if (cmdline_value_is(&w, "on"))
				options.trace = TRACE_TICK_LINES;
			else if (cmdline_value_is(&w, "off"))
				options.trace = TRACE_OFF;
			else if (cmdline_value_is(&w, "events"))
				options.trace = TRACE_EVENTS;
			else
				bad(&w, "on, off or events", "off");
		} else if (cmdline_key_is(&w, "record")) {
			on_off(&w, &options.record);
		} else if (cmdline_key_is(&w, "optime")) {
			on_off(&w, &options.optime);
		} else if (cmdline_key_is(&w, "coldcache")) {
			on_off(&w, &options.coldcache);
		} else if (cmdline_key_is(&w, "schedule")) {
			on_off(&w, &options.schedule);
		} else if (cmdline_key_is(&w, "e9")) {
			on_off(&w, &options.e9);
		} else if (cmdline_key_is(&w, "hwreport")) {
			on_off(&w, &options.hwreport);
		} else if (cmdline_key_is(&w, "end")) {
			if (cmdline_value_is(&w, "halt"))
				options.end_halt = 1;
			else if (cmdline_value_is(&w, "exit"))
				options.end_halt = 0;
			else
				bad(&w, "exit or halt", "exit");
		} else if (cmdline_key_is(&w, "selftest")) {
			if (cmdline_value_is(&w, "pf_ap"))
				options.selftest = SELFTEST_PF_AP;
			else if (cmdline_value_is(&w, "pf_bsp"))
				options.selftest = SELFTEST_PF_BSP;
			else if (cmdline_value_is(&w, "pf_run"))
				options.selftest = SELFTEST_PF_RUN;
			else if (cmdline_value_is(&w, "smap_run"))
				options.selftest = SELFTEST_SMAP_RUN;
			else if (cmdline_value_is(&w, "msr_gp"))
				options.selftest = SELFTEST_MSR_GP;
			else if (cmdline_value_is(&w, "none"))
				options.selftest = SELFTEST_NONE;
			else
				bad(&w, "pf_ap, pf_bsp, pf_run, smap_run, msr_gp or "
				    "none", "none");
		} else if (cmdline_key_is(&w, "gdb")) {
			gdb_word(&w);
		} else if (cmdline_key_is(&w, "dumpstate")) {
			dumpstate_word(&w);
		} else if (cmdline_key_is(&w, "late_boundary")) {
			late_word(&w);
		} else if (cmdline_key_is(&w, "late_count")) {
			number(&w, &options.late_count, 1, SLOTS_MAX, "1");
		} else if (cmdline_key_is(&w, "late_mode")) {
			options.late_mode = (enum late_mode)one_of(
				&w, late_mode_names, 3, options.late_mode);
		} else if (cmdline_key_is(&w, "arrivals")) {
			options.arrivals = (enum arrivals_mode)one_of(
				&w, arrivals_names, 4, options.arrivals);
		} else if (cmdline_key_is(&w, "irqcheck")) {
			options.irqcheck = (enum irqcheck_mode)one_of(
				&w, irqcheck_names, 3, options.irqcheck);
		} else if (cmdline_key_is(&w, "timing")) {
			if (cmdline_value_is(&w, "virtual"))
				options.timing = TIMING_VIRTUAL;
			else if (cmdline_value_is(&w, "real"))
				options.timing = TIMING_REAL;
			else
				bad(&w, "virtual or real", "none");
		} else if (cmdline_key_is(&w, "irq_cpu")) {
			number(&w, &options.irq_cpu, 0, MAX_CPUS - 1, "0");
		} else if (cmdline_key_is(&w, "sched")) {
			const struct sched_plugin *p = 0;
			for (unsigned i = 0; i < sched_nplugins && !p; i++)
				if (cmdline_value_is(&w, sched_plugins[i]->name))
					p = sched_plugins[i];
			if (p)
				options.sched = p;
			else
				unknown_scheduler(&w);
		} else if (!sched_param_word(&w)) {
			kprintf("cmdline: unknown word '%.*s'\n", (int)w.len, w.word);
		}
	}
}
