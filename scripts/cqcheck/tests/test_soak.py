# SPDX-License-Identifier: GPL-2.0
"""The soak's verdicts: what ran, what came back, what grew."""

import copy
import json
import os
import tempfile
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


def samples_of(idle=8, boot_kb=39000, **kw):
    """boot, then sN as soak_test numbers them after it: start, idle..., end."""
    samples = [sample(0, "start")] + [sample(i + 1, "idle") for i in range(idle)]
    samples.append(sample(idle + 1, "end"))
    for i, over in kw.items():
        samples[int(i[1:])].update(over)
    return [sample(-1, "boot", kb=boot_kb)] + samples


def run(idle=8, **kw):
    samples = samples_of(idle, **kw)
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

    def test_a_run_without_its_boot_sample_fails(self):
        samples = samples_of()[1:]
        v = {name: ok for name, ok, _ in soak.verdicts(log(samples))}
        self.assertFalse(v["soak:samples"])

    def test_the_warm_ups_first_uses_are_not_judged(self):
        # The boot sample below the start by 10%: the kernel keeps that.
        v = run(boot_kb=36000)
        self.assertTrue(all(ok for ok, _ in v.values()), v)

    def test_the_caches_that_moved_most_are_named(self):
        v = run(s0={"caches": {"kmalloc-64": 100, "kmalloc-1k": 10}},
                s9={"kmalloc_objs": 400000,
                    "caches": {"kmalloc-64": 180, "kmalloc-1k": 11, "kmalloc-8": 3}})
        self.assertFalse(v["soak:end:kmalloc"][0])
        self.assertIn("most moved: kmalloc-64 +80, kmalloc-8 +3, kmalloc-1k +1",
                      v["soak:end:kmalloc"][1])

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
        samples = samples_of(s9={"kmalloc_bytes": 40100 << 10})
        t = soak.table(log(samples), "30")
        self.assertIn("| connections made | 40 NVMe-oF, 9 iSER; 45 torn down |", t)
        self.assertIn("| rxe0 removed and added back | 8 |", t)
        self.assertIn("40000 -> 40100 KiB", t)
        self.assertIn("39000 -> 40000 KiB", t)

    def test_a_run_that_stopped_early_says_so(self):
        t = soak.table(log([sample(0, "start")]), "30")
        self.assertIn("No figures", t)


TRACES = """\
     23 mod_sysfs_setup+0xcc2/0x18f0 age=2559/11227/13280 pid=93-157 cpus=0-1
        __kmem_cache_alloc_node+0x169/0x1f0
        __kmalloc+0x49/0x170
        mod_sysfs_setup+0xcc2/0x18f0
        load_module+0x6185/0x81d0

      %d blk_mq_alloc_and_init_hctx+0x570/0x1140 waste=2560/320 age=1/2/3 pid=1 cpus=1
        __kmem_cache_alloc_node+0x169/0x1f0
        kmalloc_node_trace+0x23/0xc0
        blk_mq_alloc_and_init_hctx+0x570/0x1140
        blk_mq_realloc_hw_ctxs+0x1d8/0x330
"""


class Sites(unittest.TestCase):
    def test_a_stack_is_named_by_its_frames_above_the_allocator(self):
        s = soak.sites(TRACES % 8)
        self.assertEqual(s, {"mod_sysfs_setup < load_module": 23,
                             "blk_mq_alloc_and_init_hctx < blk_mq_realloc_hw_ctxs": 8})

    def test_the_sites_that_moved_between_two_samples(self):
        with tempfile.TemporaryDirectory() as d:
            for name, n in (("1-start-kmalloc-1k", 8), ("6-end-kmalloc-1k", 20),
                            ("16-idle-kmalloc-1k", 99)):
                with open(os.path.join(d, name), "w") as f:
                    f.write(TRACES % n)
            lines = soak.sites_diff(d, 1, 6)
        self.assertEqual(len(lines), 1)
        self.assertIn("+12 kmalloc-1k", lines[0])
        self.assertIn("blk_mq_alloc_and_init_hctx", lines[0])


if __name__ == "__main__":
    unittest.main()
