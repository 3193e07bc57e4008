/*
 * user/lib/bad: what the misbehaving programs (user/bad_*.c,
 * docs/user-programs.md) share. Each says what it is about to do, does it once, and
 * the kernel must stop it there; one that is still running afterwards says
 * so and exits with its own code, so a test can tell which one got through.
 */
#ifndef USER_LIB_BAD_H
#define USER_LIB_BAD_H

#include <stdint.h>

/* A kernel-half address (the kernel's text, linked at 0xffffffff80000000
 * + its load address), mapped supervisor-only in every task. */
#define BAD_KERNEL_ADDRESS 0xffffffff80100000ull

enum bad_exit {
	BAD_EXIT_KREAD = 101,
	BAD_EXIT_WRITE_OTHER,
	BAD_EXIT_EXEC_DATA,
	BAD_EXIT_DIV0,
	BAD_EXIT_SYSCALL_PTR,
	BAD_EXIT_UD,
	BAD_EXIT_GP,
	BAD_EXIT_NO_OTHER_PAGE,   /* bad_write_other was given no target */
};

/* "NAME: about to WHAT" on the task's console, before the bad act. */
void bad_announce(const char *name, const char *what);
/* The same with the address the act concerns. */
void bad_announce_at(const char *name, const char *what, uint64_t addr);

/* Says the kernel let NAME through and returns code, for user_main to
 * return. */
int64_t bad_survived(const char *name, enum bad_exit code);

#endif
