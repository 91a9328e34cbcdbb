# shellcheck shell=sh
# Sourced by vm/init (busybox sh, PID 1) when the kernel command line has
# cqpool_vm.root=host: vm/run.sh shares the host's root file system
# read-only (9p tag "hostroot"), the payload dir writable ("payload") and,
# for a kernel the host has no modules of, that kernel's
# lib/modules ("modules").  This is how virtme-ng boots a real userland.
#
# hostroot_run mounts the host's root at /newroot, makes writable what a
# distribution's tools write to (tmpfs on /tmp and /run; /etc, /var and
# /root as overlays over the host's, upper layers in tmpfs, so that nothing
# reaches the host), mounts the payload at /run/cqpool and runs its run.sh
# with bash, chrooted.  /mnt is an empty tmpfs, as a distribution's is
# writable and empty: blktests mounts its scratch file systems on
# /mnt/blktests, and removes that directory afterwards.  PID 1 stays in
# the initramfs, so that finish() and qemu-exit are still there
# afterwards.  Sets $status.
#
# With cqpool_vm.usr=rw too (vm/run.sh's CQPOOL_VM_WRITABLE_USR=1), /usr
# is such an overlay as well, for a payload that installs packages
# (vm/payload-deb.sh): dpkg writes /usr/bin, /usr/share and /usr/src,
# DKMS /usr/lib/modules (merged /usr: /lib is /usr/lib).  The upper
# layers are then shown to the payload, read-only, at
# /run/cqpool-rw/D/upper (D = etc, var, root, usr): every file the
# payload added, changed or removed, and nothing else.

R=/newroot
# From vm/init: fail(), the kernel's kind and its command line.
# shellcheck disable=SC2154
: "$kind" "$cmdline"

hostroot_mount() { # FSTYPE SOURCE DIR [OPTIONS]
	mount -t "$1" ${4:+-o "$4"} "$2" "$3" || fail "mount -t $1 $2 $3"
}

hostroot_run() {
	# Modules on stock (the initramfs has them); built in on the debug kernels.
	for m in virtio_pci 9pnet_virtio 9p overlay configfs; do
		modprobe -q "$m" 2>/dev/null
	done
	mkdir -p $R /rw
	# The host does not change its root during a run: loose caching is
	# safe and makes the guest's exec and stat several times faster.
	hostroot_mount 9p hostroot $R \
		trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144
	hostroot_mount tmpfs tmpfs /rw mode=0755
	overlays="etc var root"
	case " $cmdline " in
	*" cqpool_vm.usr=rw "*) overlays="$overlays usr" ;;
	esac
	for d in $overlays; do
		mkdir -p "/rw/$d/upper" "/rw/$d/work"
		hostroot_mount overlay overlay "$R/$d" \
			"lowerdir=$R/$d,upperdir=/rw/$d/upper,workdir=/rw/$d/work"
	done
	hostroot_mount proc proc $R/proc
	hostroot_mount sysfs sysfs $R/sys
	hostroot_mount devtmpfs devtmpfs $R/dev mode=0755
	mkdir -p $R/dev/pts $R/dev/shm
	hostroot_mount devpts devpts $R/dev/pts
	hostroot_mount tmpfs tmpfs $R/dev/shm mode=1777
	hostroot_mount tmpfs tmpfs $R/tmp mode=1777
	hostroot_mount tmpfs tmpfs $R/run mode=0755
	case $overlays in
	*usr*)
		mkdir -p $R/run/cqpool-rw
		{ mount -o bind /rw $R/run/cqpool-rw &&
			mount -o remount,bind,ro $R/run/cqpool-rw; } ||
			fail "the upper layers at /run/cqpool-rw"
		;;
	esac
	hostroot_mount debugfs debugfs $R/sys/kernel/debug
	hostroot_mount configfs configfs $R/sys/kernel/config
	if grep -q modules /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag 2>/dev/null; then
		hostroot_mount 9p modules $R/lib/modules trans=virtio,version=9p2000.L,ro
	fi
	ko=/lib/modules/$(uname -r)/kernel
	[ -d "$R$ko" ] || fail "no modules for $(uname -r) in the guest's /lib/modules"
	# blktests asks find(1) over the whole of $ko for each module a test
	# requires, and each walk of the share takes 2 to 4 s under TCG (17
	# of them were 48 s of a 117 s run of nvme/003 and srp/001).  A tree
	# of symlinks in tmpfs answers them from memory; modprobe follows a
	# link to the module on the share.
	mkdir -p $R/run/cqpool-modules
	mount -o bind "$R$ko" $R/run/cqpool-modules || fail "bind $ko"
	hostroot_mount tmpfs tmpfs "$R$ko" mode=0755
	chroot $R cp -as /run/cqpool-modules/. "$ko/" ||
		fail "symlinks for $ko"
	hostroot_mount tmpfs tmpfs $R/mnt mode=0755
	mkdir -p $R/run/cqpool
	hostroot_mount 9p payload $R/run/cqpool \
		trans=virtio,version=9p2000.L,msize=262144
	# The kernel's own module requests (request_module(): dm-multipath's
	# path selectors, for one) run /sbin/modprobe in PID 1's root, the
	# initramfs, which has not these modules: they go into the chroot.
	printf '#!/bin/sh\nexec chroot %s /sbin/modprobe "$@"\n' $R \
		>/modprobe-hostroot || fail "modprobe-hostroot"
	chmod 755 /modprobe-hostroot
	echo /modprobe-hostroot >/proc/sys/kernel/modprobe ||
		fail "kernel.modprobe"
	echo "cqpool-vm: host root mounted, running /run/cqpool/run.sh"
	# The chroot is the guest's root: systemd's tools (udevadm settle)
	# would otherwise do nothing ("Running in chroot, ignoring request").
	chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM=dumb SYSTEMD_IGNORE_CHROOT=1 CQPOOL_KERNEL="$kind" \
		CQPOOL_RESULTS=/dev/ttyS1 CQPOOL_PAYLOAD=/run/cqpool \
		/bin/bash -c 'cd /run/cqpool && exec /bin/bash ./run.sh' </dev/null
	status=$?
	echo "cqpool-vm: payload finished, status $status"
	sync
}
