/*
 * user/lib/start: a program's entry. _start takes argc and argv from its
 * first frame (lib/rt_abi.h), finds the control page at RT_CONTROL, checks
 * it is the layout this program was built for, and calls the program's
 * user_main; what user_main returns is the task's exit code (RT_SYS_EXIT).
 */
#ifndef USER_LIB_START_H
#define USER_LIB_START_H

#include <stdint.h>

#include "../../lib/rt_abi.h"

/* The exit code when the control page is not the one of rt_abi.h. */
#define START_EXIT_BAD_CONTROL 125

/* Each program defines it. argv[0] is the program's name, argv[1..argc-1]
 * its task's args= words, argv[argc] NULL. */
int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl);

/*
 * RT_PROGRAM(flags), once at file scope: the program's declaration of
 * what it needs (lib/rt_abi.h, RT_PROG_*, joined with |), as the ELF note
 * the kernel reads. Without it a program declares nothing.
 */
#define RT_PROGRAM_STR_(x) #x
#define RT_PROGRAM_STR(x) RT_PROGRAM_STR_(x)
#define RT_PROGRAM(flags)                                                   \
	__asm__(".pushsection .note.rtk, \"a\", @note\n"                    \
		".balign 4\n"                                                 \
		".long 4, 4, " RT_PROGRAM_STR(RT_NOTE_PROGRAM) "\n"           \
		".asciz \"" RT_NOTE_NAME "\"\n"                               \
		".balign 4\n"                                                 \
		".long " RT_PROGRAM_STR(flags) "\n"                           \
		".popsection\n")

#endif
