#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the soak VM (CQPOOL_VM_ROOT=host: the host's userland, this
# payload dir at $CQPOOL_PAYLOAD) as its run.sh, for scripts/soak.sh.
#
# In the payload: cqpool.ko, cqpool_takeover.ko, soak_test and seconds
# (CQPOOL_SOAK_SECONDS), checkpoints (CQPOOL_SOAK_CHECKPOINTS), seed; with
# a file sites, the samples' allocation sites go to out/sites (soak.sh -u).
# Sets up rxe0 as vm/init does in the other guests, loads the storage ULPs
# and then cqpool.ko, as a server does at boot, and runs soak_test into
# out/soak.log, wrapped as the kselftests' results are.  On a kernel with
# kmemleak it scans for leaks at the end.  The exit status is non-zero
# only when the rig itself failed: the verdicts are the host's.
set -u

p=$CQPOOL_PAYLOAD
cd "$p" || exit 90
out=$p/out
LEAKS=/sys/kernel/debug/kmemleak
rm -rf "$out"
mkdir -p "$out"

say() { echo "soak-vm: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
die() { say "$*"; exit 91; }

# wait_for, veth_up, rxe_add
# shellcheck source=vm/payload-lib.sh
. "$CQPOOL_PAYLOAD/lib.sh"

# rxe0 on one end of a veth pair, at 10.99.0.1, as the other guests have it.
modprobe -q rdma_rxe || die "modprobe rdma_rxe"
veth_up || die "veth pair v0, v1"
rxe_add || die "rxe0 is not ACTIVE"

# The storage ULPs, then cqpool: its ib_client after theirs, and ib_core
# removes a device's clients in reverse.
for m in rdma_cm nvmet_rdma nvme_rdma ib_isert ib_iser target_core_iblock; do
	modprobe -q "$m" || die "modprobe $m"
done
insmod "$p/cqpool.ko" || die "insmod cqpool.ko"

if [[ -w $LEAKS ]]; then
	echo scan >"$LEAKS"
	echo clear >"$LEAKS"
fi

sites=
if [[ -f sites ]]; then
	sites=$out/sites
	mkdir -p "$sites"
fi

say "soak: $(cat seconds) s, $(cat checkpoints) checkpoints"
echo "@@begin kselftest:soak_test" >"$out/soak.log"
CQPOOL_SOAK_SECONDS=$(cat seconds) CQPOOL_SOAK_CHECKPOINTS=$(cat checkpoints) \
	CQPOOL_SOAK_SEED=$(cat seed) CQPOOL_RXE_NETDEV=v0 CQPOOL_SOAK_SITES=$sites \
	"$p/soak_test" >>"$out/soak.log" 2>&1
echo "@@end kselftest:soak_test rc=$?" >>"$out/soak.log"
say "soak_test done"

rmmod cqpool || die "rmmod cqpool"
if [[ -w $LEAKS ]]; then
	# Reported once unreferenced for 5 s and seen by two scans; the
	# report goes to the console, where the host's splat scan fails it.
	sleep 6
	echo scan >"$LEAKS"
	echo scan >"$LEAKS"
	cat "$LEAKS" >/dev/console
	say "kmemleak scanned"
fi
say "done"
