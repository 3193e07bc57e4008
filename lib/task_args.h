/*
 * lib/task_args: a task line's args="..." (docs/user-programs.md,
 * "Arguments") into the words its program gets as argv[1..], and those
 * words onto the top of a stack as a program's first frame -- shared by
 * the kernel and the host tools, so that both quote and lay out alike.
 *
 * The value between the double quotes of args="...":
 *  - a backslash followed by ", ' or \ stands for that character, taken
 *    literally (never a quote); a backslash before anything else is an
 *    error; the value ends at the first " not so escaped (lib/taskset
 *    finds it);
 *  - blanks (space, tab) outside single quotes separate words; '...'
 *    keeps what it encloses, blanks included, and '' alone is an empty
 *    word. An unclosed single quote is an error.
 * Bytes below 0x20 other than tab, and 0x7f, are refused anywhere.
 */
#ifndef LIB_TASK_ARGS_H
#define LIB_TASK_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* Words of one args= value, argv[0] (the program's name) not counted. */
#define TASK_ARGS_MAX_WORDS 32

/*
 * Splits the n bytes between the quotes of args="..." (still escaped,
 * step 1 undone here) into words written one after another, each ended by
 * a NUL, into out (room for outmax bytes; n + 1 always suffice). Returns
 * 0 with the count in *nwords and the bytes written in *outlen, or -1 with
 * a reason in *why (a static string).
 */
int task_args_split(const char *s, size_t n, char *out, size_t outmax,
		    unsigned *nwords, size_t *outlen, const char **why);

/*
 * A program's first frame (System V AMD64 psABI 3.4.1, without the
 * environment and the auxiliary vector): at the returned stack pointer
 * argc, then argv[0..argc-1] and a NULL, the strings above them. argv[0]
 * is name; the others are the nwords NUL-ended words at words. mem holds
 * the stack's top size bytes, which the program sees ending at top.
 * Returns the stack pointer (16-byte aligned), or 0 when the frame does
 * not fit in size bytes.
 */
uint64_t task_args_frame(uint8_t *mem, size_t size, uint64_t top,
			 const char *name, const char *words, unsigned nwords);

#endif
