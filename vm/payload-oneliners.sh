#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a stock-kernel VM with the host's userland (CQPOOL_VM_ROOT=
# host), as run.sh of scripts/oneliners.sh's payload: cqpool.ko,
# cqpool_harness.ko, cqpoolctl, and oneliners (the README's tracing
# one-liners, one per line).  Each one-liner is started as a user would
# start it, attaches, sees a workload of nvme-rdma-profile connections
# with traffic that then idle until cqpool frees their CQs, and is
# stopped with SIGINT, as by Ctrl-C.  Its output goes to out/N.txt and
# its exit status to out/N.rc.  The exit status is non-zero when the rig
# failed; whether each one-liner printed what it should is for the host
# to judge.
set -u

p=$CQPOOL_PAYLOAD
out=$p/out
IDLE_MS=2000
rm -rf "$out"
mkdir -p "$out"
cd /tmp || exit 90

say() { echo "oneliners-vm: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
die() { say "$*"; exit 91; }

mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

# rxe0 on one end of a veth pair; rxe needs crc32_generic on the stock kernel.
ip link add v0 type veth peer name v1 || die "veth pair"
if ! { ip addr add 10.99.0.1/24 dev v0 && ip link set v0 up &&
	ip link set v1 up; }; then
	die "veth address"
fi
modprobe crc32_generic
for m in rdma_rxe rdma_cm; do
	modprobe $m || die "modprobe $m"
done
/usr/bin/rdma link add rxe0 type rxe netdev v0 || die "rdma link add rxe0"
for _ in $(seq 100); do
	/usr/bin/rdma link show rxe0/1 | grep -q ACTIVE && break
	sleep 0.1
done
insmod "$p/cqpool.ko" idle_timeout_ms=$IDLE_MS || die "insmod cqpool.ko"
insmod "$p/cqpool_harness.ko" || die "insmod cqpool_harness.ko"

workload() {
	"$p/cqpoolctl" run --mode cqpool --profile nvme-rdma --connections 16 \
		--device rxe0 --seconds 2 >/dev/null || return 1
	# Long enough for the idle timeout and the reap after it.
	sleep $((IDLE_MS * 2 / 1000 + 1))
}

n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	say "one-liner $n: $cmd"
	# Its own process group: SIGINT reaches it as Ctrl-C would.  perf
	# stat prints its counts to stderr.
	setsid bash -c "exec $cmd" >"$out/$n.txt" 2>&1 &
	pid=$!
	# Attached once its probes are on: bpftrace says so, perf does not.
	case $cmd in
	bpftrace*)
		for _ in $(seq 600); do
			grep -q '^Attaching' "$out/$n.txt" && break
			sleep 0.1
		done ;;
	*) sleep 3 ;;
	esac
	workload || die "the workload failed"
	kill -INT -- -"$pid"
	for _ in $(seq 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "one-liner $n still runs 60 s after SIGINT"
		cat "/proc/$pid/stack" "/proc/$pid/status" >"$out/$n.stuck" 2>&1
		kill -KILL -- -"$pid"
	fi
	wait "$pid"
	echo "$?" >"$out/$n.rc"
done <"$p/oneliners"
say "done: $n one-liners"
