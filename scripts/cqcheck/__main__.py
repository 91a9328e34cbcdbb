# SPDX-License-Identifier: GPL-2.0
"""The counts of a step, for the shell: ``python3 -m cqcheck KIND ...``.

  selftest                               P F S NOTE of cqcheck's own tests
                                         (their output on stderr)
  gtest LOG STATUS                       P F S NOTE
  kselftest-tap LOG STATUS               P F S NOTE, of one binary run alone
  kselftests RESULTS_LOG [EXPECT]        NAME P F S NOTE, a line a binary
  kunit CONSOLE TAG KUNIT_PY OUT [EXPECT]
                                         P F S NOTE; OUT/TAG.ktap and
                                         OUT/TAG.txt (kunit.py's parse)

  blktests-results CHECK_LOG            TEST\tSTATUS\tREASON, a line a test
  blktests-verdicts UP TK SUITE "TESTS" "MUST_PASS"
                                         NAME\tOK\tNOTE, a line a verdict, from
                                         the two boots' results (files of
                                         blktests-results)
  blktests-on-cqpool CQ_LOG              OK\tNOTE
  blktests-kmemleak CONSOLE              OK\tNOTE
  kmemleak RIG CONSOLE                   OK\tNOTE: RIG's payload scanned
  soak LOG                               NAME\tOK\tNOTE, a line a verdict
  soak-table LOG MINUTES                 the run's figures, in Markdown

EXPECT is an expect file (expect.py); "-" or absent: none.
"""

import os
import subprocess
import sys
import unittest

from . import blktests, expect, gtest, kselftest, kunit, soak
from .counts import Counts


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def expected(args, i):
    if len(args) <= i or args[i] == "-":
        return []
    return expect.parse(read(args[i]))


def selftest():
    """Runs the tests of these rules (tests/): their Counts."""
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(os.path.join(here, "tests"),
                                                top_level_dir=os.path.dirname(here))
    r = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
    bad = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    c = Counts(passed=r.testsRun - bad - len(r.skipped), skipped=len(r.skipped))
    for _ in range(bad):
        c.fail("a test of the rules failed")
    if r.testsRun == 0:
        c.fail("no test of the rules ran")
    return c


def scanned(ok):
    """OK\tNOTE of a kmemleak scan."""
    return f"{int(ok)}\t{'scanned at the end' if ok else 'never scanned: kmemleak saw nothing'}"


def main(args):
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    kind = args[0]
    if kind == "selftest" and len(args) == 1:
        print(selftest().line())
    elif kind == "gtest" and len(args) == 3:
        print(gtest.counts(read(args[1]), int(args[2])).line())
    elif kind == "kselftest-tap" and len(args) == 3:
        print(kselftest.one(read(args[1]).splitlines(), int(args[2])).line())
    elif kind == "kselftests" and len(args) in (2, 3):
        for name, c in kselftest.counts(read(args[1]), expected(args, 2)):
            print(name, c.line())
    elif kind == "kunit" and len(args) in (5, 6):
        console, tag, kunit_py, out = args[1:5]
        text = kunit.ktap(read(console), tag)
        with open(f"{out}/{tag}.ktap", "w") as f:
            f.write(text)
        with open(f"{out}/{tag}.txt", "w") as f:
            rc = subprocess.run([sys.executable, kunit_py, "parse", f"{out}/{tag}.ktap"],
                                stdout=f, stderr=subprocess.STDOUT, check=False).returncode
        exp = [e for e in expected(args, 5) if e.kind == tag]
        print(kunit.counts(read(f"{out}/{tag}.txt"), rc, text, exp, tag).line())
    elif kind == "blktests-results" and len(args) == 2:
        for row in blktests.results(read(args[1])):
            print("\t".join(row))
    elif kind == "blktests-verdicts" and len(args) == 6:
        rows = [[line.split("\t") for line in read(path).splitlines() if line]
                for path in args[1:3]]
        for name, ok, note in blktests.verdicts(
                rows[0], rows[1], blktests.asked(args[4], args[3]), args[5].split()):
            print(f"{name}\t{int(ok)}\t{note}")
    elif kind == "blktests-on-cqpool" and len(args) == 2:
        ok, note = blktests.on_cqpool(read(args[1]))
        print(f"{int(ok)}\t{note}")
    elif kind == "blktests-kmemleak" and len(args) == 2:
        print(scanned(blktests.kmemleak_scanned(read(args[1]))))
    elif kind == "kmemleak" and len(args) == 3:
        print(scanned(blktests.kmemleak_scanned(read(args[2]), args[1])))
    elif kind == "soak" and len(args) == 2:
        for name, ok, note in soak.verdicts(read(args[1])):
            print(f"{name}\t{int(ok)}\t{note}")
    elif kind == "soak-table" and len(args) == 3:
        print(soak.table(read(args[1]), args[2]), end="")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


sys.exit(main(sys.argv[1:]))
