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
  soak-sites DIR A B                     the allocation sites that moved
                                         most from sample A to B (soak.sh -u)

  matrix-run MODE OUT SRC [CORES]        runs vm/matrix.toml's rows of MODE
                                         (runner.py), records in
                                         OUT/matrix-records.tsv; the last
                                         line "N passed, N failed, N skipped"
  matrix-rows MODE                       the rows of MODE, a label a line
  matrix-table [FILE [--check]]          TESTING.md's table of kernels; with
                                         FILE, written between its markers,
                                         or with --check only compared

EXPECT is an expect file (expect.py); "-" or absent: none.
"""

import os
import sys
import unittest

from . import blktests, expect, gtest, kselftest, kunit, matrix, runner, soak
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


def matrix_path():
    """vm/matrix.toml of this tree, or CQPOOL_MATRIX's file (a part of it,
    to try a row)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("CQPOOL_MATRIX") or os.path.join(here, "..", "..", "vm", "matrix.toml")


def matrix_run(mode, out, src, cores=None):
    """Runs MODE's rows: 0 when nothing failed."""
    top = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    rows = matrix.rows(matrix_path(), mode)
    recs = runner.Runner(top, os.path.abspath(out), mode, src, cores).run(rows)
    p, f, s = (sum(r[i] for r in recs) for i in (1, 2, 3))
    print(f"{p} passed, {f} failed, {s} skipped")
    return int(f != 0)


TABLE_BEGIN = ("<!-- matrix-table: generated from vm/matrix.toml by "
               "python3 -m cqcheck matrix-table TESTING.md; do not edit -->")
TABLE_END = "<!-- end matrix-table -->"


def matrix_table_in(path, check):
    """The table between @path's markers, written, or with @check
    compared: 0 when it is current."""
    text = read(path)
    if TABLE_BEGIN not in text or TABLE_END not in text:
        print(f"{path}: no matrix-table markers", file=sys.stderr)
        return 1
    head, rest = text.split(TABLE_BEGIN, 1)
    tail = rest.split(TABLE_END, 1)[1]
    new = head + TABLE_BEGIN + "\n" + matrix.table(matrix_path()) + TABLE_END + tail
    if check:
        if new != text:
            print(f"{path}: its table of kernels is not vm/matrix.toml's "
                  "(python3 -m cqcheck matrix-table TESTING.md)", file=sys.stderr)
            return 1
        return 0
    with open(path, "w") as f:
        f.write(new)
    return 0


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
        print(kunit.count_boot(read(console), tag, kunit_py, out, expected(args, 5)).line())
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
    elif kind == "matrix-run" and len(args) in (4, 5):
        return matrix_run(args[1], args[2], args[3], int(args[4]) if len(args) == 5 else None)
    elif kind == "matrix-rows" and len(args) == 2:
        for r in matrix.rows(matrix_path(), args[1]):
            print(r.label)
    elif kind == "matrix-table" and len(args) == 1:
        print(matrix.table(matrix_path()), end="")
    elif kind == "matrix-table" and len(args) in (2, 3):
        return matrix_table_in(args[1], args[2:] == ["--check"])
    elif kind == "soak" and len(args) == 2:
        for name, ok, note in soak.verdicts(read(args[1])):
            print(f"{name}\t{int(ok)}\t{note}")
    elif kind == "soak-table" and len(args) == 3:
        print(soak.table(read(args[1]), args[2]), end="")
    elif kind == "soak-sites" and len(args) == 4:
        print("\n".join(soak.sites_diff(args[1], args[2], args[3])))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


sys.exit(main(sys.argv[1:]))
