# SPDX-License-Identifier: GPL-2.0
"""KUnit: the KTAP as the kernel printed it, and kunit.py's count of it."""

import os
import subprocess
import sys
import tempfile
import unittest

from cqcheck import expect, kunit

from . import data

# The kernel's own parser: make check sets it; by hand, point it at
# tools/testing/kunit/kunit.py of a kernel tree.
KUNIT_PY = os.environ.get("CQPOOL_KUNIT_PY")


def parse(ktap):
    """kunit.py's summary of @ktap, and its exit status."""
    with tempfile.NamedTemporaryFile("w", suffix=".ktap") as f:
        f.write(ktap)
        f.flush()
        p = subprocess.run([sys.executable, KUNIT_PY, "parse", f.name],
                           capture_output=True, text=True, check=False)
    return p.stdout + p.stderr, p.returncode


class Ktap(unittest.TestCase):
    def test_61_skipped_parameters_are_marked(self):
        text = kunit.ktap(data.read("kunit-6.1-races.console"), "races")
        lines = text.splitlines()
        self.assertEqual(lines[:2], ["KTAP version 1", "1..1"])
        marked = [line for line in lines if "# SKIP" in line]
        # The case's stats say skip:2: rounds 3 and 4, the last two.
        self.assertEqual(len(marked), 2)
        self.assertTrue(marked[0].startswith("        ok 3 round 3"))
        self.assertTrue(marked[1].startswith("        ok 4 round 4"))

    def test_directives_already_there_are_left_alone(self):
        text = kunit.ktap(data.read("kunit-6.12-skip.console"), "kunit")
        self.assertEqual(sum("# SKIP" in line for line in text.splitlines()), 1)
        self.assertEqual(kunit.suites(text), ["cqpool_qps"])


@unittest.skipUnless(KUNIT_PY, "CQPOOL_KUNIT_PY names no kunit.py")
class Counts(unittest.TestCase):
    def test_61_skipped_parameters_count_as_skips(self):
        # Without the mending kunit.py counted all four rounds as passes.
        raw = "\n".join(kunit.TIMESTAMP.sub("", line) for line in
                        kunit.extract(data.read("kunit-6.1-races.console"), "races"))
        summary, rc = parse("KTAP version 1\n1..1\n" + raw + "\n")
        old = kunit.counts(summary, rc)
        self.assertEqual((old.passed, old.skipped), (4, 0))
        text = kunit.ktap(data.read("kunit-6.1-races.console"), "races")
        summary, rc = parse(text)
        c = kunit.counts(summary, rc, text)
        self.assertEqual((c.passed, c.failed, c.skipped), (2, 0, 2))

    def test_a_suite_expected_and_missing_fails(self):
        text = kunit.ktap(data.read("kunit-6.12-skip.console"), "kunit")
        summary, rc = parse(text)
        exp = expect.parse("kunit:cqpool_qps\nkunit:cqpool_pools\n")
        c = kunit.counts(summary, rc, text, exp)
        self.assertEqual((c.passed, c.failed, c.skipped), (1, 1, 1))


class Summary(unittest.TestCase):
    def test_a_run_of_nothing_fails(self):
        c = kunit.counts("[12:00:00] Testing complete. Ran 0 tests: passed: 0\n", 0)
        self.assertEqual(c.failed, 1)

    def test_no_summary_fails(self):
        self.assertEqual(kunit.counts("Traceback (most recent call last):\n", 1).failed, 1)

    def test_crashes_and_errors_fail(self):
        c = kunit.counts("Testing complete. Ran 10 tests: passed: 7, skipped: 1, "
                         "errors: 1\n", 1)
        self.assertEqual((c.passed, c.failed, c.skipped), (7, 3, 1))


if __name__ == "__main__":
    unittest.main()
