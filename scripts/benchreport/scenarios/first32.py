# SPDX-License-Identifier: GPL-2.0
"""The first reservation (section 3): a STORM of one, upstream first on a
poll context nothing had used in the boot, cqpool on a fresh pool
(first32): what each allocates for it.
"""
from ..cells import fmt
from ..stats import series
from . import at_most

NAME = "first32"
MODES = ("cqpool", "upstream")
# Issue 15: cqpool allocates at most twice what the first reservation asks.
LIMIT = 2


def summarize(raw):
    r = raw.get("first32")
    if not r:
        return {}
    f = {}
    for mode in MODES:
        m = series(r, mode)
        if m:
            f[mode] = {"cqs": m["cqs_rounds"][0], "cqes": m["cqes_rounds"][0],
                       "per_request": m["cqes_rounds"][0] / r["nr_cqe"]}
    return {"first32": f}


def targets(run):
    f = run.summary.get("first32", {}).get("cqpool")
    if not f:
        return []
    return [at_most("first %d-CQE reservation allocates <= %dx" % (run.raw["first32"]["nr_cqe"],
                                                                 LIMIT),
                    f["per_request"], LIMIT)]


def values(run):
    f = run.summary.get("first32")
    if not f:
        return None
    r = run.raw["first32"]
    return {"nr_cqe": "%d" % r["nr_cqe"], "iterations": "%d" % r["iterations"],
            "rows": "\n".join(run.text(NAME, "row", mode=mode, cqs=fmt(f[mode]["cqs"]),
                                       cqes=fmt(f[mode]["cqes"]),
                                       times="%.1fx" % f[mode]["per_request"])
                              for mode in MODES if mode in f)}
