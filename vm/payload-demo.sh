#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo VM as /payload/run.sh: loads cqpool, shows what it
# sees, runs a storage-like workload (64 nvme-rdma connections, traffic
# for a few seconds) with CQs from cqpool, from upstream's pool and one
# per QP, then the mixed workload of 1024 reservations on cqpool's pool
# and on upstream's ib_cq_pool_get(), side by side on rxe0.  Everything
# for the person watching goes to $CQPOOL_RESULTS.

out=${CQPOOL_RESULTS:-/dev/stdout}

insmod /payload/cqpool.ko || exit 10
{
	echo "== RDMA links (rdma link show)"
	/usr/bin/rdma link show
	echo
	echo "== devices cqpool serves (cqpoolctl devices)"
	/payload/cqpoolctl devices
	echo
	echo "== 64 nvme-rdma connections on rxe0, SEND traffic for 3 s"
	/payload/cqpoolctl run --mode all --profile nvme-rdma \
		--connections 64 --device rxe0 --seconds 3 2>/dev/null
	echo
	echo "== 1024 reservations of 33, 129, 385, 1025, 65, 257 CQEs on rxe0"
	/payload/workload_test | grep -E '^# (cqpool|upstream):' |
		sed 's/^# //'
} >"$out" 2>&1
rmmod cqpool
