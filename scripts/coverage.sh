#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage.sh RESULTS_LOG KBUILD_DIR OUT - line coverage of module/*.c
# from a VM run of a GCOV build (scripts/kbuild.sh ... CQPOOL_GCOV=1).
#
# The payload sends the counts of every object as a base64 tarball
# between @@gcov-begin and @@gcov-end in RESULTS_LOG; they are read with
# the .gcno files the build left in KBUILD_DIR, by the gcov of the
# compiler that built them.  Writes OUT/coverage.txt (a line per file,
# then the total over module/), OUT/uncovered.txt (each file's lines
# never run, by function) and OUT/gcov/*.gcov (the annotated sources).
# Every line counts: none is reached only by a hardware HCA.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=$1
kbuild=$(cd "$2" && pwd)
out=$3

rm -rf "$out"
mkdir -p "$out/gcda" "$out/obj" "$out/gcov"
tr -d '\r' <"$results" | sed -n '/^@@gcov-begin$/,/^@@gcov-end$/p' |
	grep -v '^@@gcov-' | base64 -d | tar -xzf - -C "$out/gcda" ||
	{ echo "coverage.sh: no GCOV counts in $results" >&2; exit 1; }
# The guest names an object by the absolute path it was built at.
counts=$out/gcda$kbuild/module
[[ -d $counts ]] || { echo "coverage.sh: no counts for $kbuild/module" >&2; exit 1; }

for c in "$kbuild"/module/*.c; do
	f=$(basename "$c" .c)
	[[ -f $kbuild/module/$f.gcno ]] ||
		{ echo "coverage.sh: $f.gcno missing: not a GCOV build" >&2; exit 1; }
	cp "$kbuild/module/$f.gcno" "$out/obj/"
	# An object no test loaded has no counts: all of it is uncovered.
	[[ -f $counts/$f.gcda ]] && cp "$counts/$f.gcda" "$out/obj/"
	(cd "$out/gcov" && gcov -o "$out/obj" "$c" >/dev/null 2>&1) ||
		{ echo "coverage.sh: gcov failed on $f.c" >&2; exit 1; }
done

# One line per .gcov source line: "FILE FUNCTION STATE LINE", STATE run
# or unrun.
# gcov marks a line never run "#####", a run one with its count, and one
# with no code "-"; a function's lines follow the first line of its
# definition, which is where the kernel's style puts its name.
for c in "$kbuild"/module/*.c; do
	f=$(basename "$c")
	# A file with no line of code of its own has no .gcov: trace.c,
	# whose code is the trace events' own, from cqpool_trace.h.
	[[ -f $out/gcov/$f.gcov ]] || continue
	awk -v file="$f" '
		{
			n = split($0, part, ":")
			if (n < 3)
				next
			count = part[1]; gsub(/ /, "", count)
			src = substr($0, length(part[1]) + length(part[2]) + 3)
			if (match(src, /^[a-z][a-z0-9_ *]*[ *]([a-z0-9_]+)\(/)) {
				name = substr(src, 1, RLENGTH - 1)
				sub(/.*[ *]/, "", name)
				fn = name
			}
			if (count == "-" || part[2] + 0 == 0)
				next
			state = count ~ /^#+$|^=+$/ ? "unrun" : "run"
			print file, fn, state, part[2] + 0
		}' "$out/gcov/$f.gcov"
done >"$out/lines"

awk '
	{ lines[$1]++; if ($3 == "run") run[$1]++ }
	END {
		printf "%-16s %6s %6s %7s\n", "file", "lines", "run", "covered"
		for (f in lines) {
			printf "%-16s %6d %6d %6.1f%%\n", "module/" f, lines[f], run[f],
				100 * run[f] / lines[f]
			tl += lines[f]; tr += run[f]
		}
		printf "%-16s %6d %6d %6.1f%%\n", "total", tl, tr,
			tl ? 100 * tr / tl : 100
	}' "$out/lines" | { read -r h; echo "$h"; sort; } >"$out/coverage.txt"

# What was never run, by function.
awk '$3 != "run" {
		k = $1 " " $2 " (" $3 ")"
		if (!(k in first)) { first[k] = $4; order[++n] = k }
		cnt[k]++; list[k] = list[k] (cnt[k] > 1 ? "," : "") $4
	}
	END { for (i = 1; i <= n; i++) print "module/" order[i] ": " cnt[order[i]] " lines: " list[order[i]] }' \
	"$out/lines" >"$out/uncovered.txt"

cat "$out/coverage.txt"
