# SPDX-License-Identifier: GPL-2.0
"""GoogleTest's counts: the summary and the exit status."""

import unittest

from cqcheck import gtest

from . import data


class GTest(unittest.TestCase):
    def test_a_clean_run_counts_its_summary(self):
        c = gtest.counts(data.read("gtest-pass.log"), 0)
        self.assertEqual((c.passed, c.failed), (3, 0))

    def test_a_leak_after_the_summary_fails(self):
        # LeakSanitizer reports after "[  PASSED  ]" and exits 23: the
        # summary alone counted this run as 3 passed, 0 failed.
        c = gtest.counts(data.read("gtest-leak.log"), 23)
        self.assertEqual((c.passed, c.failed), (3, 1))
        self.assertIn("LeakSanitizer", c.notes[0])

    def test_a_crash_after_the_summary_fails(self):
        c = gtest.counts(data.read("gtest-pass.log"), 139)
        self.assertEqual(c.failed, 1)

    def test_no_summary_fails(self):
        self.assertEqual(gtest.counts("make: *** [Makefile:30] Error 1\n", 2).failed, 1)

    def test_failures_are_counted_once(self):
        c = gtest.counts(data.read("gtest-fail.log"), 1)
        self.assertEqual((c.passed, c.failed), (2, 1))


if __name__ == "__main__":
    unittest.main()
