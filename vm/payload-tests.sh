#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM as /payload/run.sh (vm/init calls it once the
# RDMA links are up): loads cqpool.ko and cqpool_harness.ko, runs the
# KUnit module where the kernel has KUnit, then every kselftest, then
# unloads and (debug kernel) asks kmemleak.  kselftest results go to
# $CQPOOL_RESULTS in sections the host splits:
#   @@begin NAME / @@end NAME rc=N
# The exit status is non-zero when anything failed.

out=${CQPOOL_RESULTS:-/dev/stdout}
leaks=/sys/kernel/debug/kmemleak
status=0

section() { # NAME CMD...: run CMD with its output in a section
	name=$1
	shift
	t0=$(date +%s)
	echo "@@begin $name" >"$out"
	"$@" >"$out" 2>&1
	rc=$?
	echo "@@end $name rc=$rc" >"$out"
	# The time goes to the console, for CI's budget (TESTING.md, "make check").
	echo "cqpool-vm: $name rc=$rc in $(($(date +%s) - t0)) s"
	[ "$rc" -eq 0 ] || status=1
}

# Leaks from before cqpool was loaded are not ours to report.
if [ -w "$leaks" ]; then
	echo scan >"$leaks"
	echo clear >"$leaks"
fi

# The storage ULPs first, as a distribution loads them at boot: their
# ib_clients then come before cqpool's, and ib_core removes a device's
# clients in reverse.  iSER and LIO are built in on the debug kernels
# (modprobe succeeds and does nothing there).
for m in nvmet_rdma nvme_rdma ib_srpt ib_srp ib_isert ib_iser \
	target_core_iblock; do
	modprobe -q "$m" 2>/dev/null
done

# The library, then the harness that /dev/cqpool and the KUnit module
# need.
for m in cqpool cqpool_harness; do
	if ! insmod /payload/$m.ko; then
		echo "cqpool-vm: insmod $m.ko failed"
		exit 10
	fi
done

# KUnit runs the suites while the module loads and prints their KTAP to
# the kernel log; the host takes it from the console between the markers.
if [ -f /payload/cqpool_kunit.ko ]; then
	echo "cqpool-kunit-begin" >/dev/kmsg
	insmod /payload/cqpool_kunit.ko || status=1
	echo "cqpool-kunit-end" >/dev/kmsg
	rmmod cqpool_kunit || status=1
fi

# The removal races: consumers in the KUnit module race the removals of
# rxe0 and siw0, which come from here, each device deleted and re-added in
# turn in a loop while it loads.  Its KTAP, numbered from 1 as every
# module's is, has markers of its own.
#
# link_readd NAME TYPE NETDEV: NAME deleted, then added again
link_readd() {
	/usr/bin/rdma link delete "$1" 2>/dev/null
	/usr/bin/rdma link add "$1" type "$2" netdev "$3" 2>/dev/null
}
# link_back NAME TYPE NETDEV: NAME there and ACTIVE again, or status 1
link_back() {
	local i=0

	/usr/bin/rdma link show "$1" >/dev/null 2>&1 ||
		/usr/bin/rdma link add "$1" type "$2" netdev "$3"
	until /usr/bin/rdma link show "$1/1" 2>/dev/null | grep -q ACTIVE; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "cqpool-vm: $1 not back"; status=1; return; }
		sleep 0.1
	done
}
if [ -f /payload/cqpool_race_kunit.ko ]; then
	(
		while [ ! -e /tmp/race.done ]; do
			link_readd rxe0 rxe v0
			sleep 0.2
			link_readd siw0 siw v1
			sleep 0.2
		done
	) &
	loop=$!
	echo "cqpool-races-begin" >/dev/kmsg
	insmod /payload/cqpool_race_kunit.ko || status=1
	echo "cqpool-races-end" >/dev/kmsg
	touch /tmp/race.done
	wait "$loop"
	rmmod cqpool_race_kunit || status=1
	link_back rxe0 rxe v0
	link_back siw0 siw v1
fi

# The fault test makes allocations fail on purpose; the host lets the
# stack traces of those failures' reports pass between these markers.
# A payload may name the only selftests it runs, in /payload/only, and
# give them environment variables, one NAME=VALUE a line, in /payload/env.
only=$(cat /payload/only 2>/dev/null)
if [ -r /payload/env ]; then
	while read -r kv; do
		export "${kv?}"
	done </payload/env
fi
for t in /payload/selftests/*; do
	name=${t##*/}
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) continue ;; esac
	fi
	[ "$name" = fault_test ] &&
		echo "cqpool-fault-injection-begin" >/dev/kmsg
	section "kselftest:$name" "$t"
	[ "$name" = fault_test ] &&
		echo "cqpool-fault-injection-end" >/dev/kmsg
done

for m in cqpool_harness cqpool; do
	if ! rmmod $m; then
		echo "cqpool-vm: rmmod $m failed"
		status=1
	fi
done

if [ -w "$leaks" ]; then
	# kmemleak reports an object only once it has been unreferenced
	# for 5 s and seen by two scans.
	sleep 6
	echo scan >"$leaks"
	echo scan >"$leaks"
	# The report goes to the console, where the host looks for splats.
	cat "$leaks" >/dev/console
fi

# A GCOV build (CQPOOL_GCOV=1) leaves each object's counts in debugfs,
# summed over every load of its module.  They go to the host as one
# base64 tarball between markers; debugfs gives its files no size, so
# they are copied out first.
gcov=/sys/kernel/debug/gcov
if [ -d "$gcov" ] && [ -n "$(find "$gcov" -name '*.gcda' | head -n 1)" ]; then
	mkdir -p /tmp/gcov
	# Each under the path its object was built at, as gcov names it.
	find "$gcov" -name '*.gcda' | while read -r f; do
		rel=${f#"$gcov"}
		mkdir -p "/tmp/gcov${rel%/*}"
		cat "$f" >"/tmp/gcov$rel"
	done
	echo "@@gcov-begin" >"$out"
	tar -C /tmp/gcov -czf - . | base64 >"$out"
	echo "@@gcov-end" >"$out"
fi
exit $status
