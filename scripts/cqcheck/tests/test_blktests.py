# SPDX-License-Identifier: GPL-2.0
"""blktests' verdicts: what ran, in which mode, and on whose pool."""

import os
import tempfile
import unittest

from cqcheck import blktests

from . import data


def rows(name):
    return blktests.results(data.read(name))


def verdicts(up, tk, wanted=(), must=()):
    return {n: (ok, note) for n, ok, note in blktests.verdicts(up, tk, list(wanted), must)}


class Results(unittest.TestCase):
    def test_each_test_and_its_condition(self):
        got = rows("blk-upstream.log")
        self.assertEqual([r[:2] for r in got], [
            ("nvme/003 (tr=rdma)", "pass"), ("nvme/016 (tr=rdma)", "skip"),
            ("srp/001", "pass"), ("srp/003", "skip")])
        self.assertEqual(got[1][2], "nvme_trtype=rdma is not supported in this test")


class Verdicts(unittest.TestCase):
    def test_both_boots_alike_pass(self):
        up = rows("blk-upstream.log")
        v = verdicts(up, up, ["nvme/003", "srp/001"], ["nvme/003", "srp/001"])
        self.assertTrue(all(ok for ok, _ in v.values()), v)

    def test_a_check_that_ran_nothing_fails(self):
        # ./check aborted: the old verdicts came only from tests upstream
        # passed, so there were none, and the run passed.
        v = verdicts([], [], ["nvme/003", "srp/001"])
        self.assertFalse(v["nvme/003"][0])
        self.assertFalse(v["srp/001"][0])
        self.assertFalse(v["upstream:anything-passed"][0])

    def test_a_misspelt_test_fails(self):
        up = rows("blk-upstream.log")
        v = verdicts(up, up, ["nvme/003", "nvme/0003"])
        self.assertFalse(v["nvme/0003"][0])

    def test_skipped_upstream_and_failed_on_the_takeover_fails(self):
        # It got no verdict at all before.
        v = verdicts(rows("blk-upstream.log"), rows("blk-takeover.log"))
        self.assertFalse(v["srp/003"][0])
        self.assertTrue(v["nvme/016 (tr=rdma)"][0])

    def test_a_test_one_boot_never_reported_fails(self):
        up = rows("blk-upstream.log")
        v = verdicts(up, up[:1])
        self.assertFalse(v["srp/001"][0])

    def test_a_skip_fails_what_must_pass(self):
        up = rows("blk-upstream.log")
        v = verdicts(up, up, must=["nvme/016"])
        self.assertFalse(v["nvme/016 (tr=rdma)"][0])

    def test_a_group_asks_for_each_of_its_tests(self):
        with tempfile.TemporaryDirectory() as suite:
            os.makedirs(os.path.join(suite, "tests", "srp"))
            for f in ("001", "001.out", "002", "rc"):
                open(os.path.join(suite, "tests", "srp", f), "w").close()
            self.assertEqual(blktests.asked("srp nvme/003", suite),
                             ["srp/001", "srp/002", "nvme/003"])


class OnCqpool(unittest.TestCase):
    def test_the_takeover_on_cqpool_passes(self):
        ok, note = blktests.on_cqpool(data.read("blk-cq-on-cqpool.log"))
        self.assertTrue(ok, note)

    def test_a_takeover_that_redirects_nothing_fails(self):
        # The ULPs ran on upstream's pool: the old run printed the peaks
        # and judged only cqpool's idle totals, which were 0.
        ok, note = blktests.on_cqpool(data.read("blk-cq-on-upstream.log"))
        self.assertFalse(ok, note)

    def test_no_sample_of_ib_cores_pool_fails(self):
        ok, _ = blktests.on_cqpool("5 [cqpool] 4 3068\n5 [takeover-reservations] 6 0\n")
        self.assertFalse(ok)


class Kmemleak(unittest.TestCase):
    def test_a_boot_that_never_scanned_fails(self):
        self.assertFalse(blktests.kmemleak_scanned("blktests-vm: [12.0] done\n"))
        self.assertTrue(blktests.kmemleak_scanned(
            "[ 1203.1] x\nblktests-vm: [1210.52] kmemleak scanned\n"))


if __name__ == "__main__":
    unittest.main()
