# SPDX-License-Identifier: GPL-2.0
"""Get and put, cqpool's against upstream's and one CQ per QP's (section 1):
GET_PUT and CHURN runs at each number of CQs per vector filled first
(getput-N, churn-N), and issue 15's targets for them.
"""
import math
import re

from .. import design
from ..cells import cell, fmt, rcell
from ..stats import paired, per_call, series, spread
from . import at_most, ledger, placement

NAME = "getput"
MODES = ("cqpool", "upstream", "perqp")
# Issue 15: cqpool's batched get at most 0.9x upstream's, its put 1.0x;
# CHURN's get at 1,024 CQs per vector at most 0.05x.
LIMIT = {"get": 0.9, "put": 1.0}
CHURN_AT, CHURN_LIMIT = 1024, 0.05


def runs(raw):
    """(kind, CQs per vector, record) of every GET_PUT and CHURN run, by
    size, GET_PUT first."""
    found = [(m.group(1), int(m.group(2)), r) for k, r in raw.items()
             for m in [re.fullmatch(r"(getput|churn)-(\d+)", k)] if m]
    return sorted(found, key=lambda x: (x[1], x[0] != "getput"))


def summarize(raw):
    gp = []
    for kind, prefill, r in runs(raw):
        row = {"kind": kind, "prefill": prefill, "iterations": r["iterations"]}
        for mode in MODES:
            m = series(r, mode)
            if m:
                row[mode] = {"get_ns": spread(per_call(m, "get")),
                             "put_ns": spread(per_call(m, "put")),
                             "cqs": m["cqs"], "cqes": m["cqes"]}
        c, u = series(r, "cqpool"), series(r, "upstream")
        if c and u:
            for op in ("get", "put"):
                row[op + "_ratio"], row[op + "_ratio_rounds"] = paired(
                    per_call(c, op), per_call(u, op))
        gp.append(row)
    return {"getput": gp}


def own(s, prefill):
    """cqpool's GET_PUT row at @prefill CQs per vector, or None."""
    return next((r["cqpool"] for r in s.get("getput", [])
                 if r["kind"] == "getput" and r["prefill"] == prefill and "cqpool" in r), None)


def targets(run):
    out = []
    for row in run.summary.get("getput", []):
        p = row["prefill"]
        if row["kind"] == "getput":
            for op in ("get", "put"):
                r, rr = placement.targets_ratio(run.summary, p, op)
                # A missed get's reason is its own size's; the puts' is one.
                out.append(at_most("get/put %d CQs/vector: %s <= %.1fx upstream"
                                   % (p, op, LIMIT[op]), r, LIMIT[op], rr,
                                   why_key="put" if op == "put" else "",
                                   about={"op": op, "prefill": p}))
        elif p == CHURN_AT:
            out.append(at_most("churn %d CQs/vector: get <= %gx upstream" % (p, CHURN_LIMIT),
                               row.get("get_ratio"), CHURN_LIMIT, about={"op": "churn"}))
    return out


def why(t, run):
    """A get's split into the ledger's part and the rest; the put's
    reason, with what the ledger and the code's placement took of it."""
    op = t.about["op"]
    if op == "get":
        return ledger.get_cost(run, t.about["prefill"])
    if op == "put":
        return " ".join(filter(None, (run.line(NAME, "why_put"),
                                      ledger.put_cost(run, LIMIT["put"]),
                                      placement.moved(run))))
    return run.line(NAME, "why_churn")


def drift(raw):
    """How far the host's speed moved between rounds: a side's slowest
    round over its fastest, the most of any run here, rounded up to a
    whole factor ("2x")."""
    most = None
    for _, _, r in runs(raw):
        for m in filter(None, (series(r, mode) for mode in MODES)):
            for op in ("get", "put"):
                v = per_call(m, op)
                if min(v):
                    most = max(most or 0, max(v) / min(v))
    return "-" if most is None else "%dx" % math.ceil(most)


def values(run):
    rows = run.summary.get("getput")
    if not rows:
        return None
    first = runs(run.raw)[0][2]
    c = series(first, "cqpool")
    return {
        "batch": fmt(design.BATCH.value[0]),
        "nr_cqe": fmt(first["nr_cqe"]),
        "pairs": "/".join(sorted({fmt(row["iterations"]) for row in rows})),
        "drift": drift(run.raw),
        "prefill_cq": fmt(design.PREFILL_CQ.value[0]),
        "real_cq": fmt(c["cqes"] // c["cqs"]) if c and c["cqs"] else "-",
        "rows": "\n".join(run.text(NAME, "row", **row_values(row)) for row in rows),
    }


def row_values(row):
    """A row of the table: cqpool, upstream and per-QP at one size."""
    c, u, p = row.get("cqpool", {}), row.get("upstream", {}), row.get("perqp", {})
    return {"kind": row["kind"], "prefill": "%d" % row["prefill"],
            "cqpool_get": cell(c.get("get_ns")), "upstream_get": cell(u.get("get_ns")),
            "perqp_get": cell(p.get("get_ns")), "get_ratio": rcell(row.get("get_ratio")),
            "cqpool_put": cell(c.get("put_ns")), "upstream_put": cell(u.get("put_ns")),
            "perqp_put": cell(p.get("put_ns")), "put_ratio": rcell(row.get("put_ratio"))}
