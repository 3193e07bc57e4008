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
