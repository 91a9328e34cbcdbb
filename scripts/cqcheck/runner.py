# SPDX-License-Identifier: GPL-2.0
"""Runs the VM rows of vm/matrix.toml for one of make check's modes.

Each row is a thread: it prepares what its boot needs (its kernel, made by
vm/kernel.sh; the test build of cqpool for it, once per build; its
payload), then waits for cores, boots, gives them back and counts what
the boot reported, by the rules of this package.  A row asks for
``cores``, the host threads its boot keeps busy; the rows ready to boot
take the cores there are in the file's order, the longest first there,
and a later row never passes an earlier one that waits.  Preparing
needs no cores: a kernel that builds in the background (make check
starts them at nice 19) holds no row but its own.

Every count is a record, ``NAME PASSED FAILED SKIPPED NOTE``, printed as
it comes and written to OUT/matrix-records.tsv for check.sh, which adds
them to its own.  The names are check.sh's: vm:LABEL:TEST,
vm:LABEL:clean-run, build:LABEL, coverage, dkms:install, deb:build,
deb:lintian, blktests:KIND, soak.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import threading
import time

from . import expect, kselftest, kunit, matrix


class Cores:
    """The host's cores, given to rows in their order."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.free = capacity
        self.waiting = {}           # row order -> cores wanted
        self.cv = threading.Condition()

    def _next(self):
        """The first waiting row, when its cores are free.  No later row
        passes it: rows of one core, one after another, would keep a row
        of two waiting for good (the debug kernels' rows, the longest)."""
        if not self.waiting:
            return None
        first = min(self.waiting)
        return first if self.waiting[first] <= self.free else None

    def acquire(self, order, n):
        """Waits until row @order may have @n cores (at most all of them)."""
        n = min(n, self.capacity)
        with self.cv:
            self.waiting[order] = n
            while self._next() != order:
                self.cv.wait()
            del self.waiting[order]
            self.free -= n
            # The next row may fit in what is left: it is first now.
            self.cv.notify_all()
        return n

    def release(self, n):
        with self.cv:
            self.free += n
            self.cv.notify_all()


class Runner:
    """One mode's rows, run and counted."""

    def __init__(self, top, out, mode, src, cores=None, log=sys.stdout):
        self.top, self.out, self.mode, self.src = top, out, mode, src
        self.cores = Cores(cores or os.cpu_count() or 1)
        self.log = log
        self.lock = threading.Lock()
        self.records = []
        self.built = {}             # build label -> (Event, ok)
        self.kernels = {}           # (kind, series) -> (Event, dir or None)
        self.dkms = None            # (Event, ok)
        self.deb = {}               # "deb" -> (Event, the .debs or None)
        self.kunit_py = os.path.join(src, "tools/testing/kunit/kunit.py")

    # -- records ---------------------------------------------------------

    def record(self, name, passed, failed, skipped=0, note=""):
        note = note.replace("\t", " ").replace("\n", " ")
        with self.lock:
            self.records.append((name, passed, failed, skipped, note))
            print(f"{name:<28} {passed:4d} passed, {failed} failed"
                  + (f"  ({note})" if note else ""), file=self.log, flush=True)

    def say(self, text):
        with self.lock:
            print(f"    [{time.strftime('%H:%M:%S')}] {text}", file=self.log, flush=True)

    # -- what rows share, made once ---------------------------------------

    def _once(self, table, key, make):
        """make() once for @key, every other caller waiting for it."""
        with self.lock:
            mine = key not in table
            if mine:
                table[key] = [threading.Event(), None]
            entry = table[key]
        if mine:
            try:
                entry[1] = make()
            finally:
                entry[0].set()
        entry[0].wait()
        return entry[1]

    def stock_version(self, series):
        """The installed stock kernel of @series, or None."""
        versions = subprocess.run([os.path.join(self.top, "scripts/kernels.sh")],
                                  capture_output=True, text=True, check=False).stdout.split()
        for v in versions:
            rt = "-rt-" in v
            if series.endswith("-rt") == rt and v.startswith(series.removesuffix("-rt") + "."):
                return v if os.path.exists(f"/boot/vmlinuz-{v}") else None
        return None

    def kernel_dir(self, kernel):
        """vm/kernel.sh's kernel of @kernel (kind, series): its dir, or None."""
        def make():
            log = os.path.join(self.out, f"{kernel.kind}-{kernel.series}-kernel.log")
            with open(log, "w") as f:
                r = subprocess.run([os.path.join(self.top, "vm/kernel.sh"), kernel.kind],
                                   stdout=subprocess.PIPE, stderr=f, text=True, check=False,
                                   env=dict(os.environ, CQPOOL_KERNEL_SERIES=kernel.series))
            if r.returncode:
                self.record(f"{kernel.kind}-kernel-{kernel.series}", 0, 1, 0, f"see {log}")
                return None
            return r.stdout.strip()
        return self._once(self.kernels, (kernel.kind, kernel.series), make)

    def build(self, b):
        """The test build @b, made once: whether it is there."""
        def make():
            kdir = self.kernel_dir(b.kernel)
            if not kdir:
                return False
            log = os.path.join(self.out, f"kbuild-{b.label}.log")
            with open(log, "w") as f:
                r = subprocess.run([os.path.join(self.top, "scripts/kbuild.sh"), b.label,
                                    os.path.join(kdir, "build"), "W=1", *b.args],
                                   stdout=f, stderr=subprocess.STDOUT, check=False)
            with open(log, errors="replace") as f:
                warned = re.search(r"warning:|error:", f.read())
            ok = r.returncode == 0 and not warned
            self.record(f"build:{b.label}", int(ok), int(not ok), 0, "" if ok else f"see {log}")
            if ok:
                self.cxx_check(b.label)
            return ok
        return self._once(self.built, b.label, make)

    def cxx_check(self, label):
        """The core's objects of build @label are freestanding (cxx-check.sh)."""
        d = os.path.join(self.top, "build", f"kbuild-{label}")
        objs = sorted(glob.glob(f"{d}/module/core/*.o") + glob.glob(f"{d}/kunit/core/*.o")
                      + glob.glob(f"{d}/harness/core/*.o"))
        log = os.path.join(self.out, f"cxx-check-{label}.log")
        with open(log, "w") as f:
            r = subprocess.run([os.path.join(self.top, "scripts/cxx-check.sh"), *objs],
                               stdout=f, stderr=subprocess.STDOUT, check=False)
        ok = r.returncode == 0
        self.record(f"lint:cxx-freestanding-{label}", int(ok), int(not ok), 0,
                    "" if ok else f"see {log}")

    def dkms_install(self):
        """cqpool in DKMS, in build/dkms, for every supported kernel."""
        def make():
            log = os.path.join(self.out, "dkms-install.log")
            kernels = subprocess.run([os.path.join(self.top, "scripts/kernels.sh")],
                                     capture_output=True, text=True, check=False).stdout.split()
            with open(log, "w") as f:
                r = subprocess.run([os.path.join(self.top, "scripts/dkms.sh"), "-r",
                                    os.path.join(self.top, "build/dkms"), *kernels],
                                   stdout=f, stderr=subprocess.STDOUT, cwd=self.top, check=False)
            ok = r.returncode == 0
            self.record("dkms:install", int(ok), int(not ok), 0, "" if ok else f"see {log}")
            return ok
        with self.lock:
            if self.dkms is None:
                self.dkms = {}
        return self._once(self.dkms, "dkms", make)

    def deb_build(self):
        """The Debian packages, made once (make deb's two steps): the
        paths of cqpool-dkms's and cqpool-tools's .deb, or None.  lintian
        is a record of its own, and fails no boot."""
        def make():
            log = os.path.join(self.out, "deb-build.log")
            with open(log, "w") as f:
                r = subprocess.run([os.path.join(self.top, "scripts/deb.sh")],
                                   stdout=f, stderr=subprocess.STDOUT, cwd=self.top, check=False)
            d = os.path.join(self.top, "build/deb")
            debs = sorted(glob.glob(f"{d}/cqpool-dkms_*_all.deb")) + \
                sorted(glob.glob(f"{d}/cqpool-tools_*_amd64.deb"))
            ok = r.returncode == 0 and len(debs) == 2
            self.record("deb:build", int(ok), int(not ok), 0,
                        ", ".join(os.path.basename(p) for p in debs) if ok else f"see {log}")
            if not ok:
                return None
            log = os.path.join(self.out, "deb-lintian.log")
            with open(log, "w") as f:
                r = subprocess.run([os.path.join(self.top, "scripts/deb-lintian.sh")],
                                   stdout=f, stderr=subprocess.STDOUT, cwd=self.top, check=False)
            self.record("deb:lintian", int(r.returncode == 0), int(r.returncode != 0), 0,
                        "no error, no warning" if r.returncode == 0 else f"see {log}")
            return debs
        return self._once(self.deb, "deb", make)

    def payload_deb(self, row, debs):
        """build/payload-LABEL of a deb row: vm/payload-deb.sh, the
        packages, the version they must show."""
        d = os.path.join(self.top, "build", f"payload-{row.label}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        shutil.copy(os.path.join(self.top, "vm/payload-deb.sh"), os.path.join(d, "run.sh"))
        shutil.copy(os.path.join(self.top, "vm/payload-lib.sh"), os.path.join(d, "lib.sh"))
        for p in debs:
            shutil.copy(p, d)
        ver = subprocess.run([os.path.join(self.top, "scripts/version-check.sh")],
                             capture_output=True, text=True, check=True).stdout.strip()
        with open(os.path.join(d, "version"), "w") as f:
            f.write(ver + "\n")
        with open(os.path.join(d, "env"), "w") as f:
            f.write("".join(f"{k}={v}\n" for k, v in row.env.items()))
        return d

    @staticmethod
    def deb_verdict(payload, rc):
        """A deb boot's (passed, note): it passed if the guest said PASS
        and the boot was clean; the note counts its checks, or names the
        first that failed."""
        log = os.path.join(payload, "out", "deb.log")
        lines = []
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                lines = f.read().splitlines()
        oks = sum(1 for line in lines if line.startswith("cqpool-deb: ok: "))
        fails = [line.removeprefix("cqpool-deb: FAIL: ") for line in lines
                 if line.startswith("cqpool-deb: FAIL: ")]
        if rc == 0 and lines and lines[-1] == "cqpool-deb: PASS":
            return True, f"{oks} checks passed; {log}"
        why = fails[0] if fails else f"status {rc}, no verdict"
        if not fails and lines and lines[-1] == "cqpool-deb: PASS":
            why = f"the guest passed, the boot did not: status {rc}"
        return False, f"{why}; see {log}"

    # -- a row -------------------------------------------------------------

    def boot_env(self, row, version, extra=None):
        env = dict(os.environ, **(extra or {}))
        env.update(CQPOOL_VM_QUIET="1", CQPOOL_VM_ACCEL=row.accel,
                   CQPOOL_VM_SMP=str(row.vcpus), CQPOOL_VM_MEM=row.mem,
                   CQPOOL_VM_TIMEOUT=str(row.timeout))
        if version:
            env["CQPOOL_STOCK_VERSION"] = version
        else:
            env["CQPOOL_KERNEL_SERIES"] = row.kernel.series
        return env

    def payload_tests(self, row):
        """build/payload-LABEL of a tests row, and its expect file."""
        d = os.path.join(self.top, "build", f"payload-{row.label}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "selftests"))
        for ko in glob.glob(os.path.join(self.top, "build", f"kbuild-{row.modules}", "*.ko")):
            name = os.path.basename(ko)
            if (name == "cqpool_kunit.ko" and not row.kunit) or \
               (name == "cqpool_race_kunit.ko" and not row.races):
                continue
            shutil.copy(ko, d)
        shutil.copy(os.path.join(self.top, "vm/payload-tests.sh"), os.path.join(d, "run.sh"))
        shutil.copy(os.path.join(self.out, "userspace/cqpoolctl"), d)
        available = os.listdir(os.path.join(self.top, "build/selftests"))
        for t in matrix.selftests(row, available):
            shutil.copy(os.path.join(self.top, "build/selftests", t), os.path.join(d, "selftests"))
        if row.tests != "all":
            with open(os.path.join(d, "only"), "w") as f:
                f.write(" ".join(row.tests) + "\n")
        if row.env:
            with open(os.path.join(d, "env"), "w") as f:
                f.write("".join(f"{k}={v}\n" for k, v in row.env.items()))
        with open(os.path.join(d, "expect"), "w") as f:
            f.write(matrix.expect(row, available, os.path.join(self.top, "kunit")))
        return d

    def boot(self, row, kind, payload, version, extra_env=None):
        """vm/run.sh, with the row's cores: its status."""
        vmout = os.path.join(self.out, f"vm-{row.label}")
        got = self.cores.acquire(self.order[row.label], row.cores)
        self.say(f"{row.label}: booting ({got} of {self.cores.capacity} cores)")
        start = time.monotonic()
        try:
            with open(vmout + ".log", "w") as f:
                rc = subprocess.run([os.path.join(self.top, "vm/run.sh"), kind, payload, vmout],
                                    stdout=f, stderr=subprocess.STDOUT, cwd=self.top,
                                    env=self.boot_env(row, version, extra_env),
                                    check=False).returncode
        finally:
            self.cores.release(got)
        self.say(f"{row.label}: done in {time.monotonic() - start:.0f} s, status {rc}")
        return rc

    def count_tests(self, row, payload, rc):
        """vm:LABEL:... of a tests boot (check.sh's vm_count, once)."""
        vmout = os.path.join(self.out, f"vm-{row.label}")
        read = lambda p: open(p, errors="replace").read() if os.path.exists(p) else ""
        console, results = read(f"{vmout}/console.log"), read(f"{vmout}/results.log")
        with open(os.path.join(payload, "expect")) as f:
            exp = expect.parse(f.read())
        for tag, ko in (("kunit", "cqpool_kunit.ko"), ("races", "cqpool_race_kunit.ko")):
            if f"cqpool-{tag}-begin" in console:
                c = kunit.count_boot(console, tag, self.kunit_py, vmout, exp)
                self.record(f"vm:{row.label}:{tag}", c.passed, c.failed, c.skipped,
                            "; ".join(c.notes) or f"{vmout}/{tag}.txt")
            elif os.path.exists(os.path.join(payload, ko)):
                self.record(f"vm:{row.label}:{tag}", 0, 1, 0, f"no KUnit results; see {vmout}")
        for name, c in kselftest.counts(results, exp):
            self.record(f"vm:{row.label}:{name}", c.passed, c.failed, c.skipped, "; ".join(c.notes))
        self.record(f"vm:{row.label}:clean-run", int(rc == 0), int(rc != 0), 0,
                    "" if rc == 0 else f"status {rc}; see {vmout}.log")

    def coverage(self, row):
        """The boot's line coverage of module/*.c, at least the minimum."""
        d = os.path.join(self.out, "coverage")
        log = os.path.join(self.out, "coverage.log")
        least = float(os.environ.get("CQPOOL_COVERAGE_MIN", "90"))
        with open(log, "w") as f:
            r = subprocess.run([os.path.join(self.top, "scripts/coverage.sh"),
                                os.path.join(self.out, f"vm-{row.label}/results.log"),
                                os.path.join(self.top, "build", f"kbuild-{row.modules}"), d],
                               stdout=f, stderr=subprocess.STDOUT, cwd=self.top, check=False)
        total = None
        if r.returncode == 0 and os.path.exists(f"{d}/coverage.txt"):
            for line in open(f"{d}/coverage.txt"):
                w = line.split()
                if w and w[0] == "total":
                    total = float(w[3].rstrip("%"))
        ok = total is not None and total >= least
        self.record("coverage", int(ok), int(not ok), 0,
                    f"total {total}%, at least {least:g}%" if total is not None else f"see {log}")

    def script_counts(self, name, cmd, log, cores_of):
        """A script that ends with "N passed, N failed", run on the row's
        cores: one record of its counts."""
        got = self.cores.acquire(self.order[cores_of.label], cores_of.cores)
        self.say(f"{cores_of.label}: {' '.join(os.path.basename(c) for c in cmd[:1])} "
                 f"({got} of {self.cores.capacity} cores)")
        try:
            with open(log, "w") as f:
                subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=self.top, check=False)
        finally:
            self.cores.release(got)
        last = open(log, errors="replace").read().strip().splitlines()[-1:] or [""]
        m = re.fullmatch(r"(\d+) passed, (\d+) failed", last[0])
        p, f = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
        self.record(name, p, f, 0, log)

    def run_row(self, row):
        kind = row.kernel.kind
        version = None
        if kind == "stock":
            version = self.stock_version(row.kernel.series)
            if not version:
                if row.kernel.series == "6.1":
                    self.record(f"vm:{row.label}", 0, 1, 0, "no Debian 6.1 kernel installed")
                else:
                    self.say(f"{row.label}: no {row.kernel.name} kernel installed: left out")
                return
        elif not self.kernel_dir(row.kernel):
            return
        if row.build and not self.build(row.build):
            self.record(f"vm:{row.label}", 0, 1, 0, f"build {row.build.label} failed")
            return
        if row.payload == "tests":
            if not os.path.isdir(os.path.join(self.top, "build", f"kbuild-{row.modules}")):
                self.record(f"vm:{row.label}", 0, 1, 0, f"no build/kbuild-{row.modules}")
                return
            payload = self.payload_tests(row)
            rc = self.boot(row, kind, payload, version)
            self.count_tests(row, payload, rc)
            if row.after == "coverage":
                self.coverage(row)
        elif row.payload == "dkms":
            if not self.dkms_install():
                return
            payload = os.path.join(self.top, "build", f"payload-{row.label}")
            shutil.rmtree(payload, ignore_errors=True)
            os.makedirs(payload)
            shutil.copy(os.path.join(self.top, "vm/payload-dkms.sh"), os.path.join(payload, "run.sh"))
            rc = self.boot(row, kind, payload, version,
                           {"CQPOOL_VM_MODULES": os.path.join(self.top, "build/dkms")})
            self.record(f"vm:{row.label}", int(rc == 0), int(rc != 0), 0,
                        "" if rc == 0 else f"status {rc}; see {self.out}/vm-{row.label}.log")
        elif row.payload == "deb":
            debs = self.deb_build()
            if not debs:
                self.record(f"vm:{row.label}", 0, 1, 0, "no packages: deb:build failed")
                return
            payload = self.payload_deb(row, debs)
            # The host's userland, /usr writable too: apt, dpkg and DKMS
            # as on a machine (vm/hostroot.sh).
            rc = self.boot(row, kind, payload, version,
                           {"CQPOOL_VM_ROOT": "host", "CQPOOL_VM_WRITABLE_USR": "1"})
            ok, note = self.deb_verdict(payload, rc)
            self.record(f"vm:{row.label}", int(ok), int(not ok), 0,
                        note + ("" if rc == 0 else f"; {self.out}/vm-{row.label}.log"))
        elif row.payload == "blktests":
            self.script_counts(f"blktests:{kind}",
                               [os.path.join(self.top, "scripts/blktests.sh"), "-t", row.blktests,
                                "-p", row.blktests, "-o", os.path.join(self.out, f"blktests-{kind}"),
                                kind],
                               os.path.join(self.out, f"blktests-{kind}.log"), row)
        elif row.payload == "soak":
            self.script_counts("soak",
                               [os.path.join(self.top, "scripts/soak.sh"), "-m",
                                str(row.soak_minutes), "-c", "4", "-o",
                                os.path.join(self.out, "soak"), "-k",
                                os.path.join(self.top, "build", f"kbuild-{row.modules}")],
                               os.path.join(self.out, "soak.log"), row)

    def run(self, rows):
        """Every row of @rows, at once, each on its cores: the records."""
        self.order = {r.label: i for i, r in enumerate(rows)}

        def guarded(row):
            try:
                self.run_row(row)
            except Exception as e:          # a rig error is a failure
                self.record(f"vm:{row.label}", 0, 1, 0, f"the runner failed: {e!r}")

        threads = [threading.Thread(target=guarded, args=(r,), name=r.label) for r in rows]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with open(os.path.join(self.out, "matrix-records.tsv"), "w") as f:
            for rec in self.records:
                f.write("\t".join(str(x) for x in rec) + "\n")
        return self.records
