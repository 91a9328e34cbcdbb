#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh full|fast|all - every test of cqpool, with one count at the end.
#
#   lint       checkpatch --strict, sparse, W=1, the C++ symbol/section check
#   build      the modules for every supported kernel installed: the test
#              build, and the build for a real machine with its symbols
#              checked
#   checks     the rules by which this counts, and the report's templates,
#              fed their bad cases
#   userspace  the core's GoogleTest suite under ASan/UBSan, and 30 s of
#              libFuzzer on the pool ledger
#   the VMs    every row of vm/matrix.toml for the mode, which says which
#              kernel runs what, and why; scripts/cqcheck/runner.py runs
#              them on the cores there are, from the builds on, beside the
#              steps after them
#
# fast is the stock kernels only; full is make check, all make check-all.
# Every level adds its tests to the count; a VM run also counts as a test
# of its own that fails on any splat in its console.  The last line is
# "N passed, N failed"; the exit status is non-zero if anything failed.
# Logs: build/check/; the VM results per kernel: build/check/kernels.txt.
set -uo pipefail

mode=${1:-full}
# The debug VM's line coverage of module/*.c must be at least this (the
# runner's coverage step).
export CQPOOL_COVERAGE_MIN=${CQPOOL_COVERAGE_MIN:-90}
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

# kernel_doc_clean: kernel-doc finds nothing wrong, and every exported
# function of the modules has a kernel-doc comment
kernel_doc_clean() {
	local f sym bad=0

	perl "$src/scripts/kernel-doc" -none -Werror module/*.c harness/*.c \
		takeover/*.c include/cqpool/*.h harness/uapi/linux/cqpool.h || return 1
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

echo "== cqpool check ($mode)"

# The kernels vm/kernel.sh builds, none of them cached on a fresh machine,
# are built from the start in the background, at the lowest priority: they
# take what the steps before them leave idle of the 2 cores (a guest
# waiting on its timers, a test that sleeps).  A step that needs one waits
# for it on kernel.sh's lock; a cached one costs nothing.
if [ "$mode" != fast ]; then
	{ nice -n 19 vm/kernel.sh debug &&
	  nice -n 19 vm/kernel.sh kcsan &&
	  CQPOOL_KERNEL_SERIES=6.12 nice -n 19 vm/kernel.sh debug; } \
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
	harness/*.c harness/*.h takeover/*.c takeover/*.h kunit/*.c kunit/*.h \
	include/cqpool/*.h selftests/*.c selftests/*.h selftests/host/*.c
# The ioctl ABI is a uapi header, which user space compiles: it cannot use
# BIT(), which checkpatch spares only headers under include/uapi/.
step lint:checkpatch-uapi perl "$src/scripts/checkpatch.pl" --strict \
	--no-tree --quiet --show-types --ignore BIT_MACRO \
	-f harness/uapi/linux/cqpool.h
# The trace header is laid out as TRACE_EVENT() wants, which checkpatch
# reads as lines left open and arguments out of line, as it does every
# header of include/trace/events/: those two checks are all it is spared.
step lint:checkpatch-trace perl "$src/scripts/checkpatch.pl" --strict \
	--no-tree --quiet --show-types \
	--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f module/cqpool_trace.h
step lint:kernel-doc kernel_doc_clean
# The version, said in include/cqpool/cqpool.h (MODULE_VERSION), dkms.conf
# and debian/changelog, is one.
step lint:version scripts/version-check.sh

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
# The build for a real machine (make, DKMS) is cqpool.ko and
# cqpool_takeover.ko with no test surface (Kbuild): cqpool.ko exports
# what include/cqpool/ declares, and the trace events the takeover
# fires, the takeover nothing; no CQPOOL_HARNESS namespace, no KUnit
# symbol, no placement pad.  The stock build, for the VMs, is the test
# build; so is every other here.
production_clean() {
	local d=build/kbuild-production sym bad=0

	no_warnings "$out/kbuild-production" scripts/kbuild.sh --production \
		production "$stock_kdir" W=1 || return 1
	[ "$(cd "$d" && echo *.ko)" = "cqpool.ko cqpool_takeover.ko" ] ||
		{ echo "modules built: $(cd "$d" && echo *.ko)"; bad=1; }
	grep -al CQPOOL_HARNESS "$d"/*.ko && bad=1
	nm "$d"/*.ko | grep -Ei 'kunit|text_pad' && bad=1
	nm "$d/cqpool_takeover.ko" | grep ' __ksymtab_' && bad=1
	for sym in $(nm "$d/cqpool.ko" | sed -n 's/.* __ksymtab_//p'); do
		case $sym in
		__SCK__tp_func_cqpool_* | __SCT__tp_func_cqpool_* | \
		__traceiter_cqpool_* | __tracepoint_cqpool_*) ;;
		*) grep -qw "$sym" include/cqpool/*.h ||
			{ echo "exported, not in include/cqpool/: $sym"; bad=1; } ;;
		esac
	done
	[ "$bad" = 0 ]
}
step build:production production_clean
# Every other supported kernel whose headers are installed (6.12): the
# same warning-free build.
for v in $kernels; do
	[ "$v" = "$stock_ver" ] ||
		step "build:$v" kbuild "$(kernel_label "$v")" "/usr/src/linux-headers-$v"
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
# The freestanding check refuses what it must (and passes KCSAN's own
# constructor).
step checks:cxx-check scripts/cxx-check-selftest.sh
# make bench's report (scripts/benchreport): its tests, the committed
# BENCHMARKS.md rendered again from bench/results.json among them, and no
# figure in its templates' prose.
step checks:benchreport env PYTHONPATH="$top/scripts" python3 -m benchreport selftest
step lint:bench-templates env PYTHONPATH="$top/scripts" python3 -m benchreport lint
# TESTING.md's table of kernels is vm/matrix.toml's.
step checks:matrix-table env PYTHONPATH="$top/scripts" python3 -m cqcheck \
	matrix-table TESTING.md --check
# README's NVMe-oF table is what make bench's results.json makes of it.
step checks:readme-bench env PYTHONPATH="$top/scripts" python3 -m benchreport \
	readme --json bench/results.json --file README.md --check

# The VMs: every row of vm/matrix.toml for this mode, from here on, beside
# the steps below (the runner takes the cores as its rows boot; the
# steps below are mostly one thread each).
counts matrix-run "$mode" "$out" "$src" >"$out/matrix.log" 2>&1 &
matrix_pid=$!

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

echo "== the VMs (vm/matrix.toml, $mode; the runner's log: $out/matrix.log)"
wait "$matrix_pid"
grep '^    \[' "$out/matrix.log"
if [ -f "$out/matrix-records.tsv" ]; then
	while IFS=$'\t' read -r name p f s note; do
		skipped=$((skipped + s))
		record "$name" "$p" "$f" "$note"
	done <"$out/matrix-records.tsv"
else
	record matrix 0 1 "the runner left no records; see $out/matrix.log"
	tail -n 20 "$out/matrix.log" | sed 's/^/    /'
fi
[ ! -f "$out/coverage/coverage.txt" ] || sed 's/^/    /' "$out/coverage/coverage.txt"
races=$out/vm-6.1-kcsan/kcsan-other.log
[ ! -f "$races" ] ||
	echo "    ($(grep -c 'BUG: KCSAN:' "$races") KCSAN reports of races outside cqpool's code, not failures: $races)"

[ -z "${prefetch:-}" ] || wait "$prefetch"
kernel_table >"$out/kernels.txt"
echo "== the VM results per kernel (build/check/kernels.txt)"
sed 's/^/    /' "$out/kernels.txt"
failure_digest
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
