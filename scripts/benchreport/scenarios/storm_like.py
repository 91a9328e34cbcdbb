# SPDX-License-Identifier: GPL-2.0
"""The storm like against like (section 2), and its targets.  Cold: a
re-added device, so that upstream's pool is new too, one storm of each
per device (storm-cold-K).  Warm: cqpool on the device's shared pool
within its idle timeout against upstream's kept CQs, the rounds after the
first of storm-warm (its first fills cqpool's shared pool).
"""
from .. import design
from ..cells import cell, rcell, words
from ..stats import paired, series, spread
from . import at_most
from .storm import COLD, WARM, times_ms

NAME = "storm_like"
MODES = ("cqpool", "upstream")
# Issue 15: cqpool's storm at most 0.9x upstream's cold, 0.5x warm.
LIMITS = (("cold", 0.9), ("warm", 0.5))


def rounds_ms(r, mode, rounds):
    """@rounds of @mode's storm times in @r, ms; [] where it has none."""
    m = series(r, mode)
    return times_ms(r, m)[rounds] if m else []


def summarize(raw):
    # Each list in the order of its rounds, both sides' of a round or none.
    cold = {mode: [] for mode in MODES}
    for name in sorted(k for k in raw if k.startswith("storm-cold-")):
        c, u = (rounds_ms(raw[name], mode, COLD) for mode in MODES)
        if c and u:
            cold["cqpool"] += c
            cold["upstream"] += u
    r = raw.get("storm-warm")
    warm = {mode: rounds_ms(r, mode, WARM) for mode in MODES} if r else {}
    like = {}
    for label, runs in (("cold", cold), ("warm", warm)):
        if runs.get("cqpool") and runs.get("upstream"):
            ent = {mode: spread(v) for mode, v in runs.items()}
            ent["samples"] = min(len(v) for v in runs.values())
            ent["ratio"], ent["ratio_rounds"] = paired(runs["cqpool"], runs["upstream"])
            like[label] = ent
    return {"storm_like": like} if like else {}


def targets(run):
    like = run.summary.get("storm_like")
    if not like:
        return []
    return [at_most("storm, %s against %s: time <= %.1fx upstream" % (label, label, limit),
                    like.get(label, {}).get("ratio"), limit,
                    like.get(label, {}).get("ratio_rounds"), why_key="storm")
            for label, limit in LIMITS]


def why(t, run):
    reason = run.line(NAME, "why", new_growth=words(design.NEW_GROWTH.value[0]),
                      new_share=words(design.NEW_SHARE.value[0]))
    return " ".join(filter(None, (reason, measured(run))))


def measured(run):
    """What this run measured of the storm's trade: what any pool must
    allocate, and what growing in place costs."""
    g, st = run.summary.get("growth"), run.summary.get("storm", {})
    found = []
    if st.get("reserved_per_upstream_cold") is not None:
        found.append(run.line(NAME, "reserved", ratio=rcell(st["reserved_per_upstream_cold"], 3)))
    if g:
        rs = [e["ratio"] for e in g["sizes"]]
        found.append(run.line(NAME, "resize_cost", lo=rcell(min(rs)), hi=rcell(max(rs))))
    if st.get("ratio_resize") is not None:
        found.append(run.line(NAME, "resize_time", ratio=rcell(st["ratio_resize"])))
    return run.line(NAME, "measured", found="; ".join(found)) if found else ""


def values(run):
    like = run.summary.get("storm_like")
    if not like:
        return None
    return {"rows": "\n".join(
        run.text(NAME, "row", label=label, samples="%d" % e["samples"],
                 cqpool=cell(e["cqpool"], 1), upstream=cell(e["upstream"], 1),
                 ratio=rcell(e["ratio"]))
        for label, e in ((k, like.get(k)) for k, _ in LIMITS) if e)}
