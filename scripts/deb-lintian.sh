#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-lintian.sh - lintian on the .changes of scripts/deb.sh's build
# (build/deb/): every package of it, with the overrides in debian/*.
# lintian-overrides (each says why).  Fails on any error or warning;
# what lintian printed is in build/deb/lintian.txt, and on stdout.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
shopt -s nullglob
changes=("$out"/*.changes)
((${#changes[@]} == 1)) || { echo "deb-lintian.sh: no .changes in $out: make deb first" >&2; exit 1; }
command -v lintian >/dev/null || { echo "deb-lintian.sh: apt-get install lintian" >&2; exit 1; }

# --show-overrides: what was overridden shows too (as "O:"), so that the
# log says what is not reported and why the package says so.
rc=0
lintian --fail-on error,warning --show-overrides --tag-display-limit 0 \
	"${changes[0]}" >"$out/lintian.txt" 2>&1 || rc=$?
cat "$out/lintian.txt"
echo "deb-lintian.sh: lintian $(lintian --version | awk '{ print $2 }') on $(basename "${changes[0]}"): exit $rc"
exit "$rc"
