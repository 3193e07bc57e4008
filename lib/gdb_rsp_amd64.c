/* lib/gdb_rsp_amd64: the x86-64 registers as GDB names them. */
#include "gdb_rsp_amd64.h"

/* RFLAGS bits (SDM vol. 1, 3.4.3), so GDB prints eflags as [ IF ZF ]. */
static const char eflags_type[] =
	"<flags id=\"rtk_eflags\" size=\"4\">"
	"<field name=\"CF\" start=\"0\" end=\"0\"/>"
	"<field name=\"PF\" start=\"2\" end=\"2\"/>"
	"<field name=\"AF\" start=\"4\" end=\"4\"/>"
	"<field name=\"ZF\" start=\"6\" end=\"6\"/>"
	"<field name=\"SF\" start=\"7\" end=\"7\"/>"
	"<field name=\"TF\" start=\"8\" end=\"8\"/>"
	"<field name=\"IF\" start=\"9\" end=\"9\"/>"
	"<field name=\"DF\" start=\"10\" end=\"10\"/>"
	"<field name=\"OF\" start=\"11\" end=\"11\"/>"
	"<field name=\"NT\" start=\"14\" end=\"14\"/>"
	"<field name=\"RF\" start=\"16\" end=\"16\"/>"
	"<field name=\"VM\" start=\"17\" end=\"17\"/>"
	"<field name=\"AC\" start=\"18\" end=\"18\"/>"
	"<field name=\"VIF\" start=\"19\" end=\"19\"/>"
	"<field name=\"VIP\" start=\"20\" end=\"20\"/>"
	"<field name=\"ID\" start=\"21\" end=\"21\"/>"
	"</flags>\n";

#define GPR(n) { n, 64, "int64", 0 }
#define SEL(n) { n, 32, "int32", 0 }
#define X87(n) { n, 80, "i387_ext", 0 }
#define FPCTL(n) { n, 32, "int", "float" }

static const struct gdb_rsp_reg core[] = {
	GPR("rax"), GPR("rbx"), GPR("rcx"), GPR("rdx"),
	GPR("rsi"), GPR("rdi"),
	{ "rbp", 64, "data_ptr", 0 }, { "rsp", 64, "data_ptr", 0 },
	GPR("r8"), GPR("r9"), GPR("r10"), GPR("r11"),
	GPR("r12"), GPR("r13"), GPR("r14"), GPR("r15"),
	{ "rip", 64, "code_ptr", 0 },
	{ "eflags", 32, "rtk_eflags", 0 },
	SEL("cs"), SEL("ss"), SEL("ds"), SEL("es"), SEL("fs"), SEL("gs"),
	X87("st0"), X87("st1"), X87("st2"), X87("st3"),
	X87("st4"), X87("st5"), X87("st6"), X87("st7"),
	FPCTL("fctrl"), FPCTL("fstat"), FPCTL("ftag"), FPCTL("fiseg"),
	FPCTL("fioff"), FPCTL("foseg"), FPCTL("fooff"), FPCTL("fop"),
};

static const struct gdb_rsp_reg segments[] = {
	{ "fs_base", 64, "int", 0 },
	{ "gs_base", 64, "int", 0 },
};

static const struct gdb_rsp_feature features[] = {
	{ "org.gnu.gdb.i386.core", eflags_type, core,
	  sizeof core / sizeof core[0] },
	{ "org.gnu.gdb.i386.segments", 0, segments,
	  sizeof segments / sizeof segments[0] },
};

_Static_assert(sizeof core / sizeof core[0] == GDB_AMD64_FS_BASE,
	       "the core feature ends where fs_base begins");
_Static_assert(sizeof core / sizeof core[0] +
	       sizeof segments / sizeof segments[0] == GDB_AMD64_NREGS,
	       "one description per register");

const struct gdb_rsp_arch gdb_rsp_amd64 = {
	.architecture = "i386:x86-64",
	.features = features,
	.nfeatures = sizeof features / sizeof features[0],
	.pc_regno = GDB_AMD64_RIP,
};
