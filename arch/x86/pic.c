/* arch/x86/pic: remap and mask the legacy 8259 PICs. */
#include "pic.h"

#include "cpu.h"

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1
#define ICW1_INIT_ICW4 0x11
#define ICW4_8086 0x01
/* Firmware leaves the master PIC at vectors 8-15, on top of the CPU's
 * exceptions: a stray IRQ 0 would look like a double fault. */
#define PIC1_VECTOR_BASE 0x20
#define PIC2_VECTOR_BASE 0x28

void pic_disable(void)
{
	outb(PIC1_CMD, ICW1_INIT_ICW4);
	outb(PIC2_CMD, ICW1_INIT_ICW4);
	outb(PIC1_DATA, PIC1_VECTOR_BASE);
	outb(PIC2_DATA, PIC2_VECTOR_BASE);
	outb(PIC1_DATA, 4);     /* slave on IRQ 2 */
	outb(PIC2_DATA, 2);     /* cascade identity */
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	outb(PIC1_DATA, 0xff);  /* mask everything */
	outb(PIC2_DATA, 0xff);
}
