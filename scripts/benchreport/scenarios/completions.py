# SPDX-License-Identifier: GPL-2.0
"""Completions (section 5): `cqpoolctl run` traffic over P looped-back QP
pairs, cqpool, upstream and one CQ per QP in turn, a run a round
(traffic-P-ROUND): completions a second, and how the QPs spread over CQs.
"""
import re

from ..cells import cell, fmt, g3, rcell
from ..stats import ratio, spread
from . import at_least, at_most

NAME = "completions"
MODES = ("cqpool", "upstream", "perqp")
OTHERS = ("upstream", "perqp")
QPS_PER_PAIR = 2
# What a run reports of each pool, over the rounds: spreads, errors summed.
FIELDS = ("completions_per_s", "cqs", "qps_per_cq_mean", "qps_per_cq_max", "errors")
# Issue 15: cqpool at least as fast as either; same-size QPs spread over
# CQs with the busiest at most 1.25x the mean, at this many QPs.
LIMIT, SPREAD_AT, SPREAD_LIMIT = 1.0, 256, 1.25


def records(raw):
    """The traffic records, by pairs and round."""
    found = sorted((int(m.group(1)), int(m.group(2)), k) for k in raw
                   for m in [re.fullmatch(r"traffic-(\d+)-(\d+)", k)] if m)
    return [(pairs, raw[k]) for pairs, _, k in found]


def summarize(raw):
    tr = {}
    for pairs, r in records(raw):
        t = tr.setdefault(pairs, {"qp_pairs": pairs, "qps": QPS_PER_PAIR * pairs, "runs": {}})
        for mr in r.get("modes", []):
            if not mr.get("skipped") and not mr.get("failed"):
                d = t["runs"].setdefault(mr["mode"], {f: [] for f in FIELDS})
                for f in FIELDS:
                    d[f].append(mr[f])
    for t in tr.values():
        for mode, d in t.pop("runs").items():
            t[mode] = {f: spread(v) for f, v in d.items() if f != "errors"}
            t[mode]["errors"] = sum(d["errors"])
        c = t.get("cqpool", {}).get("completions_per_s")
        for other in OTHERS:
            o = t.get(other, {}).get("completions_per_s")
            if c and o:
                t["ratio_" + other] = ratio(c["median"], o["median"])
    return {"completions": [tr[k] for k in sorted(tr)]}


def busiest(c):
    """cqpool's busiest CQ over its mean, in QPs, or None."""
    d = c.get("cqpool")
    if not d or not d["qps_per_cq_mean"]["median"]:
        return None
    return d["qps_per_cq_max"]["median"] / d["qps_per_cq_mean"]["median"]


def targets(run):
    comp = run.summary.get("completions")
    out = [at_least("completions/s, %d QPs: >= %.1fx %s" % (c["qps"], LIMIT, other),
                    c.get("ratio_" + other), LIMIT, about={"qps": c["qps"], "other": other})
           for c in comp or [] for other in OTHERS]
    out += [at_most("QPs per CQ max/mean, %d same-size QPs <= %.2f" % (c["qps"], SPREAD_LIMIT),
                    busiest(c), SPREAD_LIMIT)
            for c in comp or [] if c["qps"] == SPREAD_AT and busiest(c) is not None]
    return out


def overlap(run, t):
    """Whether the rounds' ranges of cqpool's and the other's completions
    a second overlap, for a target of the two; None for other targets."""
    if "other" not in t.about:
        return None
    c = next(c for c in run.summary["completions"] if c["qps"] == t.about["qps"])
    a = c.get("cqpool", {}).get("completions_per_s")
    b = c.get(t.about["other"], {}).get("completions_per_s")
    return bool(a and b and a["min"] <= b["max"] and b["min"] <= a["max"])


def why(t, run):
    found = overlap(run, t)
    if found is None:
        return ""
    return run.line(NAME, "within_noise" if found else "apart")


def noise(t, run):
    if overlap(run, t):
        return run.line(NAME, "met_within_noise", target=t.name, value=g3(t.value))
    return None


def notes(run):
    """Where cqpool's busiest CQ has well over its share of QPs."""
    out = []
    for c in run.summary.get("completions", []):
        r = busiest(c)
        if r is not None and r > SPREAD_LIMIT:
            d = c["cqpool"]
            out.append(run.line(NAME, "busiest", qps="%d" % c["qps"], ratio="%.2fx" % r,
                                most=fmt(d["qps_per_cq_max"]["median"]),
                                mean=fmt(d["qps_per_cq_mean"]["median"], 1)))
    return out


def values(run):
    comp = run.summary.get("completions")
    if not comp:
        return None
    first = records(run.raw)[0][1]
    queue = first["queues"][0]
    rows = []
    for c in comp:
        rows += [run.text(NAME, "row", qps="%d" % c["qps"], mode=mode,
                          cps=cell(d["completions_per_s"]), cqs=cell(d["cqs"]),
                          mean=cell(d["qps_per_cq_mean"], 1), max=cell(d["qps_per_cq_max"]),
                          errors=fmt(d["errors"]))
                 for mode, d in ((m, c.get(m)) for m in MODES) if d]
        rows.append(run.text(NAME, "ratios", qps="%d" % c["qps"],
                             upstream=rcell(c.get("ratio_upstream")),
                             perqp=rcell(c.get("ratio_perqp"))))
    return {
        "profile": first["profile"], "connections": "%d" % first["connections"],
        "depth": "%d" % queue["send_depth"], "seconds": "%d" % first["seconds"],
        "per_pair": "%d" % QPS_PER_PAIR, "op": first["op"].upper(), "msg": "%d" % first["msg"],
        "inflight": "%d" % first["inflight"], "poll": queue["poll_ctx"],
        "runs": "%s" % run.machine.get("rounds"), "rows": "\n".join(rows),
    }
