/* arch/x86/pic: the legacy 8259 interrupt controllers, which this kernel
 * does not use: remapped away from the exception vectors and masked. */
#ifndef ARCH_X86_PIC_H
#define ARCH_X86_PIC_H

void pic_disable(void);

#endif
