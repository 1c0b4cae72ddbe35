#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the hixl test VM's initramfs (tests/vm/run.sh builds it).
# Mounts the host root read-only over 9p and the run's work folder writable,
# runs /work/guest.sh chrooted into the host root, stores its exit status in
# the work folder and resets the machine (QEMU runs with -no-reboot, so it exits).
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /mnt/root /mnt/work
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# stock kernels: virtio and 9p are modules, listed in dependency order
for m in $(cat /modules.list 2>/dev/null); do insmod "/modules/$m" || echo "init: insmod $m failed"; done
opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "ro,cache=loose,$opts" hostroot /mnt/root || { echo "init: cannot mount host root"; reboot -f; }
mount -t 9p -o "$opts" work /mnt/work || { echo "init: cannot mount work folder"; reboot -f; }
. /mnt/work/guest.env
R=/mnt/root
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs tmpfs $R/dev/shm
mount -t debugfs debugfs $R/sys/kernel/debug
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
# writable /tmp, /run and /var/tmp; the repo may live under one of them
# (a CI clone in /tmp), so keep it visible through a bind mount
mkdir -p /mnt/repo
mount --bind "$R$HIXL_REPO" /mnt/repo
mount -t tmpfs tmpfs $R/tmp
mount -t tmpfs tmpfs $R/run
mount -t tmpfs tmpfs $R/var/tmp
mkdir -p "$R$HIXL_REPO" 2>/dev/null
mount --move /mnt/repo "$R$HIXL_REPO"
mkdir -p "$R$HIXL_WORK" 2>/dev/null
mount --move /mnt/work "$R$HIXL_WORK"
echo "init: running $HIXL_WORK/guest.sh"
chroot $R /bin/sh "$HIXL_WORK/guest.sh" > "$R$HIXL_WORK/output" 2>&1
echo $? > "$R$HIXL_WORK/rc"
sync
umount "$R$HIXL_WORK"
echo "init: done"
reboot -f
