#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM as /payload/run.sh, booted with a DKMS install
# tree among its modules (CQPOOL_VM_MODULES): modprobe finds cqpool there,
# with what it depends on, and modinfo describes it.  For scripts/check.sh.

fail() { echo "cqpool-dkms: $*"; exit 1; }

path=$(modinfo -F filename cqpool) || fail "modinfo finds no cqpool"
case $path in */updates/dkms/cqpool.ko) ;; *) fail "cqpool is $path" ;; esac
for f in version description depends; do
	[ -n "$(modinfo -F $f cqpool)" ] || fail "modinfo: no $f"
done
[ "$(modinfo -F version cqpool_takeover)" = "$(modinfo -F version cqpool)" ] ||
	fail "cqpool_takeover's version is not cqpool's"
modinfo cqpool
# The build for a real machine: its API and nothing of the tests'.
# (busybox's modinfo exits 0 for a module it does not find: list the files.)
dkms=$(ls "${path%/*}" | sort | tr '\n' ' ')
[ "$dkms" = "cqpool.ko cqpool_takeover.ko " ] || fail "DKMS installed: $dkms"
! modinfo -F parm cqpool | grep -q event_injection || fail "cqpool has the test build's parameters"
modprobe cqpool || fail "modprobe cqpool"
grep -q '^cqpool ' /proc/modules || fail "cqpool not loaded"
grep -q '^ib_core ' /proc/modules || fail "its dependency ib_core not loaded"
modprobe cqpool_takeover || fail "modprobe cqpool_takeover"
echo 0 >/sys/kernel/livepatch/cqpool_takeover/enabled
i=0
while [ -e /sys/kernel/livepatch/cqpool_takeover ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the takeover did not disable"
	sleep 0.1
done
rmmod cqpool_takeover && rmmod cqpool || fail "rmmod"
echo "cqpool-dkms: modprobe found $path"
