# SPDX-License-Identifier: GPL-2.0
"""The arithmetic the scenarios share: spreads over rounds and paired ratios.

A benchmark's raw record has, per side ("cqpool", "upstream", "perqp"), one
value a round; the report shows each as its median (min-max), and compares
two sides by the median of the rounds' own ratios (paired()).
"""
import statistics


def median(v):
    return statistics.median(v) if v else None


def spread(v):
    """Median, min, max and count of @v's values, None where it has none."""
    v = [x for x in v if x is not None]
    if not v:
        return None
    return {"median": median(v), "min": min(v), "max": max(v), "n": len(v)}


def ratio(a, b):
    return a / b if a is not None and b else None


def paired(a, b):
    """The median of the rounds' own ratios a/b, and their spread.  A round
    runs both sides back to back, so a change of the host's speed from one
    round to the next cancels in it, where it would not in a ratio of the
    sides' medians."""
    rr = [x / y for x, y in zip(a, b) if x is not None and y]
    return median(rr), spread(rr)


def series(record, mode):
    """@record's results for the side @mode, or None where that side did
    not run or was skipped."""
    m = (record or {}).get(mode) or {}
    if not m or m.get("skipped"):
        return None
    return m


def per_call(m, op):
    """A batched run's rounds of @op ("get" or "put"), ns per call: each
    round's median batch, where the module gives it, else its mean."""
    return m.get(op + "_p50_ns_rounds") or m[op + "_ns_rounds"]


def straddles(rr, limit):
    """A target's note: the range of the rounds' own ratios where it falls
    on both sides of its limit (this run alone does not tell which side the
    target is on), else empty."""
    if rr and rr["min"] <= limit < rr["max"]:
        return "%.2f-%.2f" % (rr["min"], rr["max"])
    return ""
