/* kernel/task/program: ring-3 programs from the boot modules into tasks. */
#include "program.h"

#include "../../lib/elf64.h"
#include "../../lib/fmt.h"
#include "../../lib/rt_abi.h"
#include "../../lib/str.h"
#include "../../lib/task_args.h"
#include "task.h"
#include "vm.h"

#define PAGE 4096ull

static const struct mb2_info *mods;

void program_setup(const struct mb2_info *boot)
{
	mods = boot;
}

static const struct mb2_module *find(const char *name)
{
	static const char prefix[] = MB2_PROGRAM_PREFIX;
	for (unsigned i = 0; mods && i < mods->nmods; i++) {
		const char *s = mods->mods[i].name;
		if (str_eq_n(s, sizeof prefix - 1, prefix) &&
		    str_eq(s + sizeof prefix - 1, name))
			return &mods->mods[i];
	}
	return 0;
}

int program_find(const char *name, uint32_t *flags, char *err,
		 size_t errlen)
{
	const struct mb2_module *m = find(name);
	err[0] = 0;
	*flags = 0;
	if (!m)
		return -1;
	struct elf64_image img;
	if (elf64_parse(name, m->start, m->len, &img, err, errlen))
		return -1;
	*flags = img.prog_flags;
	return 0;
}

/* Pages [lo, hi) the task maps, in ascending order. */
struct span {
	uint64_t lo, hi;
};

/* The page-table pages that map spans[0..n): the PML4 and, at each lower
 * level, one table per distinct index above it (kernel/task/vm.c makes
 * them on the way, as they are first needed). */
static uint64_t table_bytes(const struct span *sp, unsigned n)
{
	uint64_t pages = 1;
	for (unsigned shift = 21; shift <= 39; shift += 9) {
		uint64_t last = ~0ull;
		for (unsigned i = 0; i < n; i++) {
			uint64_t a = sp[i].lo >> shift, b = (sp[i].hi - 1) >> shift;
			pages += b - a + 1 - (a == last);
			last = b;
		}
	}
	return pages * PAGE;
}

static uint64_t up(uint64_t a)
{
	return (a + PAGE - 1) & ~(PAGE - 1);
}

uint64_t program_space_bytes(const struct task_spec *spec)
{
	const struct mb2_module *m = find(spec->work);
	struct elf64_image img;
	char why[160];
	if (!m || elf64_parse("", m->start, m->len, &img, why, sizeof why))
		return 0;
	struct span sp[ELF64_MAX_SEGMENTS + 3];
	unsigned n = 0;
	for (unsigned i = 0; i < img.nsegs; i++) {
		const struct elf64_segment *s = &img.seg[i];
		sp[n++] = (struct span){ s->vaddr & ~(PAGE - 1),
					 up(s->vaddr + s->memsz) };
	}
	uint64_t ws = spec->ws <= RT_WS_MAX ? up(spec->ws) : 0;
	if (ws)
		sp[n++] = (struct span){ RT_WS_BASE, RT_WS_BASE + ws };
	sp[n++] = (struct span){ RT_STACK_TOP - RT_STACK_SIZE, RT_STACK_TOP };
	sp[n++] = (struct span){ RT_CONTROL, RT_CONTROL + PAGE };
	return elf64_load_bytes(&img) + ws + RT_STACK_SIZE + PAGE +
	       table_bytes(sp, n);
}

int program_load(struct task *t, const char *args, unsigned nargs, char *err,
		 size_t errlen)
{
	const char *name = t->spec->work;
	const struct mb2_module *m = find(name);
	if (!m) {
		fmt_snprintf(err, errlen, "task %s: no program '%s' on the boot "
			     "medium (work=%s)", t->name, name, name);
		return -1;
	}
	struct elf64_image img;
	char why[160];
	if (elf64_parse(name, m->start, m->len, &img, why, sizeof why)) {
		fmt_snprintf(err, errlen, "task %s: %s", t->name, why);
		return -1;
	}
	if (t->spec->ws > RT_WS_MAX) {
		fmt_snprintf(err, errlen, "task %s: ws=%u is more than the %llu "
			     "bytes a task may map", t->name, t->spec->ws,
			     (unsigned long long)RT_WS_MAX);
		return -1;
	}
	struct vm_space *vm = vm_create();
	for (unsigned i = 0; i < img.nsegs; i++) {
		const struct elf64_segment *s = &img.seg[i];
		uint64_t base = s->vaddr & ~(PAGE - 1);
		unsigned perm = (s->flags & ELF64_PF_W ? VM_WRITE : 0) |
				(s->flags & ELF64_PF_X ? VM_EXEC : 0);
		uint8_t *mem = vm_map_new(vm, base, s->vaddr + s->memsz - base,
					  perm);
		const uint8_t *src = (const uint8_t *)m->start + s->offset;
		for (uint64_t b = 0; b < s->filesz; b++)
			mem[s->vaddr - base + b] = src[b];
	}
	if (t->spec->ws)
		vm_map_new(vm, RT_WS_BASE, t->spec->ws, VM_WRITE);
	uint8_t *stack = vm_map_new(vm, RT_STACK_TOP - RT_STACK_SIZE,
				    RT_STACK_SIZE, VM_WRITE);
	/* argc and argv on the stack's first page at most. */
	t->user_rsp = task_args_frame(stack + RT_STACK_SIZE - PAGE, PAGE,
				      RT_STACK_TOP, name, args ? args : "",
				      args ? nargs : 0);
	if (!t->user_rsp) {
		fmt_snprintf(err, errlen, "task %s: its args= take more than "
			     "the %llu bytes of stack kept for them", t->name,
			     PAGE);
		return -1;
	}
	t->control = vm_map_new(vm, RT_CONTROL, PAGE, VM_WRITE);
	t->vm = vm;
	t->entry = img.entry;
	t->prog_flags = img.prog_flags;
	return 0;
}
