/*
 * user/lock_misuse: work=lock_misuse, for the tests (docs/locking.md). It
 * makes, once each, the lock calls the kernel must refuse, and writes what
 * each returned to its console ("lock_misuse: CALL -> N"): a resource the
 * set does not declare, one the set declares but its cs= does not name, an
 * unlock of a resource it does not hold, a second lock of the one it holds
 * and, when its cs= names two resources, a lock of the second while it
 * holds the first (nesting, which msrp forbids). Then it keeps the first
 * resource for ever: with one section in its cs= it spins past its job's
 * end, and the kernel releases the resource for it; with two it divides
 * by zero and is killed holding it.
 */
#include "lib/cpu.h"
#include "lib/msg.h"
#include "lib/start.h"
#include "lib/sys.h"

static void say(const char *call, uint64_t res, int64_t rc)
{
	struct msg m;
	msg_begin(&m, "lock_misuse: ");
	msg_str(&m, call);
	msg_str(&m, " ");
	msg_dec(&m, res);
	msg_str(&m, " -> ");
	if (rc < 0) {
		msg_str(&m, "-");
		rc = -rc;
	}
	msg_dec(&m, (uint64_t)rc);
	msg_send(&m);
}

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	uint64_t first = ctl->cs_res[0];
	say("lock", 63, sys_lock(63));
	/* The next resource after its own (the test declares one). */
	uint64_t other = first + ctl->ncs;
	say("lock", other, sys_lock(other));
	say("unlock", first, sys_unlock(first));
	say("lock", first, sys_lock(first));
	say("lock", first, sys_lock(first));
	if (ctl->ncs > 1) {
		say("lock", ctl->cs_res[1], sys_lock(ctl->cs_res[1]));
		volatile uint64_t zero = 0;
		ctl->iterations = first / zero;
	}
	for (;;)
		if (ctl->flags & RT_CONTROL_PAUSE)
			cpu_pause();
}
