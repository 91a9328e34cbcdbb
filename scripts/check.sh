#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh full|fast - every test of cqpool, with one count at the end.
#
#   lint       checkpatch --strict, sparse, W=1, the C++ symbol/section check
#   build      cqpool.ko for the stock kernel (and the debug kernel)
#   userspace  the core's GoogleTest suite under ASan/UBSan, and 30 s of
#              libFuzzer on the pool ledger
#   vm:stock   kselftests in QEMU on the stock Debian kernel
#   vm:debug   (full only) KUnit and kselftests on the debug kernel, with
#              KASAN, kmemleak and lockdep
#   vm:kcsan   (full only) KUnit, the races and the ULP kselftests on the
#              KCSAN kernel; a data race fails only if it is in cqpool's code
#   blktests   a few of blktests' tests on upstream's pool and on the
#              takeover, on the stock kernel (and the debug kernel)
#
# Every level adds its tests to the count; a VM run also counts as a test
# of its own that fails on any splat in its console.  The last line is
# "N passed, N failed"; the exit status is non-zero if anything failed.
# Logs: build/check/.
set -uo pipefail

mode=${1:-full}
BLKTESTS_STOCK=${BLKTESTS_STOCK:-nvme/003 srp/001}
BLKTESTS_DEBUG=${BLKTESTS_DEBUG:-nvme/003}
CQPOOL_COVERAGE_MIN=${CQPOOL_COVERAGE_MIN:-90}
case $mode in full|fast) ;; *) echo "usage: $0 full|fast" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"

passed=0
failed=0
skipped=0

# record NAME PASSED FAILED [NOTE]
record() {
	passed=$((passed + $2))
	failed=$((failed + $3))
	printf '%-28s %4d passed, %d failed%s\n' "$1" "$2" "$3" "${4:+  ($4)}"
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
# coverage) is at least CQPOOL_COVERAGE_MIN percent, HCA-only code apart
coverage_met() {
	scripts/coverage.sh "$out/vm-debug/results.log" build/kbuild-debug \
		"$out/coverage" || return 1
	awk -v min="$CQPOOL_COVERAGE_MIN" '$1 == "total" {
		sub(/%/, "", $5); ok = $5 + 0 >= min
		print "total " $5 "%, at least " min "%: " (ok ? "yes" : "no")
	} END { exit !ok }' "$out/coverage/coverage.txt"
}

# kernel_doc_clean: kernel-doc finds nothing wrong, and every exported
# function of the modules has a kernel-doc comment
kernel_doc_clean() {
	local f sym bad=0

	perl "$src/scripts/kernel-doc" -none -Werror module/*.c harness/*.c \
		takeover/*.c include/cqpool/*.h || return 1
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

# gtest_counts LOG: the counts of a GoogleTest run
gtest_counts() {
	local p f

	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1")
	echo "${p:-0} ${f:-0}"
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

# kunit_ktap CONSOLE TAG: the KTAP a KUnit module printed while it loaded,
# between the payload's cqpool-TAG-begin/-end markers (each module numbers
# its suites from 1), under the top-level header a module's suites are
# printed without
kunit_ktap() {
	local body

	body=$(tr -d '\r' <"$1" |
	       sed -n "/cqpool-$2-begin/,/cqpool-$2-end/p" |
	       grep -v "cqpool-$2-" | sed 's/^\[ *[0-9.]*\] //')
	echo "KTAP version 1"
	echo "1..$(grep -c '^    # Subtest:' <<<"$body")"
	echo "$body"
}

# kunit_counts KUNIT_TXT: passed, failed and skipped from kunit.py's
# summary; every test run that neither passed nor was skipped (failed,
# crashed) failed, and so does each parser error and a run of no test.
kunit_counts() {
	local line ran p s e

	line=$(grep 'Testing complete. Ran' "$1" | tail -n 1)
	ran=$(sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p' <<<"$line")
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$line")
	s=$(sed -n 's/.*skipped: \([0-9]*\).*/\1/p' <<<"$line")
	e=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$line")
	ran=${ran:-0} p=${p:-0} s=${s:-0} e=${e:-0}
	echo "$p $((ran - p - s + e + (ran == 0))) $s"
}

# vm KIND PAYLOAD [TAG]: boot KIND, then count its KUnit and kselftest
# results (as vm:KIND[-TAG]:...)
vm() {
	local kind=$1${3:+-$3} payload=$2 vmout=$out/vm-$1${3:+-$3} rc name res p f
	local tag krc

	CQPOOL_VM_QUIET=1 vm/run.sh "${kind%%-*}" "$payload" "$vmout" \
		>"$vmout.log" 2>&1
	rc=$?
	res=$vmout/results.log
	[ -f "$res" ] || : >"$res"

	# The KUnit suites, then the removal races, a module of their own.
	for tag in kunit races; do
		if grep -q "cqpool-$tag-begin" "$vmout/console.log"; then
			kunit_ktap "$vmout/console.log" "$tag" >"$vmout/$tag.ktap"
			python3 "$src/tools/testing/kunit/kunit.py" parse \
				"$vmout/$tag.ktap" >"$vmout/$tag.txt" 2>&1
			krc=$?
			read -r p f s <<<"$(kunit_counts "$vmout/$tag.txt")"
			# kunit.py failing with nothing counted failed too
			[ $krc -eq 0 ] || [ "$f" -gt 0 ] || f=1
			skipped=$((skipped + s))
			record "vm:$kind:$tag" "$p" "$f" "$vmout/$tag.txt"
		elif [ "$kind" = debug ] || [ "$kind" = kcsan ]; then
			record "vm:$kind:$tag" 0 1 "no KUnit results; see $vmout"
		fi
	done

	for name in $(sed -n 's/^@@begin \(kselftest:.*\)$/\1/p' "$res" |
		      tr -d '\r'); do
		local totals
		totals=$(section "$res" "$name" | grep '^# Totals:' | tail -n 1)
		# pass:P fail:F xfail:XF xpass:XP skip:S error:E
		local s
		read -r p f s <<<"$(echo "$totals" | sed -n \
			's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) xfail:\([0-9]*\) xpass:\([0-9]*\) skip:\([0-9]*\) error:\([0-9]*\)$/\1+\3 \2+\4+\6 \5/p')"
		p=$(( ${p:-0} ))
		f=$(( ${f:-0} ))
		skipped=$((skipped + ${s:-0}))
		# A binary that died before its totals, or exited non-zero
		# with no failure counted, still failed.
		if [ -z "$totals" ] ||
		   { [ "$(section_rc "$res" "$name")" != 0 ] && [ "$f" -eq 0 ]; }
		then
			f=$((f + 1))
		fi
		record "vm:$kind:${name#kselftest:}" "$p" "$f"
	done

	if [ $rc -eq 0 ]; then
		record "vm:$kind:clean-run" 1 0
	else
		record "vm:$kind:clean-run" 0 1 "status $rc; see $vmout.log"
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

echo "== cqpool check ($mode)"

if ! src=$(vm/kernel.sh source 2>"$out/source.log"); then
	record "kernel-source" 0 1 "see $out/source.log"
	echo "$passed passed, $failed failed"
	exit 1
fi

step lint:checkpatch perl "$src/scripts/checkpatch.pl" --strict --no-tree \
	--quiet --show-types -f module/*.c module/*.h harness/*.c harness/*.h \
	takeover/*.c kunit/*.c kunit/*.h \
	include/cqpool/*.h include/uapi/linux/*.h selftests/*.c selftests/*.h
step lint:kernel-doc kernel_doc_clean

stock_ver=$(vm/run.sh --print-stock-version)
stock_kdir=/usr/src/linux-headers-$stock_ver
step build:stock kbuild stock "$stock_kdir"
# Every other supported kernel whose headers are installed (6.12): the
# same warning-free build.
for v in $(scripts/kernels.sh); do
	[ "$v" = "$stock_ver" ] || step "build:$v" kbuild "$v" "/usr/src/linux-headers-$v"
done
step lint:sparse sparse_clean stock "$stock_kdir"
step lint:cxx-freestanding scripts/cxx-check.sh \
	build/kbuild-stock/module/core/*.o

make -C userspace OUT="$out/userspace" test >"$out/userspace.log" 2>&1
read -r p f <<<"$(gtest_counts "$out/userspace.log")"
[ "$p$f" != 00 ] || f=1
record userspace:gtest "$p" "$f" "$out/userspace.log"

make -C userspace OUT="$out/userspace" cqpoolctl-test \
	>"$out/cqpoolctl-test.log" 2>&1
read -r p f <<<"$(gtest_counts "$out/cqpoolctl-test.log")"
[ "$p$f" != 00 ] || f=1
record userspace:cqpoolctl-gtest "$p" "$f" "$out/cqpoolctl-test.log"
step build:cqpoolctl make -C userspace OUT="$out/userspace" cqpoolctl

step userspace:fuzz make -C userspace OUT="$out/userspace" FUZZ_TIME=30 \
	fuzz-run

step build:selftests make -C selftests \
	KSFT_DIR="$src/tools/testing/selftests" OUT="$top/build/selftests"

if payload stock build/kbuild-stock; then
	vm stock build/payload-stock
else
	record vm:stock 0 1 "payload not built"
fi

# DKMS, in a tree of its own (nothing of the system's changes): cqpool
# added, built and installed for each supported kernel, then found by
# modprobe in a VM of each kernel that has an image here.
dkms_vm() { # VERSION
	local p=$top/build/payload-dkms

	rm -rf "$p" && mkdir -p "$p" && cp vm/payload-dkms.sh "$p/run.sh" &&
		CQPOOL_STOCK_VERSION=$1 CQPOOL_VM_MODULES=$top/build/dkms \
		CQPOOL_VM_QUIET=1 vm/run.sh stock "$p" "$out/vm-dkms-$1"
}
if step dkms:install scripts/dkms.sh -r build/dkms $(scripts/kernels.sh); then
	for v in $(scripts/kernels.sh); do
		if [ -r "/boot/vmlinuz-$v" ]; then
			step "vm:dkms-$v" dkms_vm "$v"
		else
			echo "    (no /boot/vmlinuz-$v: the DKMS build for $v is not booted)"
		fi
	done
fi

# CPU hotplug wants more CPUs than the other tests: a VM of its own.
if payload stock-smp4 build/kbuild-stock; then
	echo hotplug_test >build/payload-stock-smp4/only
	CQPOOL_VM_SMP=4 vm stock build/payload-stock-smp4 smp4
else
	record vm:stock-smp4 0 1 "payload not built"
fi

if [ "$mode" = full ]; then
	if debug_dir=$(vm/kernel.sh debug 2>"$out/debug-kernel.log"); then
		# With GCOV: the C++ check below then also proves that the
		# core got none of gcov's constructors.
		step build:debug kbuild debug "$debug_dir/build" CQPOOL_GCOV=1
		step lint:cxx-freestanding-debug scripts/cxx-check.sh \
			build/kbuild-debug/module/core/*.o \
			build/kbuild-debug/kunit/core/*.o
		if payload debug build/kbuild-debug; then
			vm debug build/payload-debug
			step coverage coverage_met
			sed 's/^/    /' "$out/coverage/coverage.txt" 2>/dev/null
		else
			record vm:debug 0 1 "payload not built"
		fi
	else
		record debug-kernel 0 1 "see $out/debug-kernel.log"
	fi

	# KCSAN and KASAN exclude each other: the race detector has a kernel
	# of its own.  Only races in cqpool's code fail; the others are counted.
	if kcsan_dir=$(vm/kernel.sh kcsan 2>"$out/kcsan-kernel.log"); then
		step build:kcsan kbuild kcsan "$kcsan_dir/build"
		if payload kcsan build/kbuild-kcsan; then
			# KUnit, the races, and the kselftests of the ULPs'
			# paths through cqpool: the rest of the kselftests
			# repeat the KUnit suites' code at CI's expense.
			echo "removal_test takeover_cycle_test nvmeof_test" \
				>build/payload-kcsan/only
			vm kcsan build/payload-kcsan
			races=$out/vm-kcsan/kcsan-other.log
			[ -f "$races" ] &&
				echo "    ($(grep -c 'BUG: KCSAN:' "$races") KCSAN reports of races outside cqpool's code, not failures: $races)"
		else
			record vm:kcsan 0 1 "payload not built"
		fi
	else
		record kcsan-kernel 0 1 "see $out/kcsan-kernel.log"
	fi
fi

# blktests, a subset that fits CI (make blktests runs both groups whole),
# each test on upstream's pool and on the takeover; their verdicts count
# here.  Why these tests: README.md, "blktests".
blktests() { # KIND TESTS
	local log=$out/blktests-$1.log p f

	scripts/blktests.sh -t "$2" -o "$out/blktests-$1" "$1" >"$log" 2>&1
	grep -E '^blktests:|^[a-z]+: blktests upstream:|^    ' "$log"
	read -r p f <<<"$(tail -n 1 "$log" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
	[ -n "$p" ] || { p=0; f=1; }
	record "blktests:$1" "$p" "$f" "$log"
}
blktests stock "$BLKTESTS_STOCK"
[ "$mode" = full ] && blktests debug "$BLKTESTS_DEBUG"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
