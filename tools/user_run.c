/*
 * tools/user_run: runs one ring-3 program of user/ on the host, as a Linux
 * process under ptrace, in the address space lib/rt_abi.h describes: the
 * PT_LOAD segments lib/elf64 accepted (with their permissions), the working
 * set, the stack and a filled control page. Its system calls never reach
 * Linux: PTRACE_SYSEMU stops the process at each SYSCALL and this program
 * answers as the rtk kernel would (RT_SYS_*, one job every p quanta from
 * the start, pointers checked against the task's own pages; a task alone
 * on its CPU, so the synchronous release comes at once and a job has run
 * every whole quantum since it began). Its first frame holds argc and
 * argv, argv[0] the file's name without ".elf". A fault
 * (SIGSEGV, SIGFPE, SIGILL, ...) ends the run. The program runs on real
 * hardware in ring 3, so the tests see what it does, short of the kernel.
 *
 *   user_run [options] PROGRAM.elf
 *     --ms N            end after N ms (default 100)
 *     --pause-at N --pause-ms M   stop the task at N ms for M ms: time it
 *                       did not get, which its hourglass must see
 *     --jobs N          end at the N-th job's end (RT_SYS_SLEEP_NEXT_PERIOD
 *                       or RT_SYS_END_JOB)
 *     --writes N        end once the N-th write has been answered (a
 *                       program that writes and then spins ends there,
 *                       however slowly the host runs it)
 *     --e E --p P --d D --weight W --quantum-us Q --task I --seed S
 *     --exec K          the task's exec= (RT_SYS_TASK_INFO)
 *     --args "WORDS"    argv[1..]: WORDS as between the quotes of a task
 *                       line's args="..." (lib/task_args.h)
 *     --ws BYTES        the working set (default 4096)
 *     --other-page A    ctl->other_page
 *     --magic M         ctl->magic (to see the program refuse a bad one)
 *     --lenient-pointers  a bad pointer gets -RT_EINVAL instead of a kill
 *     --exec-data       writable segments are mapped executable too
 *     --dump-ws FILE    the working set's bytes at the end
 *
 * It prints one JSON object: how the run ended ("exit", "fault", "killed",
 * "time", "jobs", "writes"), the exit code or the signal with its address, the
 * console lines, the system calls made (with the job and value of the first
 * 64 RT_SYS_TRACE calls), and the control page's task part.
 *
 * Only the build without sanitizers (user_run-fast) can run programs:
 * ASan's shadow memory covers RT_USER_BASE.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "../lib/elf64.h"
#include "../lib/rt_abi.h"
#include "../lib/task_args.h"
#include "json_str.h"
#include "read_file.h"

#define PAGE 4096ull
#define MAX_REGIONS (ELF64_MAX_SEGMENTS + 3)
#define CONSOLE_MAX 65536

struct options {
	uint64_t ms, pause_at, pause_ms, jobs, writes, e, p, d, weight;
	uint64_t quantum_us;
	uint64_t task, seed, ws, exec;
	int has_exec;
	const char *args;
	uint64_t quantum_ns;
	uint64_t other_page, magic;
	int lenient_pointers, exec_data;
	const char *dump_ws, *program;
};

/* A range of the task's own pages, as a system-call pointer must lie in. */
struct region {
	uint64_t start, end;
	int writable;
};

/* RT_SYS_TRACE calls whose arguments the report shows. */
#define TRACE_KEPT 64

struct run {
	const struct options *opt;
	pid_t pid;
	struct region region[MAX_REGIONS];
	unsigned nregions;
	uint64_t epoch_tsc, tsc_khz, job;
	uint64_t job_began_ns; /* when the current job could first run */
	uint64_t start_tsc;    /* when the task's first instruction ran */
	uint8_t frame[PAGE];   /* the stack's top page: argc, argv */
	uint64_t rsp;
	char name[RT_NAME_MAX]; /* argv[0] */
	uint64_t calls[RT_SYS_COUNT + 1];   /* the last: unknown numbers */
	uint64_t traced[TRACE_KEPT][2];     /* RT_SYS_TRACE's job and value */
	char console[CONSOLE_MAX];
	size_t console_len;
};

/* The interval timer's next purpose: pause the task, or end the run. */
static volatile sig_atomic_t alarm_pauses, alarmed;
static pid_t child_pid;

static uint64_t page_down(uint64_t a)
{
	return a & ~(PAGE - 1);
}

static uint64_t page_up(uint64_t a)
{
	return page_down(a + PAGE - 1);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .ms = 100, .e = 1, .p = 2, .quantum_us = 1000,
			       .ws = 4096, .magic = RT_CONTROL_MAGIC };
	static const struct {
		const char *name;
		size_t at;
	} nums[] = {
		{ "--ms", offsetof(struct options, ms) },
		{ "--pause-at", offsetof(struct options, pause_at) },
		{ "--pause-ms", offsetof(struct options, pause_ms) },
		{ "--jobs", offsetof(struct options, jobs) },
		{ "--writes", offsetof(struct options, writes) },
		{ "--e", offsetof(struct options, e) },
		{ "--p", offsetof(struct options, p) },
		{ "--d", offsetof(struct options, d) },
		{ "--weight", offsetof(struct options, weight) },
		{ "--quantum-us", offsetof(struct options, quantum_us) },
		{ "--task", offsetof(struct options, task) },
		{ "--seed", offsetof(struct options, seed) },
		{ "--ws", offsetof(struct options, ws) },
		{ "--exec", offsetof(struct options, exec) },
		{ "--other-page", offsetof(struct options, other_page) },
		{ "--magic", offsetof(struct options, magic) },
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--lenient-pointers")) {
			o->lenient_pointers = 1;
			continue;
		}
		if (!strcmp(a, "--exec-data")) {
			o->exec_data = 1;
			continue;
		}
		if (!strcmp(a, "--dump-ws") && i + 1 < argc) {
			o->dump_ws = argv[++i];
			continue;
		}
		if (!strcmp(a, "--args") && i + 1 < argc) {
			o->args = argv[++i];
			continue;
		}
		if (!strcmp(a, "--exec"))
			o->has_exec = 1;
		size_t k = 0;
		while (k < sizeof nums / sizeof nums[0] && strcmp(a, nums[k].name))
			k++;
		if (k < sizeof nums / sizeof nums[0]) {
			char *end;
			if (i + 1 == argc) {
				fprintf(stderr, "user_run: %s needs a value\n", a);
				return -1;
			}
			errno = 0;
			uint64_t v = strtoull(argv[++i], &end, 0);
			if (errno || *end || end == argv[i]) {
				fprintf(stderr, "user_run: %s %s: not a number\n",
					a, argv[i]);
				return -1;
			}
			*(uint64_t *)((char *)o + nums[k].at) = v;
			continue;
		}
		if (a[0] == '-' || o->program) {
			fprintf(stderr, "user_run: unknown argument '%s'\n", a);
			return -1;
		}
		o->program = a;
	}
	if (!o->program) {
		fprintf(stderr, "usage: user_run [options] PROGRAM.elf\n");
		return -1;
	}
	o->quantum_ns = o->quantum_us * 1000;
	if (!o->d)
		o->d = o->p;
	if (o->ws > RT_WS_MAX) {
		fprintf(stderr, "user_run: --ws %llu is above RT_WS_MAX\n",
			(unsigned long long)o->ws);
		return -1;
	}
	return 0;
}

/* TSC ticks per millisecond against CLOCK_MONOTONIC_RAW, over 20 ms. */
static uint64_t measure_tsc_khz(void)
{
	struct timespec a, b, pause = { 0, 20000000 };
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	uint64_t t0 = __rdtsc();
	nanosleep(&pause, NULL);
	uint64_t t1 = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	uint64_t ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
		      (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
	return (t1 - t0) * 1000000 / ns;
}

static uint64_t now_ns(const struct run *r)
{
	uint64_t d = __rdtsc() - r->epoch_tsc;
	return d / r->tsc_khz * 1000000 + d % r->tsc_khz * 1000000 / r->tsc_khz;
}

static void add_region(struct run *r, uint64_t start, uint64_t end,
		       int writable)
{
	r->region[r->nregions++] = (struct region){ start, end, writable };
}

/* In the child: the task's address space, then a stop for the tracer. */
static void child(struct run *r, const struct elf64_image *img,
		  const char *file)
{
	const struct options *o = r->opt;
	if (ptrace(PTRACE_TRACEME, 0, 0, 0)) {
		perror("user_run: PTRACE_TRACEME");
		_exit(3);
	}
	for (unsigned i = 0; i < r->nregions; i++) {
		struct region *g = &r->region[i];
		void *at = mmap((void *)g->start, g->end - g->start,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				-1, 0);
		if (at != (void *)g->start) {
			fprintf(stderr, "user_run: cannot map 0x%llx: %s\n",
				(unsigned long long)g->start, strerror(errno));
			_exit(3);
		}
	}
	for (unsigned i = 0; i < img->nsegs; i++) {
		const struct elf64_segment *s = &img->seg[i];
		memcpy((void *)s->vaddr, file + s->offset, s->filesz);
		int prot = (s->flags & ELF64_PF_R ? PROT_READ : 0) |
			   (s->flags & ELF64_PF_W ? PROT_WRITE : 0) |
			   (s->flags & ELF64_PF_X ? PROT_EXEC : 0);
		if (o->exec_data && (s->flags & ELF64_PF_W))
			prot |= PROT_EXEC;
		if (mprotect((void *)page_down(s->vaddr),
			     page_up(s->vaddr + s->memsz) - page_down(s->vaddr),
			     prot)) {
			perror("user_run: mprotect");
			_exit(3);
		}
	}
	struct rt_control *c = (struct rt_control *)RT_CONTROL;
	*c = (struct rt_control){
		.magic = (uint32_t)o->magic, .version = RT_CONTROL_VERSION,
		.task = (uint32_t)o->task, .e = (uint32_t)o->e,
		.p = (uint32_t)o->p, .d = (uint32_t)o->d,
		.weight = (uint32_t)o->weight, .ws_bytes = (uint32_t)o->ws,
		.quantum_ns = o->quantum_ns, .tsc_khz = r->tsc_khz,
		.epoch_tsc = r->epoch_tsc,
		.gap_threshold_cycles = r->tsc_khz / 50, /* 20 us */
		.seed = o->seed, .other_page = o->other_page,
	};
	memcpy((void *)(RT_STACK_TOP - PAGE), r->frame, PAGE);
	kill(getpid(), SIGSTOP);
	_exit(4);
}

/* argv[0] (the file's name without ".elf") and --args into r->frame. */
static int build_frame(struct run *r)
{
	const struct options *o = r->opt;
	const char *base = strrchr(o->program, '/');
	base = base ? base + 1 : o->program;
	size_t n = strcspn(base, ".");
	snprintf(r->name, sizeof r->name, "%.*s", (int)n, base);
	static char words[PAGE];
	unsigned nwords = 0;
	size_t len;
	const char *why;
	if (o->args && task_args_split(o->args, strlen(o->args), words,
				       sizeof words, &nwords, &len, &why)) {
		fprintf(stderr, "user_run: --args %s: %s\n", o->args, why);
		return -1;
	}
	r->rsp = task_args_frame(r->frame, PAGE, RT_STACK_TOP, r->name, words,
				 nwords);
	if (!r->rsp) {
		fprintf(stderr, "user_run: --args %s: more than a page\n",
			o->args);
		return -1;
	}
	return 0;
}

/* The task's own pages hold [p, p + len) (writable ones, if asked). */
static int user_range_ok(const struct run *r, uint64_t p, uint64_t len,
			 int write)
{
	for (unsigned i = 0; i < r->nregions; i++) {
		const struct region *g = &r->region[i];
		if (p >= g->start && p < g->end && len <= g->end - p &&
		    (!write || g->writable))
			return 1;
	}
	return 0;
}

static const char *const call_names[RT_SYS_COUNT + 1] = {
	"exit", "sleep_next_period", "time", "job_info", "write",
	"wait_release", "end_job", "task_info", "lock", "unlock", "trace",
	"unknown",
};

static void report(struct run *r, const char *end, const char *detail)
{
	struct rt_control c;
	struct iovec local = { &c, sizeof c };
	struct iovec remote = { (void *)RT_CONTROL, sizeof c };
	if (process_vm_readv(r->pid, &local, 1, &remote, 1, 0) != sizeof c)
		memset(&c, 0, sizeof c);
	printf("{\"end\": \"%s\"%s, \"console\": [", end, detail);
	const char *line = r->console;
	const char *stop = r->console + r->console_len;
	int first = 1;
	while (line < stop) {
		const char *nl = memchr(line, '\n', (size_t)(stop - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(stop - line);
		printf("%s", first ? "" : ", ");
		json_string(line, n);
		first = 0;
		line += n + (nl != NULL);
	}
	printf("], \"syscalls\": {");
	first = 1;
	for (unsigned i = 0; i <= RT_SYS_COUNT; i++)
		if (r->calls[i]) {
			printf("%s\"%s\": %llu", first ? "" : ", ", call_names[i],
			       (unsigned long long)r->calls[i]);
			first = 0;
		}
	printf("}, \"traced\": [");
	for (uint64_t i = 0; i < r->calls[RT_SYS_TRACE] && i < TRACE_KEPT; i++)
		printf("%s[%llu, %llu]", i ? ", " : "",
		       (unsigned long long)r->traced[i][0],
		       (unsigned long long)r->traced[i][1]);
	printf("], \"tsc_khz\": %llu, \"elapsed_cycles\": %llu, \"control\": {\"self_cycles\": %llu, "
	       "\"gaps\": %llu, \"gap_max_cycles\": %llu, \"jobs_seen\": %llu, "
	       "\"iterations\": %llu, \"lat_count\": %llu, \"lat_sum_ns\": %llu, "
	       "\"lat_max_ns\": %llu, \"resp_count\": %llu, \"resp_sum_ns\": %llu, "
	       "\"resp_max_ns\": %llu}}\n",
	       (unsigned long long)r->tsc_khz,
	       (unsigned long long)(__rdtsc() - r->start_tsc),
	       (unsigned long long)c.self_cycles, (unsigned long long)c.gaps,
	       (unsigned long long)c.gap_max_cycles,
	       (unsigned long long)c.jobs_seen, (unsigned long long)c.iterations,
	       (unsigned long long)c.lat_count, (unsigned long long)c.lat_sum_ns,
	       (unsigned long long)c.lat_max_ns,
	       (unsigned long long)c.resp_count,
	       (unsigned long long)c.resp_sum_ns,
	       (unsigned long long)c.resp_max_ns);
}

static int dump_ws(const struct run *r)
{
	const struct options *o = r->opt;
	if (!o->dump_ws)
		return 0;
	char *bytes = malloc(o->ws ? o->ws : 1);
	struct iovec local = { bytes, o->ws };
	struct iovec remote = { (void *)RT_WS_BASE, o->ws };
	FILE *f = fopen(o->dump_ws, "wb");
	int ok = bytes && f &&
		 process_vm_readv(r->pid, &local, 1, &remote, 1, 0) ==
			 (ssize_t)o->ws &&
		 fwrite(bytes, 1, o->ws, f) == o->ws;
	if (f)
		fclose(f);
	free(bytes);
	if (!ok)
		fprintf(stderr, "user_run: cannot write %s\n", o->dump_ws);
	return ok ? 0 : 1;
}

static void job_info(const struct run *r, struct rt_job_info *info)
{
	const struct options *o = r->opt;
	uint64_t release = r->job * o->p * o->quantum_ns, now = now_ns(r);
	uint64_t began = r->job_began_ns > release ? r->job_began_ns : release;
	/* Alone on its CPU, the job has run every quantum since it began. */
	uint64_t ran = now > began ? (now - began) / o->quantum_ns : 0;
	*info = (struct rt_job_info){
		.job = r->job, .release_ns = release,
		.deadline_ns = release + o->d * o->quantum_ns,
		.budget_ns = o->e * o->quantum_ns,
		.period_ns = o->p * o->quantum_ns,
		.now_ns = now, .task = (uint32_t)o->task,
		.ran_ns = ran * o->quantum_ns,
	};
}

static void task_info(const struct run *r, struct rt_task_info *t)
{
	const struct options *o = r->opt;
	uint64_t q = o->quantum_ns;
	*t = (struct rt_task_info){
		.task = (uint32_t)o->task, .cpus = 1, .e = (uint32_t)o->e,
		.p = (uint32_t)o->p, .d = (uint32_t)o->d,
		.weight = (uint32_t)o->weight,
		.exec = o->has_exec ? (uint32_t)o->exec : RT_NOT_GIVEN,
		.ws_bytes = (uint32_t)o->ws, .prio = RT_NOT_GIVEN,
		.quantum_ns = q, .budget_ns = o->e * q, .period_ns = o->p * q,
		.deadline_ns = o->d * q,
		.exec_ns = (o->has_exec ? o->exec : o->e) * q,
	};
	snprintf(t->name, sizeof t->name, "T%llu", (unsigned long long)o->task);
	snprintf(t->work, sizeof t->work, "%s", r->name);
	snprintf(t->sched, sizeof t->sched, "user_run");
}

/* On the way back from a job's end that waited: the job the task runs now
 * and its release, into the control page's woke_* (lib/rt_abi.h). */
static void woke(const struct run *r)
{
	_Static_assert(offsetof(struct rt_control, woke_release_ns) ==
		       offsetof(struct rt_control, woke_job) + 8, "adjacent");
	struct rt_job_info info;
	job_info(r, &info);
	uint64_t v[2] = { info.job, info.release_ns };
	struct iovec local = { v, sizeof v };
	struct iovec remote = {
		(void *)(RT_CONTROL + offsetof(struct rt_control, woke_job)),
		sizeof v };
	process_vm_writev(r->pid, &local, 1, &remote, 1, 0);
}

/* Answers one system call; returns 1 when the run ends with it. */
static int syscall_stop(struct run *r, struct user_regs_struct *regs)
{
	const struct options *o = r->opt;
	uint64_t nr = regs->orig_rax;
	r->calls[nr < RT_SYS_COUNT ? nr : RT_SYS_COUNT]++;
	int64_t ret = -RT_ENOSYS;
	char detail[160];
	if (nr == RT_SYS_EXIT) {
		snprintf(detail, sizeof detail, ", \"code\": %lld",
			 (long long)regs->rdi);
		report(r, "exit", detail);
		return 1;
	}
	if (nr == RT_SYS_SLEEP_NEXT_PERIOD ||
	    (nr == RT_SYS_END_JOB && regs->rdi == r->job)) {
		if (!o->p) {
			ret = -RT_EINVAL;
		} else {
			r->job++;
			if (o->jobs && r->job == o->jobs) {
				report(r, "jobs", "");
				return 1;
			}
			while (now_ns(r) < r->job * o->p * o->quantum_ns)
				;
			r->job_began_ns = now_ns(r);
			woke(r);
			ret = 0;
		}
	} else if (nr == RT_SYS_END_JOB) {
		ret = o->p && regs->rdi < r->job ? RT_JOB_ENDED : -RT_EINVAL;
	} else if (nr == RT_SYS_WAIT_RELEASE) {
		ret = 0;
	} else if (nr == RT_SYS_TIME) {
		ret = (int64_t)now_ns(r);
	} else if (nr == RT_SYS_TRACE) {
		uint64_t n = r->calls[RT_SYS_TRACE] - 1;
		if (n < TRACE_KEPT) {
			r->traced[n][0] = regs->rdi;
			r->traced[n][1] = regs->rsi;
		}
		ret = 0;
	} else if (nr == RT_SYS_JOB_INFO || nr == RT_SYS_WRITE ||
		   nr == RT_SYS_TASK_INFO) {
		int out = nr != RT_SYS_WRITE;
		uint64_t p = regs->rdi;
		uint64_t len = nr == RT_SYS_JOB_INFO ? sizeof(struct rt_job_info)
			       : nr == RT_SYS_TASK_INFO ? sizeof(struct rt_task_info)
			       : regs->rsi;
		if (!out && len > RT_WRITE_MAX) {
			ret = -RT_EINVAL;
		} else if (len && !user_range_ok(r, p, len, out)) {
			snprintf(detail, sizeof detail,
				 ", \"reason\": \"%s pointer 0x%llx + %llu outside "
				 "the task's pages\"", call_names[nr],
				 (unsigned long long)p, (unsigned long long)len);
			if (!o->lenient_pointers) {
				report(r, "killed", detail);
				return 1;
			}
			ret = -RT_EINVAL;
		} else if (out) {
			union {
				struct rt_job_info job;
				struct rt_task_info task;
			} u;
			if (nr == RT_SYS_JOB_INFO)
				job_info(r, &u.job);
			else
				task_info(r, &u.task);
			struct iovec local = { &u, len };
			struct iovec remote = { (void *)p, len };
			process_vm_writev(r->pid, &local, 1, &remote, 1, 0);
			ret = 0;
		} else {
			size_t room = CONSOLE_MAX - r->console_len;
			size_t n = len < room ? len : room;
			struct iovec local = { r->console + r->console_len, n };
			struct iovec remote = { (void *)p, n };
			if (n && process_vm_readv(r->pid, &local, 1, &remote, 1,
						  0) == (ssize_t)n)
				r->console_len += n;
			ret = (int64_t)len;
			if (o->writes && r->calls[RT_SYS_WRITE] == o->writes) {
				report(r, "writes", "");
				return 1;
			}
		}
	}
	regs->rax = (uint64_t)ret;
	ptrace(PTRACE_SETREGS, r->pid, 0, regs);
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
	kill(child_pid, SIGSTOP);
}

static void arm(uint64_t ms)
{
	struct itimerval t = { { 0, 0 }, { (time_t)(ms / 1000),
					   (suseconds_t)(ms % 1000 * 1000) } };
	setitimer(ITIMER_REAL, &t, NULL);
}

/* At a stop the alarm caused: a pause (the task stays stopped for
 * pause_ms, then the timer runs on to the end) or the end (returns 1). */
static int alarm_stop(struct run *r)
{
	const struct options *o = r->opt;
	alarmed = 0;
	if (!alarm_pauses)
		return 1;
	alarm_pauses = 0;
	struct timespec pause = { (time_t)(o->pause_ms / 1000),
				  (long)(o->pause_ms % 1000 * 1000000) };
	nanosleep(&pause, NULL);
	arm(o->ms > o->pause_at ? o->ms - o->pause_at : 1);
	return 0;
}

static int trace(struct run *r, const struct elf64_image *img)
{
	int status;
	if (waitpid(r->pid, &status, 0) != r->pid || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGSTOP) {
		fprintf(stderr, "user_run: the task did not start\n");
		return 1;
	}
	/* TRACESYSGOOD: a system-call stop is SIGTRAP | 0x80, apart from a
	 * breakpoint's plain SIGTRAP. */
	ptrace(PTRACE_SETOPTIONS, r->pid, 0,
	       PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD);
	struct user_regs_struct regs;
	ptrace(PTRACE_GETREGS, r->pid, 0, &regs);
	/* Nothing in registers but rip and rsp (lib/rt_abi.h). */
	regs.rax = regs.rbx = regs.rcx = regs.rdx = regs.rsi = regs.rdi = 0;
	regs.rbp = regs.r8 = regs.r9 = regs.r10 = regs.r11 = regs.r12 = 0;
	regs.r13 = regs.r14 = regs.r15 = 0;
	regs.rip = img->entry;
	regs.rsp = r->rsp;
	regs.orig_rax = (uint64_t)-1;
	ptrace(PTRACE_SETREGS, r->pid, 0, &regs);

	child_pid = r->pid;
	signal(SIGALRM, on_alarm);
	alarm_pauses = r->opt->pause_ms && r->opt->pause_at < r->opt->ms;
	arm(alarm_pauses ? r->opt->pause_at : r->opt->ms);
	r->start_tsc = __rdtsc();
	for (;;) {
		ptrace(PTRACE_SYSEMU, r->pid, 0, 0);
		while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFSTOPPED(status)) {
			printf("{\"end\": \"vanished\", \"status\": %d}\n", status);
			return 1;
		}
		int sig = WSTOPSIG(status);
		ptrace(PTRACE_GETREGS, r->pid, 0, &regs);
		if (sig == (SIGTRAP | 0x80)) {
			if (syscall_stop(r, &regs))
				return dump_ws(r);
			continue;
		}
		if (sig == SIGSTOP && alarmed) {
			if (!alarm_stop(r))
				continue;
			report(r, "time", "");
			return dump_ws(r);
		}
		if (sig == SIGSTOP)
			continue;
		siginfo_t si;
		ptrace(PTRACE_GETSIGINFO, r->pid, 0, &si);
		char detail[160];
		snprintf(detail, sizeof detail,
			 ", \"signal\": \"%s\", \"si_code\": %d, \"addr\": %llu, "
			 "\"rip\": %llu", sigabbrev_np(sig), si.si_code,
			 (unsigned long long)(uintptr_t)si.si_addr,
			 (unsigned long long)regs.rip);
		report(r, "fault", detail);
		return dump_ws(r);
	}
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse_options(argc, argv, &o))
		return 2;
#if defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "user_run: built with AddressSanitizer, whose shadow "
		"memory covers RT_USER_BASE; use user_run-fast\n");
	return 2;
#endif
	size_t len;
	char *file = read_file(o.program, &len);
	if (!file)
		return 2;
	struct elf64_image img;
	char err[256];
	if (elf64_parse(o.program, file, len, &img, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	static struct run r;
	r.opt = &o;
	for (unsigned i = 0; i < img.nsegs; i++)
		add_region(&r, page_down(img.seg[i].vaddr),
			   page_up(img.seg[i].vaddr + img.seg[i].memsz),
			   !!(img.seg[i].flags & ELF64_PF_W));
	if (o.ws)
		add_region(&r, RT_WS_BASE, RT_WS_BASE + page_up(o.ws), 1);
	add_region(&r, RT_STACK_TOP - RT_STACK_SIZE, RT_STACK_TOP, 1);
	add_region(&r, RT_CONTROL, RT_CONTROL + PAGE, 1);
	if (build_frame(&r))
		return 2;
	r.tsc_khz = measure_tsc_khz();
	r.epoch_tsc = __rdtsc();
	fflush(stdout);
	r.pid = fork();
	if (r.pid < 0) {
		perror("user_run: fork");
		return 2;
	}
	if (r.pid == 0)
		child(&r, &img, file);
	int rc = trace(&r, &img);
	kill(r.pid, SIGKILL);
	waitpid(r.pid, NULL, 0);
	free(file);
	return rc;
}
