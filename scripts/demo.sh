#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - boot the stock Debian kernel in QEMU with soft-RoCE, load
# cqpool, show what it sees, run a storage-like workload with CQs from
# cqpool, from upstream's pool and one per QP, compare memory use with
# upstream's pool on the same reservations, then on a real NVMe-oF
# connection (nvme-rdma to nvmet-rdma) with and without cqpool_takeover.ko.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ver=$(vm/run.sh --print-stock-version)
payload=$top/build/payload-demo

scripts/kbuild.sh stock "/usr/src/linux-headers-$ver" -s
make -s -C userspace cqpoolctl
make -s -C selftests KSFT_DIR="$(vm/kernel.sh source)/tools/testing/selftests" \
	OUT="$top/build/selftests"

rm -rf "$payload"
mkdir -p "$payload"
cp build/kbuild-stock/cqpool.ko build/kbuild-stock/cqpool_harness.ko \
	build/kbuild-stock/cqpool_takeover.ko \
	build/selftests/workload_test build/selftests/nvmeof_test \
	build/userspace/cqpoolctl "$payload/"
cp vm/payload-demo.sh "$payload/run.sh"

echo "Booting $ver in QEMU (TCG) with soft-RoCE; this takes a minute."
CQPOOL_VM_QUIET=1 vm/run.sh stock "$payload" build/demo >build/demo.log 2>&1 ||
	{ tail -n 20 build/demo.log; exit 1; }
echo
tr -d '\r' <build/demo/results.log
