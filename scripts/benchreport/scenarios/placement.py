# SPDX-License-Identifier: GPL-2.0
"""Code placement (section 1): GET_PUT at each size with cqpool.ko as built
and with its code shifted by PAD bytes, one round of each layout at a time
(placement-N-PAD-ROUND).  Under TCG where code lands moves a call's cost;
the get/put targets are read over all the layouts of a size ("placed").
"""
import re

from ..cells import cell, listed, rcell
from ..stats import paired, per_call, series, spread

NAME = "placement"


def layouts(raw):
    """{CQs per vector: {pad: [record, by round]}}."""
    runs = {}
    for k in raw:
        m = re.fullmatch(r"placement-(\d+)-(\d+)-(\d+)", k)
        if m:
            runs.setdefault(int(m.group(1)), {}).setdefault(
                int(m.group(2)), []).append((int(m.group(3)), raw[k]))
    return {p: {pad: [r for _, r in sorted(rs, key=lambda x: x[0])]
                for pad, rs in pads.items()} for p, pads in runs.items()}


def summarize(raw):
    runs = layouts(raw)
    place, placed = [], []
    for prefill in sorted(runs):
        every = {"get": ([], []), "put": ([], [])}
        for pad in sorted(runs[prefill]):
            sides = {mode: [series(r, mode) for r in runs[prefill][pad]]
                     for mode in ("cqpool", "upstream")}
            if not all(sides["cqpool"]) or not all(sides["upstream"]):
                continue
            row = {"prefill": prefill, "pad": pad}
            for op in ("get", "put"):
                c = [per_call(m, op)[0] for m in sides["cqpool"]]
                u = [per_call(m, op)[0] for m in sides["upstream"]]
                row["cqpool_" + op + "_ns"], row["upstream_" + op + "_ns"] = spread(c), spread(u)
                row[op + "_ratio"], row[op + "_ratio_rounds"] = paired(c, u)
                every[op][0].extend(c)
                every[op][1].extend(u)
            place.append(row)
        if len({r["pad"] for r in place if r["prefill"] == prefill}) > 1:
            row = {"prefill": prefill}
            for op in ("get", "put"):
                row[op + "_ratio"], row[op + "_ratio_rounds"] = paired(*every[op])
            placed.append(row)
    out = {}
    if place:
        out["placement"] = place
    if placed:
        out["placed"] = placed
    return out


def targets_ratio(s, prefill, op):
    """cqpool's @op over upstream's at @prefill CQs per vector, and its
    rounds' spread, as the targets read it: over every layout where there
    are several, as built (getput's table) if not."""
    for row in s.get("placed", []):
        if row["prefill"] == prefill:
            return row[op + "_ratio"], row[op + "_ratio_rounds"]
    for row in s.get("getput", []):
        if row["kind"] == "getput" and row["prefill"] == prefill:
            return row.get(op + "_ratio"), row.get(op + "_ratio_rounds")
    return None, None


def moved(run):
    """How far placement alone moved the ratios at the fewest CQs per
    vector, for a put target missed."""
    rows = run.summary.get("placement", [])
    rows = [r for r in rows if r["prefill"] == rows[0]["prefill"]] if rows else []
    if len(rows) < 2:
        return ""
    return run.line(NAME, "moved", pads="/".join("%d" % r["pad"] for r in rows),
                    prefill="%d" % rows[0]["prefill"],
                    **{op: "/".join("%.2f" % r[op + "_ratio"] for r in rows)
                       for op in ("get", "put")})


def about_targets(run):
    return run.text(NAME, "targets") if run.summary.get("placed") else None


def values(run):
    place = run.summary.get("placement")
    if not place:
        return None
    placed = {r["prefill"]: r for r in run.summary.get("placed", [])}
    rows = []
    for i, r in enumerate(place):
        rows.append(run.text(
            NAME, "row", prefill="%d" % r["prefill"], pad="%d" % r["pad"],
            cqpool_get=cell(r["cqpool_get_ns"]), upstream_get=cell(r["upstream_get_ns"]),
            get_ratio=rcell(r["get_ratio"]), cqpool_put=cell(r["cqpool_put_ns"]),
            upstream_put=cell(r["upstream_put_ns"]), put_ratio=rcell(r["put_ratio"])))
        last = i + 1 == len(place) or place[i + 1]["prefill"] != r["prefill"]
        if last and r["prefill"] in placed:
            a = placed[r["prefill"]]
            rows.append(run.text(NAME, "all", prefill="%d" % r["prefill"],
                                 get_ratio=rcell(a["get_ratio"]),
                                 put_ratio=rcell(a["put_ratio"])))
    return {"pads": listed(sorted({r["pad"] for r in place if r["pad"]}), "and"),
            "rows": "\n".join(rows)}
