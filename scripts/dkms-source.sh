#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-source.sh DEST - copy into DEST what DKMS builds cqpool from: the
# build for a real machine (Kbuild without CQPOOL_TESTING), cqpool.ko and
# cqpool_takeover.ko.  One list, for `make dkms` (scripts/dkms.sh) and the
# cqpool-dkms package (debian/rules), so the two ship the same tree.
#
# No harness/ and no kunit/ (the test modules), and none of the sources
# that only the test build compiles (Kbuild's CQPOOL_TESTING block): the
# test surface of cqpool.ko and of the takeover, the placement pad of
# make bench, and the cumulative livepatch of a kselftest.  Their
# headers stay: the production objects include them, and they compile to
# nothing there.
set -euo pipefail

(($# == 1)) || { echo "usage: $0 DEST" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$1

mkdir -p "$dest"
(cd "$top" && cp -a Kbuild dkms.conf include module takeover "$dest/")
rm -f "$dest/module/testing.c" "$dest/module/text_pad.S" \
	"$dest/takeover/testing.c" "$dest/takeover/cumulative_test.c" \
	"$dest/module/core/allowed-symbols"
# A tree built in place before (make KVER=...) leaves kbuild's output.
find "$dest" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
	-o -name '.*.cmd' -o -name '.*.d' -o -name modules.order \
	-o -name Module.symvers \) -delete
