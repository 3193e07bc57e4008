"""The project's GDB commands: `rtk cpus`, `rtk pfair`, `rtk gdq`, `rtk edf`,
`rtk gfp`, `rtk clock` (tools/gdb/rtkgdb). Load with

    gdb -x tools/gdb/rtk.py build/kernel/kernel.elf

`make debug` does. They only read memory, so they work through any GDB
stub.

The kernel is linked for 64-bit and QEMU's stub speaks 64-bit registers
from the first instruction, so the architecture is fixed here rather than
guessed from the 32-bit multiboot entry. Under QEMU's stub, break in 64-bit
code with hardware breakpoints (`hbreak smp_ap_main`): software breakpoints
set before paging is on would be written to the wrong addresses."""
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rtkgdb  # noqa: E402  (needs the path above)

gdb.execute("set architecture i386:x86-64")
gdb.execute("set disassembly-flavor intel")
rtkgdb.register()
