# SPDX-License-Identifier: GPL-2.0
"""Balance (section 4): after the mixed workload's reservations, the most
reservations on one CQ of a vector over the vector's mean per CQ, the
worst vector's; the mixed scenario's summary holds it.
"""
from ..cells import cell, fmt
from . import at_most

NAME = "balance"
MODES = ("cqpool", "upstream")
# Issue 15: max/mean users per CQ at most 1.25.
LIMIT = 1.25


def targets(run):
    mx = run.summary.get("mixed")
    if not mx or "cqpool" not in mx:
        return []
    return [at_most("balance (max/mean users per CQ in a vector) <= %.2f" % LIMIT,
                    mx["cqpool"]["balance"]["median"], LIMIT)]


def why(t, run):
    return run.line(NAME, "why")


def values(run):
    mx = run.summary.get("mixed")
    if not mx:
        return None
    rows = [run.text(NAME, "row", pool=mode, balance=cell(mx[mode]["balance"], 2))
            for mode in MODES if mx.get(mode)]
    d = run.summary.get("mixed_resize")
    if d:
        rows.append(run.text(NAME, "row_resize", balance=cell(d["balance"], 2)))
    return {"reservations": fmt(mx["reservations"]), "rows": "\n".join(rows)}
