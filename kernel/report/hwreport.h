/*
 * kernel/report/hwreport: what the kernel says about the machine after
 * bring-up -- `cpu:` and `RESULT cpu` on every boot -- and, with
 * hwreport=on, the hardware report: the machine's facts and both quantum
 * clocks measured over `slots` quanta, printed as one checked block
 * (lib/hwblock; docs/formats.md, "The hardware report").
 */
#ifndef KERNEL_HWREPORT_H
#define KERNEL_HWREPORT_H

/* After RESULT tsc. Returns -1 when the boot goes on (no hwreport=), else
 * 1 when the report was printed whole, 0 when a measurement failed, with
 * the exit reason in *reason. */
int hwreport_boot(const char **reason);

#endif
