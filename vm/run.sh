#!/bin/bash
# Boot the cqpool test VM and run a payload in it.
#
#   vm/run.sh KIND PAYLOAD_DIR OUTDIR      KIND = stock | debug | kcsan; PAYLOAD_DIR may be "-"
#   vm/run.sh --print-stock-version        the stock kernel version used (e.g. to
#                                          build modules against /usr/src/linux-headers-VER)
#
# The guest (vm/init) sets up rxe0 (and siw0 on debug and kcsan) over a veth
# pair, runs PAYLOAD_DIR/run.sh (busybox sh) from /payload and exits with its
# status.  OUTDIR gets: initramfs.cpio.gz, console.log (ttyS0: kernel log +
# payload stdout/stderr), results.log (ttyS1: whatever the payload writes to
# $CQPOOL_RESULTS), cmdline (the QEMU command), and on kcsan
# kcsan-other.log: the KCSAN reports that are not splats (see below).
#
# On kcsan a KCSAN report is a splat only if cqpool's code is in it (a
# function of cqpool*.ko, or named cqpool_* or cqp_*, in its header or
# stacks); the data races of the rest of the kernel (rxe, ib_core, the
# block layer...) are not cqpool's to fix, so they are only counted.
#
# Exit status:
#   0..127  the payload's status (>127 is reported as 127 by QEMU; the real
#           value is on the console and is used when it is there); 99 = the
#           guest's setup failed (see console.log)
#   97      kernel splat found in console.log although the guest said 0
#   124     timeout (CQPOOL_VM_TIMEOUT, default 1800 s), or every boot stalled
#   125     no guest status: QEMU failed, the kernel panicked, QEMU was
#           killed after a splat (CQPOOL_VM_SPLAT_GRACE), or the guest died
#           before reporting a status
#   2       usage error
# A splat with a non-zero guest status keeps the guest status.
#
# Environment:
#   CQPOOL_VM_TIMEOUT=1800      seconds before QEMU is killed (a hang is caught
#                               sooner, by hung_task)
#   CQPOOL_VM_HUNG_TASK_SECS=30 the guest's hung_task_timeout_secs
#   CQPOOL_VM_SPLAT_GRACE=60    after the first splat, seconds to let the guest
#                               finish before QEMU is killed (an oops often
#                               leaves the payload hanging)
#   CQPOOL_VM_BOOT_TIMEOUT=180  seconds for the kernel to start /init; after that
#   CQPOOL_VM_BOOT_RETRIES=1    QEMU is killed and the boot retried this many
#                               times (the stalled console is kept as
#                               console.boot-stall-N.log)
#   CQPOOL_VM_QUIET=1           don't stream the console to stdout
#   CQPOOL_VM_APPEND="..."      extra kernel command line
#   CQPOOL_VM_MEM=2G CQPOOL_VM_SMP=2
#   CQPOOL_VM_ACCEL=tcg         QEMU's -accel (tcg,thread=single: one host
#                               thread runs every vCPU)
#   CQPOOL_VM_MODULES=ROOT      ROOT/lib/modules/VER/ added to the guest's
#                               modules tree (a DKMS install tree)
#   CQPOOL_VM_ROOT=host         boot with the host's root file system as the
#                               guest's userland, read-only over virtio-9p
#                               (vm/hostroot.sh), and PAYLOAD_DIR shared
#                               writable at /run/cqpool rather than copied in: for
#                               suites that need a real distribution
#                               (blktests).  The kernel's modules come from
#                               the kernel under test.
#   CQPOOL_VM_WRITABLE_USR=1    with CQPOOL_VM_ROOT=host: /usr writable too,
#                               an overlay in the guest's memory as /etc's
#                               and /var's (vm/hostroot.sh), for a payload
#                               that installs packages
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${1:-} == --print-stock-version ]]; then
	exec "$here/initramfs.sh" --print-stock-version
fi

usage() { echo "usage: $0 stock|debug|kcsan PAYLOAD_DIR|- OUTDIR | --print-stock-version" >&2; exit 2; }
[[ $# -eq 3 ]] || usage
kind=$1
payload=$2
outdir=$3
case $kind in stock|debug|kcsan) ;; *) usage ;; esac
if [[ $payload != - && ! -d $payload ]]; then
	echo "run.sh: payload dir '$payload' does not exist" >&2
	exit 2
fi

timeout_s=${CQPOOL_VM_TIMEOUT:-1800}
grace_s=${CQPOOL_VM_SPLAT_GRACE:-60}
boot_timeout_s=${CQPOOL_VM_BOOT_TIMEOUT:-180}
boot_retries=${CQPOOL_VM_BOOT_RETRIES:-1}

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
console=$outdir/console.log
results=$outdir/results.log
initrd=$outdir/initramfs.cpio.gz
kcsan_other=$outdir/kcsan-other.log
rm -f "$console" "$results" "$kcsan_other" "$outdir"/console.boot-stall-*.log

t0=$(date +%s)

# --- kernel ------------------------------------------------------------------------
if [[ $kind == stock ]]; then
	ver=$("$here/initramfs.sh" --print-stock-version)
	kernel=/boot/vmlinuz-$ver
else
	kdir=$("$here/kernel.sh" "$kind") || { echo "run.sh: vm/kernel.sh $kind failed" >&2; exit 125; }
	kdir=${kdir%/}
	kernel=$kdir/bzImage
fi
[[ -r $kernel ]] || { echo "run.sh: kernel image '$kernel' not readable" >&2; exit 125; }

# --- initramfs -----------------------------------------------------------------------
hostroot=${CQPOOL_VM_ROOT:-}
case $hostroot in
'') "$here/initramfs.sh" "$kind" "$initrd" "$payload" ;;
host)
	[[ $payload != - ]] || { echo "run.sh: CQPOOL_VM_ROOT=host needs a payload dir" >&2; exit 2; }
	"$here/initramfs.sh" "$kind" "$initrd" -
	;;
*) echo "run.sh: CQPOOL_VM_ROOT must be empty or 'host'" >&2; exit 2 ;;
esac
t1=$(date +%s)

# --- boot --------------------------------------------------------------------------
# Kernel command line: console on ttyS0, full log level with timestamps (the
# splat scan below only looks at timestamped kernel lines), no KASLR (so
# addresses in splats decode against vmlinux), reboot at once on panic (QEMU
# then exits: -no-reboot). An oops does not panic: the guest goes on, the
# console scan catches it. Lockup/stall detectors are made more tolerant of
# TCG's slowness on a busy host, not disabled.  A task blocked for 30 s
# is a hang that fails the run now, rather than a test that passes late
# (the debug kernel's blktests allow it longer: scripts/blktests.sh).
append="console=ttyS0,115200 loglevel=7 printk.time=1 nokaslr panic=-1"
append+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
hung=${CQPOOL_VM_HUNG_TASK_SECS:-30}
[[ $hung =~ ^[1-9][0-9]*$ ]] || { echo "vm: CQPOOL_VM_HUNG_TASK_SECS must be a count of seconds, not '$hung'" >&2; exit 2; }
append+=" sysctl.kernel.hung_task_timeout_secs=$hung"
append+=" cqpool_vm.kind=$kind"
# The 9p shares are the guest's only PCI devices.  Their interrupt routing
# comes from the BIOS's table, not ACPI's _PRT method: under TCG the AML
# interpreter of a kernel with lockdep and KASAN timed out on it
# (AE_AML_LOOP_TIMEOUT, 30 s a device) and left the devices without an
# interrupt.  The debug kernels have no ACPI now (vm/debug.config).
[[ -n $hostroot ]] && append+=" cqpool_vm.root=$hostroot pci=noacpi"
if [[ -n ${CQPOOL_VM_WRITABLE_USR:-} ]]; then
	[[ -n $hostroot ]] || { echo "run.sh: CQPOOL_VM_WRITABLE_USR needs CQPOOL_VM_ROOT=host" >&2; exit 2; }
	append+=" cqpool_vm.usr=rw"
fi
[[ -n ${CQPOOL_VM_APPEND:-} ]] && append+=" $CQPOOL_VM_APPEND"

# A debug kernel, without ACPI, finds its CPUs in the BIOS's MP table,
# which lists the first CPU of each socket only: one CPU a socket.  Nor
# does it find the HPET or PM timer, which ACPI announces, to calibrate the
# TSC against.  The PIT alone, emulated on a busy host, failed (the clock
# was then jiffies, 4 ms a tick), so the guest is told the TSC's rate,
# which under TCG is the host's (vm/tsc-khz.c); TCG keeps it in step
# across vCPUs.
smp=${CQPOOL_VM_SMP:-2}
if [[ $kind != stock ]]; then
	smp+=",sockets=$smp"
	khz=$(gcc -O2 -Wall -o "$outdir/tsc-khz" "$here/tsc-khz.c" &&
		"$outdir/tsc-khz") ||
		{ echo "run.sh: the TSC's rate (vm/tsc-khz.c) failed" >&2; exit 125; }
	append+=" tsc=reliable tsc_early_khz=$khz"
fi

# shellcheck disable=SC2054  # the commas are QEMU's
qemu=(qemu-system-x86_64 -accel "${CQPOOL_VM_ACCEL:-tcg}" -m "${CQPOOL_VM_MEM:-2G}" -smp "$smp"
	-nodefaults -display none -monitor none -no-reboot
	-device isa-debug-exit,iobase=0xf4,iosize=0x04
	-serial "file:$console" -serial "file:$results"
	-kernel "$kernel" -initrd "$initrd" -append "$append")
# The host's root read-only, the payload writable (results land there), and
# a debug kernel's modules, where the host has none.
if [[ -n $hostroot ]]; then
	qemu+=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$(cd "$payload" && pwd),mount_tag=payload,security_model=none")
	if [[ $kind != stock ]]; then
		qemu+=(-virtfs "local,path=$kdir/modules/lib/modules,mount_tag=modules,security_model=none,readonly=on")
	fi
fi
shell_quote() {
	local a out=()
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_,.:=/+@%-]+$ ]]; then
			out+=("$a")
		else
			out+=("'${a//\'/\'\\\'\'}'")
		fi
	done
	echo "${out[*]}"
}
shell_quote "${qemu[@]}" >"$outdir/cmdline"
echo "vm($kind): booting $kernel (timeout ${timeout_s}s), console: $console" >&2

qpid=
tail_pid=
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
	# Interrupted (or failed): don't leave QEMU running (timeout(1) runs it in
	# its own process group, out of reach of the terminal's ^C).
	[[ -n $qpid ]] && kill "$qpid" 2>/dev/null
	[[ -n $tail_pid ]] && kill "$tail_pid" 2>/dev/null
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Kernel splats: only timestamped kernel lines count, so that payload output
# such as "WARNING: skipped" does not; kmemleak's report (from
# /sys/kernel/debug/kmemleak, often cat'ed to the console by the payload)
# counts anywhere.  kmemleak/KASAN: real reports only, not
# "kmemleak: Kernel memory leak detector initialized" or
# "KernelAddressSanitizer initialized".
splat_re='BUG:|WARNING:|KASAN:|kmemleak: [0-9]+ new suspected memory leak|possible circular locking|UBSAN:|Oops|Call Trace|kernel BUG at|Kernel panic|general protection fault|INFO: task .* blocked for more than|detected stalls? on CPU'
any_re='unreferenced object 0x'
ts_re='\[ *[0-9]+\.[0-9]+\]'
# cqpool's code in a KCSAN report: a symbol of one of its modules
# ("func+0x1d/0x30 [cqpool_kunit]"), or one named for it.
ours_re='\[cqpool[a-z_]*\]|(^|[^A-Za-z0-9_])(cqpool|cqp)_[A-Za-z0-9_]'
# A failed allocation's report (warn_alloc: "vmalloc error:", "page
# allocation failure:") carries a stack trace.  Between the payload's
# "cqpool-fault-injection-begin" and "-end" kernel log markers failures
# are injected on purpose, so there the trace of such a report is not a
# splat; everything else still is.
#
# scan_splats [--live]: the splats so far.  On kcsan, a KCSAN report runs
# from its "BUG: KCSAN:" line to its closing "=====" line; the reports
# that are not splats go to $kcsan_other.  --live, while the guest runs,
# leaves out KCSAN reports altogether: a race does not hang the guest, so
# it must not get it killed before the rest of the tests have run.
scan_splats() {
	local timestamps=0 kcsan=0 live=0 other=

	grep -Eq "^$ts_re" "$console" && timestamps=1
	[[ $kind == kcsan ]] && kcsan=1
	if [[ ${1:-} == --live ]]; then
		live=1
	elif ((kcsan)); then
		other=$kcsan_other
	fi
	SPLAT_RE=$splat_re ANY_RE=$any_re TS_RE=$ts_re TS=$timestamps \
	OURS_RE=$ours_re KCSAN=$kcsan LIVE=$live OTHER=$other awk '
		function report_end() {
			if (report == "")
				return
			if (ours && !live)
				print report
			else if (!ours && other != "")
				print report "\n" > other
			report = ""
		}
		BEGIN {
			splat = ENVIRON["SPLAT_RE"]; any = ENVIRON["ANY_RE"]
			ts = ENVIRON["TS_RE"]; use_ts = ENVIRON["TS"] == 1
			ours_re = ENVIRON["OURS_RE"]; kcsan = ENVIRON["KCSAN"] == 1
			live = ENVIRON["LIVE"] == 1; other = ENVIRON["OTHER"]
			if (other != "")
				printf "" > other
		}
		{ sub(/\r$/, "") }
		kcsan && /BUG: KCSAN: / && (!use_ts || $0 ~ ts) {
			report_end()
			report = $0
			ours = $0 ~ ours_re
			next
		}
		# A splat that another CPU prints into a report is no part of
		# it, but still a splat: no "next".
		report != "" && (!use_ts || $0 ~ ts) && $0 !~ splat && $0 !~ any {
			if (index($0, "==========")) {
				report_end()
				next
			}
			report = report "\n" $0
			if ($0 ~ ours_re)
				ours = 1
		}
		/cqpool-fault-injection-begin/ { injecting = 1 }
		/cqpool-fault-injection-end/ { injecting = 0 }
		injecting && /vmalloc error:|page allocation failure:/ {
			trace_expected = 1
			next
		}
		($0 ~ splat && (!use_ts || $0 ~ ts)) || $0 ~ any {
			if (trace_expected && /Call Trace/) {
				trace_expected = 0
				next
			}
			print
		}
		END { report_end() }' "$console"
}

# One boot.  Sets qstatus, killed_on_splat, boot_stalled.
boot_once() {
	local started now splat_seen_at=''
	killed_on_splat=
	boot_stalled=
	: >"$console"
	: >"$results"
	timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null &
	qpid=$!
	if [[ -z ${CQPOOL_VM_QUIET:-} ]]; then
		tail -c +1 -F --pid="$qpid" "$console" 2>/dev/null &
		tail_pid=$!
	fi
	started=$(date +%s)
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 1
		now=$(date +%s)
		# Boot stall: /init's first line never came (seen, rarely, with the
		# debug kernel under TCG: early boot stops with QEMU idle).
		if ((now - started >= boot_timeout_s)) && [[ -z $splat_seen_at ]] &&
			! grep -aq 'cqpool-vm: ' "$console"; then
			echo "vm($kind): boot stalled: no output from /init after ${boot_timeout_s}s; killing QEMU" >&2
			boot_stalled=1
			kill "$qpid" 2>/dev/null || true
			break
		fi
		if [[ -z $splat_seen_at ]]; then
			if [[ -n $(scan_splats --live | head -n 1) ]]; then
				splat_seen_at=$now
				echo "vm($kind): kernel splat on the console; giving the guest ${grace_s}s to finish" >&2
			fi
		elif ((now - splat_seen_at >= grace_s)); then
			echo "vm($kind): guest still running ${grace_s}s after a kernel splat: killing QEMU" >&2
			killed_on_splat=1
			kill "$qpid" 2>/dev/null || true
			break
		fi
	done
	qstatus=0
	wait "$qpid" || qstatus=$?
	qpid=
	if [[ -n $tail_pid ]]; then
		wait "$tail_pid" 2>/dev/null || true
		tail_pid=
	fi
}

attempt=1
while :; do
	boot_once
	[[ -n $boot_stalled ]] || break
	cp "$console" "$outdir/console.boot-stall-$attempt.log"
	if ((attempt > boot_retries)); then
		break
	fi
	attempt=$((attempt + 1))
	echo "vm($kind): boot stall log kept as $outdir/console.boot-stall-$((attempt - 1)).log; retrying (attempt $attempt)" >&2
done
t2=$(date +%s)

# --- guest status --------------------------------------------------------------------
# isa-debug-exit: QEMU status (N << 1) | 1.  0 = the guest rebooted (qemu-exit's
# fallback, or a panic): then only the console's "cqpool-vm: exit status N" counts.
marker=$(grep -aoE 'cqpool-vm: exit status [0-9]+' "$console" | tail -n 1 | awk '{ print $4 }' || true)
gstatus=
why=
if [[ -n $boot_stalled ]]; then
	why="boot stalled ($attempt attempts; see $outdir/console.boot-stall-*.log)"
elif [[ -n $killed_on_splat ]]; then
	why="killed ${grace_s}s after a kernel splat"
elif ((qstatus == 124 || qstatus == 137)); then
	why="timeout after ${timeout_s}s"
elif ((qstatus % 2 == 1)) && [[ -z $marker ]]; then
	# QEMU's own errors exit 1, which would read as guest status 0; the
	# guest always prints its status line before qemu-exit.
	why="QEMU exited with status $qstatus but the guest printed no status (QEMU error?)"
elif ((qstatus % 2 == 1)); then
	gstatus=$(((qstatus - 1) / 2))
	if [[ -n $marker ]] && ((marker > 127 && gstatus == 127)); then
		gstatus=$marker
	fi
elif ((qstatus == 0)) && [[ -n $marker ]]; then
	gstatus=$marker
elif ((qstatus == 0)); then
	why="guest rebooted without reporting a status (kernel panic? init died?)"
else
	why="QEMU failed with status $qstatus"
fi

splats=$(scan_splats)

rc=0
if [[ -n $gstatus ]]; then
	rc=$gstatus
	status_txt="guest status $gstatus"
	((gstatus == 99)) && status_txt+=" (setup failed)"
else
	case $why in
	timeout* | boot\ stalled*) rc=124 ;;
	*) rc=125 ;;
	esac
	status_txt="no guest status: $why"
fi

if [[ -n $splats ]]; then
	echo "vm($kind): kernel splat(s) in $console:" >&2
	printf '%s\n' "$splats" | head -n 40 | sed 's/^/    /' >&2
	n=$(printf '%s\n' "$splats" | wc -l)
	((n > 40)) && echo "    ... ($n lines)" >&2
	((rc == 0)) && rc=97
	if [[ $kind != stock && -f $kdir/build/vmlinux ]]; then
		echo "    (decode: $kdir/build/source/scripts/decode_stacktrace.sh $kdir/build/vmlinux < $console)" >&2
	fi
	splat_txt="SPLAT"
else
	splat_txt="no splat"
fi
if [[ $kind == kcsan ]]; then
	n=$(grep -c 'BUG: KCSAN:' "$kcsan_other" || true)
	splat_txt+=", $n KCSAN report(s) outside cqpool's code (not failures)"
	if ((n > 0)); then
		echo "vm($kind): $n KCSAN report(s) of races outside cqpool's code, not failures ($kcsan_other); the most frequent:" >&2
		sed -n 's/.*BUG: KCSAN: //p' "$kcsan_other" | sort | uniq -c |
			sort -rn | head -n 5 | sed 's/^/    /' >&2
	fi
fi

echo "vm($kind): $status_txt, $splat_txt, exit $rc; $((t2 - t0))s (initramfs $((t1 - t0))s, boot+run $((t2 - t1))s); console: $console"
exit "$rc"
