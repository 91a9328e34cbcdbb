#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the blktests VM (CQPOOL_VM_ROOT=host: the host's userland,
# this payload dir at $CQPOOL_PAYLOAD) as its run.sh, for
# scripts/blktests.sh.
#
# In the payload: blktests/ (the suite, built), tests (what to run, as
# ./check takes it), img_size (NVME_IMG_SIZE), timeout (TIMEOUT), mode
# (upstream or takeover) and, for takeover, cqpool.ko and
# cqpool_takeover.ko, loaded before the first test.
# Writes out/: check.log (./check's output), results/ (its -o), cq.log
# (`rdma res show cq` once a second: "SECONDS OWNER CQS CQES" per owner,
# and for takeover the takeover's reservations and ib_core's own pool)
# and, for takeover, totals (cqpool's debugfs totals after the idle
# timeout).  On a kernel with kmemleak it scans for leaks at the end.  The exit status is non-zero only when the rig itself failed:
# the tests' verdicts are for the host to read.
set -u

p=$CQPOOL_PAYLOAD
cd "$p" || exit 90
mode=$(cat mode) || exit 90
tests=$(cat tests) || exit 90
img_size=$(cat img_size) || exit 90
timeout=$(cat timeout) || exit 90
out=$p/out
KLP=/sys/kernel/livepatch/cqpool_takeover
TOTALS=/sys/kernel/debug/cqpool/totals
CORE_POOLS=/sys/kernel/debug/cqpool/ib_core_pools
TK_RES=/sys/module/cqpool_takeover/parameters/reservations
LEAKS=/sys/kernel/debug/kmemleak
rm -rf "$out"
mkdir -p "$out"
[[ -x $p/blktests/check ]] || exit 90

# With the guest's uptime, as the kernel's lines have: where the time goes.
say() { echo "blktests-vm: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
die() { say "$*"; exit 91; }

# wait_for, veth_up, rxe_add
# shellcheck source=vm/payload-lib.sh
. "$CQPOOL_PAYLOAD/lib.sh"

# blktests binds soft-RoCE to every Ethernet interface that has a carrier
# and takes the target's address from one: a veth pair is two of them.
veth_up || die "veth pair v0, v1"
wait_for 10 grep -qx 1 /sys/class/net/v0/carrier || die "v0 has no carrier"

# Loop devices, as a distribution has them at boot: nvme/047 and nvme/051
# back their namespaces with losetup -f, which on the stock kernel finds
# none until the loop module is in (the debug kernel builds it in).
modprobe -q loop

# udevd, as a distribution runs it: multipath-tools and nvme-cli find
# devices through it.  The coldplug is of what they look at, block devices
# and network interfaces: the whole of it, every device's modalias, took
# 40 s of each boot of the debug kernel, for nothing a test reads.
/lib/systemd/systemd-udevd --daemon || die "systemd-udevd"
udevadm trigger --action=add --subsystem-match=block \
	--subsystem-match=net >/dev/null 2>&1
udevadm settle --timeout=60
say "udev settled"

if [[ $mode == takeover ]]; then
	modprobe rdma_cm || die "modprobe rdma_cm"
	# A short idle timeout, so that the check of what is left after it
	# costs seconds.
	insmod "$p/cqpool.ko" idle_timeout_ms=5000 || die "insmod cqpool.ko"
	insmod "$p/cqpool_takeover.ko" || die "insmod cqpool_takeover.ko"
	wait_for 60 grep -qx 0 "$KLP/transition" ||
		die "the takeover's livepatch transition did not finish"
	grep -qx 1 "$KLP/enabled" || die "the takeover is not enabled"
	say "cqpool and its takeover loaded"
fi

# CQs and entries per owner ("[cqpool]", "[ib_core]", which has
# upstream's pool among its CQs), once a second, for the host's peaks.
# With the takeover, also what it holds, and what ib_core's own pool
# holds (cqpool's debugfs counts it): the host checks that the ULPs ran
# on cqpool, not on upstream's pool beside it.
(
	t0=$SECONDS
	while :; do
		t=$((SECONDS - t0))
		rdma res show cq 2>/dev/null | awk -v t=$t '
			{
				for (i = 1; i < NF; i++) {
					if ($i == "cqe")
						cqe = $(i + 1)
					if ($i == "comm")
						comm = $(i + 1)
				}
				cqs[comm]++
				cqes[comm] += cqe
			}
			END { for (c in cqs) print t, c, cqs[c], cqes[c] }'
		if [[ $mode == takeover ]]; then
			echo "$t [takeover-reservations] $(cat "$TK_RES" 2>/dev/null || echo 0) 0"
			awk -v t=$t '{ c += $3; e += $5 }
				END { print t, "[ib_core-pool]", c + 0, e + 0 }' "$CORE_POOLS"
		fi
		sleep 1
	done
) >"$out/cq.log" 2>/dev/null &
sampler=$!

# kmemleak, where the kernel has it (the debug kernel): what leaked before
# the tests is not theirs, and a scan at the end reports what they leaked.
if [[ -w $LEAKS ]]; then
	echo scan >"$LEAKS"
	echo clear >"$LEAKS"
fi

say "running ./check $tests ($mode, NVME_IMG_SIZE=$img_size TIMEOUT=$timeout)"
# shellcheck disable=SC2086  # $tests: a list of tests and groups
(
	cd "$p/blktests" &&
		USE_RXE=1 NVMET_TRTYPES=rdma NVME_IMG_SIZE=$img_size \
			TIMEOUT=$timeout ./check -o "$out/results" $tests
) >"$out/check.log" 2>&1
say "./check exited with status $?"
kill "$sampler"
wait "$sampler" 2>/dev/null

if [[ $mode == takeover ]]; then
	idle_ms=$(cat /sys/module/cqpool/parameters/idle_timeout_ms)
	sleep $((idle_ms / 1000 + 5))
	cat "$TOTALS" >"$out/totals" || die "no $TOTALS"
	echo 0 >"$KLP/enabled"
	wait_for 60 test ! -e "$KLP" || die "the takeover did not disable"
	wait_for 10 rmmod cqpool_takeover || die "rmmod cqpool_takeover"
	rmmod cqpool || die "rmmod cqpool"
fi
if [[ -w $LEAKS ]]; then
	# An object is reported once unreferenced for 5 s and seen by two
	# scans; the report goes to the console, where the host's splat
	# scan fails it, and the line after says the scan was made.
	sleep 6
	echo scan >"$LEAKS"
	echo scan >"$LEAKS"
	cat "$LEAKS" >/dev/console
	say "kmemleak scanned"
fi
say "done"
