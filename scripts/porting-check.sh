#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# porting-check.sh SRC KDIR - the README's porting example still holds:
# its diff applies to drivers/nvme/host/rdma.c of SRC (linux-source-6.1)
# and the result builds with W=1 against KDIR's headers and the
# cqpool.ko built in build/kbuild-stock, warning-free and with every
# symbol resolved.  The module is built, never loaded.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=$1
kdir=$2
begin='<!-- porting-diff: applied and built by scripts/porting-check.sh (make check) -->'
end='<!-- end porting-diff -->'
dir=$top/build/porting
symvers=$top/build/kbuild-stock/Module.symvers
[[ -f $symvers ]] || { echo "porting-check.sh: build cqpool first ($symvers)" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir/drivers/nvme/host"
cp "$src/drivers/nvme/host/rdma.c" "$src/drivers/nvme/host/nvme.h" \
	"$src/drivers/nvme/host/fabrics.h" "$dir/drivers/nvme/host/"
# The diff is the fenced block between the markers.
awk -v b="$begin" -v e="$end" '
	$0 == b { on = 1; next }
	$0 == e { on = 0 }
	on && !/^```/' "$top/README.md" >"$dir/nvme-rdma.diff"
[[ -s $dir/nvme-rdma.diff ]] || { echo "porting-check.sh: no diff in README.md" >&2; exit 1; }
patch -d "$dir" -p1 --no-backup-if-mismatch <"$dir/nvme-rdma.diff"
grep -q cqpool_rdma_create_qp "$dir/drivers/nvme/host/rdma.c"

cat >"$dir/drivers/nvme/host/Makefile" <<EOF
obj-m := nvme-rdma.o
nvme-rdma-y := rdma.o
ccflags-y := -I$top/include
EOF
make -C "$kdir" M="$dir/drivers/nvme/host" KBUILD_EXTRA_SYMBOLS="$symvers" \
	W=1 modules 2>&1 | tee "$dir/build.log"
! grep -Ei 'warning|error' "$dir/build.log"
