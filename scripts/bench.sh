#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - make bench: boot the stock Debian kernel (never the debug
# one: no KASAN or lockdep in the numbers) in QEMU with soft-RoCE, run
# every scenario for cqpool, upstream's ib_cq_pool_get() and one CQ per
# QP in alternation (vm/payload-bench.sh), and write bench/results.json
# and BENCHMARKS.md with its charts, bench/*.svg (scripts/bench-report.py:
# the report by scenario, scripts/benchreport/; scripts/bench_plots.py).
#
# A second boot, with 4 vCPUs, runs the parallel get+put alone: the rest
# is measured with 2, as before, so that it stays comparable.
#
# Then the NVMe-oF section (vm/payload-bench-nvmeof.sh): fio through
# nvme-rdma and nvmet-rdma on upstream's pool and on cqpool's through the
# takeover, in a boot with the host's userland (fio, nvme-cli), and the
# memory at one controller again in a boot with 8 vCPUs, where rxe has 8
# completion vectors.  BENCH_NVMEOF_ROUNDS (3) rounds, BENCH_FIO_SECONDS
# (10) of fio a run.
#
# Environment: BENCH_ROUNDS=5 rounds per scenario; CQPOOL_VM_MEM (default
# 6G here: 1024 prefilled CQs per vector of 8191 rxe entries take 1 GiB
# for each pool) and CQPOOL_VM_SMP (2) as vm/run.sh, for the first boot.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
t0=$(date +%s)
# The tree the numbers come from, read before building.
commit=$(git --no-optional-locks rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null | head -c1)
ver=$(vm/run.sh --print-stock-version)
work=$top/build/bench
payload=$work/payload
rounds=${BENCH_ROUNDS:-5}
[[ $rounds -ge 5 ]] || echo "bench.sh: warning: BENCH_ROUNDS=$rounds (<5) is for trying things out" >&2

scripts/kbuild.sh stock "/usr/src/linux-headers-$ver" -s
# The same cqpool.ko with its code shifted (module/text_pad.S), for the
# code placement rows; the harness built above loads against any of them.
pads="64 128 192"
for pad in $pads; do
	scripts/kbuild.sh "stock-pad$pad" "/usr/src/linux-headers-$ver" -s \
		CQPOOL_TEXT_PAD="$pad"
done
make -s -C userspace cqpoolctl

rm -rf "$payload" "$work/vm" "$work/vm-parallel"
mkdir -p "$payload"
cp build/kbuild-stock/cqpool.ko build/kbuild-stock/cqpool_harness.ko \
	build/kbuild-stock/cqpool_takeover.ko \
	build/userspace/cqpoolctl "$payload/"
for pad in $pads; do
	cp "build/kbuild-stock-pad$pad/cqpool.ko" "$payload/cqpool-pad$pad.ko"
done
cp vm/payload-bench.sh "$payload/run.sh"

# boot PAYLOAD DIR SMP MEM TIMEOUT ENV...: the payload in a VM of SMP
# vCPUs and MEM of memory, ENV (its bench.env's lines, and for vm/run.sh
# any CQPOOL_VM_* among them), its output in $work/DIR; the script ends
# if it fails.
boot() {
	local rc=0 pl=$1 dir=$2 smp=$3 mem=$4 timeout=$5

	shift 5
	for kv; do
		printf '%s=%q\n' "${kv%%=*}" "${kv#*=}"
	done >"$pl/bench.env"
	env "$@" CQPOOL_VM_QUIET=1 CQPOOL_VM_SMP="$smp" CQPOOL_VM_MEM="$mem" \
		CQPOOL_VM_TIMEOUT="$timeout" \
		vm/run.sh stock "$pl" "$work/$dir" >"$work/$dir.log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "bench: the VM run failed (status $rc); see $work/$dir.log and $work/$dir/console.log" >&2
		tail -n 20 "$work/$dir.log" >&2
		exit 1
	fi
}

smp=${CQPOOL_VM_SMP:-2}
mem=${CQPOOL_VM_MEM:-6G}
echo "bench: booting $ver in QEMU (TCG, $smp vCPUs, $mem) with soft-RoCE; about 3-5 minutes."
timeout=${CQPOOL_VM_TIMEOUT:-1500}
boot "$payload" vm "$smp" "$mem" "$timeout" \
	BENCH_ROUNDS="$rounds" BENCH_PART=main BENCH_PADS="$pads"
echo "bench: booting again with 4 vCPUs for the parallel get+put; about a minute."
boot "$payload" vm-parallel 4 2G "$timeout" \
	BENCH_ROUNDS="$rounds" BENCH_PART=parallel BENCH_PADS="$pads"
# The NVMe-oF boots share their payload dir writable (CQPOOL_VM_ROOT=host).
nvme_payload=$work/payload-nvmeof
rm -rf "$nvme_payload" "$work/vm-nvmeof" "$work/vm-nvmeof-vectors"
mkdir -p "$nvme_payload"
cp build/kbuild-stock/cqpool.ko build/kbuild-stock/cqpool_takeover.ko "$nvme_payload/"
cp vm/payload-bench-nvmeof.sh "$nvme_payload/run.sh"
cp vm/payload-lib.sh "$nvme_payload/lib.sh"

# With the host's userland (fio, nvme-cli).
nvme=(CQPOOL_VM_ROOT=host BENCH_NVMEOF_ROUNDS="${BENCH_NVMEOF_ROUNDS:-3}"
      BENCH_FIO_SECONDS="${BENCH_FIO_SECONDS:-10}")
timeout=${CQPOOL_VM_TIMEOUT_NVMEOF:-3600}
echo "bench: NVMe-oF through nvme-rdma and nvmet-rdma, upstream's pool and the takeover's; about 10 minutes."
boot "$nvme_payload" vm-nvmeof 2 4G "$timeout" "${nvme[@]}" BENCH_PART=nvmeof
echo "bench: NVMe-oF memory at one controller with 8 vCPUs, rxe's 8 vectors; a few minutes."
boot "$nvme_payload" vm-nvmeof-vectors 8 4G "$timeout" "${nvme[@]}" BENCH_PART=nvmeof-vectors

cat "$work/vm/results.log" "$work/vm-parallel/results.log" \
	"$work/vm-nvmeof/results.log" "$work/vm-nvmeof-vectors/results.log" \
	>"$work/results.log"
# Past this machine: a day of a target's life through cqpool's ledger and
# a model of upstream's pool, on devices no VM here has, and the model
# checked against the VM's own upstream figures (userspace/sim/day.cpp).
make -s -C userspace sim
{
	echo "BENCH day $(build/userspace/day_sim)"
	echo "BENCH upstream-model $(build/userspace/day_sim --check)"
} >>"$work/results.log"
# Debian's python3, which has python3-matplotlib for the charts, whatever
# python3 comes first in PATH.
py=/usr/bin/python3
[[ -x $py ]] || py=python3
"$py" scripts/bench-report.py --results "$work/results.log" \
	--qemu-cmdline "$work/vm/cmdline" --ko build/kbuild-stock/cqpool.ko \
	--elapsed "$(($(date +%s) - t0))" --commit "$commit${dirty:+-dirty}" \
	--json bench/results.json --md BENCHMARKS.md
# README's table of what NVMe-oF holds, from the same results.
PYTHONPATH=scripts "$py" -m benchreport readme --json bench/results.json --file README.md
echo "bench: wrote bench/results.json, bench/*.svg and BENCHMARKS.md in $(($(date +%s) - t0)) s"
