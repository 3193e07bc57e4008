/*
 * user/bad_exec_data: calls into its own data. The data segment is mapped
 * no-execute (EFER.NXE with PTE bit 63, SDM vol. 3A, 4.6.2), so the
 * instruction fetch must page-fault. Were it let through, the byte there is
 * a RET (0xc3) and the call comes straight back to say so.
 */
#include "lib/bad.h"
#include "lib/start.h"

static uint8_t data_code[16] = { 0xc3 };

int64_t user_main(int argc, char **argv, volatile struct rt_control *ctl)
{
	(void)argc;
	(void)argv;
	(void)ctl;
	bad_announce_at("bad_exec_data", "call into its data",
			(uint64_t)data_code);
	((void (*)(void))(uintptr_t)data_code)();
	return bad_survived("bad_exec_data", BAD_EXIT_EXEC_DATA);
}
