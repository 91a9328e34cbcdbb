# SPDX-License-Identifier: GPL-2.0
"""CQs resized in place (section 4a), counted by pool since cqpool.ko's
load with a histogram trigger on cqpool_cq_resize (resizes): the pools
that opt in are named *-resize, every other one grows by new CQs alone.
"""
from ..cells import fmt
from . import at_most

NAME = "resizes"


def summarize(raw):
    r = raw.get("resizes")
    if r is None:
        return {}
    by = r.get("by_pool", {})
    return {"resizes": {"by_pool": by,
                        "default": sum(n for p, n in by.items() if not p.endswith("-resize")),
                        "opt_in": sum(n for p, n in by.items() if p.endswith("-resize"))}}


def targets(run):
    rz = run.summary.get("resizes")
    if rz is None:
        return []
    return [at_most("CQs resized in place by the default pools: 0", rz["default"], 0)]


def values(run):
    rz = run.summary.get("resizes")
    if rz is None:
        return None
    return {"default": fmt(rz["default"]), "opt_in": fmt(rz["opt_in"])}
