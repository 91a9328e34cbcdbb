#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo VM as /payload/run.sh: loads cqpool, shows what it
# sees, runs the mixed workload of 1024 reservations on cqpool's pool
# and on upstream's ib_cq_pool_get(), side by side on rxe0, a real
# NVMe-oF connection on upstream and through cqpool_takeover.ko, then a
# storage-like workload (64 nvme-rdma connections, traffic for a few
# seconds) with CQs from cqpool, from upstream's pool and one per QP.
# Everything for the person watching goes to $CQPOOL_RESULTS.

out=${CQPOOL_RESULTS:-/dev/stdout}

insmod /payload/cqpool.ko || exit 10
insmod /payload/cqpool_harness.ko || exit 10
{
	echo "== RDMA links (rdma link show)"
	/usr/bin/rdma link show
	echo
	echo "== devices cqpool serves (cqpoolctl devices)"
	/payload/cqpoolctl devices
	echo
	echo "== 1024 reservations of 33, 129, 385, 1025, 65, 257 CQEs on rxe0"
	/payload/workload_test | grep -E '^# (cqpool|upstream):' |
		sed 's/^# //'
	echo
	echo "== NVMe-oF over rxe0 (nvme-rdma host, nvmet-rdma target, null_blk),"
	echo "   unmodified in-tree ULPs: upstream, then cqpool_takeover.ko"
	/payload/nvmeof_test |
		grep -E '^# (nvme-rdma|cqpool|upstream|disabled)|^not ok|SKIP' |
		sed 's/^# //'
	echo
	# Last: upstream's CQs from the runs before stay on the device (it
	# never frees them), which this table reports rather than hides.
	echo "== 64 nvme-rdma connections on rxe0, SEND traffic for 3 s"
	/payload/cqpoolctl run --mode all --profile nvme-rdma \
		--connections 64 --device rxe0 --seconds 3 2>/dev/null
} >"$out" 2>&1
rmmod cqpool_harness cqpool
