#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's NVMe-oF section (scripts/bench.sh), in a guest with the
# host's userland (CQPOOL_VM_ROOT=host: fio, nvme-cli, python3): nvmet-rdma
# and nvme-rdma looped back over rxe0, a RAM-backed null_blk namespace per
# subsystem, and the two pools in alternation within each round, upstream's
# and cqpool's through the takeover, every controller disconnected and
# rxe0 added anew between them, so that each mode's queues are made on a
# pool of its own.
#
# In a round, for each mode:
#   io       1 controller with 2 I/O queues, fio 4 KB random reads (libaio,
#            direct, iodepth 32, 2 jobs) on its namespace; then 8, fio on
#            their 8; IOPS, p50/p99/p99.9 latency, CPU per I/O from
#            /proc/stat, and completions per CQ interrupt: what ib_core
#            polled (rdma_core:cq_poll's rc) over the polls it scheduled
#            (rdma_core:cq_schedule), both counted by histogram triggers
#   memory   CQs, CQEs and bytes of CQ memory on rxe0, host and target
#            together, beyond what rxe0 has unconnected: with 1, 8 and
#            32 controllers connected, and after every disconnect and
#            cqpool's idle timeout
#   connect  the time to connect 32 controllers, and from a link flap
#            (v0 down, then up, reconnect_delay=1) until all 32 are live
#            again, with the number live sampled all along
# Each mode's round is a line BENCH nvmeof-rR-MODE {json} on
# $CQPOOL_RESULTS.  With BENCH_PART=nvmeof-vectors (a boot with 8 vCPUs,
# where rxe has 8 completion vectors) only the memory at 1 controller,
# as BENCH nvmeof-vectors-rR-MODE.
set -u

p=$CQPOOL_PAYLOAD
out=${CQPOOL_RESULTS:-/dev/stdout}
# shellcheck disable=SC1091
. "$p/bench.env"
rounds=${BENCH_NVMEOF_ROUNDS:-3}
part=${BENCH_PART:-nvmeof}
fio_s=${BENCH_FIO_SECONDS:-10}
max_ctrl=32
idle_ms=2000
KLP=/sys/kernel/livepatch/cqpool_takeover
CFS=/sys/kernel/config
TRACING=/sys/kernel/tracing
NQN=nqn.2024-01.org.cqpool:bench

say() { echo "nvmeof-bench: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
die() { say "$*"; echo "BENCH-FAIL $part rc=$*" >>"$out"; exit 1; }

# wait_for, veth_up, rxe_add
# shellcheck source=vm/payload-lib.sh
. "$CQPOOL_PAYLOAD/lib.sh"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# rxe0 anew: what a mode left on it (ib_core's pools) goes with it.
rxe_reset() {
	rdma link delete rxe0 && rxe_add
}

# The targets: subsystem k, 1..32, each a 64 MiB memory-backed null_blk,
# /dev/benchK (null_blk names a configfs device after its directory), all
# on one port at rxe0's address.
target_up() {
	local k d

	mkdir -p "$CFS/nvmet/ports/1" || return 1
	for ((k = 1; k <= max_ctrl; k++)); do
		d=$CFS/nullb/bench$k
		mkdir "$d" && echo 64 >"$d/size" && echo 1 >"$d/memory_backed" &&
			echo 1 >"$d/power" || return 1
		d=$CFS/nvmet/subsystems/$NQN-$k
		mkdir "$d" && echo 1 >"$d/attr_allow_any_host" &&
			mkdir "$d/namespaces/1" &&
			echo "/dev/bench$k" >"$d/namespaces/1/device_path" &&
			echo 1 >"$d/namespaces/1/enable" || return 1
	done
	d=$CFS/nvmet/ports/1
	echo rdma >"$d/addr_trtype" && echo ipv4 >"$d/addr_adrfam" &&
		echo 10.99.0.1 >"$d/addr_traddr" && echo 4420 >"$d/addr_trsvcid" ||
		return 1
	for ((k = 1; k <= max_ctrl; k++)); do
		ln -s "$CFS/nvmet/subsystems/$NQN-$k" "$d/subsystems/$NQN-$k" || return 1
	done
}

target_down() {
	local k d=$CFS/nvmet/ports/1

	for ((k = 1; k <= max_ctrl; k++)); do
		rm -f "$d/subsystems/$NQN-$k"
	done
	rmdir "$d" 2>/dev/null
	for ((k = 1; k <= max_ctrl; k++)); do
		d=$CFS/nvmet/subsystems/$NQN-$k
		[[ -d $d ]] || continue
		echo 0 >"$d/namespaces/1/enable"
		rmdir "$d/namespaces/1" "$d"
		echo 0 >"$CFS/nullb/bench$k/power"
		rmdir "$CFS/nullb/bench$k"
	done
}

# connect K: controller of subsystem K, 2 I/O queues, reconnecting every
# second for a minute after a loss.
connect() {
	nvme connect -t rdma -a 10.99.0.1 -s 4420 -n "$NQN-$1" -i 2 \
		--reconnect-delay=1 --ctrl-loss-tmo=60 >/dev/null
}

# The controllers' states, a word each.
states() { cat /sys/class/nvme/nvme*/state 2>/dev/null; }
live() { states | grep -cx live; }
all_live() { [[ $(live) == "$1" ]]; }

disconnect_all() {
	nvme disconnect-all >/dev/null 2>&1
	wait_for 60 sh -c '! ls /sys/class/nvme/ 2>/dev/null | grep -q nvme'
}

# The block devices of subsystems 1..K, colon-separated, for fio.
devices() {
	local k n d b devs=""

	for ((k = 1; k <= $1; k++)); do
		for n in /sys/class/nvme/nvme*/subsysnqn; do
			[[ $(cat "$n") == "$NQN-$k" ]] || continue
			# nvmeXn1, or with native multipath nvmeXcYn1, whose
			# block device is its head's, nvmeXn1.
			for d in "${n%/subsysnqn}"/nvme*n1; do
				[[ -e $d ]] || continue
				b=${d##*/}
				[[ ! $b =~ ^(nvme[0-9]+)c[0-9]+(n1)$ ]] ||
					b=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
				devs+="${devs:+:}/dev/$b"
				break
			done
		done
	done
	echo "$devs"
}

# CQs, CQEs and bytes of CQ memory rdma lists for rxe0: "CQS CQES BYTES".
# A CQ of N entries is a queue of N + 1 slots of the driver's CQE,
# union rxe_cqe, whose size the module's BTF gives.
cqe_bytes=
cq_memory() {
	rdma res show cq dev rxe0 2>/dev/null | awk -v b="${cqe_bytes:-0}" '
		{ for (i = 1; i < NF; i++) if ($i == "cqe") { n++; e += $(i + 1); m += ($(i + 1) + 1) * b } }
		END { printf "%d %d %d\n", n, e, m }'
}

# "BUSY TOTAL" jiffies of /proc/stat's cpu line.
cpu_jiffies() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i;
		print t - $5 - $6, t }' /proc/stat
}

# Histogram triggers on ib_core's polling: what cq_poll polled (its rc)
# and how often cq_schedule scheduled a poll, by CQ.
POLL_HIST='hist:keys=cq_id:vals=hitcount,rc'
SCHED_HIST='hist:keys=cq_id:vals=hitcount'

polls_off() {
	echo "!$POLL_HIST" >"$TRACING/events/rdma_core/cq_poll/trigger" 2>/dev/null
	echo "!$SCHED_HIST" >"$TRACING/events/rdma_core/cq_schedule/trigger" 2>/dev/null
	return 0
}

polls_arm() {
	polls_off
	echo "$POLL_HIST" >"$TRACING/events/rdma_core/cq_poll/trigger" &&
		echo "$SCHED_HIST" >"$TRACING/events/rdma_core/cq_schedule/trigger"
}

# "COMPLETIONS SCHEDULED" since polls_arm, and the triggers off.
polls_read() {
	local c s

	c=$(awk '/^[{] cq_id:/ { for (i = 1; i < NF; i++) if ($i == "rc:") n += $(i + 1) }
		END { print n + 0 }' "$TRACING/events/rdma_core/cq_poll/hist")
	s=$(awk '/^[{] cq_id:/ { for (i = 1; i < NF; i++) if ($i == "hitcount:") n += $(i + 1) }
		END { print n + 0 }' "$TRACING/events/rdma_core/cq_schedule/hist")
	polls_off
	echo "$c $s"
}

# fio_json DEVICES: one fio run's figures, as a JSON object.
fio_json() {
	local cpu0 cpu1 polls f=/tmp/fio.json

	polls_arm || return 1
	read -r -a cpu0 < <(cpu_jiffies)
	fio --name=bench --filename="$1" --rw=randread --bs=4k \
		--ioengine=libaio --direct=1 --iodepth=32 --numjobs=2 \
		--group_reporting --time_based --runtime="$fio_s" \
		--percentile_list=50:99:99.9 --output-format=json >"$f" ||
		return 1
	read -r -a cpu1 < <(cpu_jiffies)
	read -r -a polls < <(polls_read)
	python3 - "$f" "${cpu0[@]}" "${cpu1[@]}" "${polls[@]}" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
b0, t0, b1, t1, comp, sched = map(int, sys.argv[2:8])
pct = j["clat_ns"]["percentile"]
ios = j["total_ios"]
print(json.dumps({"iops": j["iops"], "ios": ios,
                  "p50_us": pct["50.000000"] / 1e3, "p99_us": pct["99.000000"] / 1e3,
                  "p999_us": pct["99.900000"] / 1e3,
                  "busy_jiffies": b1 - b0, "total_jiffies": t1 - t0,
                  "cpu_us_per_io": (b1 - b0) * 1e4 / ios if ios else None,
                  "completions": comp, "scheduled": sched}))
EOF
}

# mem_json: the CQ memory beyond rxe0's own, as a JSON object.
mem_json() {
	local m

	read -r -a m < <(cq_memory)
	echo "{\"cqs\": $((m[0] - base[0])), \"cqes\": $((m[1] - base[1])), \"bytes\": $((m[2] - base[2]))}"
}

takeover_on() {
	insmod "$p/cqpool_takeover.ko" && wait_for 60 grep -qx 0 "$KLP/transition"
}

takeover_off() {
	[[ -e $KLP ]] || return 0
	echo 0 >"$KLP/enabled" && wait_for 60 test ! -e "$KLP" &&
		wait_for 30 rmmod cqpool_takeover 2>/dev/null
}

# A fresh start for a mode: no controller, rxe0 anew, the targets up.
fresh() {
	disconnect_all
	target_down
	rxe_reset || return 1
	target_up || return 1
	read -r -a base < <(cq_memory)
}

# One mode's round of the nvmeof part: its JSON.
round_io() {
	local mode=$1 k t0 io1 io8 mem1 mem8 mem32 after connect32 reconnect timeline

	fresh || return 1
	[[ $mode == upstream ]] || takeover_on || return 1
	connect 1 && wait_for 30 all_live 1 || return 1
	mem1=$(mem_json)
	io1=$(fio_json "$(devices 1)") || return 1
	for ((k = 2; k <= 8; k++)); do connect "$k" || return 1; done
	wait_for 60 all_live 8 || return 1
	mem8=$(mem_json)
	io8=$(fio_json "$(devices 8)") || return 1

	# The 32, on a pool of their own, timed.  (The takeover goes once
	# its queues have: it leaves while it holds reservations.)
	disconnect_all
	takeover_off || return 1
	fresh || return 1
	[[ $mode == upstream ]] || takeover_on || return 1
	t0=$(now)
	for ((k = 1; k <= max_ctrl; k++)); do connect "$k" || return 1; done
	wait_for 120 all_live "$max_ctrl" || return 1
	connect32=$(since "$t0")
	mem32=$(mem_json)

	# A link flap: every controller loses its queues and reconnects.
	t0=$(now)
	ip link set v0 down
	wait_for 30 sh -c "! grep -qx live /sys/class/nvme/nvme*/state" || return 1
	ip link set v0 up
	timeline=""
	until all_live "$max_ctrl"; do
		timeline+="${timeline:+, }[$(since "$t0"), $(live)]"
		sleep 0.2
		[[ $(since "$t0" | cut -d. -f1) -lt 180 ]] || return 1
	done
	reconnect=$(since "$t0")
	timeline+="${timeline:+, }[$reconnect, $max_ctrl]"

	disconnect_all
	takeover_off || return 1
	sleep $((idle_ms / 1000 + 3))
	after=$(mem_json)
	echo "{\"mode\": \"$mode\", \"controllers\": [1, 8, $max_ctrl], \"io\": {\"1\": $io1, \"8\": $io8}, \"memory\": {\"1\": $mem1, \"8\": $mem8, \"$max_ctrl\": $mem32, \"after\": $after}, \"connect_s\": $connect32, \"reconnect_s\": $reconnect, \"reconnect_timeline\": [$timeline], \"vectors\": $(vectors), \"cqe_bytes\": ${cqe_bytes:-null}, \"setup\": $(setup)}"
}

# One mode's round of the nvmeof-vectors part: the memory at 1.
round_vectors() {
	local mode=$1 mem1

	fresh || return 1
	[[ $mode == upstream ]] || takeover_on || return 1
	connect 1 && wait_for 30 all_live 1 || return 1
	mem1=$(mem_json)
	disconnect_all
	takeover_off || return 1
	echo "{\"mode\": \"$mode\", \"memory\": {\"1\": $mem1}, \"vectors\": $(vectors), \"cqe_bytes\": ${cqe_bytes:-null}}"
}

# rxe0's completion vectors, as cqpool's debugfs lists them.
vectors() {
	awk '$1 == "rxe0" { print $2; found = 1 } END { if (!found) print "null" }' \
		/sys/kernel/debug/cqpool/devices 2>/dev/null || echo null
}

# How the runs were made, for the report's prose.
setup() {
	echo "{\"fio_seconds\": $fio_s, \"bs\": \"4 KiB\", \"iodepth\": 32, \"jobs\": 2, \"io_queues\": 2, \"null_blk_mb\": 64, \"idle_timeout_ms\": $idle_ms, \"reconnect_delay_s\": 1, \"percentiles\": [\"50\", \"99\", \"99.9\"], \"netdev\": \"v0\"}"
}

# rxe0 on a veth pair at 10.99.0.1, as the other guests have it.
modprobe -q rdma_rxe || die "modprobe rdma_rxe"
veth_up || die "veth pair v0, v1"
rxe_add || die "rxe0"
for m in configfs null_blk nvmet_rdma nvme_rdma; do
	modprobe -q "$m" || die "modprobe $m"
done
mountpoint -q "$CFS" || mount -t configfs configfs "$CFS"
mountpoint -q "$TRACING" || mount -t tracefs tracefs "$TRACING"
insmod "$p/cqpool.ko" idle_timeout_ms=$idle_ms || die "insmod cqpool.ko"
# The size of rxe's CQE from the module's BTF, where pahole reads it.
cqe_bytes=$(pahole -F btf --btf_base /sys/kernel/btf/vmlinux -C rxe_cqe \
	/sys/kernel/btf/rdma_rxe 2>/dev/null | sed -n 's/.*size: \([0-9]*\),.*/\1/p' | head -1)
say "rxe0 ready, $(vectors) vectors, CQE ${cqe_bytes:-unknown} bytes; $rounds rounds of $part"

for ((r = 1; r <= rounds; r++)); do
	# The order alternates from round to round, which cancels drift.
	modes="upstream cqpool"
	((r % 2)) || modes="cqpool upstream"
	for mode in $modes; do
		if [[ $part == nvmeof-vectors ]]; then
			line=$(round_vectors "$mode") || die "round $r $mode"
		else
			line=$(round_io "$mode") || die "round $r $mode"
		fi
		echo "BENCH $part-r$r-$mode $line" >>"$out"
		say "round $r $mode done"
	done
done
disconnect_all
target_down
say "done"
