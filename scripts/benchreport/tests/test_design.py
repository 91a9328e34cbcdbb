# SPDX-License-Identifier: GPL-2.0
"""design.py's figures are the tree's: the report's prose follows the code."""
import json
import os
import re
import unittest

from benchreport import design


class Design(unittest.TestCase):
    def test_every_fact_is_what_the_tree_says(self):
        for name, fact in design.FACTS.items():
            with self.subTest(name):
                self.assertEqual(fact.in_tree(), fact.value,
                                 "%s: %s no longer says %s" % (name, fact.path, fact.value))

    def test_the_device_is_the_payloads(self):
        with open(os.path.join(design.TOP, "vm", "payload-bench.sh")) as f:
            self.assertEqual(re.search(r"^dev=(\S+)$", f.read(), re.M).group(1), design.DEVICE)

    def test_the_mixed_sizes_add_up_to_what_the_run_reserved(self):
        with open(os.path.join(design.TOP, "bench", "results.json")) as f:
            mixed = json.load(f)["raw"]["mixed"]
        sizes = design.MIXED_SIZES.value
        total = sum(sizes[i % len(sizes)] for i in range(mixed["reservations"]))
        self.assertEqual({total}, set(mixed["cqpool"]["reserved"]))


if __name__ == "__main__":
    unittest.main()
