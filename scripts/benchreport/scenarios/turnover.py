# SPDX-License-Identifier: GPL-2.0
"""Turnover (section 4a): LIVE reservations of the mixed sizes, then STEPS
steps that each give back PER_STEP of them and make as many anew, with
each pool's allocated over reserved after each step (turnover).
"""
from ..cells import fmt, rcell
from . import at_most

NAME = "turnover"
# The pools, as the record's keys name them, with their rows' labels.
POOLS = (("cqpool", "cqpool (new CQs, the default)"),
         ("cqpool_resize", "cqpool, resize in place (opt-in)"),
         ("upstream", "upstream"))
# Issue 15: allocated/reserved at most 1.25 at the worst step.
LIMIT = 1.25


def summarize(raw):
    r = raw.get("turnover")
    if not r:
        return {}
    to = {k: r[k] for k in ("live", "per_step", "steps", "poll_ctx")}
    for mode, _ in POOLS:
        if r.get(mode):
            to[mode] = {k: r[mode][k] for k in ("worst", "mean", "ratio", "reserved")}
    res = [x for mode, _ in POOLS if mode in to for x in to[mode]["reserved"]]
    # How far the demand itself moved: the most reserved over the fewest.
    to["swing"] = max(res) / min(res) if res and min(res) else None
    return {"turnover": to}


def targets(run):
    to = run.summary.get("turnover", {}).get("cqpool")
    if not to:
        return []
    return [at_most("turnover: allocated/reserved, worst step <= %.2f" % LIMIT,
                    to["worst"], LIMIT)]


def why(t, run):
    swing = run.summary["turnover"].get("swing")
    return " ".join(filter(None, (run.line(NAME, "why"), "" if swing is None else
                                  run.line(NAME, "swing_note", swing=rcell(swing, 3)))))


def values(run):
    to = run.summary.get("turnover")
    if not to:
        return None
    rows = [run.text(NAME, "row", label=label, worst=fmt(d["worst"], 3),
                     mean=fmt(d["mean"], 3), fewest=fmt(min(d["reserved"])),
                     most=fmt(max(d["reserved"])))
            for d, label in ((to.get(mode), label) for mode, label in POOLS) if d]
    return {"live": fmt(to["live"]), "steps": fmt(to["steps"]),
            "per_step": fmt(to["per_step"]), "poll": to["poll_ctx"],
            "rows": "\n".join(rows), "swing": rcell(to["swing"], 3)}
