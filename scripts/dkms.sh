#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh [-r ROOT] [KERNEL...] - add cqpool to DKMS (Debian's dkms
# package), then build and install it for each KERNEL (default:
# scripts/kernels.sh).  The source goes to /usr/src/cqpool-VERSION, as
# DKMS wants it; a version added before is removed first, so this can be
# run again.
#
# With -r, everything stays under ROOT instead (make check's test of
# this): DKMS's source, build and install trees, the modules landing in
# ROOT/lib/modules/KERNEL/updates/dkms/.  Nothing of the system's changes.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
command -v dkms >/dev/null || { echo "dkms.sh: apt-get install dkms" >&2; exit 1; }

# include/cqpool/cqpool.h, dkms.conf and debian/changelog agree on it.
ver=$(scripts/version-check.sh)

root=
while getopts r: opt; do
	case $opt in
	r) root=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
src=/usr/src
opts=()
if [[ -n $root ]]; then
	rm -rf "$root"
	mkdir -p "$root/src" "$root/dkms" "$root/lib/modules"
	root=$(cd "$root" && pwd)
	src=$root/src
	opts=(--sourcetree "$src" --dkmstree "$root/dkms"
	      --installtree "$root/lib/modules" --no-depmod)
fi

if (($# == 0)); then
	mapfile -t kernels < <(scripts/kernels.sh)
else
	kernels=("$@")
fi

if dkms status "${opts[@]}" -m cqpool -v "$ver" | grep -q .; then
	dkms remove "${opts[@]}" -m cqpool -v "$ver" --all
fi
rm -rf "$src/cqpool-$ver"
# What the build for a real machine needs, as the cqpool-dkms package
# ships it: no harness, no KUnit.
scripts/dkms-source.sh "$src/cqpool-$ver"
dkms add "${opts[@]}" -m cqpool -v "$ver"
for k in "${kernels[@]}"; do
	dkms build "${opts[@]}" -m cqpool -v "$ver" -k "$k"
	[[ -z $root ]] || mkdir -p "$root/lib/modules/$k"
	dkms install "${opts[@]}" -m cqpool -v "$ver" -k "$k"
done
dkms status "${opts[@]}" -m cqpool -v "$ver"
