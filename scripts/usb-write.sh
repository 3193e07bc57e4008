#!/usr/bin/env bash
# `make usb DEV=/dev/sdX`: writes an ISO to a USB stick, after refusing
# anything that is not plainly one (docs/hardware.md):
#   scripts/usb-write.sh DEVICE ISO
# It refuses a path that is not a block device, a partition, the disk that
# holds / (or /boot, /boot/efi, /usr, /var, /home, swap), a disk with
# anything mounted, and a disk that lsblk does not call removable or
# hot-pluggable; then it shows the disk and asks for its name to be typed
# back. The checks read lsblk and findmnt (util-linux) from PATH.
set -euo pipefail

die() {
	echo "usb: $*" >&2
	exit 1
}

(($# == 2)) || die "usage: scripts/usb-write.sh DEVICE ISO (make usb DEV=/dev/sdX)"
dev=$1 iso=$2
[[ -f $iso ]] || die "$iso does not exist: run make iso"
[[ -e $dev ]] || die "$dev does not exist (lsblk lists the disks)"
[[ -b $dev ]] || die "$dev is not a block device: name a disk such as /dev/sdb"
for tool in lsblk findmnt; do
	command -v "$tool" >/dev/null || die "$tool is missing (Debian: apt-get install util-linux mount)"
done

# One lsblk value of the device itself (-d: not its partitions).
prop() {
	lsblk -dno "$1" "$dev" 2>/dev/null | tr -d ' '
}

type=$(prop TYPE)
case $type in
disk) ;;
part) die "$dev is a partition: name the whole disk (lsblk -no PKNAME $dev gives it)" ;;
"") die "lsblk does not know $dev" ;;
*) die "$dev is a $type, not a disk" ;;
esac

# The disks under a device: a partition's disk, and through lsblk's
# inverse tree those under a device-mapper or RAID volume.
disks_under() {
	lsblk -srno NAME,TYPE "$1" 2>/dev/null | awk '$2 == "disk" {print $1}'
}

# The running system's mounts and swap must not be on the device.
name=$(prop NAME)
system=""
for mnt in / /boot /boot/efi /usr /var /home; do
	src=$(findmnt -no SOURCE --target "$mnt" 2>/dev/null || true)
	[[ $src == /dev/* ]] || continue
	for disk in $(disks_under "$src"); do
		[[ $disk == "$name" ]] && system=$mnt
	done
done
while read -r src _; do
	[[ $src == /dev/* ]] || continue
	for disk in $(disks_under "$src"); do
		[[ $disk == "$name" ]] && system=swap
	done
done < <(tail -n +2 /proc/swaps 2>/dev/null || true)
[[ -z $system ]] || die "$dev holds $system of the running system: it is the system disk"

mounted=$(lsblk -nro NAME,MOUNTPOINT "$dev" | awk 'NF > 1 {print "/dev/" $1 " on " $2}')
[[ -z $mounted ]] || die "$dev is mounted ($(echo "$mounted" | paste -sd, -)): unmount it first"

rm=$(prop RM)
hotplug=$(prop HOTPLUG)
[[ $rm == 1 || $hotplug == 1 ]] ||
	die "$dev is not removable (lsblk: RM=$rm HOTPLUG=$hotplug): is it an internal disk?"

[[ -w $dev ]] || die "cannot write $dev: run as root (sudo make usb DEV=$dev)"

echo "usb: $dev: $(lsblk -dno SIZE,TRAN,VENDOR,MODEL "$dev" | tr -s ' ')"
echo "usb: everything on it will be overwritten by $iso"
printf 'usb: type %s to go on: ' "$dev"
read -r answer || answer=""
[[ $answer == "$dev" ]] || die "not confirmed ('$answer'): nothing was written"
dd if="$iso" of="$dev" bs=4M conv=fsync status=progress
sync
echo "usb: $iso written to $dev; it boots under BIOS and UEFI"
