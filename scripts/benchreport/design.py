# SPDX-License-Identifier: GPL-2.0
"""Figures of the benchmark's design that results.json does not carry.

The report's prose states them (the batch a clock pair times, the sizes
the mixed workload cycles through, pool.h's growth factors), and they
change with the code, not with a run.  Each is named here with the file
that defines it and a pattern that finds it there; tests/test_design.py
reads every one back from the tree, so that a change to the harness or
to the core fails a test instead of leaving the report's prose stale.

A figure that a run does carry (iterations, rounds, sizes asked for,
vCPUs) is read from results.json, never from here.
"""
import os
import re
from typing import NamedTuple

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Fact(NamedTuple):
    """@value, as @pattern's groups find it in @path (from the tree's top):
    the integers in the groups, in order."""

    value: tuple
    path: str
    pattern: str

    def in_tree(self, top=TOP):
        """The integers @pattern finds in the tree's @path, or None."""
        with open(os.path.join(top, self.path), encoding="utf-8") as f:
            m = re.search(self.pattern, f.read())
        if not m:
            return None
        return tuple(int(x) for g in m.groups() for x in re.findall(r"-?\d+", g))


# Get and put are timed in batches of this many calls, one clock pair each.
BATCH = Fact((64,), "harness/bench_ledger.h", r"#define CQH_BENCH_BATCH\s+(\d+)")
# GET_PUT and CHURN fill each vector's CQs with gets of this size first.
PREFILL_CQ = Fact((4096,), "harness/bench.c", r"#define CQH_BENCH_CQ\s+(\d+)")
# cqpoolctl's reservations ask for any vector.
ANY_VECTOR = Fact((-1,), "userspace/cqpoolctl/commands/bench.cpp",
                  r"vector_hint = (-?\d+);")
# The sizes the mixed workload cycles through, in CQEs.
MIXED_SIZES = Fact((33, 129, 385, 1025, 65, 257), "userspace/cqpoolctl/commands/bench.cpp",
                   r"sizes\[\] = \{([\d, ]+)\}")
# cqpool.ko's idle timeout unless set (the bench sets its own).
IDLE_TIMEOUT_MS = Fact((30000,), "module/pool.c", r"cqpool_idle_timeout_ms = (\d+);")
# Growth by new CQs: each new CQ holds this many times what its vector
# holds, up to CQs that hold NEW_SHARE of its largest reservation.
NEW_GROWTH = Fact((4,), "module/core/pool.h", r"#define CQP_NEW_GROWTH (\d+)")
NEW_SHARE = Fact((8,), "module/core/pool.h", r"#define CQP_NEW_SHARE (\d+)")
# The simulated day (userspace/sim/day.cpp): I/O queues a host (the
# fewest, and how many counts there are from there), the CQ sizes of an
# I/O queue and of the admin queue, upstream's smallest new CQ, and
# cqpool's idle timeout.
DAY_IO_QUEUES = Fact((8, 25), "userspace/sim/day.cpp", r"io = (\d+) \+ rng\(\) % (\d+);")
DAY_CQ_SIZES = Fact((385, 97), "userspace/sim/day.cpp", r"q\.nr = i \? (\d+) : (\d+);")
DAY_UPSTREAM_CQ = Fact((4096,), "userspace/sim/day.cpp", r"std::max\(nr, (\d+)u\)")
DAY_IDLE_MS = Fact((30000,), "userspace/sim/day.cpp", r"cqp\.tick\(now \+ \d+, (\d+)\);")
# Linux's nvme-rdma, which the storm stands for (not in this tree, so not
# read back): a queue's CQ is CQ_FACTOR times its queue_size plus CQ_EXTRA
# (drivers/nvme/host/rdma.c: MR, SEND and INV, and RECV; and one), and the
# admin queue's queue_size is NVME_AQ_DEPTH.
NVME_RDMA_CQ_FACTOR = 4
NVME_RDMA_CQ_EXTRA = 1
NVME_AQ_DEPTH = 32
# The device every VM scenario runs on (vm/payload-bench.sh's dev=).
DEVICE = "rxe0"

FACTS = {k: v for k, v in globals().items() if isinstance(v, Fact)}
