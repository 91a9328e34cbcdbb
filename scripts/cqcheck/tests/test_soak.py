# SPDX-License-Identifier: GPL-2.0
"""The soak's verdicts: what ran, what came back, what grew."""

import copy
import json
import unittest

from cqcheck import soak

REFS = {"cqpool": 0, "cqpool_takeover": -1, "ib_core": 9, "nvme_rdma": 0}
COUNTS = {"nvme": 40, "iser": 9, "disconnects": 45, "fio": 60,
          "takeover_cycles": 7, "drops": 11, "removals": 8}


def sample(n, kind, kb=40000, **over):
    s = {"n": n, "kind": kind, "t": 10.0 * n,
         "cqpool": {"cqs": 0, "cqes": 0, "reserved": 0, "users": 0, "pools": 0},
         "rxe0_cqs": 1, "rxe0_cqes": 256, "kmalloc_objs": kb * 8,
         "kmalloc_bytes": kb << 10, "counts": dict(COUNTS),
         "refs": dict(REFS, cqpool_takeover=0 if kind == "idle" else -1)}
    s.update(copy.deepcopy(over))
    return s


def log(samples):
    # The kselftest's TAP around the samples, as soak_test prints them.
    return "\n".join(["TAP version 13", "#  RUN           soak.x ..."]
                     + [f"soak sample {json.dumps(s)}" for s in samples]
                     + ["ok 1 soak.x"])


def run(idle=8, **kw):
    samples = [sample(0, "start")] + [sample(i + 1, "idle") for i in range(idle)]
    samples.append(sample(idle + 1, "end"))
    for i, over in kw.items():
        samples[int(i[1:])].update(over)
    return {name: (ok, note) for name, ok, note in soak.verdicts(log(samples))}


class Verdicts(unittest.TestCase):
    def test_a_soak_where_everything_came_back_passes(self):
        v = run()
        self.assertTrue(all(ok for ok, _ in v.values()), v)
        self.assertEqual(len(v), 8)

    def test_too_few_checkpoints_for_quarters_fail(self):
        v = run(idle=3)
        self.assertFalse(v["soak:samples"][0])
        self.assertEqual(list(v), ["soak:samples"])

    def test_no_samples_at_all_fail(self):
        self.assertFalse(soak.verdicts("ok 1 soak.x\n")[0][1])

    def test_cqpool_holding_at_the_end_fails(self):
        held = {"cqs": 1, "cqes": 63, "reserved": 0, "users": 0, "pools": 1}
        self.assertFalse(run(s9={"cqpool": held})["soak:end:cqpool-empty"][0])

    def test_a_cq_left_on_rxe0_fails(self):
        self.assertFalse(run(s9={"rxe0_cqs": 2})["soak:end:cqs"][0])

    def test_a_reference_left_fails(self):
        v = run(s9={"refs": dict(REFS, ib_core=10)})
        self.assertFalse(v["soak:end:module-refs"][0])
        self.assertIn("ib_core", v["soak:end:module-refs"][1])

    def test_kmalloc_that_grew_from_the_first_quarter_to_the_last_fails(self):
        # 3% more at the last two checkpoints than at the first two.
        v = run(s7={"kmalloc_bytes": 41200 << 10}, s8={"kmalloc_bytes": 41200 << 10})
        self.assertFalse(v["soak:growth:kmalloc"][0])
        self.assertTrue(v["soak:end:kmalloc"][0])

    def test_noise_within_the_bound_passes(self):
        v = run(s2={"kmalloc_bytes": 40100 << 10}, s8={"kmalloc_bytes": 40500 << 10})
        self.assertTrue(v["soak:growth:kmalloc"][0], v)

    def test_kmalloc_up_at_the_end_fails(self):
        self.assertFalse(run(s9={"kmalloc_objs": 400000})["soak:end:kmalloc"][0])

    def test_references_that_drift_between_checkpoints_fail(self):
        v = run(s8={"refs": dict(REFS, cqpool_takeover=1)})
        self.assertFalse(v["soak:growth:module-refs"][0])

    def test_an_action_that_never_ran_fails(self):
        v = run(s9={"counts": dict(COUNTS, removals=0)})
        self.assertFalse(v["soak:actions"][0])
        self.assertIn("never: removals", v["soak:actions"][1])


class Table(unittest.TestCase):
    def test_the_figures_of_a_run(self):
        samples = [sample(0, "start")] + [sample(i + 1, "idle") for i in range(8)]
        samples.append(sample(9, "end", kb=40100))
        t = soak.table(log(samples), "30")
        self.assertIn("| connections made | 40 NVMe-oF, 9 iSER; 45 torn down |", t)
        self.assertIn("| rxe0 removed and added back | 8 |", t)
        self.assertIn("40000 -> 40100 KiB", t)

    def test_a_run_that_stopped_early_says_so(self):
        t = soak.table(log([sample(0, "start")]), "30")
        self.assertIn("No figures", t)


if __name__ == "__main__":
    unittest.main()
