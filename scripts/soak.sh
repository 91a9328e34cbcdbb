#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh [-m MINUTES] [-c CHECKPOINTS] [-s SEED] [-o OUT] [-t TABLE] [-k KBUILD] [-u]
# The soak (make soak): selftests/soak_test.c for MINUTES (default 30) on
# the debug kernel (KASAN, kmemleak, lockdep), in a guest with the host's
# userland (fio, open-iscsi): NVMe-oF and iSER connections made and torn
# down at random with fio through the takeover, the takeover disabled and
# loaded again, caches dropped, rxe0 removed and added back.
#
#   -c  idle checkpoints (default 8): the host compares the first
#       quarter's samples to the last's
#   -s  the seed of its random choices (default: the time)
#   -o  output dir (default build/soak)
#   -t  a file to write the run's figures to, as a Markdown table
#   -k  the debug kernel's modules, built (make check's build/kbuild-debug);
#       by default they are built here, in build/kbuild-soak
#   -u  to find what holds a difference: boots with slub_debug=U on the
#       kmalloc caches, and each sample keeps their allocation sites and
#       stacks, in OUT/payload/out/sites/N-KIND-CACHE; "python3 -m cqcheck
#       soak-sites DIR A B", in scripts/, lists what moved from A to B
#
# The verdicts (scripts/cqcheck/soak.py, with tests of their own): the
# binary's own checks passed, the console is clean (no splat, no hung
# task, kmemleak scanned at the end), every count is back where it
# started, nothing grew from the first quarter to the last, and every
# action ran.  The last line is "N passed, N failed"; the exit status is
# non-zero if anything failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
minutes=30
checkpoints=8
seed=$(date +%s)
out=$top/build/soak
table=
kbuild=
sites=
while getopts m:c:s:o:t:k:u opt; do
	case $opt in
	m) minutes=$OPTARG ;;
	c) checkpoints=$OPTARG ;;
	s) seed=$OPTARG ;;
	o) out=$OPTARG ;;
	t) table=$OPTARG ;;
	k) kbuild=$OPTARG ;;
	u) sites=1 ;;
	*) exit 2 ;;
	esac
done
[[ $minutes =~ ^[1-9][0-9]*$ && $checkpoints =~ ^[1-9][0-9]*$ ]] ||
	{ echo "soak.sh: -m and -c take counts" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ -z $kbuild ]] || kbuild=$(cd "$kbuild" && pwd) || exit 2
passed=0
failed=0

# verdict NAME OK [NOTE]
verdict() {
	if (($2)); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	printf '%-36s %s%s\n' "$1" "$( (($2)) && echo ok || echo FAILED)" "${3:+  ($3)}"
}

cqcheck() {
	PYTHONPATH=$top/scripts python3 -m cqcheck "$@"
}

finish() {
	echo "$passed passed, $failed failed"
	((failed == 0))
	exit
}

src=$("$top/vm/kernel.sh" source) || { verdict soak:kernel 0 "vm/kernel.sh source failed"; finish; }
if [[ -z $kbuild ]]; then
	kbuild=$top/build/kbuild-soak
	kdir=$("$top/vm/kernel.sh" debug) &&
		"$top/scripts/kbuild.sh" soak "${kdir%/}/build" W=1 >"$out/kbuild.log" 2>&1 ||
		{ verdict soak:build 0 "see $out/kbuild.log"; finish; }
fi
make -C "$top/selftests" KSFT_DIR="$src/tools/testing/selftests" \
	OUT="$top/build/selftests" soak >"$out/selftests.log" 2>&1 ||
	{ verdict soak:build 0 "see $out/selftests.log"; finish; }

p=$out/payload
rm -rf "$p"
mkdir -p "$p"
cp "$top/vm/payload-soak.sh" "$p/run.sh" && cp "$top/vm/payload-lib.sh" "$p/lib.sh" &&
	cp "$kbuild/cqpool.ko" "$kbuild/cqpool_takeover.ko" \
		"$top/build/selftests-soak/soak_test" "$p/" &&
	echo $((minutes * 60)) >"$p/seconds" && echo "$checkpoints" >"$p/checkpoints" &&
	echo "$seed" >"$p/seed" || { verdict soak:payload 0; finish; }
append=
if [[ -n $sites ]]; then
	touch "$p/sites"
	append="slub_debug=U,kmalloc-*"
fi

echo "soak: $minutes min on the debug kernel, $checkpoints checkpoints, seed $seed"
start=$SECONDS
# Time for the teardowns at each checkpoint and the boot, beyond the
# soak's own; hung_task 120 s: under TCG a removal's waits on the debug
# kernel pass 30 s without cqpool (TESTING.md).
CQPOOL_VM_ROOT=host CQPOOL_VM_QUIET=1 CQPOOL_VM_MEM=4G CQPOOL_VM_APPEND=$append \
	CQPOOL_VM_TIMEOUT=$((minutes * 60 * 2 + 1800)) CQPOOL_VM_HUNG_TASK_SECS=120 \
	"$top/vm/run.sh" debug "$p" "$out/vm" >"$out/vm.log" 2>&1
rc=$?
verdict soak:clean-run $((rc == 0)) "$(tail -n 1 "$out/vm.log"); $((SECONDS - start)) s"
IFS=$'\t' read -r ok note < <(cqcheck kmemleak soak-vm "$out/vm/console.log" 2>&1 ||
	echo "0	no console")
verdict soak:kmemleak "${ok:-0}" "$note"

log=$p/out/soak.log
if [[ ! -f $log ]]; then
	verdict soak:ran 0 "no $log"
	finish
fi
read -r pass fail skip note < <(cqcheck kselftests "$log" | sed 's/^soak_test //')
verdict soak:soak_test $((pass > 0 && fail == 0 && skip == 0)) \
	"$pass passed, $fail failed, $skip skipped${note:+; $note}"
while IFS=$'\t' read -r name ok note; do
	verdict "$name" "$ok" "$note"
done < <(cqcheck soak "$log")
grep '^# soak:' "$log" | sed 's/^# //'
if [[ -n $table ]]; then
	cqcheck soak-table "$log" "$minutes" >"$table" ||
		verdict soak:table 0 "no table"
fi
finish
