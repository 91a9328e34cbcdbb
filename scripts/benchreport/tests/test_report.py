# SPDX-License-Identifier: GPL-2.0
"""The report from the committed results.json: the same BENCHMARKS.md, every
scenario rendered, and a run without a scenario told, not a crash."""
import copy
import json
import os
import unittest

from benchreport import registry
from benchreport.design import TOP
from benchreport.report import Run, markdown


def committed():
    with open(os.path.join(TOP, "bench", "results.json"), encoding="utf-8") as f:
        return json.load(f)


def without(res, *prefixes):
    """@res with the raw records whose names start with @prefixes removed."""
    res = copy.deepcopy(res)
    res["raw"] = {k: v for k, v in res["raw"].items() if not k.startswith(prefixes)}
    return res


class Committed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.res = committed()
        cls.bench = Run.of(cls.res)

    def test_the_committed_report_renders_byte_for_byte(self):
        with open(os.path.join(TOP, "BENCHMARKS.md"), encoding="utf-8") as f:
            self.assertEqual(markdown(self.bench, self.res["plots"]), f.read())

    def test_summary_targets_and_notes_are_the_committed_ones(self):
        made = json.loads(json.dumps(self.bench.results()))
        for key in ("summary", "targets", "notes"):
            self.assertEqual(made[key], self.res[key], key)

    def test_every_scenario_renders(self):
        for sc in registry.SCENARIOS:
            values = sc.values(self.bench)
            self.assertIsNotNone(values, sc.NAME)
            text = self.bench.text(sc.NAME, "body", **values)
            self.assertTrue(text.strip(), sc.NAME)
            self.assertNotIn("{", text, sc.NAME)


class Missing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.res = committed()

    def test_a_scenario_without_results_misses_its_targets(self):
        run = Run.of(without(self.res, "turnover"))
        md = markdown(run)
        missing = [t for _, t in run.targets if t.missing]
        self.assertEqual([t.name for t in missing], ["turnover: every target"])
        self.assertIn("| turnover: every target | - | **missed** |", md)
        self.assertIn("- Missed: turnover: every target (this run: -). "
                      "The scenario has no result in this run.", md)
        self.assertNotIn("## 4a. Turnover", md)
        self.assertIn("## 4b. A day of a target", md)

    def test_any_family_of_records_may_be_missing(self):
        families = sorted({k.split("-")[0] for k in self.res["raw"]})
        for family in families:
            with self.subTest(family=family):
                markdown(Run.of(without(self.res, family)))

    def test_a_run_with_nothing_misses_every_target(self):
        run = Run({}, {})
        md = markdown(run)
        with_targets = [sc.NAME for sc in registry.by_targets() if hasattr(sc, "targets")]
        self.assertEqual([t.name for _, t in run.targets],
                         ["%s: every target" % n for n in with_targets])
        self.assertNotIn("## 1.", md)
        self.assertIn("## Notes", md)

    def test_a_shared_heading_stays_when_the_first_scenario_is_missing(self):
        md = markdown(Run.of(without(self.res, "first32")))
        self.assertEqual(md.count("## 3. Memory"), 1)
        self.assertIn("**Mixed workload**", md)
        self.assertNotIn("**First reservation", md)


if __name__ == "__main__":
    unittest.main()
