/*
 * user/lib/start: a program's entry. _start finds the control page at
 * RT_CONTROL (the kernel passes nothing in registers), checks it is the
 * layout this program was built for, and calls the program's user_main;
 * what user_main returns is the task's exit code (RT_SYS_EXIT).
 */
#ifndef USER_LIB_START_H
#define USER_LIB_START_H

#include <stdint.h>

#include "../../lib/rt_abi.h"

/* The exit code when the control page is not the one of rt_abi.h. */
#define START_EXIT_BAD_CONTROL 125

/* Each program defines it. */
int64_t user_main(volatile struct rt_control *ctl);

#endif
