/*
 * lib/gdb_rsp_amd64: the x86-64 target description for lib/gdb_rsp, in
 * GDB's amd64 register order (GDB manual, G.5.1 "i386 Features": the core
 * feature's general registers, rip, eflags, the segment selectors and the
 * x87 registers, which GDB requires; then fs_base and gs_base).
 */
#ifndef LIB_GDB_RSP_AMD64_H
#define LIB_GDB_RSP_AMD64_H

#include "gdb_rsp.h"

enum gdb_amd64_reg {
	GDB_AMD64_RAX, GDB_AMD64_RBX, GDB_AMD64_RCX, GDB_AMD64_RDX,
	GDB_AMD64_RSI, GDB_AMD64_RDI, GDB_AMD64_RBP, GDB_AMD64_RSP,
	GDB_AMD64_R8, GDB_AMD64_R9, GDB_AMD64_R10, GDB_AMD64_R11,
	GDB_AMD64_R12, GDB_AMD64_R13, GDB_AMD64_R14, GDB_AMD64_R15,
	GDB_AMD64_RIP, GDB_AMD64_EFLAGS,
	GDB_AMD64_CS, GDB_AMD64_SS, GDB_AMD64_DS, GDB_AMD64_ES,
	GDB_AMD64_FS, GDB_AMD64_GS,
	GDB_AMD64_ST0,                  /* st0..st7, 80 bits each */
	GDB_AMD64_FCTRL = GDB_AMD64_ST0 + 8,
	GDB_AMD64_FOP = GDB_AMD64_FCTRL + 7,   /* fctrl .. fop, 32 bits */
	GDB_AMD64_FS_BASE,
	GDB_AMD64_GS_BASE,
	GDB_AMD64_NREGS,
};

extern const struct gdb_rsp_arch gdb_rsp_amd64;

#endif
