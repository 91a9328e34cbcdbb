#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo VM as /payload/run.sh: loads cqpool and shows what
# it sees.  Everything for the person watching goes to $CQPOOL_RESULTS.

out=${CQPOOL_RESULTS:-/dev/stdout}

insmod /payload/cqpool.ko || exit 10
{
	echo "== RDMA links (rdma link show)"
	/usr/bin/rdma link show
	echo
	echo "== devices cqpool tracks (/sys/kernel/debug/cqpool/devices)"
	cat /sys/kernel/debug/cqpool/devices
} >"$out" 2>&1
rmmod cqpool
