#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh [--production] KIND KDIR [MAKE ARGS...] - build the modules
# for one kernel in build/kbuild-KIND, a private copy of the sources, so
# that objects built for two kernels never mix in the source tree.
#
# The test build (CQPOOL_TESTING=1, Kbuild), which the VMs, make bench and
# make demo load; with --production the build for a real machine, which
# make and DKMS make.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
testing=CQPOOL_TESTING=1
if [[ ${1:-} == --production ]]; then
	testing=
	shift
fi
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
make -C "$kdir" M="$dir" ${testing:+"$testing"} "$@" modules
