/* kernel/task/task: thread records and their first context. */
#include "task.h"

#include "../../arch/x86/context.h"
#include "../../arch/x86/desc.h"
#include "../core/bootmem.h"

#define TASK_KSTACK 16384
#define RFLAGS_RESERVED (1ull << 1)

struct task *tasks;
unsigned ntasks;

static struct fpu_area first_fpu;
static int have_first_fpu;

void task_init_user(struct task *t,
		    context_entry first_run)
{
	if (!have_first_fpu) {
		fpu_initial(&first_fpu);
		have_first_fpu = 1;
	}
	uint8_t *stack = bootmem_alloc_pages(TASK_KSTACK / 4096);
	t->kstack_top = stack + TASK_KSTACK;
	t->fpu = bootmem_alloc(sizeof *t->fpu);
	*t->fpu = first_fpu;
	t->linked_on = TASK_NONE;
	t->scheduled_on = TASK_NONE;
	t->state = TASK_OK;
	t->out = bootmem_alloc(TASK_OUT_MAX);
	/* Its first return to ring 3, as if from an interrupt. */
	struct trap_frame *f = (struct trap_frame *)t->kstack_top - 1;
	*f = (struct trap_frame){ 0 };
	f->rip = t->entry;
	f->cs = GDT_USER_CODE;
	f->rflags = RFLAGS_IF | RFLAGS_RESERVED;
	f->rsp = t->user_rsp;
	f->ss = GDT_USER_DATA;
	t->rsp = context_new((uint8_t *)f, first_run, t);
}

void task_init_idle(struct task *t, unsigned cpu)
{
	*t = (struct task){ 0 };
	t->index = -1;
	t->name = "idle";
	t->linked_on = TASK_NONE;
	t->scheduled_on = (int)cpu;
	t->state = TASK_OK;
}
