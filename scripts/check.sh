#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh full|fast|all - every test of cqpool, with one count at the end.
#
#   lint       checkpatch --strict, sparse, W=1, the C++ symbol/section check
#   build      the modules for every supported kernel installed, and the
#              debug kernels
#   userspace  the core's GoogleTest suite under ASan/UBSan, and 30 s of
#              libFuzzer on the pool ledger
#   vm:6.1     kselftests in QEMU on Debian 12's kernel; vm:6.12 and
#              vm:6.12-rt the same on 6.12 and 6.12 PREEMPT_RT, if installed
#              (on 6.12-rt, make check runs $SUBSET_612_RT)
#   vm:6.1-debug   (full) KUnit, the removal races and the kselftests on
#              the debug kernel, with KASAN, kmemleak and lockdep
#   vm:6.12-debug  (full) KUnit and $SUBSET_612_DEBUG on the debug kernel
#              built from linux-source-6.12; (all) everything; in the
#              background, beside blktests on the debug kernel
#   blktests   a few of blktests' tests on upstream's pool and on the
#              takeover, on the stock kernel (and the debug kernel)
#   soak       (full) 3 minutes of make soak on the debug kernel
#   vm:6.1-kcsan   (all) KUnit, the races and the ULP kselftests on the
#              KCSAN kernel; a data race fails only if it is in cqpool's code
#
# fast is the stock kernels only; full is make check, all make check-all.
# Every level adds its tests to the count; a VM run also counts as a test
# of its own that fails on any splat in its console.  The last line is
# "N passed, N failed"; the exit status is non-zero if anything failed.
# Logs: build/check/; the VM results per kernel: build/check/kernels.txt.
set -uo pipefail

mode=${1:-full}
BLKTESTS_STOCK=${BLKTESTS_STOCK:-nvme/003 srp/001}
BLKTESTS_DEBUG=${BLKTESTS_DEBUG:-nvme/003}
# What make check runs on the 6.12 debug kernel, beside KUnit: NVMe-oF on
# upstream's pool and through the takeover, and removal under NVMe-oF and
# SRP I/O.  Its iSER cases run in make check-all only: on this kernel
# LIO's iSCSI target warns (iscsit_release_cmd()) in the upstream case,
# with cqpool not in the path, and leaves an isert connection whose next
# CM event is a use-after-free of its freed portal (TESTING.md,
# "Kernels").
SUBSET_612_DEBUG=${SUBSET_612_DEBUG:-nvmeof_test removal_test}
REMOVAL_SKIP_612_DEBUG=${REMOVAL_SKIP_612_DEBUG:-iser}
# And on 6.12-rt, where spinlock_t sleeps and interrupt work runs in
# threads: the hooks' contexts, and the takeover's put path under real
# NVMe-oF connections (takeover_cycle_test would cost 3 minutes more).
SUBSET_612_RT=${SUBSET_612_RT:-events_test nvmeof_test}
# The device removals the 6.1 debug kernel's races must see (Kbuild):
# make check-all 200, make check 100: with 200 they took 8 of the 65
# minutes a fresh machine's .ci/run took, past CI's budget of 60.  The
# KCSAN kernel sees half as many.
if [ "$mode" = all ]; then
	RACE_REMOVALS=${RACE_REMOVALS:-200}
else
	RACE_REMOVALS=${RACE_REMOVALS:-100}
fi
CQPOOL_COVERAGE_MIN=${CQPOOL_COVERAGE_MIN:-90}
# Every 6.12 guest runs its vCPUs on one host thread.  A 6.12 livepatch
# transition starts and ends by rewriting every cond_resched() call site
# (a static call with PREEMPT_DYNAMIC, Debian's kernels; a static key
# without, the debug kernel), and under QEMU's multi-threaded TCG a vCPU
# now and then traps on an int3 of that rewrite after the kernel restored
# the text: "Oops: int3" in whichever function it was in.  Every test that
# loads the takeover makes transitions (TESTING.md, "Kernels").
ACCEL_612=tcg,thread=single
case $mode in full|fast|all) ;; *) echo "usage: $0 full|fast|all" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"

passed=0
failed=0
skipped=0

# The VM results, vm:KERNEL:TEST, as a table with a column per kernel.
declare -A cell
kernel_labels=()
kernel_tests=()

# What failed, by name, and the note each was recorded with.
failures=()
declare -A failure_note

# record NAME PASSED FAILED [NOTE]
record() {
	passed=$((passed + $2))
	failed=$((failed + $3))
	if [ "$3" -ne 0 ]; then
		failures+=("$1")
		failure_note[$1]=${4:-}
	fi
	printf '%-28s %4d passed, %d failed%s\n' "$1" "$2" "$3" "${4:+  ($4)}"
	if [[ $1 == vm:*:* ]]; then
		local k=${1#vm:} t

		t=${k#*:} k=${k%%:*}
		[[ " ${kernel_labels[*]} " == *" $k "* ]] || kernel_labels+=("$k")
		[[ " ${kernel_tests[*]} " == *" $t "* ]] || kernel_tests+=("$t")
		if [ "$3" -eq 0 ]; then
			cell[$t/$k]="$2 ok"
		else
			cell[$t/$k]="$3 FAIL"
		fi
	fi
}

# kernel_table: a row per test, a column per kernel; a cell is the
# test's cases passed, or failed if any did
kernel_table() {
	local t k

	printf '%-20s' test
	printf ' %11s' "${kernel_labels[@]}"
	echo
	for t in "${kernel_tests[@]}"; do
		printf '%-20s' "$t"
		for k in "${kernel_labels[@]}"; do
			printf ' %11s' "${cell[$t/$k]:--}"
		done
		echo
	done
}

# failure_digest: each failure with a line or three of why: a VM's first
# splat and its status, a kselftest's first failed assertion, a KUnit
# case that failed.  It comes last, where a summary that keeps only the
# end of the output (CI's) still shows it.
failure_digest() {
	local f k t splats

	((${#failures[@]})) || return 0
	echo "== what failed (build/check/ has the logs)"
	for f in "${failures[@]}"; do
		echo "$f${failure_note[$f]:+  (${failure_note[$f]})}"
		k=${f#vm:} t=${k#*:} k=${k%%:*}
		case $f in
		vm:*:clean-run)
			splats=$(grep -A2 -m1 'kernel splat(s) in' "$out/vm-$k.log" | tail -n +2)
			[[ -n $splats ]] && printf '%s\n' "$splats"
			splat_stack "${splats%%$'\n'*}" "$out/vm-$k/console.log"
			tail -n 1 "$out/vm-$k.log" ;;
		vm:*:kunit | vm:*:races)
			grep -m3 -E '\[(FAILED|CRASHED)\]|ERROR|Error' \
				"$out/vm-$k/$t.txt" ;;
		vm:*:*)
			section "$out/vm-$k/results.log" "kselftest:$t" |
				grep -m1 -A1 -E '^# [a-z_]+\.c:[0-9]+:[^:]*:Expected'
			section "$out/vm-$k/results.log" "kselftest:$t" |
				grep -m1 '^not ok' ;;
		esac 2>/dev/null | cut -c1-160 | sed 's/^/    /'
	done
}

# splat_stack FIRST CONSOLE: where the kernel was at FIRST, the first
# splat line that vm/run.sh listed, wrapped to the digest's width: the first
# stack with frames of its own, innermost first, and every RIP the
# splat's report gives (a stall's NMI backtraces have one per CPU).  CI
# keeps only the end of the output, and a splat's header alone does not
# say where the kernel was.
splat_stack() {
	local first

	first=${1#    }
	[[ -n $first ]] || return 0
	tr -d '\r' <"$2" | FIRST=$first awk '
		!on && $0 == ENVIRON["FIRST"] { on = 1 }
		!on { next }
		++seen > 300 { exit }
		/RIP: 0010:/ && match($0, /0010:[A-Za-z0-9_.]+/) {
			f = substr($0, RSTART + 5, RLENGTH - 5)
			if (!(f in rip)) {
				rip[f] = 1
				rips = rips (rips == "" ? "RIPs: " : ", ") f
			}
		}
		/Call Trace:/ && stack == "" { trace = 1; line = ""; next }
		trace && /<\/TASK>/ { trace = 0; stack = line; next }
		trace && !/\] +\? / && match($0, /[A-Za-z0-9_.]+\+0x/) {
			f = substr($0, RSTART, RLENGTH - 3)
			line = line (line == "" ? "stack: " : " < ") f
		}
		END {
			if (stack == "") stack = line
			if (stack != "") print stack
			if (rips != "") print rips
		}' | fold -s -w 150
}

# kernel_label VERSION: 6.1, 6.12 or 6.12-rt
kernel_label() {
	local l

	l=$(cut -d. -f1,2 <<<"$1")
	case $1 in *-rt-*) l+=-rt ;; esac
	echo "$l"
}

# step NAME CMD...: one test that passes when CMD exits 0; log in $out/NAME.log
step() {
	local name=$1 log="$out/${1//[:\/]/-}.log"

	shift
	if "$@" >"$log" 2>&1; then
		record "$name" 1 0
	else
		record "$name" 0 1 "see $log"
		tail -n 20 "$log" | sed 's/^/    /'
	fi
}

# no_warnings LOG CMD...: CMD succeeds and prints no warning or error
no_warnings() {
	local log=$1

	shift
	"$@" >"$log.raw" 2>&1
	local rc=$?
	cat "$log.raw"
	[ $rc -eq 0 ] && ! grep -E 'warning:|error:' "$log.raw"
}

# kbuild KIND KDIR: build for KIND with W=1, warnings are failures
kbuild() { # KIND KDIR [MAKE ARGS...]
	no_warnings "$out/kbuild-$1" scripts/kbuild.sh "$1" "$2" W=1 "${@:3}"
}

# coverage_met: the debug VM's line coverage of module/*.c (make
# coverage) is at least CQPOOL_COVERAGE_MIN percent
coverage_met() {
	scripts/coverage.sh "$out/vm-6.1-debug/results.log" build/kbuild-debug \
		"$out/coverage" || return 1
	awk -v min="$CQPOOL_COVERAGE_MIN" '$1 == "total" {
		sub(/%/, "", $4); ok = $4 + 0 >= min
		print "total " $4 "%, at least " min "%: " (ok ? "yes" : "no")
	} END { exit !ok }' "$out/coverage/coverage.txt"
}

# kernel_doc_clean: kernel-doc finds nothing wrong, and every exported
# function of the modules has a kernel-doc comment
kernel_doc_clean() {
	local f sym bad=0

	perl "$src/scripts/kernel-doc" -none -Werror module/*.c harness/*.c \
		takeover/*.c include/cqpool/*.h include/uapi/linux/cqpool.h || return 1
	for f in module/*.c harness/*.c takeover/*.c; do
		for sym in $(sed -n 's/^EXPORT_SYMBOL[A-Z_]*(\([a-z0-9_]*\)[,)].*/\1/p' "$f"); do
			# An exported variable is documented where it is declared.
			grep -q "^[a-z].* $sym\( = .*\)\?;$" "$f" && continue
			grep -q "^ \* $sym() - " "$f" ||
				{ echo "$f: $sym is exported without kernel-doc"; bad=1; }
		done
	done
	return $bad
}

sparse_clean() {
	scripts/kbuild.sh "$1" "$2" C=2 >"$out/sparse.raw" 2>&1 || return 1
	cat "$out/sparse.raw"
	! grep -E "^$top/build/kbuild-$1/.*(warning|error):" "$out/sparse.raw"
}

# counts KIND ARGS...: "P F S NOTE" lines from scripts/cqcheck, which
# holds the rules by which a test's output counts, and their own tests
counts() {
	PYTHONPATH=$top/scripts python3 -m cqcheck "$@"
}

# gtest NAME TARGET: a GoogleTest binary run by make TARGET, counted by its
# summary and its exit status (LeakSanitizer reports after the summary)
gtest() {
	local log=$out/${1//:/-}.log p f s note rc

	make -C userspace OUT="$out/userspace" "$2" >"$log" 2>&1
	rc=$?
	read -r p f s note <<<"$(counts gtest "$log" "$rc")"
	record "$1" "$p" "$f" "${note:-$log}"
}

# section FILE NAME: the lines of one payload section of a results log
section() {
	tr -d '\r' <"$1" | awk -v name="$2" '
		$0 == "@@begin " name { on = 1; next }
		index($0, "@@end " name " ") == 1 { on = 0 }
		on'
}

section_rc() {
	tr -d '\r' <"$1" | sed -n "s/^@@end $2 rc=\([0-9]*\)$/\1/p"
}

# vm LABEL KIND PAYLOAD: boot a kernel of KIND (stock, debug or kcsan;
# which one: CQPOOL_STOCK_VERSION, CQPOOL_KERNEL_SERIES), then count its
# KUnit and kselftest results, as vm:LABEL:...
vm() {
	vm_boot "$@"
	vm_count "$1" "$3" $?
}

# vm_boot LABEL KIND PAYLOAD: the boot alone; its status is vm/run.sh's
vm_boot() {
	CQPOOL_VM_QUIET=1 vm/run.sh "$2" "$3" "$out/vm-$1" >"$out/vm-$1.log" 2>&1
}

# vm_count LABEL PAYLOAD STATUS: the results of a boot of PAYLOAD
vm_count() {
	local label=$1 payload=$2 rc=$3 vmout=$out/vm-$1 name res p f s
	local tag ko note

	res=$vmout/results.log
	[ -f "$res" ] || : >"$res"

	# The KUnit suites, then the removal races, a module of their own:
	# a payload that has one must show its results.
	for tag in kunit races; do
		ko=cqpool_kunit.ko
		[ "$tag" = races ] && ko=cqpool_race_kunit.ko
		if grep -q "cqpool-$tag-begin" "$vmout/console.log"; then
			read -r p f s note <<<"$(counts kunit "$vmout/console.log" \
				"$tag" "$src/tools/testing/kunit/kunit.py" "$vmout" \
				"$payload/expect")"
			skipped=$((skipped + s))
			record "vm:$label:$tag" "$p" "$f" "${note:-$vmout/$tag.txt}"
		elif [ -f "$payload/$ko" ]; then
			record "vm:$label:$tag" 0 1 "no KUnit results; see $vmout"
		fi
	done

	# Each kselftest binary that ran, then each expected that did not
	while read -r name p f s note; do
		skipped=$((skipped + s))
		record "vm:$label:$name" "$p" "$f" "$note"
	done < <(counts kselftests "$res" "$payload/expect")

	if [ $rc -eq 0 ]; then
		record "vm:$label:clean-run" 1 0
	else
		record "vm:$label:clean-run" 0 1 "status $rc; see $vmout.log"
		tail -n 15 "$vmout.log" | sed 's/^/    /'
	fi
}

# payload KIND KBUILD_DIR: what the VM gets in /payload
payload() {
	local dir=$top/build/payload-$1

	rm -rf "$dir"
	mkdir -p "$dir/selftests"
	cp "$2"/*.ko "$dir/" &&
		cp vm/payload-tests.sh "$dir/run.sh" &&
		cp "$out/userspace/cqpoolctl" "$dir/" &&
		cp build/selftests/* "$dir/selftests/"
}

# kunit_suites FILE...: the names of the KUnit suites FILE... declare
kunit_suites() {
	awk '/^static struct kunit_suite [a-z_]+ = \{$/ { on = 1; next }
		on && match($0, /\.name = "[^"]+"/) {
			print substr($0, RSTART + 9, RLENGTH - 10); on = 0 }' "$@"
}

# expect DIR KIND SMP: DIR/expect, what the boot of payload DIR on a
# kernel of KIND with SMP vCPUs must report (scripts/cqcheck/expect.py):
# each kselftest it runs, each suite of its KUnit modules, and which may
# skip everything there, and why.  Anything missing then fails.
expect() {
	local dir=$1 t

	{
		for t in $(cat "$dir/only" 2>/dev/null || ls "$dir/selftests"); do
			case $t:$2:$3 in
			fault_test:stock:*)
				echo "kselftest:$t may-skip: Debian's kernels have no FAILSLAB fault injection" ;;
			hotplug_test:*:[12])
				echo "kselftest:$t may-skip: $3 vCPUs; CPU hotplug has a 4-vCPU boot of its own" ;;
			*) echo "kselftest:$t" ;;
			esac
		done
		[ ! -f "$dir/cqpool_kunit.ko" ] ||
			kunit_suites $(ls kunit/*_test.c | grep -v removal_race) |
			sed 's/^/kunit:/'
		[ ! -f "$dir/cqpool_race_kunit.ko" ] ||
			kunit_suites kunit/removal_race_test.c | sed 's/^/races:/'
	} >"$dir/expect"
}

echo "== cqpool check ($mode)"

# The kernels vm/kernel.sh builds, none of them cached on a fresh machine,
# are built from the start in the background, at the lowest priority: they
# take what the steps before them leave idle of the 2 cores (a guest
# waiting on its timers, a test that sleeps).  A step that needs one waits
# for it on kernel.sh's lock; a cached one costs nothing.
if [ "$mode" != fast ]; then
	{ nice -n 19 vm/kernel.sh debug &&
	  CQPOOL_KERNEL_SERIES=6.12 nice -n 19 vm/kernel.sh debug &&
	  { [ "$mode" != all ] || nice -n 19 vm/kernel.sh kcsan; }; } \
		>/dev/null 2>"$out/kernels-background.log" &
	prefetch=$!
fi

if ! src=$(vm/kernel.sh source 2>"$out/source.log"); then
	record "kernel-source" 0 1 "see $out/source.log"
	echo "$passed passed, $failed failed"
	exit 1
fi

# shellcheck disable=SC2046  # the headers: a list
step lint:checkpatch perl "$src/scripts/checkpatch.pl" --strict --no-tree \
	--quiet --show-types -f module/*.c \
	$(printf '%s\n' module/*.h | grep -vx module/cqpool_trace.h) \
	harness/*.c harness/*.h takeover/*.c kunit/*.c kunit/*.h \
	include/cqpool/*.h include/uapi/linux/*.h selftests/*.c selftests/*.h \
	selftests/host/*.c
# The trace header is laid out as TRACE_EVENT() wants, which checkpatch
# reads as lines left open and arguments out of line, as it does every
# header of include/trace/events/: those two checks are all it is spared.
step lint:checkpatch-trace perl "$src/scripts/checkpatch.pl" --strict \
	--no-tree --quiet --show-types \
	--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f module/cqpool_trace.h
step lint:kernel-doc kernel_doc_clean

stock_ver=$(vm/run.sh --print-stock-version)
stock_kdir=/usr/src/linux-headers-$stock_ver
kernels=$(scripts/kernels.sh)
step build:stock kbuild stock "$stock_kdir"
# Kernels since 2026 have no kernel-side CQ resize (ib_resize_cq() is
# gone, the op is resize_user_cq): the build for one, with Kbuild's
# feature test told so, must refer to no ib_resize_cq, where the stock
# build's harness does (its GROWTH benchmark), so the switch is proven
# both ways.
no_kernel_resize() {
	kbuild no-kernel-resize "$stock_kdir" CQPOOL_NO_KERNEL_RESIZE=1 ||
		return 1
	nm -u build/kbuild-stock/*.ko | grep -w ib_resize_cq ||
		{ echo "the stock build calls no ib_resize_cq: this proves nothing"; return 1; }
	! nm -u build/kbuild-no-kernel-resize/*.ko | grep -w ib_resize_cq
}
step build:no-kernel-resize no_kernel_resize
# Every other supported kernel whose headers are installed (6.12): the
# same warning-free build.
for v in $kernels; do
	[ "$v" = "$stock_ver" ] || step "build:$v" kbuild "$v" "/usr/src/linux-headers-$v"
done
step build:cqpoolctl make -C userspace OUT="$out/userspace" cqpoolctl
step build:selftests make -C selftests \
	KSFT_DIR="$src/tools/testing/selftests" OUT="$top/build/selftests"

# The checks themselves, fed the bad cases: the rules by which make check
# counts (scripts/cqcheck) and the kselftests' own (selftests/verdict.h).
checks_tested() {
	local log=$out/checks-cqcheck.log p f s note rc

	CQPOOL_KUNIT_PY=$src/tools/testing/kunit/kunit.py \
		counts selftest 2>"$log" >"$log.counts"
	read -r p f s note <"$log.counts"
	skipped=$((skipped + ${s:-0}))
	record checks:cqcheck "${p:-0}" "${f:-1}" "${note:-$log}"
	make -C selftests KSFT_DIR="$src/tools/testing/selftests" \
		OUT="$top/build/selftests" host-check >"$out/checks-verdict.log" 2>&1
	rc=$?
	read -r p f s note <<<"$(counts kselftest-tap "$out/checks-verdict.log" "$rc")"
	record checks:selftest-verdicts "$p" "$f" "${note:-$out/checks-verdict.log}"
}
checks_tested
# make bench's report (scripts/benchreport): its tests, the committed
# BENCHMARKS.md rendered again from bench/results.json among them, and no
# figure in its templates' prose.
step checks:benchreport env PYTHONPATH="$top/scripts" python3 -m benchreport selftest
step lint:bench-templates env PYTHONPATH="$top/scripts" python3 -m benchreport lint

# The other stock kernels installed (6.12, 6.12-rt): every kselftest, with
# the modules of build:VERSION; make check runs SUBSET_612_RT on 6.12-rt.
# Their guests run on one host thread each (ACCEL_612), so they boot one
# after the other in the background from here, on the core that the
# steps up to 6.1's boot leave idle (lint, the userspace tests, each
# mostly on one thread), and are counted after 6.1's.
stock612=()
for v in $kernels; do
	[ "$v" != "$stock_ver" ] && [ -r "/boot/vmlinuz-$v" ] || continue
	label=$(kernel_label "$v")
	if payload "$label" "build/kbuild-$v"; then
		[ "$label" != 6.12-rt ] || [ "$mode" = all ] ||
			echo "$SUBSET_612_RT" >"build/payload-$label/only"
		expect "build/payload-$label" stock 2
		stock612+=("$v")
	else
		record "vm:$label" 0 1 "payload not built"
	fi
done
stock612_job() {
	local v label

	for v in "${stock612[@]}"; do
		label=$(kernel_label "$v")
		CQPOOL_STOCK_VERSION=$v CQPOOL_VM_ACCEL=$ACCEL_612 \
			vm_boot "$label" stock "build/payload-$label"
		echo $? >"$out/vm-$label.rc"
	done
}
stock612_job &
stock612_pid=$!

step lint:sparse sparse_clean stock "$stock_kdir"
# The README's porting example: its diff applies to 6.1's nvme-rdma and
# builds against cqpool.
step build:porting-example scripts/porting-check.sh "$src" "$stock_kdir"
step lint:cxx-freestanding scripts/cxx-check.sh \
	build/kbuild-stock/module/core/*.o build/kbuild-stock/harness/core/*.o

gtest userspace:gtest test
gtest userspace:cqpoolctl-gtest cqpoolctl-test
step userspace:fuzz make -C userspace OUT="$out/userspace" FUZZ_TIME=30 \
	fuzz-run

# 6.1, Debian 12's kernel: every kselftest.
if payload 6.1 build/kbuild-stock; then
	expect build/payload-6.1 stock 2
	vm 6.1 stock build/payload-6.1
else
	record vm:6.1 0 1 "payload not built"
fi

wait "$stock612_pid"
for v in "${stock612[@]}"; do
	label=$(kernel_label "$v")
	vm_count "$label" "build/payload-$label" \
		"$(cat "$out/vm-$label.rc" 2>/dev/null || echo 1)"
done

# DKMS, in a tree of its own (nothing of the system's changes): cqpool
# added, built and installed for each supported kernel, then found by
# modprobe in a VM of each kernel that has an image here.
dkms_vm() { # VERSION
	local p=$top/build/payload-dkms accel=tcg

	# 6.12 on one host thread, as every 6.12 guest (ACCEL_612): a CI
	# run saw this boot end in "Oops: int3" under multi-threaded TCG.
	[[ $(kernel_label "$1") != 6.12* ]] || accel=$ACCEL_612
	rm -rf "$p" && mkdir -p "$p" && cp vm/payload-dkms.sh "$p/run.sh" &&
		CQPOOL_STOCK_VERSION=$1 CQPOOL_VM_MODULES=$top/build/dkms \
		CQPOOL_VM_ACCEL=$accel CQPOOL_VM_QUIET=1 \
		vm/run.sh stock "$p" "$out/vm-dkms-$1"
}
# shellcheck disable=SC2086  # $kernels: a list
if step dkms:install scripts/dkms.sh -r build/dkms $kernels; then
	for v in $kernels; do
		if [ -r "/boot/vmlinuz-$v" ]; then
			step "vm:dkms-$v" dkms_vm "$v"
		else
			echo "    (no /boot/vmlinuz-$v: the DKMS build for $v is not booted)"
		fi
	done
fi

# CPU hotplug wants more CPUs than the other tests: a VM of its own.
if payload 6.1-smp4 build/kbuild-stock; then
	echo hotplug_test >build/payload-6.1-smp4/only
	expect build/payload-6.1-smp4 stock 4
	CQPOOL_VM_SMP=4 vm 6.1-smp4 stock build/payload-6.1-smp4
else
	record vm:6.1-smp4 0 1 "payload not built"
fi

if [ "$mode" != fast ]; then
	if debug_dir=$(vm/kernel.sh debug 2>"$out/debug-kernel.log"); then
		# With GCOV: the C++ check below then also proves that the
		# core got none of gcov's constructors.
		step build:debug kbuild debug "$debug_dir/build" CQPOOL_GCOV=1 \
			CQPOOL_RACE_REMOVALS="$RACE_REMOVALS"
		step lint:cxx-freestanding-debug scripts/cxx-check.sh \
			build/kbuild-debug/module/core/*.o \
			build/kbuild-debug/kunit/core/*.o \
			build/kbuild-debug/harness/core/*.o
		if payload 6.1-debug build/kbuild-debug; then
			expect build/payload-6.1-debug debug 2
			# Twice vm/run.sh's 1800 s: on a fresh machine the
			# 6.12 debug kernel builds beside it, and one such
			# run took 1.7 times as long as the one before it
			# (the races 1183 s, not 662 s), past 1800 s.
			CQPOOL_VM_TIMEOUT=3600 \
				vm 6.1-debug debug build/payload-6.1-debug
			step coverage coverage_met
			sed 's/^/    /' "$out/coverage/coverage.txt" 2>/dev/null
		else
			record vm:6.1-debug 0 1 "payload not built"
		fi
	else
		record debug-kernel 0 1 "see $out/debug-kernel.log"
	fi
fi

# The debug kernel of linux-source-6.12.  make check: KUnit and
# SUBSET_612_DEBUG, with no removal races (6.1's debug kernel races the
# same code); make check-all: everything.  Its guest runs on one host
# thread (ACCEL_612), so the job goes in the background here, beside
# blktests' boots, which leave it the other core, and is counted after
# them.  Its kernel, built in the background since the start, may not be
# there yet: the job waits for it, the steps in between do not.  How far
# the job got: $out/debug-6.12.phase.
debug612_job() {
	local dir p=build/payload-6.12-debug phase=$out/debug-6.12.phase

	echo kernel >"$phase"
	dir=$(CQPOOL_KERNEL_SERIES=6.12 vm/kernel.sh debug \
	      2>"$out/debug-6.12-kernel.log") || return
	echo build >"$phase"
	kbuild debug-6.12 "$dir/build" >"$out/build-debug-6.12.log" 2>&1 ||
		return
	echo payload >"$phase"
	payload 6.12-debug build/kbuild-debug-6.12 || return
	if [ "$mode" = full ]; then
		rm "$p/cqpool_race_kunit.ko"
		echo "$SUBSET_612_DEBUG" >"$p/only"
		echo "CQPOOL_REMOVAL_SKIP=$REMOVAL_SKIP_612_DEBUG" >"$p/env"
	fi
	expect "$p" debug 2
	echo vm >"$phase"
	CQPOOL_KERNEL_SERIES=6.12 CQPOOL_VM_ACCEL=$ACCEL_612 \
		vm_boot 6.12-debug debug "$p"
}

# debug612_count STATUS: the job's results
debug612_count() {
	case $(cat "$out/debug-6.12.phase") in
	kernel) record debug-6.12-kernel 0 1 "see $out/debug-6.12-kernel.log" ;;
	build) record build:debug-6.12 0 1 "see $out/build-debug-6.12.log" ;;
	payload)
		record build:debug-6.12 1 0
		record vm:6.12-debug 0 1 "payload not built" ;;
	vm)
		record build:debug-6.12 1 0
		vm_count 6.12-debug build/payload-6.12-debug "$1" ;;
	esac
}

if [ "$mode" != fast ]; then
	debug612_job &
	debug612=$!
fi

# blktests, a subset that fits CI (make blktests runs both groups whole),
# each test on upstream's pool and on the takeover; their verdicts count
# here.  Why these tests: TESTING.md, "make check".
blktests() { # KIND TESTS
	local log=$out/blktests-$1.log p f

	scripts/blktests.sh -t "$2" -p "$2" -o "$out/blktests-$1" "$1" >"$log" 2>&1
	grep -E '^blktests:|^[a-z]+: blktests upstream:|^    ' "$log"
	read -r p f <<<"$(tail -n 1 "$log" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
	[ -n "$p" ] || { p=0; f=1; }
	record "blktests:$1" "$p" "$f" "$log"
}
blktests stock "$BLKTESTS_STOCK"
# On a fresh machine the 6.12 debug kernel, built at nice 19, is the
# run's last wait, and its boot has one host thread.  The debug kernel's
# blktests boots wait for that boot and run beside it, on the other core:
# run before it, they took the cores from that build and left one idle
# through the boot.
if [ -n "${debug612:-}" ]; then
	while kill -0 "$debug612" 2>/dev/null &&
	      [ "$(cat "$out/debug-6.12.phase")" != vm ]; do
		sleep 5
	done
fi
[ "$mode" != fast ] && blktests debug "$BLKTESTS_DEBUG"

if [ -n "${debug612:-}" ]; then
	wait "$debug612"
	debug612_count $?
fi

# The soak, 3 minutes of it on the debug kernel (make soak runs 30):
# connections made and torn down with fio, the takeover off and on,
# reclaim and a removal in each of its 4 intervals, and every count back
# where it started.  Its verdicts count here (TESTING.md, "The soak").
if [ "$mode" != fast ]; then
	log=$out/soak.log
	scripts/soak.sh -m "${SOAK_MINUTES:-3}" -c 4 -o "$out/soak" \
		-k build/kbuild-debug >"$log" 2>&1
	grep -E '^soak' "$log" | sed 's/^/    /'
	read -r p f <<<"$(tail -n 1 "$log" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
	[ -n "$p" ] || { p=0; f=1; }
	record soak "$p" "$f" "$log"
fi

# KCSAN and KASAN exclude each other: the race detector has a kernel of
# its own.  Only races in cqpool's code fail; the others are counted.
# make check-all only, for CI's budget (TESTING.md, "Kernels").
if [ "$mode" = all ]; then
	if kcsan_dir=$(vm/kernel.sh kcsan 2>"$out/kcsan-kernel.log"); then
		step build:kcsan kbuild kcsan "$kcsan_dir/build" \
			CQPOOL_RACE_REMOVALS="$RACE_REMOVALS"
		if payload 6.1-kcsan build/kbuild-kcsan; then
			# KUnit, the races, and the kselftests of the ULPs'
			# paths through cqpool: the rest of the kselftests
			# repeat the KUnit suites' code at CI's expense.
			echo "removal_test takeover_cycle_test nvmeof_test" \
				>build/payload-6.1-kcsan/only
			expect build/payload-6.1-kcsan kcsan 2
			vm 6.1-kcsan kcsan build/payload-6.1-kcsan
			races=$out/vm-6.1-kcsan/kcsan-other.log
			[ -f "$races" ] &&
				echo "    ($(grep -c 'BUG: KCSAN:' "$races") KCSAN reports of races outside cqpool's code, not failures: $races)"
		else
			record vm:6.1-kcsan 0 1 "payload not built"
		fi
	else
		record kcsan-kernel 0 1 "see $out/kcsan-kernel.log"
	fi
fi

[ -z "${prefetch:-}" ] || wait "$prefetch"
kernel_table >"$out/kernels.txt"
echo "== the VM results per kernel (build/check/kernels.txt)"
sed 's/^/    /' "$out/kernels.txt"
failure_digest
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
