/*
 * kernel/debug/gdbstub: lib/gdb_rsp bound to COM2, the CPUs' trap frames, the
 * debug registers and the kernel's page tables.
 *
 * All-stop. The CPU that stops first becomes the talker (it wins `talker`
 * with a compare-and-swap), sends an NMI to the others unless all of them
 * are already stopped, waits until each has parked, and talks to GDB. A
 * parked CPU spins in its NMI handler (or in its own #BP/#DB handler when
 * it lost the race to become the talker) with its trap frame published, so
 * the talker can show and change its registers. On a resume the talker
 * says what each CPU does (stay, continue, step), bumps `go`, waits until
 * every CPU it released has left, and only then gives up the role: a CPU
 * that stops again at once cannot count a leaving CPU as still stopped.
 *
 * Breakpoints are patched while every CPU is stopped, and each CPU leaves
 * through IRET, which is serializing: that is the SDM's protocol for
 * cross-modifying code (vol. 3, "Handling Self- and Cross-Modifying
 * Code"). Kernel text is written with CR0.WP clear for the length of the
 * write (arch/x86/debug.c), so a breakpoint goes in whether or not the
 * page is mapped writable; chosen over a temporary writable alias, which
 * would need a free virtual page and a TLB flush on every CPU.
 *
 * Debug registers are per CPU and only the CPU itself can load them: Z1-Z4
 * change a shared copy and its generation; every CPU loads the copy when
 * it leaves the stub with a generation it has not loaded.
 *
 * Memory is the talker's address space: the kernel's, and the task's own
 * pages when the talker stopped with a task's CR3 loaded (in ring 3, in a
 * system call, or in an interrupt taken from either). With CR4.SMAP on,
 * the stub's accesses to those pages run with EFLAGS.AC set.
 *
 * Ring 3 is the task's: a #BP or #DB taken there is the task layer's
 * (kernel/run/task_kill.c), unless GDB caused it -- one of its hardware
 * breakpoints or watchpoints, or a step it asked for -- which stops the
 * machine with the task's registers in the frame.
 */
#include "gdbstub.h"

#include "../../arch/x86/cpu.h"
#include "../../arch/x86/debug.h"
#include "../../arch/x86/percpu.h"
#include "../../arch/x86/tsc.h"
#include "../../drivers/apic/lapic.h"
#include "../../drivers/serial/uart.h"
#include "../../lib/fmt.h"
#include "../../lib/gdb_rsp.h"
#include "../../lib/gdb_rsp_amd64.h"
#include "../core/bootmem.h"
#include "../core/console.h"
#include "../core/options.h"
#include "../core/panic.h"
#include "../run/task_kill.h"
#include "../time/quantum_clock.h"

#define STUB_PORT UART_COM2
#define INT3 0xcc
#define MAX_SW_BREAKS 64
/* How long the talker waits for the other CPUs to park. A CPU that does
 * not (stuck with NMIs blocked) is left out of the threads GDB sees. */
#define PARK_TIMEOUT_US 2000000

/* GDB's signal numbers (target-independent, include/gdb/signals.def). */
#define SIG_INT 2
#define SIG_ILL 4
#define SIG_TRAP 5
#define SIG_ABRT 6
#define SIG_FPE 8
#define SIG_BUS 10
#define SIG_SEGV 11

/* SDM vol. 3, 2.5: CR4.SMAP; 2.3: EFLAGS.AC, which lifts it for the
 * supervisor's data accesses (4.6.1). */
#define CR4_SMAP (1ull << 21)

/* Why a CPU enters the stub. */
enum stop_kind {
	STOP_NONE,
	STOP_BOOT,          /* gdb=wait */
	STOP_ATTACH,        /* a packet arrived while the machine ran */
	STOP_BREAK_IN,      /* Ctrl-C */
	STOP_TRAP,          /* a breakpoint, a watchpoint or a step */
	STOP_PANIC,
};

struct stub_cpu {
	struct trap_frame *frame;       /* while stopped */
	uint64_t ds, es, fs, gs, fs_base, gs_base;
	volatile int parked;
	volatile int in_stub;
	volatile unsigned nmi_owed;     /* stub NMIs sent and not yet taken */
	volatile uint8_t run;           /* enum gdb_rsp_run, from the talker */
	enum stop_kind self_trap;       /* the reason of the stub's own int3 */
	int stepping;                   /* left with TF set */
	int step_masked_if;             /* ... and IF cleared for the step */
	int at_hw_break;                /* reported at an instruction breakpoint */
	uint64_t dr_loaded;             /* generation of its debug registers */
};

struct sw_break {
	uint64_t addr;
	uint8_t saved;
	int used;
	int lifted;     /* hit inside the stub: the byte is back (on_breakpoint) */
};

/* A debug register as GDB asked for it: a watched range may take several
 * (aligned 1, 2, 4 or 8-byte pieces, SDM vol. 3, 17.2.5). */
struct hw_slot {
	int used;
	enum gdb_rsp_point type;
	uint64_t gdb_addr, gdb_kind;    /* the Z packet's */
	uint64_t addr;                  /* this piece's */
	unsigned len;
};

static struct stub_cpu *cpus;            /* cpu_count of them */
_Static_assert(MAX_CPUS <= GDB_RSP_MAX_THREADS, "a GDB thread for each CPU");
static int ready;
static volatile int talker = -1;
static volatile uint64_t go;
static volatile int halt_on_release;    /* the stop is a panic */
static volatile int poll_busy;
static int pending_byte = -1;           /* read by poll, for the RSP layer */
static struct gdb_rsp rsp;
static struct sw_break sw[MAX_SW_BREAKS];
static struct hw_slot hw[DEBUG_SLOTS];
static uint64_t dr_addr[DEBUG_SLOTS], dr7;
static volatile uint64_t dr_generation = 1;

static unsigned me(void)
{
	return this_cpu()->cpu;
}

/* The CPUs the stub stops: brought up and not absent. */
static int participates(unsigned k)
{
	return k < cpu_count && percpu[k].state != CPU_ABSENT &&
	       percpu[k].state != CPU_STARTING;
}

/* ------------------------------------------------------ debug registers */

static void recompute_dr7(void)
{
	uint64_t v = DR7_RESERVED_ONE;
	for (unsigned i = 0; i < DEBUG_SLOTS; i++) {
		dr_addr[i] = hw[i].used ? hw[i].addr : 0;
		if (!hw[i].used)
			continue;
		unsigned rw = hw[i].type == GDB_RSP_HW_BREAK ? DR7_RW_EXEC :
			      hw[i].type == GDB_RSP_WATCH_WRITE ? DR7_RW_WRITE :
			      DR7_RW_ACCESS;
		/* An instruction breakpoint's LEN is 00 (17.2.5). */
		unsigned len = rw == DR7_RW_EXEC ? 0 : dr7_len_bits(hw[i].len);
		v |= DR7_G(i) | (uint64_t)rw << DR7_RW_SHIFT(i) |
		     (uint64_t)len << DR7_LEN_SHIFT(i);
		if (rw != DR7_RW_EXEC)
			v |= DR7_LE | DR7_GE;
	}
	dr7 = v;
	dr_generation++;
}

static void load_debug_registers(struct stub_cpu *c)
{
	if (c->dr_loaded == dr_generation)
		return;
	/* Disable first so that no half-loaded pair matches. */
	dr7_write(DR7_RESERVED_ONE);
	for (unsigned i = 0; i < DEBUG_SLOTS; i++)
		dr_addr_write(i, dr_addr[i]);
	dr7_write(dr7);
	c->dr_loaded = dr_generation;
}

/* The aligned pieces covering [addr, addr + len). */
static unsigned piece(uint64_t addr, uint64_t len)
{
	for (unsigned size = 8; size > 1; size /= 2)
		if (addr % size == 0 && len >= size)
			return size;
	return 1;
}

static int hw_insert(enum gdb_rsp_point type, uint64_t addr, uint64_t kind)
{
	uint64_t len = type == GDB_RSP_HW_BREAK ? 1 : kind;
	if (len == 0 || len > 8 * DEBUG_SLOTS)
		return GDB_RSP_ERROR;
	unsigned need = 0, free_slots = 0;
	for (uint64_t a = addr; a < addr + len; a += piece(a, addr + len - a))
		need++;
	for (unsigned i = 0; i < DEBUG_SLOTS; i++)
		free_slots += !hw[i].used;
	if (need > free_slots)
		return GDB_RSP_ERROR;
	uint64_t a = addr;
	for (unsigned i = 0; i < DEBUG_SLOTS && a < addr + len; i++) {
		if (hw[i].used)
			continue;
		unsigned n = piece(a, addr + len - a);
		hw[i] = (struct hw_slot){ 1, type, addr, kind, a, n };
		a += n;
	}
	recompute_dr7();
	return GDB_RSP_OK;
}

static int hw_remove(enum gdb_rsp_point type, uint64_t addr, uint64_t kind)
{
	int found = 0;
	for (unsigned i = 0; i < DEBUG_SLOTS; i++)
		if (hw[i].used && hw[i].type == type &&
		    hw[i].gdb_addr == addr && hw[i].gdb_kind == kind) {
			hw[i].used = 0;
			found = 1;
		}
	if (!found)
		return GDB_RSP_ERROR;
	recompute_dr7();
	return GDB_RSP_OK;
}

/* --------------------------------------------------------------- memory */

static struct sw_break *sw_find(uint64_t addr)
{
	for (unsigned i = 0; i < MAX_SW_BREAKS; i++)
		if (sw[i].used && sw[i].addr == addr)
			return &sw[i];
	return 0;
}

/* Opens the supervisor's access to user pages for the stub's own reads
 * and writes (SMAP, SDM vol. 3, 4.6.1): STAC, but only where CR4.SMAP is
 * on -- STAC is #UD on a CPU without SMAP. Interrupts are off in the stub,
 * so AC stays set only for these accesses. */
static int user_access_open(void)
{
	uint64_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	if (!(cr4 & CR4_SMAP))
		return 0;
	__asm__ volatile("stac" ::: "memory", "cc");
	return 1;
}

static void user_access_close(int opened)
{
	if (opened)
		__asm__ volatile("clac" ::: "memory", "cc");
}

/* Bytes readable from addr, up to n, page by page. */
static size_t readable(uint64_t addr, size_t n)
{
	size_t ok = 0;
	while (ok < n) {
		uint64_t a = addr + ok;
		if (debug_probe(a) == DEBUG_NO_ACCESS)
			break;
		uint64_t to_page_end = 4096 - (a & 4095);
		ok += to_page_end < n - ok ? to_page_end : n - ok;
	}
	return ok;
}

/* GDB sees memory as it was: a planted int3 shows its saved byte. */
static size_t stub_read_mem(void *ctx, uint64_t addr, uint8_t *buf,
			    size_t n)
{
	(void)ctx;
	n = readable(addr, n);
	int opened = user_access_open();
	for (size_t i = 0; i < n; i++) {
		struct sw_break *b = sw_find(addr + i);
		buf[i] = b ? b->saved : ((const volatile uint8_t *)addr)[i];
	}
	user_access_close(opened);
	return n;
}

static void poke(uint64_t addr, uint8_t v)
{
	int opened = user_access_open();
	if (debug_probe(addr) == DEBUG_READ_WRITE)
		*(volatile uint8_t *)addr = v;
	else
		debug_write_protected((void *)addr, &v, 1);
	user_access_close(opened);
}

static int stub_write_mem(void *ctx, uint64_t addr, const uint8_t *buf,
			  size_t n)
{
	(void)ctx;
	if (readable(addr, n) != n)
		return GDB_RSP_ERROR;
	for (size_t i = 0; i < n; i++) {
		struct sw_break *b = sw_find(addr + i);
		if (b)
			b->saved = buf[i];
		else
			poke(addr + i, buf[i]);
	}
	return GDB_RSP_OK;
}

static int sw_insert(uint64_t addr)
{
	if (sw_find(addr))
		return GDB_RSP_OK;
	if (readable(addr, 1) != 1)
		return GDB_RSP_ERROR;
	uint8_t saved;
	stub_read_mem(0, addr, &saved, 1);
	for (unsigned i = 0; i < MAX_SW_BREAKS; i++) {
		if (sw[i].used)
			continue;
		sw[i] = (struct sw_break){ addr, saved, 1, 0 };
		poke(addr, INT3);
		return GDB_RSP_OK;
	}
	return GDB_RSP_ERROR;
}

static int sw_remove(uint64_t addr)
{
	struct sw_break *b = sw_find(addr);
	if (!b)
		return GDB_RSP_ERROR;
	if (!b->lifted)
		poke(addr, b->saved);
	b->used = 0;
	return GDB_RSP_OK;
}

static int stub_insert(void *ctx, enum gdb_rsp_point type, uint64_t addr,
		       uint64_t kind)
{
	(void)ctx;
	return type == GDB_RSP_SW_BREAK ? sw_insert(addr) :
					  hw_insert(type, addr, kind);
}

static int stub_remove(void *ctx, enum gdb_rsp_point type, uint64_t addr,
		       uint64_t kind)
{
	(void)ctx;
	return type == GDB_RSP_SW_BREAK ? sw_remove(addr) :
					  hw_remove(type, addr, kind);
}

static void remove_all_points(void)
{
	for (unsigned i = 0; i < MAX_SW_BREAKS; i++)
		if (sw[i].used)
			sw_remove(sw[i].addr);
	for (unsigned i = 0; i < DEBUG_SLOTS; i++)
		hw[i].used = 0;
	recompute_dr7();
}

/* ------------------------------------------------------------ registers */

/* Where register r of a stopped CPU lives, or NULL for one it cannot
 * show (x87: the kernel is built without floating point and saves none). */
static uint64_t *reg_slot(struct stub_cpu *c, unsigned r)
{
	struct trap_frame *f = c->frame;
	uint64_t *const gprs[] = {
		&f->rax, &f->rbx, &f->rcx, &f->rdx, &f->rsi, &f->rdi,
		&f->rbp, &f->rsp, &f->r8, &f->r9, &f->r10, &f->r11,
		&f->r12, &f->r13, &f->r14, &f->r15, &f->rip, &f->rflags,
		&f->cs, &f->ss, &c->ds, &c->es, &c->fs, &c->gs,
	};
	if (r < sizeof gprs / sizeof gprs[0])
		return gprs[r];
	if (r == GDB_AMD64_FS_BASE)
		return &c->fs_base;
	if (r == GDB_AMD64_GS_BASE)
		return &c->gs_base;
	return 0;
}

static struct stub_cpu *thread_cpu(unsigned thread)
{
	return &cpus[thread - 1];
}

static int stub_read_reg(void *ctx, unsigned thread, unsigned r,
			 uint8_t *val)
{
	(void)ctx;
	uint64_t *p = reg_slot(thread_cpu(thread), r);
	if (!p)
		return GDB_RSP_UNAVAILABLE;
	unsigned bytes = gdb_rsp_reg(&gdb_rsp_amd64, r)->bits / 8;
	for (unsigned i = 0; i < bytes; i++)
		val[i] = (uint8_t)(*p >> (8 * i));
	return GDB_RSP_OK;
}

/* The trap frame's registers change on the way out (IRET loads them); the
 * others were read for GDB and are not reloaded, so they accept only their
 * own value. */
static int stub_write_reg(void *ctx, unsigned thread, unsigned r,
			  const uint8_t *val)
{
	(void)ctx;
	uint64_t *p = reg_slot(thread_cpu(thread), r);
	if (!p)
		return GDB_RSP_ERROR;
	unsigned bytes = gdb_rsp_reg(&gdb_rsp_amd64, r)->bits / 8;
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)val[i] << (8 * i);
	int in_frame = r <= GDB_AMD64_SS;
	if (!in_frame)
		return v == *p ? GDB_RSP_OK : GDB_RSP_ERROR;
	*p = v;
	return GDB_RSP_OK;
}

/* -------------------------------------------------------------- threads */

static bool stub_alive(void *ctx, unsigned thread)
{
	(void)ctx;
	unsigned k = thread - 1;
	return participates(k) &&
	       (cpus[k].parked || (unsigned)talker == k);
}

static void stub_describe(void *ctx, unsigned thread, char *buf,
			  size_t size)
{
	(void)ctx;
	fmt_snprintf(buf, size, "cpu %u: %s", thread - 1,
		     gdbstub_cpu_activity(thread - 1));
}

static void stub_put(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		uart_put(STUB_PORT, (uint8_t)s[i]);
}

static struct gdb_rsp_target target = {
	.arch = &gdb_rsp_amd64,
	.put = stub_put,
	.alive = stub_alive,
	.describe = stub_describe,
	.read_reg = stub_read_reg,
	.write_reg = stub_write_reg,
	.read_mem = stub_read_mem,
	.write_mem = stub_write_mem,
	.insert = stub_insert,
	.remove = stub_remove,
};

/* ------------------------------------------------------ stopping, going */

static uint64_t read_seg(int which)
{
	uint16_t v = 0;
	switch (which) {
	case 0:
		__asm__ volatile("mov %%ds, %0" : "=r"(v));
		break;
	case 1:
		__asm__ volatile("mov %%es, %0" : "=r"(v));
		break;
	case 2:
		__asm__ volatile("mov %%fs, %0" : "=r"(v));
		break;
	default:
		__asm__ volatile("mov %%gs, %0" : "=r"(v));
		break;
	}
	return v;
}

/* The selectors and bases are the CPU's own, read in the stub: the trap
 * entry (arch/x86/isr.asm) changes none of them but the GS base, which it
 * swaps on an entry from ring 3 -- the task's is then in
 * IA32_KERNEL_GS_BASE (SDM vol. 2, SWAPGS). */
static void publish(struct stub_cpu *c, struct trap_frame *f)
{
	c->frame = f;
	c->ds = read_seg(0);
	c->es = read_seg(1);
	c->fs = read_seg(2);
	c->gs = read_seg(3);
	c->fs_base = rdmsr(MSR_FS_BASE);
	c->gs_base = rdmsr(trap_from_user(f) ? MSR_KERNEL_GS_BASE :
						MSR_GS_BASE);
}

/* A single step ends (its #DB) or is overtaken by another CPU's stop: the
 * frame gets back its IF and loses TF. */
static void end_step(struct stub_cpu *c, struct trap_frame *f)
{
	if (!c->stepping)
		return;
	f->rflags &= ~RFLAGS_TF;
	if (c->step_masked_if)
		f->rflags |= RFLAGS_IF;
	c->stepping = 0;
	c->step_masked_if = 0;
}

/* Instructions that read or write IF: a step over one keeps the real IF
 * (SDM vol. 2: CLI, STI, PUSHF, POPF, IRET). Prefixes are skipped. */
static int touches_if(uint64_t rip)
{
	for (unsigned i = 0; i < 4; i++) {
		uint8_t op;
		if (stub_read_mem(0, rip + i, &op, 1) != 1)
			return 1;
		if (op == 0x66 || (op >= 0x40 && op <= 0x4f))
			continue;
		return op == 0xfa || op == 0xfb || op == 0x9c || op == 0x9d ||
		       op == 0xcf;
	}
	return 1;
}

/*
 * The CPU leaves the stub as run says. A step runs with IF clear, so that
 * it lands on the next instruction rather than in a pending interrupt's
 * handler (QEMU's stub does the same), unless the instruction is one that
 * reads or writes IF. RF keeps a reported instruction breakpoint from
 * firing again on the way out (SDM vol. 3, 17.3.1.1).
 */
static void leave(struct stub_cpu *c, struct trap_frame *f)
{
	load_debug_registers(c);
	if (c->at_hw_break)
		f->rflags |= RFLAGS_RF;
	c->at_hw_break = 0;
	if (c->run == GDB_RSP_STEP) {
		c->stepping = 1;
		f->rflags |= RFLAGS_TF;
		if ((f->rflags & RFLAGS_IF) && !touches_if(f->rip)) {
			f->rflags &= ~RFLAGS_IF;
			c->step_masked_if = 1;
		}
	}
}

static void __attribute__((noreturn)) halt_here(void)
{
	this_cpu()->state = CPU_HALTED;
	for (;;)
		cpu_halt();
}

/*
 * A parked CPU waits for a release (a change of `go`) that does not leave
 * it STAY, then halts (after a panic) or leaves as GDB asked.
 */
static void wait_release(struct stub_cpu *c, struct trap_frame *f,
			 uint64_t seen)
{
	for (;;) {
		uint64_t g = __atomic_load_n(&go, __ATOMIC_ACQUIRE);
		if (g != seen) {
			seen = g;
			if (c->run != GDB_RSP_STAY)
				break;
		}
		cpu_relax();
	}
	if (halt_on_release) {
		__atomic_store_n(&c->parked, 0, __ATOMIC_RELEASE);
		halt_here();
	}
	leave(c, f);
	__atomic_store_n(&c->parked, 0, __ATOMIC_RELEASE);
}

/* Stopped on behalf of the talker until it releases this CPU. */
static void park(struct stub_cpu *c, struct trap_frame *f)
{
	publish(c, f);
	end_step(c, f);
	uint64_t seen = __atomic_load_n(&go, __ATOMIC_ACQUIRE);
	__atomic_store_n(&c->parked, 1, __ATOMIC_RELEASE);
	wait_release(c, f, seen);
}

/*
 * NMI the other CPUs unless all are parked, and wait until they are. Every
 * CPU that gets the NMI owes it: one parked in its NMI handler takes it
 * only after it leaves (NMIs are blocked until its IRET), when the stop may
 * be over, and must not take it for a hardware NMI (gdbstub_nmi).
 */
static void stop_others(unsigned self)
{
	int missing = 0;
	for (unsigned k = 0; k < cpu_count; k++)
		if (k != self && participates(k) && !cpus[k].parked)
			missing = 1;
	if (!missing)
		return;
	for (unsigned k = 0; k < cpu_count; k++)
		if (k != self)
			__atomic_add_fetch(&cpus[k].nmi_owed, 1, __ATOMIC_ACQ_REL);
	lapic_send_nmi_others();
	uint64_t until = rdtsc() + tsc_from_us(PARK_TIMEOUT_US);
	for (unsigned k = 0; k < cpu_count; k++)
		while (k != self && participates(k) && !cpus[k].parked &&
		       rdtsc() < until)
			cpu_relax();
}

/* Talks to GDB until it resumes or detaches; fills every CPU's run. */
static void converse(const struct gdb_rsp_stop *why, int tell)
{
	gdb_rsp_stopped(&rsp, why, tell);
	for (;;) {
		int ch = pending_byte;
		pending_byte = -1;
		if (ch < 0)
			ch = uart_get(STUB_PORT);
		if (ch < 0) {
			cpu_relax();
			continue;
		}
		enum gdb_rsp_event ev = gdb_rsp_input(&rsp, (uint8_t)ch);
		if (ev == GDB_RSP_RESUME)
			break;
		if (ev == GDB_RSP_DETACH) {
			remove_all_points();
			for (unsigned t = 1; t <= cpu_count; t++)
				rsp.run[t] = GDB_RSP_CONTINUE;
			break;
		}
	}
	for (unsigned k = 0; k < cpu_count; k++)
		cpus[k].run = rsp.run[k + 1];
}

/* Releases the CPUs that do not stay; returns the new `go` once they have
 * all left. */
static uint64_t release(unsigned self)
{
	uint64_t g = __atomic_add_fetch(&go, 1, __ATOMIC_ACQ_REL);
	for (unsigned k = 0; k < cpu_count; k++)
		while (k != self && cpus[k].run != GDB_RSP_STAY &&
		       __atomic_load_n(&cpus[k].parked, __ATOMIC_ACQUIRE))
			cpu_relax();
	return g;
}

/* A stop that must reach GDB even when another CPU stopped first: a
 * breakpoint is hit again (its int3 or its fault), a step or a Ctrl-C is
 * simply overtaken, but a watchpoint's trap is not repeated. */
static int must_report(enum stop_kind kind, const struct gdb_rsp_stop *why)
{
	return kind == STOP_PANIC || kind == STOP_BOOT ||
	       why->why == GDB_RSP_STOP_WATCH ||
	       why->why == GDB_RSP_STOP_RWATCH ||
	       why->why == GDB_RSP_STOP_AWATCH;
}

/*
 * This CPU stops the machine. Returns when GDB resumes it (the frame as
 * GDB left it), or, when another CPU became the talker first and this stop
 * need not be reported, once that CPU's stop is over.
 */
static void stop(struct trap_frame *f, enum stop_kind kind,
		 const struct gdb_rsp_stop *why)
{
	unsigned self = me();
	struct stub_cpu *c = &cpus[self];
	c->in_stub = 1;
	for (;;) {
		int expected = -1;
		if (__atomic_compare_exchange_n(&talker, &expected, (int)self,
						0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
		park(c, f);
		if (!must_report(kind, why)) {
			c->in_stub = 0;
			return;
		}
	}
	publish(c, f);
	halt_on_release = kind == STOP_PANIC;
	stop_others(self);
	c->at_hw_break = why->why == GDB_RSP_STOP_HWBREAK;
	converse(why, kind != STOP_BOOT && kind != STOP_ATTACH);
	if (halt_on_release) {
		/* The others halt; this CPU goes on to power off, whatever
		 * GDB asked. */
		for (unsigned k = 0; k < cpu_count; k++)
			cpus[k].run = GDB_RSP_CONTINUE;
		release(self);
		__atomic_store_n(&talker, -1, __ATOMIC_RELEASE);
		return;
	}
	if (c->run == GDB_RSP_STAY) {
		/* Another CPU steps. Parked before the release, so that when
		 * that CPU stops again it counts this one as stopped. */
		__atomic_store_n(&c->parked, 1, __ATOMIC_RELEASE);
		uint64_t seen = release(self);
		__atomic_store_n(&talker, -1, __ATOMIC_RELEASE);
		wait_release(c, f, seen);
	} else {
		release(self);
		__atomic_store_n(&talker, -1, __ATOMIC_RELEASE);
		leave(c, f);
	}
	c->in_stub = 0;
}

/* ------------------------------------------------------------- entries */

static void self_trap(enum stop_kind kind)
{
	cpus[me()].self_trap = kind;
	__asm__ volatile("int3" ::: "memory");
}

static void on_breakpoint(struct trap_frame *f)
{
	if (trap_from_user(f)) {
		/* A task's own int3: GDB plants none in ring-3 code. */
		task_on_user_fault(f);
		return;
	}
	struct stub_cpu *c = &cpus[me()];
	struct gdb_rsp_stop why = { me() + 1, SIG_TRAP, GDB_RSP_STOP_SIGNAL, 0 };
	enum stop_kind kind = c->self_trap;
	c->self_trap = STOP_NONE;
	if (kind == STOP_PANIC)
		why.signal = SIG_ABRT;
	if (kind != STOP_NONE) {
		stop(f, kind, &why);
		return;
	}
	/* #BP is a trap: rip is past the int3 (SDM vol. 3, 6.5). */
	uint64_t at = f->rip - 1;
	uint8_t now;
	struct sw_break *b = sw_find(at);
	if (c->in_stub) {
		/* A breakpoint in code the stub runs itself (the trap entry,
		 * the UART, an inlined helper): the stub cannot stop inside
		 * itself, so the breakpoint is lifted -- its byte goes back,
		 * GDB still counts it set -- and the instruction runs. */
		if (b && !b->lifted) {
			poke(at, b->saved);
			b->lifted = 1;
		}
		if (b)
			f->rip = at;
		return;
	}
	if (b) {
		f->rip = at;
		why.why = GDB_RSP_STOP_SWBREAK;
	} else if (stub_read_mem(0, at, &now, 1) == 1 && now != INT3) {
		/* Our int3, removed while this CPU was on its way here: run
		 * the instruction that is back in its place. */
		f->rip = at;
		return;
	}
	stop(f, STOP_TRAP, &why);
}

static void on_debug(struct trap_frame *f)
{
	uint64_t dr6 = dr6_read();
	dr6_write(DR6_CLEAR);
	struct stub_cpu *c = &cpus[me()];
	if (c->in_stub) {
		/* The stub's own access to a watched variable (GDB reading
		 * it), or an instruction breakpoint in code the stub runs: no
		 * stop. RF lets the faulting instruction run (17.3.1.1). */
		f->rflags |= RFLAGS_RF;
		return;
	}
	struct gdb_rsp_stop why = { me() + 1, SIG_TRAP, GDB_RSP_STOP_SIGNAL, 0 };
	int gdbs = (dr6 & DR6_BS) && c->stepping;
	if (dr6 & DR6_BS)
		end_step(c, f);
	for (unsigned i = 0; i < DEBUG_SLOTS; i++)
		gdbs |= (dr6 & DR6_B(i)) && hw[i].used;
	if (trap_from_user(f) && !gdbs) {
		/* The task's own trap flag, or a stale debug register. */
		task_on_user_fault(f);
		return;
	}
	for (unsigned i = 0; i < DEBUG_SLOTS; i++) {
		if (!(dr6 & DR6_B(i)) || !hw[i].used)
			continue;
		why.addr = hw[i].gdb_addr;
		why.why = hw[i].type == GDB_RSP_HW_BREAK ? GDB_RSP_STOP_HWBREAK :
			  hw[i].type == GDB_RSP_WATCH_WRITE ? GDB_RSP_STOP_WATCH :
			  hw[i].type == GDB_RSP_WATCH_READ ? GDB_RSP_STOP_RWATCH :
			  GDB_RSP_STOP_AWATCH;
		break;
	}
	stop(f, STOP_TRAP, &why);
}

static int gdbstub_nmi(struct trap_frame *f)
{
	if (!ready)
		return 0;
	struct stub_cpu *c = &cpus[me()];
	unsigned n = __atomic_load_n(&c->nmi_owed, __ATOMIC_ACQUIRE);
	while (n && !__atomic_compare_exchange_n(&c->nmi_owed, &n, n - 1, 0,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
		;
	int owed = n != 0;
	if (c->in_stub)
		return 1;
	if (__atomic_load_n(&talker, __ATOMIC_ACQUIRE) < 0)
		return owed;
	c->in_stub = 1;
	park(c, f);
	c->in_stub = 0;
	return 1;
}

/* One CPU at a time reads COM2, and the one that saw a request keeps it
 * until its stop is over: another CPU polling meanwhile would take a byte
 * of the packet that follows. */
static void gdbstub_poll(struct trap_frame *f)
{
	if (!ready || __atomic_exchange_n(&poll_busy, 1, __ATOMIC_ACQUIRE))
		return;
	int ch = uart_get(STUB_PORT);
	struct gdb_rsp_stop why = { me() + 1, SIG_INT, GDB_RSP_STOP_SIGNAL, 0 };
	if (ch == GDB_RSP_INTERRUPT) {
		stop(f, STOP_BREAK_IN, &why);
	} else if (ch == '$') {
		/* A GDB attaching: stop, and let the layer read its packet. */
		pending_byte = ch;
		why.signal = SIG_TRAP;
		stop(f, STOP_ATTACH, &why);
	}
	__atomic_store_n(&poll_busy, 0, __ATOMIC_RELEASE);
}

/* The signal GDB shows for an exception (GDB's numbering). */
static unsigned fault_signal(uint64_t vector)
{
	switch (vector) {
	case VEC_DIVIDE_ERROR:
		return SIG_FPE;
	case VEC_INVALID_OPCODE:
		return SIG_ILL;
	case VEC_MACHINE_CHECK:
	case VEC_NMI:
		return SIG_BUS;
	default:
		return SIG_SEGV;
	}
}

static void gdbstub_panic(const struct trap_frame *f)
{
	if (!ready || options.gdb < GDB_PANIC || cpus[me()].in_stub)
		return;
	if (!f) {
		self_trap(STOP_PANIC);
		return;
	}
	/* A copy: GDB may change it, the report is already written. */
	struct trap_frame copy = *f;
	struct gdb_rsp_stop why = { me() + 1, fault_signal(f->vector),
				    GDB_RSP_STOP_SIGNAL, 0 };
	stop(&copy, STOP_PANIC, &why);
}

void gdbstub_init(void)
{
	if (options.gdb == GDB_OFF)
		return;
	if (uart_open(STUB_PORT) != 0) {
		kprintf("gdb: no UART at COM2 (%#x); the stub is off\n",
			STUB_PORT);
		return;
	}
	cpus = bootmem_alloc(cpu_count * sizeof *cpus);
	if (!cpus) {
		kprintf("gdb: no memory for %u CPUs' records; the stub is off\n",
			cpu_count);
		return;
	}
	target.nthreads = cpu_count;
	gdb_rsp_init(&rsp, &target);
	recompute_dr7();
	trap_set_handler(VEC_DEBUG, on_debug);
	trap_set_handler(VEC_BREAKPOINT, on_breakpoint);
	ready = 1;
	static const struct panic_debugger debugger = { gdbstub_panic,
							gdbstub_nmi };
	panic_set_debugger(&debugger);
	qclock_set_poll(gdbstub_poll);
	kprintf("gdb: stub on COM2 (%#x) at 115200 baud, CPUs 0-%u as threads "
		"1-%u\n", STUB_PORT, cpu_count - 1, cpu_count);
	if (options.gdb == GDB_WAIT) {
		kprintf("gdb: waiting for GDB on COM2\n");
		self_trap(STOP_BOOT);
	}
}
