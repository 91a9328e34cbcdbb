#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# blktests.sh [-t "TESTS"] [-p "TESTS"] [-o OUT] [-s SIZE] [-T SECONDS] [-j N] [-k FILE] KIND... -
# blktests' nvme/ (NVMe-oF over rdma) and srp/ groups over soft-RoCE, on
# upstream's CQ pool and on cqpool's takeover, one VM boot per kernel and
# mode.
#
#   KIND   stock | debug (vm/run.sh's kernels)
#   -t     what ./check runs (default "nvme srp": both groups, whole)
#   -p     tests that must pass in both modes: a skip fails them too
#          (make check's subset, where a skip would mean nothing ran)
#   -o     output dir (default build/blktests)
#   -s     NVME_IMG_SIZE, blktests' own knob (default 350m: the least any
#          test requires, nvme/012's; its 1G default makes one fio
#          verify over rdma 6 minutes under TCG)
#   -T     TIMEOUT, blktests' own knob (default 30, its documentation's
#          quick run): the longest a TIMED test's fio runs.  Without it,
#          nvme/010 alone verifies for 5 minutes a device under TCG.
#   -j     boots of a kernel run at once (default 1): 2 runs its two
#          modes side by side, a core each, where nothing else runs; not
#          for the debug kernel, whose SRP re-logins it slows past the
#          guests' hung-task threshold (TESTING.md)
#   -k     a BLKTESTS.md to add this run to: a kernel this run does not
#          try keeps its section; one it tries keeps the rows of the tests
#          this run does not run, each naming the run it came from
#
# The suite is vm/blktests/, an unmodified snapshot (vm/blktests.SOURCE),
# run as it is: its own ./check, with USE_RXE=1 NVMET_TRTYPES=rdma, in a
# guest whose userland is the host's (CQPOOL_VM_ROOT=host).  For each test
# it prints one line per mode, then per kernel
#   blktests upstream: N passed, N failed, N skipped; takeover: N passed, ...
# The verdicts that count (scripts/cqcheck/blktests.py, with tests of
# their own): every test asked for is reported by both boots; a test
# upstream passes, the takeover passes; one upstream skips, the takeover
# does not fail; one upstream fails as well is listed, and does not fail;
# something passed upstream.  So do each boot's console (no splat, no hung
# task; on the debug kernel kmemleak scanned at the end), the proof that
# the takeover's boot ran on cqpool (its reservations, cqpool's CQs, and
# none in ib_core's own pool), and cqpool's totals after the idle
# timeout, which must be 0.  The last line is "N passed, N failed"; the
# exit status is non-zero if anything failed.  The table goes to
# OUT/BLKTESTS.md: with -k, the suite adds up over runs, for a kernel
# whose whole suite does not fit one sitting (the debug kernel's).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tests="nvme srp"
must_pass=
out=$top/build/blktests
img_size=350m
timeout=30
jobs=1
keep=
while getopts t:p:o:s:T:j:k: opt; do
	case $opt in
	t) tests=$OPTARG ;;
	p) must_pass=$OPTARG ;;
	o) out=$OPTARG ;;
	s) img_size=$OPTARG ;;
	T) timeout=$OPTARG ;;
	j) jobs=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
(($# > 0)) || { echo "usage: $0 [-t TESTS] [-p TESTS] [-o OUT] [-s SIZE] [-T SECONDS] [-j N] [-k FILE] stock|debug..." >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "blktests.sh: -j takes a count of boots, not '$jobs'" >&2; exit 2; }
if [[ -n $keep ]]; then
	[[ -f $keep ]] || { echo "blktests.sh: no $keep to keep sections of" >&2; exit 2; }
	keep=$(realpath "$keep")
fi
for kind; do
	case $kind in stock | debug) ;; *) echo "blktests.sh: no kernel '$kind'" >&2; exit 2 ;; esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

passed=0
failed=0
md=$out/BLKTESTS.md
# The commit the run starts from, for each section it writes
at=$(git -C "$top" describe --always --dirty 2>/dev/null)

# verdict NAME OK [NOTE]
verdict() {
	if (($2)); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	printf '%-44s %s%s\n' "$1" "$( (($2)) && echo ok || echo FAILED)" "${3:+  ($3)}"
}

# Run as it is: every file as the snapshot has it (vm/blktests.sha256,
# made from the snapshot when it was copied in).
(cd "$top/vm" && sha256sum -c --quiet blktests.sha256 &&
	[[ $(find blktests -type f | wc -l) == $(wc -l <blktests.sha256) ]]) ||
	{ echo "blktests.sh: vm/blktests/ differs from the snapshot" >&2; exit 1; }

# The suite, built once per run outside the source tree: ./check writes
# nothing into it (results go to -o), the guest sees it read-only.
suite=$out/suite
rm -rf "$suite"
cp -a "$top/vm/blktests" "$suite" || exit 1
make -C "$suite" >"$out/suite-build.log" 2>&1 ||
	{ echo "blktests.sh: building blktests' src/ failed: $out/suite-build.log" >&2; exit 1; }

# kernel_dir KIND: the KDIR to build cqpool against
kernel_dir() {
	local d

	if [[ $1 == stock ]]; then
		echo "/usr/src/linux-headers-$("$top/vm/run.sh" --print-stock-version)"
	else
		d=$("$top/vm/kernel.sh" "$1") || return 1
		echo "${d%/}/build"
	fi
}

# kernel_id KIND: which build of KIND's kernel ran: the stock kernel's
# version, the debug kernel's cache entry (its sources and config)
kernel_id() {
	if [[ $1 == stock ]]; then
		"$top/vm/run.sh" --print-stock-version
	else
		basename "$(dirname "$kdir")"
	fi
}

# cqcheck ARGS...: scripts/cqcheck, the rules by which the boots count
cqcheck() {
	PYTHONPATH=$top/scripts python3 -m cqcheck "$@"
}

# peaks CQ_LOG OWNER: the most CQs and CQEs OWNER held at once
peaks() {
	awk -v o="[$2]" '$2 == o { if ($3 > c) c = $3; if ($4 > e) e = $4 }
		END { printf "%d CQs, %d CQEs\n", c, e }' "$1"
}

# boot KIND MODE: one VM boot of a mode, its exit status in OUT/vm-KIND-MODE.rc.
# The time it may take is a backstop (a hang is caught sooner, by
# hung_task): the whole suite took 29 minutes a mode on the stock kernel;
# on the debug kernel, with both modes booted at once, srp/001 took 390 s
# (28 on the stock kernel) and srp/002 1,008 s.  The debug kernel's
# guests report a task blocked for 600 s, not 30: under TCG its own waits
# pass 120 s without cqpool.  In upstream's nvme/014, reconnecting after
# keep-alive expiries, dd waited 180 s for a tag and nvmet's queue
# release 124 s for its requests, and the test passed (TESTING.md).
boot() {
	local p=$out/payload-$1-$2 ko='' boot_timeout=5400 hung=30

	[[ $2 == takeover ]] &&
		ko="$top/build/kbuild-blktests-$1/cqpool.ko $top/build/kbuild-blktests-$1/cqpool_takeover.ko"
	[[ $1 == debug ]] && boot_timeout=21600 hung=600
	# shellcheck disable=SC2086 # $ko: none, or the two modules
	if ! { rm -rf "$p" && mkdir -p "$p" &&
	       cp "$top/vm/payload-blktests.sh" "$p/run.sh" &&
	       cp "$top/vm/payload-lib.sh" "$p/lib.sh" &&
	       echo "$2" >"$p/mode" && echo "$tests" >"$p/tests" &&
	       echo "$img_size" >"$p/img_size" && echo "$timeout" >"$p/timeout" &&
	       cp -a "$suite" "$p/blktests" && { [[ -z $ko ]] || cp $ko "$p/"; }; } \
	     >>"$out/vm-$1-$2.log" 2>&1; then
		echo "no payload for $1 $2" >>"$out/vm-$1-$2.log"
		echo 1 >"$out/vm-$1-$2.rc"
		return
	fi
	CQPOOL_VM_ROOT=host CQPOOL_VM_QUIET=1 CQPOOL_VM_MEM=4G \
		CQPOOL_VM_TIMEOUT=${CQPOOL_BLKTESTS_TIMEOUT:-$boot_timeout} \
		CQPOOL_VM_HUNG_TASK_SECS=$hung \
		"$top/vm/run.sh" "$1" "$p" "$out/vm-$1-$2" >>"$out/vm-$1-$2.log" 2>&1
	echo $? >"$out/vm-$1-$2.rc"
}

# summary ROWS: the summary line of rows "TEST\tUPSTREAM\tTAKEOVER..."
summary() {
	awk -F'\t' '{ n[1, $2]++; n[2, $3]++ }
		END {
			printf "blktests upstream: %d passed, %d failed, %d skipped; takeover: %d passed, %d failed, %d skipped\n",
				n[1, "pass"], n[1, "fail"], n[1, "skip"],
				n[2, "pass"], n[2, "fail"], n[2, "skip"]
		}' "$1"
}

# covered TEST: whether this run ran TEST ("nvme/003 tr=rdma"), by its
# name or its group's
covered() {
	local t=${1%% *} item

	for item in $tests; do
		[[ $item == "$t" || $item == "${t%%/*}" ]] && return 0
	done
	return 1
}

# kept KIND ROWS RUNS: from -k's section of KIND, the rows of the tests
# this run did not run appended to ROWS ("TEST\tUPSTREAM\tTAKEOVER\tRUN\tNOTE")
# and what each run says of itself to RUNS ("RUN\tLINE").  A section from
# before runs were numbered is one run, 1.
kept() {
	local name rest

	rm -f "$out/kept-$1.tsv"
	[[ -n $keep ]] || return 0
	awk -v k="$1" -v rows="$out/kept-$1.tsv" -v runs="$3" '
		BEGIN { printf "" >rows }
		/^## / { in_k = $2 == k; run = 1; next }
		!in_k { next }
		/^Run at / { sub(/^Run /, ""); print 1 "\t" $0 >>runs; next }
		/^Run [0-9]+ at / { run = $2; sub(/^Run [0-9]+ /, ""); print run "\t" $0 >>runs; next }
		/^\| test \|/ || /^\|---/ { next }
		/^\| / {
			sub(/^\| /, "")
			sub(/ \|$/, "")
			if (split($0, f, / \| /) == 4) {
				f[5] = f[4]
				f[4] = 1
			}
			printf "%s\t%s\t%s\t%s\t%s\n", f[1], f[2], f[3], f[4], f[5] >rows
			next
		}
		/^- / { print run "\t" $0 >>runs }
		/^cqpool after / { print run "\t- " $0 >>runs }' "$keep"
	while IFS=$'\t' read -r name rest; do
		covered "$name" || printf '%s\t%s\n' "$name" "$rest"
	done <"$out/kept-$1.tsv" >>"$2"
}

# verdicts_on_cqpool KIND CQ_LOG: the takeover's boot ran on cqpool
verdicts_on_cqpool() {
	local ok note

	IFS=$'\t' read -r ok note < <(cqcheck blktests-on-cqpool "$2" 2>&1 ||
				       echo "0	no $2")
	verdict "blktests:$1:takeover:on-cqpool" "${ok:-0}" "$note"
}

# section KIND: the section of KIND's kernel in OUT/section-KIND.md: a row
# per test, from this run or, with -k, kept from the run that last ran it,
# each run's line with its peaks and idle totals, and the summary of the
# rows.  So a suite too long for one sitting adds up over runs, and each
# row says which run it came from.
section() {
	local kind=$1 up=$out/$1-upstream.tsv tk=$out/$1-takeover.tsv
	local s=$out/section-$1.md rows=$out/rows-$1.tsv runs=$out/runs-$1.tsv
	local name u t us ts note mode cq line pk idle ok

	: >"$rows"
	# Every test either mode reported, in ./check's order.
	while IFS=$'\t' read -r name; do
		u=$(awk -F'\t' -v n="$name" '$1 == n { print $2 "\t" $3 }' "$up")
		t=$(awk -F'\t' -v n="$name" '$1 == n { print $2 "\t" $3 }' "$tk")
		us=${u%%$'\t'*} ts=${t%%$'\t'*}
		note=
		[[ $us == skip ]] && note=${u#*$'\t'}
		[[ $ts == skip && -z $note ]] && note=${t#*$'\t'}
		printf '%-24s upstream %-4s takeover %-4s %s\n' "$name" "${us:--}" "${ts:--}" "$note"
		printf '%s\t%s\t%s\tnew\t%s\n' "$name" "${us:--}" "${ts:--}" "${note//|/\\|}" >>"$rows"
	done < <(cut -f1 "$up" "$tk" | awk '!seen[$0]++')
	while IFS=$'\t' read -r name ok note; do
		verdict "blktests:$kind:$name" "$ok" "$note"
	done < <(cqcheck blktests-verdicts "$up" "$tk" "$suite" "$tests" "$must_pass" ||
		 echo "cqcheck	0	failed")

	printf 'new\t%s\n' "at $at on $(kernel_id "$kind"): \`./check $tests\` with USE_RXE=1 NVMET_TRTYPES=rdma NVME_IMG_SIZE=$img_size TIMEOUT=$timeout." >"$runs"
	for mode in upstream takeover; do
		cq=$out/payload-$kind-$mode/out/cq.log
		[[ -f $cq ]] || continue
		line="$mode peaks (\`rdma res show cq\`, once a second): [cqpool] $(peaks "$cq" cqpool); [ib_core] $(peaks "$cq" ib_core)"
		echo "    $line"
		printf 'new\t- %s\n' "$line" >>"$runs"
	done
	pk=$out/payload-$kind-takeover/out
	verdicts_on_cqpool "$kind" "$pk/cq.log"
	if [[ -f $pk/totals ]]; then
		idle=$(awk '$1 == "cqs" || $1 == "reserved" || $1 == "users" { printf "%s%s %s", sep, $1, $2; sep = ", " }' "$pk/totals")
		verdict "blktests:$kind:takeover:idle-totals" \
			"$(awk '($1 == "cqs" || $1 == "reserved" || $1 == "users") && $2 != 0 { bad = 1 } END { print !bad }' "$pk/totals")" \
			"after the idle timeout: $idle"
		printf 'new\t- cqpool after the idle timeout: %s.\n' "$idle" >>"$runs"
	else
		verdict "blktests:$kind:takeover:idle-totals" 0 "no totals: see $out/vm-$kind-takeover"
	fi
	echo "$kind: $(summary "$rows")"

	kept "$kind" "$rows" "$runs"
	# The runs that still have a row, numbered in the order they ran,
	# this one last
	awk -F'\t' -v runs="$runs" '
		FNR == NR { if ($4 != "new") used[$4] = 1; next }
		!($1 in num) && ($1 in used || $1 == "new") { order[++n] = $1; num[$1] = 0 }
		END {
			for (i = 1; i <= n; i++)
				if (order[i] != "new")
					num[order[i]] = ++m
			num["new"] = m + 1
			for (r in num)
				print r "\t" num[r]
		}' "$rows" <(sort -t$'\t' -k1,1n -s "$runs") >"$out/renumber-$kind.tsv"
	{
		echo "## $kind kernel ($(if [[ $kind == stock ]]; then kernel_id stock; else echo "vm/kernel.sh debug: KASAN, kmemleak, lockdep"; fi))"
		echo
		echo "| test | upstream | takeover | run | note |"
		echo "|---|---|---|---|---|"
		awk -F'\t' 'FNR == NR { num[$1] = $2; next }
			{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, num[$4], $5 }' \
			"$out/renumber-$kind.tsv" <(LC_ALL=C sort -t$'\t' -k1,1 -s "$rows")
		awk -F'\t' 'FNR == NR { num[$1] = $2; next }
			($1 in num) { print num[$1] "\t" $2 }' "$out/renumber-$kind.tsv" "$runs" |
			sort -t$'\t' -k1,1n -s | awk -F'\t' '
				$1 != last { printf "\nRun %s %s\n", $1, $2; last = $1; next }
				{ print $2 }'
		echo
		summary "$rows"
	} >"$s"
	if cut -f4 "$rows" | grep -qvx new; then
		echo "$kind, with the rows kept of earlier runs: $(summary "$rows")"
	fi
}

# Only this run's sections: one an earlier run left in OUT would stand
# for a kernel this run does not try, in place of -k's.
rm -f "$out"/section-*.md
for kind in "$@"; do
	echo "== blktests on $kind: ./check $tests"
	if ! kdir=$(kernel_dir "$kind") ||
	   ! "$top/scripts/kbuild.sh" "blktests-$kind" "$kdir" W=1 >"$out/kbuild-$kind.log" 2>&1; then
		verdict "blktests:$kind:build" 0 "see $out/kbuild-$kind.log"
		continue
	fi
	for mode in upstream takeover; do
		: >"$out/$kind-$mode.tsv"
		: >"$out/vm-$kind-$mode.log"
		rm -f "$out/vm-$kind-$mode.rc"
		boot "$kind" "$mode" &
		(($(jobs -rp | wc -l) < jobs)) || wait -n
	done
	wait
	for mode in upstream takeover; do
		rc=$(cat "$out/vm-$kind-$mode.rc" 2>/dev/null || echo 1)
		verdict "blktests:$kind:$mode:clean-run" $((rc == 0)) \
			"$(tail -n 1 "$out/vm-$kind-$mode.log")"
		p=$out/payload-$kind-$mode
		[[ -f $p/out/check.log ]] &&
			cqcheck blktests-results "$p/out/check.log" >"$out/$kind-$mode.tsv"
		# A debug kernel has kmemleak: the boot must have scanned.
		if [[ $kind == debug ]]; then
			IFS=$'\t' read -r ok note < <(cqcheck blktests-kmemleak \
				"$out/vm-$kind-$mode/console.log" 2>&1 || echo "0	no console")
			verdict "blktests:$kind:$mode:kmemleak" "${ok:-0}" "$note"
		fi
	done
	section "$kind"
done

# The report: each kernel's section as run now, or, for a kernel this run
# did not try, as kept from -k (one that failed to build has none).
{
	echo "# blktests on upstream's CQ pool and on cqpool's takeover"
	echo
	echo "Generated by \`make blktests\` (scripts/blktests.sh); do not edit.  Suite: vm/blktests/ ($(sed -n 's/.*\(commit [0-9a-f]*\).*/\1/p' "$top/vm/blktests.SOURCE" | head -n 1)).  Each row names the run it came from, and each run its commit and knobs."
	for kind in stock debug; do
		if [[ -f $out/section-$kind.md ]]; then
			echo
			cat "$out/section-$kind.md"
		elif [[ -n $keep && " $* " != *" $kind "* ]] &&
		     grep -q "^## $kind kernel" "$keep"; then
			echo
			# Its lines up to the next section, blank lines at its end left out
			awk -v k="$kind" '/^## / { in_k = $2 == k }
				in_k && $0 == "" { blank++; next }
				in_k { for (; blank; blank--) print ""; print }' "$keep"
		fi
	done
} >"$md"

echo "$passed passed, $failed failed"
((failed == 0))
