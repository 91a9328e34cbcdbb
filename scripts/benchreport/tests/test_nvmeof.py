# SPDX-License-Identifier: GPL-2.0
"""The NVMe-oF section from made-up rounds: its summary, its targets met
and missed as the figures say, its section and README's table."""
import copy
import unittest

from benchreport.report import Run
from benchreport.scenarios import nvmeof

SETUP = {"fio_seconds": 10, "bs": "4 KiB", "iodepth": 32, "jobs": 2, "io_queues": 2,
         "null_blk_mb": 64, "idle_timeout_ms": 2000, "reconnect_delay_s": 1,
         "percentiles": ["50", "99", "99.9"], "netdev": "v0"}


def io(iops, p99, completions, scheduled):
    return {"iops": iops, "ios": iops * 10, "p50_us": p99 / 3, "p99_us": p99,
            "p999_us": p99 * 2, "busy_jiffies": 100, "total_jiffies": 200,
            "cpu_us_per_io": 1e6 / iops, "completions": completions, "scheduled": scheduled}


def mem(cqs, cqes):
    return {"cqs": cqs, "cqes": cqes, "bytes": (cqes + cqs) * 72}


def record(mode, scale=1.0):
    """One mode's round: cqpool holds an eighth at one controller, as
    much at eight, less at 32, nothing after; its I/O as fast."""
    up = mode == "upstream"
    return {"mode": mode, "controllers": [1, 8, 32],
            "io": {"1": io(20000 * scale, 900, 40000, 20000),
                   "8": io(30000 * scale, 1500, 90000, 30000 if up else 36000)},
            "memory": {"1": mem(4, 32764) if up else mem(4, 3068),
                       "8": mem(4, 32764) if up else mem(8, 24000),
                       "32": mem(8, 65528) if up else mem(16, 60000),
                       "after": mem(4, 32764) if up else mem(0, 0)},
            "connect_s": 30.0 if up else 31.0, "reconnect_s": 12.0,
            "reconnect_timeline": [[0.5, 0], [3.0, 16], [12.0, 32]],
            "vectors": 2, "cqe_bytes": 72, "setup": SETUP}


def raw(rounds=3):
    out = {}
    for r in range(1, rounds + 1):
        for mode in ("upstream", "cqpool"):
            out["nvmeof-r%d-%s" % (r, mode)] = record(mode)
            out["nvmeof-vectors-r%d-%s" % (r, mode)] = {
                "mode": mode, "memory": {"1": mem(16, 131056) if mode == "upstream"
                                         else mem(4, 3068)},
                "vectors": 8, "cqe_bytes": 72}
    return out


def run_of(raw_records):
    return Run(raw_records, {"commit": "abc1234"})


class Section(unittest.TestCase):
    def setUp(self):
        self.run = run_of(raw())
        self.targets = {t.name: t for sc, t in self.run.targets if sc is nvmeof}

    def test_the_summary_pairs_the_rounds(self):
        st = self.run.summary["nvmeof"]
        self.assertEqual(st["rounds"], 3)
        self.assertAlmostEqual(st["memory"]["1"]["ratio"]["median"], 3068 / 32764)
        self.assertEqual(st["vectors_memory"]["vectors"], 8)

    def test_targets_met_and_missed_as_the_figures_say(self):
        t = self.targets
        self.assertTrue(t["NVMe-oF IOPS, 1 connected: >= 1x upstream"].met)
        self.assertTrue(t["NVMe-oF CQEs held, 1 controller, 2 vectors: <= 1/8 upstream"].met)
        self.assertTrue(t["NVMe-oF CQEs held, 1 controller, 8 vectors: <= 1/8 upstream"].met)
        self.assertTrue(t["NVMe-oF CQEs held, 32 connected: <= 1x upstream"].met)
        self.assertTrue(t["NVMe-oF CQEs cqpool holds after disconnect + idle timeout: 0"].met)
        # 24,000 against 32,764 at 8: met; 36,000 polls for 90,000 completions: missed.
        self.assertTrue(t["NVMe-oF CQEs held, 8 connected: <= 1x upstream"].met)
        self.assertFalse(t["NVMe-oF completions per CQ interrupt, 8 connected: >= 1x upstream"].met)
        self.assertFalse(t["NVMe-oF connect 32 controllers: time <= 1x upstream"].met)

    def test_a_miss_says_what_was_measured(self):
        notes = " ".join(self.run.notes)
        self.assertIn("cqpool took 31.0 (31.0–31.0) s, upstream 30.0 (30.0–30.0) s", notes)
        self.assertIn("a poll scheduled", notes)

    def test_the_section_and_the_readme_render(self):
        body = self.run.text("nvmeof", "body", **nvmeof.values(self.run))
        self.assertIn("| 1 connected, 8 vectors | 16 (16–16) CQs, 131,056 (131,056–131,056) CQEs",
                      body)
        self.assertIn("| connect 32 | 30.0 (30.0–30.0) | 31.0 (31.0–31.0) | 1.03x |", body)
        table = nvmeof.readme(self.run)
        self.assertIn("| 32 connected, 2 vectors | 8 CQs, 65,528 CQEs | 16 CQs, 60,000 CQEs |",
                      table)
        # The 8-vector boot's row follows the first, where it is measured.
        rows = [line.split(" | ")[0] for line in table.splitlines() if line.startswith("| 1 connected")]
        self.assertEqual(rows, ["| 1 connected, 2 vectors", "| 1 connected, 8 vectors"])

    def test_a_round_with_one_mode_is_left_out(self):
        r = raw()
        del r["nvmeof-r3-cqpool"]
        self.assertEqual(run_of(r).summary["nvmeof"]["rounds"], 2)

    def test_no_rounds_no_section(self):
        r = {k: v for k, v in raw().items() if not k.startswith("nvmeof")}
        self.assertIsNone(nvmeof.values(run_of(r)))
        self.assertIn("has not run", nvmeof.readme(run_of(r)))


if __name__ == "__main__":
    unittest.main()
