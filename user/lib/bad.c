/* user/lib/bad: the messages of the misbehaving programs. */
#include "bad.h"

#include "msg.h"

static void announce(struct msg *m, const char *name, const char *what)
{
	msg_begin(m, name);
	msg_str(m, ": about to ");
	msg_str(m, what);
}

void bad_announce(const char *name, const char *what)
{
	struct msg m;
	announce(&m, name, what);
	msg_send(&m);
}

void bad_announce_at(const char *name, const char *what, uint64_t addr)
{
	struct msg m;
	announce(&m, name, what);
	msg_str(&m, " at ");
	msg_hex(&m, addr);
	msg_send(&m);
}

void bad_returned(const char *name, const char *call, int64_t rc)
{
	struct msg m;
	msg_begin(&m, name);
	msg_str(&m, ": ");
	msg_str(&m, call);
	msg_str(&m, " returned ");
	if (rc < 0) {
		msg_str(&m, "-");
		rc = -rc;
	}
	msg_dec(&m, (uint64_t)rc);
	msg_send(&m);
}

int64_t bad_survived(const char *name, enum bad_exit code)
{
	struct msg m;
	msg_begin(&m, name);
	msg_str(&m, ": still running: the kernel let it through; exit code ");
	msg_dec(&m, code);
	msg_send(&m);
	return code;
}
