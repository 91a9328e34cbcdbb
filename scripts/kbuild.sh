#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh KIND KDIR [MAKE ARGS...] - build the modules for one kernel in
# build/kbuild-KIND, a private copy of the sources, so that objects built
# for two kernels never mix in the source tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kind=$1
kdir=$2
shift 2
dir=$top/build/kbuild-$kind

mkdir -p "$dir"
# harness/core/ and kunit/core/ hold only those modules' own builds of the
# core (Kbuild), no source: not for --delete.
rsync -a --delete --exclude="*.o" --exclude=".*.cmd" --exclude="*.ko" --exclude="*.gcno" \
	--exclude=/harness/core/ --exclude=/kunit/core/ \
	"$top/Kbuild" "$top/module" "$top/harness" "$top/include" "$top/kunit" \
	"$top/takeover" \
	"$dir/"
make -C "$kdir" M="$dir" "$@" modules
