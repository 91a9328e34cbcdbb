#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM as its run.sh, for the runner's deb rows
# (scripts/cqcheck/runner.py): the Debian packages installed and purged
# by apt, as on a machine.  Booted with the host's userland
# (CQPOOL_VM_ROOT=host) and /usr writable too (CQPOOL_VM_WRITABLE_USR=1:
# every layer a tmpfs overlay in the guest, vm/hostroot.sh), so dpkg and
# DKMS write where they do on a machine and nothing reaches the host.
#
# In the payload ($CQPOOL_PAYLOAD): cqpool-dkms_*.deb, cqpool-tools_*.deb
# (make deb) and version (scripts/version-check.sh).  Each step prints a
# "cqpool-deb:" line, to the console and to out/deb.log; the exit status
# is 0 only if every check held:
#
#   1. apt install ./cqpool-dkms_*.deb ./cqpool-tools_*.deb builds and
#      installs the module for the running kernel through DKMS;
#   2. modinfo shows the version, from /lib/modules/KVER/updates/dkms;
#      modprobe loads cqpool and cqpool_takeover; cqpoolctl devices,
#      without the test harness, lists rxe0;
#   3. with CQPOOL_DEB_LATER_KERNEL=1 (the row's env), a kernel installed
#      after the package gets the module from DKMS's kernel hook
#      (simulated: below);
#   4. apt purge unloads nothing, and leaves none of the packages' files
#      behind (DKMS's builds and installs included): the writable layers'
#      files before the install and after the purge are the same, but
#      for dpkg's and apt's own records and depmod's indexes.
set -u

p=$CQPOOL_PAYLOAD
cd "$p" || exit 90
out=$p/out
rm -rf "$out"
mkdir -p "$out"
log=$out/deb.log
rw=/run/cqpool-rw
all=/run/cqpool-deb-modules
kver=$(uname -r)
ver=$(cat version)
export DEBIAN_FRONTEND=noninteractive
# The row's variables (vm/matrix.toml's env): CQPOOL_DEB_LATER_KERNEL=1
# runs step 3, DKMS's hook for a kernel installed later.
while IFS='=' read -r k v; do
	[[ -n $k ]] && export "$k=$v"
done <"$p/env"

say() { echo "cqpool-deb: $*" | tee -a "$log"; }
# Indented, each line of a command's output that the report shows.
show() { sed 's/^/cqpool-deb:   | /' | tee -a "$log"; }
failed=0
check() { # WHAT CMD...: CMD must succeed
	local what=$1

	shift
	if "$@"; then
		say "ok: $what"
	else
		say "FAIL: $what"
		failed=1
	fi
}
die() { say "FAIL: $*"; exit 1; }

[[ -d $rw/usr/upper ]] || die "no writable /usr (CQPOOL_VM_WRITABLE_USR=1 and CQPOOL_VM_ROOT=host)"
debs=(./cqpool-dkms_"$ver"_all.deb ./cqpool-tools_"$ver"_*.deb)
for d in "${debs[@]}"; do
	[[ -f $d ]] || die "no $d in the payload (make deb)"
done

# The kernel that arrives later: another of the host's, with headers, not
# PREEMPT_RT (its build is 6.12's again), 6.12 on 6.1 and 6.1 on 6.12.
later=
for k in /lib/modules/*; do
	k=${k##*/}
	[[ $k != "$kver" && $k != *-rt-* && -e /lib/modules/$k/build/include ]] || continue
	later=$k
done
[[ -n $later ]] || die "no second kernel with headers in /lib/modules"

# That kernel is installed later, which is simulated: the host has it
# already, and the package's postinst (DKMS's common.postinst) would
# build for it at once, as the newest kernel.  So while the package is
# installed, /lib/modules has the running kernel's directory alone: a
# tmpfs over it, with that directory bound back in.  DKMS sees no other
# kernel.  Then the later kernel's directory appears, as its package
# unpacks it, and what that package's postinst runs for DKMS runs: the
# hook /etc/kernel/postinst.d/dkms KVER.
mkdir -p "$all"
mount --rbind /usr/lib/modules "$all" || die "bind /usr/lib/modules"
mount -t tmpfs -o mode=0755 tmpfs /usr/lib/modules || die "tmpfs on /usr/lib/modules"
mkdir /usr/lib/modules/"$kver"
mount --rbind "$all/$kver" /usr/lib/modules/"$kver" || die "bind back $kver"
say "kernel $kver; $later hidden from /lib/modules until its hook runs"

# rxe0 on one end of a veth pair, as the other guests have it.
# shellcheck source=vm/payload-lib.sh
. "$p/lib.sh"
modprobe rdma_rxe || die "modprobe rdma_rxe"
{ veth_up && rxe_add; } || die "rxe0 over veth v0"

# man-db's trigger rebuilds its whole index after an install: minutes
# under TCG, for nothing this test reads.  Off, as Debian's debconf
# question man-db/auto-update does it.
rm -f /var/lib/man-db/auto-update

# Every file of the writable layers (not their directories: a host's
# directory is copied up whenever something in it changes): TYPE PATH,
# and a checksum of each regular file; less what is expected to change as
# any package comes and goes: dpkg's and apt's records, logs and caches,
# and the indexes that depmod writes again.  Whiteouts (a host file
# removed) are type c.
layers() {
	local d

	for d in etc var root usr; do
		(cd "$rw/$d/upper" && find . -mindepth 1 ! -type d -printf "%y $d/%P\n" |
			while read -r t f; do
				if [[ $t == f ]]; then
					echo "$t $f $(md5sum <"$rw/${f%%/*}/upper/${f#*/}" | cut -c1-32)"
				else
					echo "$t $f"
				fi
			done)
	done | grep -Ev '^[a-z] (var/lib/dpkg|var/log|var/cache/(apt|debconf|man)|var/lib/apt)(/| |$)' |
		grep -Ev '^[a-z] usr/lib/modules/[^/]+/modules\.[a-z.]+( |$)' | sort
}
# The directories that the packages (their .debs' lists) and DKMS (its
# tree, each kernel's updates/dkms) would make, and which of them are not
# there before the install: none of those may be there after the purge.
new_dirs() {
	local d

	{
		for d in "${debs[@]}"; do
			dpkg-deb -c "$d" | awk '$1 ~ /^d/ { sub(/^\./, "", $6); sub(/\/$/, "", $6); print $6 }'
		done
		echo /var/lib/dkms/cqpool
		for d in "$kver" "$later"; do
			echo "/lib/modules/$d/updates"
			echo "/lib/modules/$d/updates/dkms"
		done
	} | sort -u | while read -r d; do
		local look=$d

		# The later kernel's directory is hidden: look where it is.
		[[ $d != "/lib/modules/$later"* ]] || look=$all/$later${d#"/lib/modules/$later"}
		[[ -e $look ]] || echo "$d"
	done
}
new_dirs >"$out/new-dirs"
layers >"$out/layers-before"
cut -d' ' -f1 /proc/modules | sort >"$out/modules-before-install"

# 1. The install.
t0=$(date +%s)
if apt install -y "${debs[@]}" >"$out/apt-install.log" 2>&1; then
	say "ok: apt install ${debs[*]} ($(($(date +%s) - t0)) s)"
else
	say "FAIL: apt install ${debs[*]}"
	failed=1
fi
grep -E 'Setting up|Loading new|Building for|Building initial|Done\.|Installing to|Error|error:' \
	"$out/apt-install.log" | show
st=$(dkms status -m cqpool -v "$ver")
echo "$st" | show
check "DKMS built and installed cqpool $ver for $kver" grep -q "^cqpool/$ver, $kver, [^:]*: installed" <<<"$st"
check "DKMS built for no other kernel" test "$(grep -c '^cqpool/' <<<"$st")" = 1

# 2. The module, its tools.
path=$(modinfo -F filename cqpool 2>&1)
mver=$(modinfo -F version cqpool 2>&1)
say "modinfo cqpool: version $mver, $path"
modinfo cqpool | grep -E '^(filename|version|description|license|depends|vermagic|parm):' | show
check "modinfo: version $ver" test "$mver" = "$ver"
# .ko, or .ko.xz where the kernel's own modules are compressed (6.12).
dkms_module() { [[ $1 == "/lib/modules/$kver/updates/dkms/cqpool.ko"* ]]; }
check "modinfo: DKMS's module" dkms_module "$path"
check "no test module installed" eval '! modinfo cqpool_harness >/dev/null 2>&1'
check "the build for a real machine (no test parameter)" eval '! modinfo -F parm cqpool | grep -q event_injection'
check "modprobe cqpool" modprobe cqpool
check "modprobe cqpool_takeover" modprobe cqpool_takeover
check "the takeover is enabled" grep -qx 1 /sys/kernel/livepatch/cqpool_takeover/enabled
grep -E '^(cqpool|cqpool_takeover|ib_core|rdma_rxe) ' /proc/modules | cut -d' ' -f1,3,4 | show
check "no /dev/cqpool (no harness)" test ! -e /dev/cqpool
say "cqpoolctl devices ($(command -v cqpoolctl)):"
if cqpoolctl devices >"$out/devices.txt" 2>&1; then
	show <"$out/devices.txt"
	check "cqpoolctl devices lists rxe0" grep -q '^rxe0 ' "$out/devices.txt"
else
	show <"$out/devices.txt"
	say "FAIL: cqpoolctl devices"
	failed=1
fi
say "cqpoolctl pools:"
cqpoolctl pools 2>&1 | show
check "cqpoolctl pools" cqpoolctl pools
cqpoolctl run --device rxe0 >/dev/null 2>"$out/run.txt"
check "cqpoolctl run says it needs the test harness" grep -q 'needs it' "$out/run.txt"
check "man page" test -f /usr/share/man/man1/cqpoolctl.1.gz
check "the tracing one-liners" grep -q '^bpftrace ' /usr/share/doc/cqpool-tools/examples/trace-oneliners

# 3. A kernel installed after the package: its directory appears, then
# the hook its postinst runs.
# Where the row asks for it (one row is enough to prove the hook; a
# build is 4 minutes of TCG).  The later kernel stays hidden otherwise.
if [[ ${CQPOOL_DEB_LATER_KERNEL:-0} == 1 ]]; then
	# (dkms status -k KVER lists a module that is only added too: "cqpool/VER:
	# added".  What was built for a kernel names it.)
	check "nothing built for $later before its hook" eval "! dkms status -m cqpool | grep -q ', $later, '"
	mkdir /usr/lib/modules/"$later"
	mount --rbind "$all/$later" /usr/lib/modules/"$later" || die "bind $later"
	t0=$(date +%s)
	if /etc/kernel/postinst.d/dkms "$later" >"$out/hook.log" 2>&1; then
		say "ok: /etc/kernel/postinst.d/dkms $later ($(($(date +%s) - t0)) s)"
	else
		say "FAIL: /etc/kernel/postinst.d/dkms $later"
		failed=1
	fi
	grep -E 'Building|Done\.|Installing to|Error|error:' "$out/hook.log" | show
	dkms status -m cqpool -v "$ver" | show
	check "DKMS's hook built and installed cqpool for $later" \
		eval "dkms status -m cqpool -v '$ver' -k '$later' | grep -q ': installed'"
	for m in cqpool cqpool_takeover; do
		f=$(ls /lib/modules/"$later"/updates/dkms/"$m".ko* 2>/dev/null)
		say "$later: ${f:-no $m.ko}, version $(modinfo -F version "${f:-/nonexistent}" 2>&1)"
		check "$m.ko for $later, version $ver" \
			test "$(modinfo -F version "${f:-/nonexistent}" 2>/dev/null)" = "$ver"
	done
else
	say "no kernel installed later in this row (CQPOOL_DEB_LATER_KERNEL)"
fi

# 4. The purge.  The packages' files, and what DKMS made of them.
dpkg -L cqpool-dkms cqpool-tools | sort -u >"$out/package-paths"
{ find /var/lib/dkms/cqpool; ls -d /lib/modules/*/updates/dkms/cqpool*; } 2>/dev/null |
	sort -u >"$out/dkms-paths"
files=$(cat "$out/package-paths" "$out/dkms-paths" | while read -r f; do
	[[ -d $f ]] || echo "$f"; done | sort -u)
say "before the purge: $(grep -c . <<<"$files") files of the packages and of DKMS's builds"
cut -d' ' -f1 /proc/modules | sort >"$out/modules-before-purge"
t0=$(date +%s)
if apt purge -y cqpool-dkms cqpool-tools >"$out/apt-purge.log" 2>&1; then
	say "ok: apt purge cqpool-dkms cqpool-tools ($(($(date +%s) - t0)) s)"
else
	say "FAIL: apt purge cqpool-dkms cqpool-tools"
	failed=1
fi
grep -E 'Removing|Purging|Deleting|depmod|Error|error:' "$out/apt-purge.log" | show
cut -d' ' -f1 /proc/modules | sort >"$out/modules-after-purge"
if diff -u "$out/modules-before-purge" "$out/modules-after-purge" >"$out/modules.diff"; then
	say "ok: the purge unloaded nothing ($(grep -c . "$out/modules-after-purge") modules loaded," \
		"cqpool and cqpool_takeover among them, before and after)"
else
	say "FAIL: the purge changed the loaded modules:"
	show <"$out/modules.diff"
	failed=1
fi
left=$(while read -r f; do [[ ! -e $f ]] || echo "$f"; done <<<"$files")
if [[ -z $left ]]; then
	say "ok: none of those $(grep -c . <<<"$files") files is left"
else
	say "FAIL: left behind:"
	show <<<"$left"
	failed=1
fi
left=$(while read -r d; do [[ ! -e $d ]] || echo "$d"; done <"$out/new-dirs")
if [[ -z $left ]]; then
	say "ok: none of the $(grep -c . "$out/new-dirs") directories the install made is left" \
		"($(grep -c /lib/modules "$out/new-dirs") of them DKMS's in /lib/modules)"
else
	say "FAIL: directories left behind:"
	show <<<"$left"
	failed=1
fi
check "dpkg knows neither package" eval '! dpkg -s cqpool-dkms cqpool-tools >/dev/null 2>&1'
check "DKMS knows no cqpool" eval '! dkms status -m cqpool | grep -q .'
layers >"$out/layers-after"
if diff -u "$out/layers-before" "$out/layers-after" >"$out/layers.diff"; then
	say "ok: the writable layers (/etc, /var, /root, /usr) before the install and after the" \
		"purge: $(grep -c . "$out/layers-after") entries, the same, but for dpkg's and apt's" \
		"records and depmod's indexes"
else
	say "FAIL: the install and purge left these differences in the writable layers:"
	grep '^[-+][a-z] ' "$out/layers.diff" | show
	failed=1
fi
# /lib/modules as it was, for the end of the boot.
umount -l /usr/lib/modules

if ((failed)); then
	say "FAIL"
	exit 1
fi
say "PASS"
