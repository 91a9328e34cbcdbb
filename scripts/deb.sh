#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh - build the Debian packages cqpool-dkms and cqpool-tools
# (debian/) with dpkg-buildpackage -us -uc -b, into build/deb/: the
# .debs, the .changes that lintian reads (scripts/deb-lintian.sh), and
# build.log.
#
# It builds from a copy of the tree (build/deb/cqpool-VERSION/, what git
# does not ignore): dpkg-buildpackage puts its output beside the source
# tree and cleans the tree first, and neither may touch the developers'
# own (build/, the modules built in place).  Needs the Build-Depends of
# debian/control (.ci/packages has them).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ver=$(scripts/version-check.sh)
out=$top/build/deb
src=$out/cqpool-$ver

rm -rf "$out"
mkdir -p "$src"
# .gitignore's patterns, per directory, as git reads them: no kbuild
# output, no build/.
rsync -a --exclude=.git --filter=':- .gitignore' ./ "$src/"
cd "$src"
echo "deb.sh: dpkg-buildpackage -us -uc -b in $src (log: $out/build.log)"
if ! dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed; see $out/build.log" >&2
	exit 1
fi
cd "$out"
rm -rf "$src"
ls -1 "$out"/*.deb "$out"/*.changes
