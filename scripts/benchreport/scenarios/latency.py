# SPDX-License-Identifier: GPL-2.0
"""Per-call latency (section 1): GET_PUT with a clock pair around each call
(latency-N, N CQs per vector): each round's percentiles, their spread
over the rounds, and the mean per call, clock included.
"""
import re

from ..cells import cell, fmt
from ..stats import series, spread

NAME = "latency"
MODES = (("cqpool", "cqpool"), ("upstream", "upstream"), ("perqp", "per-QP alloc/free"))


def record(raw):
    """The latency run's record (the fewest CQs per vector), or None."""
    found = sorted((int(m.group(1)), k) for k in raw
                   for m in [re.fullmatch(r"latency-(\d+)", k)] if m)
    return raw[found[0][1]] if found else None


def summarize(raw):
    r = record(raw)
    if not r:
        return {}
    lat = {"iterations": r["iterations"]}
    for mode, _ in MODES:
        m = series(r, mode)
        if m:
            lat[mode] = {k[:-len("_rounds")]: spread(m[k]) for k in m
                         if re.fullmatch(r"(get|put)_(p\d+|max)_ns_rounds", k)}
            lat[mode]["get_mean_ns"] = spread(m["get_ns_rounds"])
            lat[mode]["put_mean_ns"] = spread(m["put_ns_rounds"])
    return {"latency": lat}


def percentiles(lat):
    """The percentiles the run gave, in order: the table has three."""
    found = sorted({int(m.group(1)) for d in lat.values() if isinstance(d, dict)
                    for k in d for m in [re.fullmatch(r"get_p(\d+)_ns", k)] if m})
    if len(found) != 3:
        raise ValueError("latency.md's table has three percentiles, the run %s" % found)
    return ["p%d" % p for p in found]


def values(run):
    lat = run.summary.get("latency")
    if not lat:
        return None
    ps = percentiles(lat)
    cols = ps + ["max", "mean"]
    names = ("q1", "q2", "q3", "max", "mean")
    rows = [run.text(NAME, "row", label=label, **{
        "%s_%s" % (op, n): cell(lat[mode].get("%s_%s_ns" % (op, q)))
        for op in ("get", "put") for n, q in zip(names, cols)})
        for mode, label in MODES if mode in lat]
    return {"prefill": "%d" % record(run.raw)["prefill"], "pairs": fmt(lat["iterations"]),
            "q1": ps[0], "q2": ps[1], "q3": ps[2], "rows": "\n".join(rows)}
