#!/usr/bin/env bash
# vm/kernel.sh - fetch/extract Debian's linux-source-6.1 (or -6.12) and build
# the cqpool test kernels (tinyconfig + config fragments), cached under
# ${CQPOOL_CACHE:-$HOME/.cache/cqpool}.
#
#   vm/kernel.sh source   extract the source tree (once); print its path
#   vm/kernel.sh debug    build the debug kernel, vm/debug.config (KASAN,
#                         kmemleak, lockdep), once; print the cache dir
#                         <cache>/kernel-<key>/ containing bzImage, build/
#                         (O= tree, usable as KDIR), modules/ (its loadable
#                         modules, as modules_install lays them out under
#                         modules/lib/modules/<release>/) and .done
#   vm/kernel.sh kcsan    the same for vm/debug.config + vm/kcsan.config
#                         (KCSAN in place of KASAN); every kernel but the
#                         6.1 debug kernel adds vm/no-blktests.config
#
# CQPOOL_KERNEL_SERIES=6.12 takes linux-source-6.12 in place of 6.1, and
# vm/linux-6.12.config adapts the fragments to it.  The fixes in
# vm/patches/<series>/*.patch, each saying why, are applied to the source
# as it is extracted: the test kernels' own, never the stock kernel's.  A
# kernel's key is its series, its source package's version, its patches,
# its merged fragments and RECIPE.
#
# Only the requested path goes to stdout; all progress goes to stderr and
# make output to <cache>/kernel-<key>/build.log.
#
# Needs (Debian 12): linux-source-6.1 (linux-source-6.12) build-essential
# flex bison bc libelf-dev libssl-dev dwarves cpio kmod.
set -euo pipefail

SELF=$(readlink -f -- "${BASH_SOURCE[0]}")
SCRIPT_DIR=$(dirname -- "$SELF")
REPO_DIR=$(cd -- "$SCRIPT_DIR/.." && pwd -P)

SERIES=${CQPOOL_KERNEL_SERIES:-6.1}
case $SERIES in
6.1|6.12) ;;
*) printf 'kernel.sh: error: CQPOOL_KERNEL_SERIES is 6.1 or 6.12, not %s\n' "$SERIES" >&2; exit 2 ;;
esac
SRC_PKG=linux-source-$SERIES
# The build steps' version: bump it when they change what a kernel is, so
# that cached kernels are rebuilt.  Editing anything else here does not.
RECIPE=2
SRC_TARBALL=/usr/src/$SRC_PKG.tar.xz
CACHE=${CQPOOL_CACHE:-${HOME:?HOME is unset; set CQPOOL_CACHE}/.cache/cqpool}

log() { printf 'kernel.sh: %s\n' "$*" >&2; }
die() { printf 'kernel.sh: error: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,/build\.log\.$/s/^# \{0,1\}//p' "$SELF" >&2
    exit 2
}

# The series' patches, in order.
patches() {
    local d=$REPO_DIR/vm/patches/$SERIES
    [[ -d $d ]] || return 0
    find "$d" -maxdepth 1 -name '*.patch' | LC_ALL=C sort
}

# What the patches are: a key for the patched source, "" without any.
patches_key() {
    local f
    {
        while read -r f; do
            printf '%s\0' "${f##*/}"; cat -- "$f"
        done < <(patches)
    } | sha256sum | cut -c1-8
}

pkg_version() {
    local v
    v=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) || true
    [[ -n $v ]] || die "package $SRC_PKG is not installed (apt-get install $SRC_PKG)"
    [[ -f $SRC_TARBALL ]] || die "$SRC_TARBALL missing (reinstall $SRC_PKG)"
    printf '%s\n' "$v"
}

# Take an exclusive lock on lock file $1 (fd $2), until drop_lock $2 or
# the end of this process.
take_lock() {
    local file=$1 fd=$2
    eval "exec $fd>\"\$file\""
    if ! flock -n "$fd"; then
        log "waiting for lock $file (another kernel.sh is running)"
        flock "$fd"
    fi
}

drop_lock() {
    eval "exec $1>&-"
}

# ---------------------------------------------------------------------------
# source: extract the tarball atomically into $CACHE/src-<ver>/linux-source-6.1
# ---------------------------------------------------------------------------
ensure_source() {
    local ver final tmp
    ver=$(pkg_version)
    final=$CACHE/src-$ver
    [[ -z $(patches) ]] || final+=-p$(patches_key)
    SRC_DIR=$final/$SRC_PKG
    # The directory only ever appears via rename() of a fully extracted tree,
    # so its existence means it is complete.
    if [[ -f $SRC_DIR/Makefile ]]; then
        return 0
    fi
    mkdir -p -- "$CACHE"
    # Held only while extracting: a kernel build in the background must
    # not keep `kernel.sh source` waiting.
    take_lock "$CACHE/.src.lock" 8
    if [[ -f $SRC_DIR/Makefile ]]; then
        drop_lock 8
        return 0
    fi
    if [[ -e $final ]]; then
        die "$final exists but has no $SRC_PKG/Makefile; remove it and retry"
    fi
    # leftovers of interrupted extractions (we hold the lock, so they are dead)
    rm -rf -- "$CACHE"/.src-*.tmp.*
    # If we are killed, the temp dir is left behind (a still-running tar
    # child keeps the lock fd open) and removed by the next run, under lock.
    tmp=$(mktemp -d -- "$CACHE/.src-$ver.tmp.XXXXXX")
    chmod 755 -- "$tmp"
    log "extracting $SRC_TARBALL ($ver) into $final ..."
    if ! tar -xJf "$SRC_TARBALL" -C "$tmp" || [[ ! -f $tmp/$SRC_PKG/Makefile ]]; then
        rm -rf -- "$tmp"
        die "extracting $SRC_TARBALL failed"
    fi
    local p
    while read -r p; do
        log "applying ${p#"$REPO_DIR/"}"
        if ! patch -s -p1 -d "$tmp/$SRC_PKG" <"$p" >&2; then
            rm -rf -- "$tmp"
            die "${p#"$REPO_DIR/"} does not apply to $SRC_PKG $ver"
        fi
    done < <(patches)
    mv -T -- "$tmp" "$final"
    drop_lock 8
    log "source ready: $SRC_DIR"
}

# ---------------------------------------------------------------------------
# debug, kcsan: build tinyconfig + the kind's fragments into
# $CACHE/kernel-<key>/
# ---------------------------------------------------------------------------
FRAGMENTS=()
# A kernel kind is vm/debug.config, adapted to its series where that needs
# it, plus at most an overlay, so that the kinds differ only where they
# must; and without what only blktests needs, but for the 6.1 debug
# kernel, the one make blktests boots.
set_fragments() {
    FRAGMENTS=("$REPO_DIR/vm/debug.config")
    [[ ! -f $REPO_DIR/vm/linux-$SERIES.config ]] ||
        FRAGMENTS+=("$REPO_DIR/vm/linux-$SERIES.config")
    [[ $1 == debug ]] || FRAGMENTS+=("$REPO_DIR/vm/$1.config")
    [[ $1 == debug && $SERIES == 6.1 ]] ||
        FRAGMENTS+=("$REPO_DIR/vm/no-blktests.config")
}

# What a kernel is built from, not how this script is written: its
# source, its configuration and the build steps' version.
kernel_key() {
    local ver=$1 f
    {
        for f in "${FRAGMENTS[@]}"; do
            printf '%s\0' "${f##*/}"; cat -- "$f"; printf '\0'
        done
        printf 'recipe\0%s\0series\0%s\0pkgver\0%s\0patches\0%s\0' \
            "$RECIPE" "$SERIES" "$ver" "$(patches_key)"
    } | sha256sum | cut -c1-12
}

# The fragments as one, in which a symbol keeps only its last setting: an
# overlay's `# CONFIG_KASAN is not set` must replace, not contradict, the
# base's CONFIG_KASAN=y, both for kconfig and for verify_config.
merge_fragments() {
    awk '
        FNR == 1 {
            name = FILENAME
            sub(/.*\//, "", name)
            text[++n] = "# ---- vm/" name " ----"
        }
        {
            line = $0
            sub(/\r$/, "", line)
            text[++n] = $0
            sym = ""
            if (line ~ /^CONFIG_[A-Za-z0-9_]+=/)
                sym = substr(line, 1, index(line, "=") - 1)
            else if (line ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/)
                sym = substr(line, 3, index(line, " is not set") - 3)
            if (sym != "") {
                sym_at[n] = sym
                last[sym] = n
            }
        }
        END {
            for (i = 1; i <= n; i++)
                if (!(i in sym_at) || last[sym_at[i]] == i)
                    print text[i]
        }' "${FRAGMENTS[@]}"
}

check_tools() {
    local missing=() t
    for t in make gcc ld flex bison bc perl tar xz flock sha256sum; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    [[ -e /usr/include/libelf.h || -e /usr/include/elfutils/libelf.h ]] \
        || missing+=("libelf-dev")
    [[ -e /usr/include/openssl/ssl.h ]] || missing+=("libssl-dev")
    ((${#missing[@]} == 0)) || die "missing build tools: ${missing[*]}"
}

# Every `CONFIG_X=v` line of the fragment must appear verbatim in .config and
# every `# CONFIG_X is not set` must not be enabled.  olddefconfig silently
# drops options whose dependencies are unmet, so this must fail loudly.
verify_config() {
    local frag=$1 cfg=$2 line sym bad=0 have known
    # All symbols defined by any Kconfig file, to catch typos (kconfig
    # silently ignores unknown symbols, so `# CONFIG_TYPO is not set` would
    # otherwise always "pass").
    known=$(cd -- "$SRC_DIR" && find . -name 'Kconfig*' -type f -print0 \
        | xargs -0 sed -nE 's/^[[:space:]]*(menu)?config[[:space:]]+([A-Za-z0-9_]+).*/CONFIG_\2/p' \
        | sort -u)
    while IFS= read -r line || [[ -n $line ]]; do
        line=${line%$'\r'}
        if [[ $line =~ ^(#\ )?(CONFIG_[A-Za-z0-9_]+)(=|\ is\ not\ set$) ]] \
            && ! grep -qxF -- "${BASH_REMATCH[2]}" <<<"$known"; then
            log "config check: '${BASH_REMATCH[2]}' is not defined by any Kconfig in $SRC_DIR (typo?)"
            bad=1
            continue
        fi
        if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
            sym=${BASH_REMATCH[1]}
            if ! grep -qxF -- "$line" "$cfg"; then
                have=$(grep -E "^(# )?$sym[= ]" "$cfg" || true)
                log "config check: wanted '$line', got '${have:-<absent: dependencies unmet>}'"
                bad=1
            fi
        elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
            sym=${BASH_REMATCH[1]}
            if grep -qE "^$sym=" "$cfg"; then
                log "config check: wanted '$sym' off, got '$(grep -E "^$sym=" "$cfg")'"
                bad=1
            fi
        fi
    done <"$frag"
    ((bad == 0)) || die "final .config does not match $frag (see above); fix the fragment's dependencies"
}

KLOG=
# run a command with output appended to $KLOG; on failure show the log tail
run_logged() {
    printf '\n### %s\n' "$*" >>"$KLOG"
    if ! "$@" >>"$KLOG" 2>&1; then
        log "FAILED: $*"
        log "---- last 60 lines of $KLOG ----"
        tail -n 60 -- "$KLOG" >&2
        die "kernel build failed (full log: $KLOG)"
    fi
}

ensure_kernel() {
    local kind=$1 ver key kdir build jobs start f merged
    ensure_source
    ver=$(pkg_version)
    set_fragments "$kind"
    for f in "${FRAGMENTS[@]}"; do
        [[ -f $f ]] || die "missing $f"
    done
    key=$(kernel_key "$ver")
    kdir=$CACHE/kernel-$key
    KERNEL_DIR=$kdir
    if [[ -f $kdir/.done ]]; then
        return 0
    fi
    check_tools
    take_lock "$CACHE/.kernel.lock" 9
    if [[ -f $kdir/.done ]]; then
        return 0
    fi

    build=$kdir/build
    KLOG=$kdir/build.log
    mkdir -p -- "$build"
    # An interrupted earlier attempt with the same key is resumed: kbuild
    # rebuilds every target whose .cmd file is missing, so this is safe.
    : >"$KLOG"
    jobs=$(nproc)
    start=$SECONDS
    log "building $kind kernel in $kdir (-j$jobs, log: $KLOG) ..."

    # Isolate from a calling make (jobserver, -s, ...) and from ARCH/O/etc.
    local -a mk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ARCH -u SUBARCH
                 -u CROSS_COMPILE -u KBUILD_OUTPUT -u KCONFIG_CONFIG
                 -u LOCALVERSION
                 make -C "$SRC_DIR" O="$build")

    merged=$kdir/$kind.config
    merge_fragments >"$merged"
    printf 'kind=%s\nseries=%s\npkgver=%s\nkey=%s\nsrc=%s\n' "$kind" "$SERIES" "$ver" "$key" "$SRC_DIR" >"$kdir/key-info"

    log "configuring: tinyconfig + ${FRAGMENTS[*]#"$REPO_DIR/"}"
    run_logged "${mk[@]}" tinyconfig
    # Later assignments win in kconfig, so appending the fragment overrides
    # tinyconfig; olddefconfig then resolves dependencies/defaults.
    {
        printf '\n# ---- appended by vm/kernel.sh ----\n'
        cat -- "$merged"
    } >>"$build/.config"
    run_logged "${mk[@]}" olddefconfig
    verify_config "$merged" "$build/.config"

    log "compiling (this takes several minutes) ..."
    run_logged "${mk[@]}" -j"$jobs" all
    [[ -f $build/arch/x86/boot/bzImage ]] || die "no bzImage after build (log: $KLOG)"
    [[ -x $build/scripts/mod/modpost && -f $build/Module.symvers ]] \
        || die "build tree is not usable for external modules (log: $KLOG)"
    rm -rf -- "$kdir/modules"
    run_logged "${mk[@]}" INSTALL_MOD_PATH="$kdir/modules" modules_install
    cp -- "$build/arch/x86/boot/bzImage" "$kdir/bzImage"
    sync -f "$kdir/bzImage" 2>/dev/null || true
    touch -- "$kdir/.done"
    log "$kind kernel built in $((SECONDS - start))s: $kdir"

    # Drop kernels of this kind and series built for other keys (other
    # fragments, recipes or source versions); the others are still
    # current.  A key-info without kind= or series= predates them: that
    # kernel is a 6.1 debug kernel.
    if [[ ${CQPOOL_KEEP_OLD_KERNELS:-0} != 1 ]]; then
        local old old_kind old_series
        for old in "$CACHE"/kernel-*; do
            [[ -d $old && $old != "$kdir" ]] || continue
            old_kind=$(sed -n 's/^kind=//p' "$old/key-info" 2>/dev/null || true)
            old_series=$(sed -n 's/^series=//p' "$old/key-info" 2>/dev/null || true)
            [[ ${old_kind:-debug} == "$kind" && ${old_series:-6.1} == "$SERIES" ]] || continue
            log "removing stale $old"
            rm -rf -- "$old"
        done
    fi
}

main() {
    (($# == 1)) || usage
    case $1 in
        source)
            ensure_source
            printf '%s\n' "$SRC_DIR"
            ;;
        debug|kcsan)
            ensure_kernel "$1"
            printf '%s/\n' "$KERNEL_DIR"
            ;;
        -h|--help|help) usage ;;
        *) usage ;;
    esac
}

# Keep `main` and `exit` on one line: bash reads scripts incrementally, so
# this stops a running instance from reading an edited file past this point.
main "$@"; exit
