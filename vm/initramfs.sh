#!/bin/bash
# Build the cqpool test VM's initramfs.
#
#   vm/initramfs.sh KIND OUT.cpio.gz [PAYLOAD_DIR|-]
#   vm/initramfs.sh --print-stock-version
#
# KIND is "stock" (Debian's kernel: its RDMA, storage and veth modules are
# copied in), "debug" or "kcsan" (vm/kernel.sh's kernels: every module they
# built is copied in).
# The image holds busybox (applet symlinks), iproute2's ip (/usr/sbin/ip) and
# rdma (/usr/bin/rdma), ibv_devices/ibv_devinfo with the rxe and siw
# providers, their shared libraries, the qemu-exit helper (vm/exit.c),
# vm/init as /init and PAYLOAD_DIR as /payload (ELF programs in the payload
# get their shared libraries copied in too).
#
# The stock kernel is Debian 12's own series, 6.1: the newest installed
# /boot/vmlinuz-6.1.*-amd64, whatever else is installed beside it.
# CQPOOL_STOCK_VERSION names another (6.12's "6.12.117+deb12-amd64").
# Its modules come from /lib/modules/VER, decompressed (6.12 ships
# .ko.xz, which busybox's insmod cannot load).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "initramfs.sh: $*" >&2; exit 1; }

stock_version() {
	local v
	if [[ -n ${CQPOOL_STOCK_VERSION:-} ]]; then
		echo "$CQPOOL_STOCK_VERSION"
		return
	fi
	v=$(find /boot -maxdepth 1 -name 'vmlinuz-6.1.*-amd64' -printf '%f\n' |
		sed 's/^vmlinuz-//' | sort -V | tail -n 1)
	[[ -n $v ]] || die "no /boot/vmlinuz-6.1.*-amd64: apt-get install linux-image-amd64"
	echo "$v"
}

if [[ ${1:-} == --print-stock-version ]]; then
	stock_version
	exit 0
fi

usage() { echo "usage: $0 stock|debug|kcsan OUT.cpio.gz [PAYLOAD_DIR|-]" >&2; exit 2; }
[[ $# -ge 2 && $# -le 3 ]] || usage
kind=$1
out=$2
payload=${3:--}
case $kind in stock|debug|kcsan) ;; *) usage ;; esac
if [[ $payload != - ]]; then
	[[ -d $payload ]] || die "payload dir '$payload' does not exist"
fi

mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

st=$(mktemp -d "${TMPDIR:-/tmp}/cqpool-initramfs.XXXXXX")
trap 'rm -rf "$st"' EXIT

# Merged-/usr layout, as on the host (so ldd's /lib/... paths just work).
mkdir -p "$st"/usr/{bin,sbin,lib,lib64} "$st"/{dev,proc,sys,tmp,run,root,etc,payload,mnt}
ln -s usr/bin "$st/bin"
ln -s usr/sbin "$st/sbin"
ln -s usr/lib "$st/lib"
ln -s usr/lib64 "$st/lib64"
chmod 1777 "$st/tmp"
chmod 700 "$st/root"

# Copy a host file to the same path in the image (following symlinks).
put() {
	local src=$1 dst=${2:-$1}
	mkdir -p "$st$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$st$dst"
}

# Shared-library closure of ELF files (ldd already gives the transitive set).
declare -A libs_done=()
put_libs() {
	local f lib
	for f in "$@"; do
		while read -r lib; do
			[[ -n $lib && -z ${libs_done[$lib]:-} ]] || continue
			libs_done[$lib]=1
			put "$lib"
		done < <(ldd "$f" 2>/dev/null | awk '
			$2 == "=>" && $3 ~ /^\// { print $3; next }
			$1 ~ /^\// { print $1 }')
	done
}

# --- programs ----------------------------------------------------------------
ml=/usr/lib/x86_64-linux-gnu
# iscsid and iscsiadm (open-iscsi): the iSER initiator's userspace.
bins=(/usr/sbin/ip /usr/bin/rdma /usr/bin/ibv_devices /usr/bin/ibv_devinfo
	/usr/sbin/iscsid /usr/sbin/iscsiadm)
# Provider file names carry the ABI version: find them rather than hard-code.
mapfile -t providers < <(find "$ml/libibverbs" -maxdepth 1 \( -name 'librxe-rdmav*.so' -o -name 'libsiw-rdmav*.so' \) | sort)
[[ ${#providers[@]} -eq 2 ]] || die "rxe/siw ibverbs providers not found in $ml/libibverbs (rdma-core / ibverbs-providers installed?)"
for f in "${bins[@]}" "${providers[@]}" /etc/libibverbs.d/rxe.driver /etc/libibverbs.d/siw.driver /usr/bin/busybox \
	/etc/iscsi/iscsid.conf; do
	[[ -e $f ]] || die "missing $f"
	put "$f"
done
put_libs "${bins[@]}" "${providers[@]}"

# busybox applets: symlinks to /usr/bin/busybox; never replace a real program
# (iproute2's ip wins over busybox's).
while read -r p; do
	[[ -e $st/$p || -L $st/$p ]] && continue
	mkdir -p "$st/$(dirname "$p")"
	ln -s /usr/bin/busybox "$st/$p"
done < <(/usr/bin/busybox --list-full)

# qemu-exit helper.
gcc -static -O2 -Wall -o "$st/usr/sbin/qemu-exit" "$here/exit.c"
strip "$st/usr/sbin/qemu-exit" 2>/dev/null || true

# --- /etc and /init ------------------------------------------------------------
cat >"$st/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$st/etc/group" <<'EOF'
root:x:0:
nobody:x:65534:
nogroup:x:65534:
EOF
cat >"$st/etc/hosts" <<'EOF'
127.0.0.1	localhost
::1		localhost
EOF
echo cqpool-vm >"$st/etc/hostname"
# open-iscsi: iscsid refuses iscsiadm without /etc/passwd and /etc/group
# (above), and needs an initiator name and a node database.
echo "InitiatorName=iqn.2024-01.org.cqpool:initiator" >"$st/etc/iscsi/initiatorname.iscsi"
mkdir -p "$st"/etc/iscsi/{nodes,send_targets,ifaces,isns,static} "$st/var/lib/iscsi"
install -m 755 "$here/init" "$st/init"
install -m 644 "$here/hostroot.sh" "$st/etc/hostroot.sh"
echo "$kind" >"$st/etc/cqpool-kind"

# /dev/console so that /init has a console from its first instruction
# (vm/init also re-opens it after mounting devtmpfs, in case mknod fails).
mknod -m 600 "$st/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$st/dev/null" c 1 3 2>/dev/null || true

# --- kernel modules ------------------------------------------------------------------
# Stock: the storage ULPs (NVMe-oF, SRP and iSER, initiators and LIO
# targets), null_blk, the RDMA stack and virtio-9p and overlayfs (for
# CQPOOL_VM_ROOT=host), from /lib/modules; payload-tests.sh
# loads the ULPs before cqpool.ko.  The crc modules are soft dependencies
# that modprobe does not list.  Debug and KCSAN: every module the kernel
# built (vm/kernel.sh installs them beside its bzImage); the rest is built in.
if [[ $kind == stock ]]; then
	ver=$(stock_version)
	mdir=/lib/modules/$ver
	[[ -d $mdir/kernel ]] || die "no modules in $mdir"
	mods=(veth rdma_rxe crc32_generic ib_uverbs rdma_ucm ib_core rdma_cm ib_cm iw_cm
		nvmet nvmet-rdma nvme-rdma nvme-fabrics nvme-core null_blk configfs
		target_core_mod target_core_iblock target_core_file iscsi_target_mod
		ib_srpt ib_isert ib_srp scsi_transport_srp ib_iser libiscsi
		scsi_transport_iscsi sd_mod crc32c_generic crc64_rocksoft_generic
		virtio_pci 9pnet_virtio 9p overlay)
	mapfile -t kos < <(modprobe -a --show-depends -S "$ver" "${mods[@]}" |
		awk '$1 == "insmod" { print $2 }' | sort -u)
	[[ ${#kos[@]} -ge ${#mods[@]} ]] || die "module closure of ${mods[*]} looks incomplete: ${kos[*]}"
	for ko in "${kos[@]}"; do
		if [[ $ko == *.ko.xz ]]; then
			mkdir -p "$st$(dirname "$ko")"
			xz -dc "$ko" >"$st${ko%.xz}"
		else
			put "$ko"
		fi
	done
else
	kdir=$("$here/kernel.sh" "$kind") || die "vm/kernel.sh $kind failed"
	ver=$(cat "${kdir%/}/build/include/config/kernel.release") || die "no kernel.release in $kdir"
	mdir=${kdir%/}/modules/lib/modules/$ver
	[[ -d $mdir/kernel ]] || die "no modules in $mdir (vm/kernel.sh installs them)"
	mkdir -p "$st/lib/modules/$ver"
	cp -a "$mdir/kernel" "$st/lib/modules/$ver/"
fi
for f in "$mdir"/modules.order "$mdir"/modules.builtin*; do
	[[ -e $f ]] && cp "$f" "$st/lib/modules/$ver/"
done
# CQPOOL_VM_MODULES=ROOT: ROOT/lib/modules/VER/ joins the guest's modules
# tree, as a package that installs modules (DKMS's updates/dkms/) would.
if [[ -n ${CQPOOL_VM_MODULES:-} ]]; then
	extra=$CQPOOL_VM_MODULES/lib/modules/$ver
	[[ -d $extra ]] || die "no $extra"
	while read -r ko; do
		rel=${ko#"$extra"/}
		mkdir -p "$st/lib/modules/$ver/$(dirname "$rel")"
		if [[ $ko == *.xz ]]; then
			xz -dc "$ko" >"$st/lib/modules/$ver/${rel%.xz}"
		else
			cp "$ko" "$st/lib/modules/$ver/$rel"
		fi
	done < <(find "$extra" -name '*.ko' -o -name '*.ko.xz')
fi
depmod -b "$st" "$ver"
echo "$ver" >"$st/etc/cqpool-kernel-version"

# --- payload -----------------------------------------------------------------------
if [[ $payload != - ]]; then
	cp -a "$payload/." "$st/payload/"
	# Shared libraries of the payload's dynamically linked programs (ldd
	# prints nothing usable for scripts and static programs).
	mapfile -t exes < <(find "$st/payload" -type f -perm -u+x | sort)
	if [[ ${#exes[@]} -gt 0 ]]; then
		put_libs "${exes[@]}"
	fi
fi

# --- pack ---------------------------------------------------------------------------
tmp_out=$out.tmp.$$
(cd "$st" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner 0:0 --quiet) | gzip -1 >"$tmp_out"
mv -f "$tmp_out" "$out"
