# SPDX-License-Identifier: GPL-2.0
"""kselftest sections: totals, exit status, expectations."""

import unittest

from cqcheck import expect, kselftest

from . import data


def by_name(log, exp=None):
    return {n: c for n, c in kselftest.counts(data.read(log), exp)}


class Kselftest(unittest.TestCase):
    def test_totals_count(self):
        c = by_name("ks-good-and-skipping.log")["devices_test"]
        self.assertEqual((c.passed, c.failed, c.skipped), (3, 0, 0))

    def test_a_binary_that_skips_everything_fails(self):
        # fault_test on a kernel without FAILSLAB: 0 passed, 3 skipped,
        # which the old count took for 0 passed, 0 failed.
        c = by_name("ks-good-and-skipping.log")["fault_test"]
        self.assertEqual((c.passed, c.failed, c.skipped), (0, 1, 3))

    def test_one_may_skip_everything_where_expected_to(self):
        exp = expect.parse(data.read("ks-may-skip.expect"))
        c = by_name("ks-good-and-skipping.log", exp)["fault_test"]
        self.assertEqual((c.failed, c.skipped), (0, 3))

    def test_an_expected_binary_that_never_ran_fails(self):
        # A misspelt name in a payload's "only" ran nothing, and counted as
        # nothing at all.
        exp = expect.parse(data.read("ks.expect"))
        got = by_name("ks-good-and-skipping.log", exp)
        self.assertEqual(got["ioctl_test"].failed, 1)
        self.assertIn("never ran", got["ioctl_test"].notes[0])

    def test_a_skip_after_a_failed_check_fails(self):
        # 6.1's harness marks a skipped test passed, erasing the failures
        # before its SKIP(): its totals say pass:1 skip:1.
        c = by_name("ks-skip-after-failure.log")["hardening_test"]
        self.assertEqual((c.passed, c.failed, c.skipped), (1, 1, 0))

    def test_a_binary_that_died_fails(self):
        got = by_name("ks-died.log")
        self.assertEqual(got["pool_test"].failed, 1)
        self.assertEqual(got["trace_test"].failed, 1)

    def test_a_non_zero_status_with_no_failure_fails(self):
        self.assertEqual(by_name("ks-died.log")["workload_test"].failed, 1)

    def test_an_expect_file_is_checked(self):
        with self.assertRaises(ValueError):
            expect.parse("kselftest:pool_test skip it\n")
        with self.assertRaises(ValueError):
            expect.parse("pool_test\n")


if __name__ == "__main__":
    unittest.main()
