#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the stock-kernel VM as /payload/run.sh for make bench
# (scripts/bench.sh): loads cqpool and runs every scenario for cqpool,
# upstream's ib_cq_pool_get() and one CQ per QP, alternating within each
# round.  Each result goes to $CQPOOL_RESULTS as one line
#   BENCH NAME {json}
# which scripts/bench-report.py turns into bench/results.json and
# BENCHMARKS.md.
#
# Upstream never frees its CQs, so each scenario gets its own poll context
# (upstream keeps one list per context) and the scenarios that must see a
# fresh upstream run first on theirs:
#   workqueue  first 32-CQE reservation (first in the boot), then mixed
#   softirq    storm (its first upstream round is cold), the storm warm
#              against warm, growth (the verbs alone, no pool), then
#              traffic; last, after rxe0 is re-added,
#              the storm cold against cold
#   unbound    get/put, churn and the ledger alone, prefill 1, 64, 1024 in
#              increasing order, so upstream's list holds exactly the
#              prefilled CQs; then
#              get/put through the takeover against upstream's own; on
#              the re-added rxe0, last, get/put with cqpool.ko's code
#              placed four ways
# With BENCH_PART=parallel (a second boot, with 4 vCPUs) it runs the
# parallel get+put alone.

out=${CQPOOL_RESULTS:-/dev/stdout}
ctl=/payload/cqpoolctl
dev=rxe0
# scripts/bench.sh may set BENCH_ROUNDS here, and sets BENCH_PADS: the
# shifts of the cqpool-padN.ko it built.
# shellcheck disable=SC1091
[ -f /payload/bench.env ] && . /payload/bench.env
rounds=${BENCH_ROUNDS:-5}
part=${BENCH_PART:-main}
status=0

bench() { # NAME ARGS...: one JSON line
	name=$1
	shift
	t0=$(date +%s)
	if json=$("$@" --json); then
		echo "BENCH $name $json" >>"$out"
	else
		echo "BENCH-FAIL $name rc=$?" >>"$out"
		status=1
	fi
	echo "cqpool-bench: $name done in $(($(date +%s) - t0)) s"
}

# wait_file FILE VALUE: until FILE holds VALUE, at most 60 s
wait_file() {
	i=0
	while [ "$(cat "$1" 2>/dev/null)" != "$2" ]; do
		i=$((i + 1))
		[ $i -le 600 ] || return 1
		sleep 0.1
	done
}

# Disables the takeover and removes it once every task left its code.
takeover_unload() {
	echo 0 >/sys/kernel/livepatch/cqpool_takeover/enabled || return 1
	i=0
	until [ ! -e /sys/module/cqpool_takeover ]; do
		[ -e /sys/kernel/livepatch/cqpool_takeover ] ||
			rmmod cqpool_takeover 2>/dev/null
		i=$((i + 1))
		[ $i -le 600 ] || return 1
		sleep 0.1
	done
}

insmod /payload/cqpool.ko || exit 10
insmod /payload/cqpool_harness.ko || exit 10

# Every CQ resized in place, counted by pool (a histogram trigger, which no
# ring buffer can lose): the default pools must resize none.  Read at the
# end, from cqpool.ko's load to the placement rows, which reload it.
resize_hist=/sys/kernel/tracing/events/cqpool/cqpool_cq_resize
[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing
if [ "$part" = main ] &&
   ! echo 'hist:keys=pool' >"$resize_hist/trigger"; then
	echo "BENCH-FAIL resizes rc=trigger" >>"$out"
	status=1
fi
# cqpool frees idle CQs after this; the default (30 s) would make the
# memory scenario wait 30 s per round.
echo 2000 >/sys/module/cqpool/parameters/idle_timeout_ms

# The second boot's machine and devices are told apart from the first's.
tag=
[ "$part" = main ] || tag=-$part
{
	# A debug kernel has kmemleak or lockdep: the report says which ran.
	debug=0
	[ -e /sys/kernel/debug/kmemleak ] || [ -e /proc/lockdep ] && debug=1
	echo "BENCH machine$tag {\"vcpus\": $(nproc), \"kernel\": \"$(uname -r)\"," \
		"\"debug\": $debug," \
		"\"mem_kb\": $(awk '/MemTotal/ {print $2}' /proc/meminfo)," \
		"\"cpu\": \"$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)\"}"
} >>"$out"
$ctl devices --json | sed "s/^/BENCH devices$tag /" >>"$out"

# The parallel part: getput's pool and room at 1 CQ per vector, its
# pairs shared by 1, 2 and 4 kernel threads, thread i on vector i;
# cqpool and upstream alternating.
if [ "$part" = parallel ]; then
	for t in 1 2 4; do
		bench "parallel-$t" $ctl bench --kind parallel --device $dev \
			--poll unbound --modes cqpool,upstream --prefill 1 \
			--nr-cqe 32 --iterations 400000 --threads $t \
			--rounds "$rounds"
	done
	rmmod cqpool_harness cqpool
	exit $status
fi

# 1. The first reservation of 32 CQEs: upstream first, on a poll context
#    nothing has used in this boot.
bench first32 $ctl bench --kind storm --device $dev --poll workqueue \
	--modes upstream,cqpool --iterations 1 --nr-cqe 32 --rounds 1

# 2. Memory and balance: 1024 mixed reservations.
bench mixed $ctl bench --kind mixed --device $dev --poll workqueue \
	--modes cqpool,upstream --rounds "$rounds"

# 2a. The same reservations on an owned pool of cqpool's that opts in to
#     growing its CQs in place (CQPOOL_F_RESIZE), made for each round and
#     destroyed after it: the old default, against the new one above.
bench mixed-resize $ctl bench --kind mixed --resize --device $dev \
	--poll workqueue --modes cqpool --rounds "$rounds"

# QEMU maps guest RAM on first touch, which makes the first scenario to
# use a lot of memory pay for it.  One discarded storm round of cqpool and
# per-QP CQs (not upstream: its softirq list must stay fresh) takes that.
bench storm-warmup $ctl bench --kind storm --device $dev --poll softirq \
	--modes cqpool,perqp --iterations 4096 --nr-cqe 513 --rounds 1

# 3. Connection storm: 4096 reservations of an nvme-rdma I/O queue's CQ
#    (4 * queue_size 128 + 1 = 513 CQEs), then all released.
bench storm $ctl bench --kind storm --device $dev --poll softirq \
	--modes cqpool,upstream,perqp --iterations 4096 --nr-cqe 513 \
	--rounds "$rounds"

# 3a. The same storm on a fresh cqpool pool that opts in to growing its
#     CQs in place: the old default, cold as the storm's cqpool rounds.
bench storm-resize $ctl bench --kind storm --device $dev --poll softirq \
	--modes cqpool --resize --iterations 4096 --nr-cqe 513 \
	--rounds "$rounds"

# 3b. The same storm warm against warm: cqpool on the device's shared
#     softirq pool, which keeps its CQs for the idle timeout, against
#     upstream's softirq CQs, kept since the storm above.  Round 1 fills
#     cqpool's pool; the report takes rounds 2+.
bench storm-warm $ctl bench --kind storm --device $dev --poll softirq \
	--modes cqpool,upstream --shared --iterations 4096 --nr-cqe 513 \
	--rounds "$rounds"

# 3c. How a vector can grow on this device, the verbs alone: a CQ grown in
#     place to twice its size against a second CQ of the same size, from
#     a small CQ to the largest rxe can double (max_cqe 32767).
for n in 63 255 1023 4095 16383; do
	bench "growth-$n" $ctl bench --kind growth --device $dev --poll softirq \
		--nr-cqe $n --iterations 8 --rounds "$rounds"
done

# 4. get/put latency, room in the first CQ upstream scans (getput) and in
#    the last one (churn).  50,000 pairs a round, about 10-20 ms: one
#    of 10,000 lasted 2-4 ms.  The rounds of one side still differ by up
#    to 2x within a boot: that is the host's drift, which the alternating
#    rounds' medians are for.
#    Then, on the same fill, the ledger alone: cqpool's timed calls are
#    its pool ledger's reserve and release, on a copy of the filled
#    ledger in the harness (bench --ledger), against upstream's again.
pairs=50000
for p in 1 64 1024; do
	for k in getput churn; do
		bench "$k-$p" $ctl bench --kind $k --device $dev --poll unbound \
			--modes cqpool,upstream,perqp --prefill $p --nr-cqe 32 \
			--iterations $pairs --rounds "$rounds"
	done
	bench "ledger-$p" $ctl bench --kind getput --device $dev --poll unbound \
		--modes cqpool,upstream --ledger --prefill $p --nr-cqe 32 \
		--iterations $pairs --rounds "$rounds"
done

# 4b. Per-call latency: get/put at 1 CQ per vector with a clock pair
#     around each call, its distribution where 4 gives the batches' mean.
bench latency-1 $ctl bench --kind latency --device $dev --poll unbound \
	--modes cqpool,upstream,perqp --prefill 1 --nr-cqe 32 \
	--iterations 10000 --rounds "$rounds"

# 4a. What a ULP pays through the takeover: upstream's get/put timed on
#     upstream's own pool, then through cqpool_takeover.ko on cqpool's
#     shared pool, then the takeover's functions called directly (the
#     same less the livepatch's redirection), alternating, one of each
#     per round.  After the get/put scenarios, whose upstream list on
#     this poll context it leaves as they made it: with the takeover, the
#     gets reach cqpool's pool.
r=1
while [ $r -le "$rounds" ]; do
	bench "takeover-off-$r" $ctl bench --kind getput --device $dev \
		--poll unbound --modes upstream --prefill 1 --nr-cqe 32 \
		--iterations $pairs --rounds 1
	if insmod /payload/cqpool_takeover.ko &&
	   wait_file /sys/kernel/livepatch/cqpool_takeover/transition 0; then
		bench "takeover-on-$r" $ctl bench --kind getput --device $dev \
			--poll unbound --modes upstream --takeover --prefill 1 \
			--nr-cqe 32 --iterations $pairs --rounds 1
		bench "takeover-direct-$r" $ctl bench --kind getput \
			--device $dev --poll unbound --modes upstream \
			--takeover-direct --prefill 1 --nr-cqe 32 \
			--iterations $pairs --rounds 1
	else
		echo "BENCH-FAIL takeover-on-$r rc=load" >>"$out"
		status=1
	fi
	takeover_unload || status=1
	r=$((r + 1))
done

# 5. Completions: 32 and 128 looped-back QP pairs (64 and 256 QPs), each
#    --mode all runs cqpool, upstream and per-QP CQs in turn.
for qpairs in 32 128; do
	r=1
	while [ $r -le "$rounds" ]; do
		bench "traffic-$qpairs-$r" $ctl run --device $dev --profile custom \
			--connections 1 --queues $qpairs --queue-depth 128 \
			--mode all --seconds 3
		r=$((r + 1))
	done
done

# 6. The storm cold against cold, 5 samples: rxe0 deleted and re-added
#    before each, so that upstream's pool is new too; which side goes
#    first alternates.  Last, as the new device has none of the CQs the
#    scenarios above rely on.
for k in 1 2 3 4 5; do
	order=upstream,cqpool
	[ $((k % 2)) -eq 1 ] || order=cqpool,upstream
	/usr/bin/rdma link delete rxe0 || status=1
	/usr/bin/rdma link add rxe0 type rxe netdev v0 || status=1
	i=0
	until /usr/bin/rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "cqpool-bench: rxe0 not ACTIVE"; status=1; break; }
		sleep 0.1
	done
	bench "storm-cold-$k" $ctl bench --kind storm --device $dev \
		--poll softirq --modes $order --iterations 4096 \
		--nr-cqe 513 --rounds 1
done

# 6a. Turnover: 512 reservations of the mixed sizes, then 64 steps that
#     each give back a random quarter and make as many anew, with what is
#     allocated against what is reserved after each step: upstream's pool,
#     cqpool's shared pool and an owned pool that resizes, one after the
#     other on one sequence.  On the workqueue context of the re-added
#     rxe0, which no scenario has used: upstream's starts empty too.
bench turnover $ctl bench --kind turnover --device $dev --poll workqueue \
	--iterations 64

# The resizes counted since the load: "{ pool: NAME } hitcount: N" lines,
# after a "# trigger info: ...hitcount..." header.
awk '/^[{] pool:.*hitcount:/ { sub(/.*pool: */, ""); sub(/ *}.*hitcount: */, " ");
		   printf "%s\"%s\": %s", sep, $1, $2; sep = ", " }
	BEGIN { printf "BENCH resizes {\"by_pool\": {" }
	END { print "}}" }' "$resize_hist/hist" >>"$out" || status=1
# Off before cqpool.ko is removed: an event with a trigger on it is in use.
echo '!hist:keys=pool' >"$resize_hist/trigger" || status=1

# 7. Code placement: get/put at 1, 64 and 1,024 CQs per vector as in 4,
#    with cqpool.ko's code where it is and shifted by $BENCH_PADS bytes
#    of dead code in front (scripts/bench.sh), each in turn within a
#    round.  Under TCG a call's cost depends on where its code lands:
#    the spread is what placement alone makes of a ratio, and the get/put
#    targets are read over all the layouts.  On the re-added rxe0, in
#    increasing prefill as in 4, so that upstream's list holds exactly the
#    prefilled CQs.
for p in 1 64 1024; do
	r=1
	while [ $r -le "$rounds" ]; do
		for pad in 0 ${BENCH_PADS:-}; do
			ko=/payload/cqpool-pad$pad.ko
			[ "$pad" -ne 0 ] || ko=/payload/cqpool.ko
			rmmod cqpool_harness cqpool
			if insmod "$ko" && insmod /payload/cqpool_harness.ko; then
				bench "placement-$p-$pad-$r" $ctl bench --kind getput \
					--device $dev --poll unbound \
					--modes cqpool,upstream --prefill $p \
					--nr-cqe 32 --iterations $pairs --rounds 1
			else
				echo "BENCH-FAIL placement-$p-$pad-$r rc=load" >>"$out"
				status=1
			fi
		done
		r=$((r + 1))
	done
done

rmmod cqpool_harness cqpool
exit $status
