#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a libFuzzer binary for a bounded time on its corpus and end with one
# line a script can parse:  fuzz: N runs, C crashes
# Exit status: 0 when nothing crashed (or timed out, or ran out of memory).
#
# usage: run.sh FUZZER OUTDIR SECONDS [libFuzzer flags...]
set -u

bin=$1 out=$2 secs=$3
shift 3

mkdir -p "$out/corpus" "$out/artifacts"
log=$out/fuzz.log
before=$(ls "$out/artifacts" | wc -l)

"$bin" -max_total_time="$secs" -timeout=10 -max_len=4096 \
	-print_final_stats=1 -artifact_prefix="$out/artifacts/" \
	"$@" "$out/corpus" >"$log" 2>&1
rc=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
if [ -z "$runs" ]; then	# no final stats: take the last status line
	runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
fi
crashes=$(( $(ls "$out/artifacts" | wc -l) - before ))
if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
	crashes=1
fi
if [ "$rc" -ne 0 ]; then
	grep -E 'pool_fuzz:|ERROR: |SUMMARY: |Test unit written' "$log" | head -n 20
	echo "log: $log"
fi
echo "fuzz: ${runs:-0} runs, $crashes crashes"
[ "$rc" -eq 0 ]
