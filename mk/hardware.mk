# Real machines (docs/hardware.md), included by the top Makefile.
#
# make usb DEV=/dev/sdX: an ISO whose default menu entry is USB_ENTRY
# (from 0; 4 is the hardware report), written to the USB stick DEV by
# scripts/usb-write.sh, which refuses a device that is not a removable
# disk, is mounted or holds the running system, and asks before writing.
DEV ?=
USB_ENTRY ?= 4
USB_ISO := $(BUILD)/usb.iso

ifneq ($(filter usb,$(MAKECMDGOALS)),)
ifeq ($(DEV),)
$(error usb: name the stick: make usb DEV=/dev/sdX (lsblk lists the disks))
endif
endif

.PHONY: usb $(USB_ISO)
$(USB_ISO): $(KERNEL_ELF) $(USER_ELFS)
	scripts/mkiso.sh $@ --entry $(USB_ENTRY)

usb: deps $(USB_ISO)
	@scripts/usb-write.sh $(DEV) $(USB_ISO)
