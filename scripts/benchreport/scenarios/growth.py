# SPDX-License-Identifier: GPL-2.0
"""Growth on this device, the verbs alone (section 2): a CQ grown in place
against a second CQ of its size, which adds as many entries (growth-N):
what the opt-in's resizes cost.
"""
import re

from ..cells import cell, fmt, rcell
from ..stats import median, spread

NAME = "growth"


def summarize(raw):
    gr = []
    for name, r in raw.items():
        if not re.fullmatch(r"growth-\d+", name):
            continue
        gr.append({"nr_cqe": r["nr_cqe"], "iterations": r["iterations"],
                   "grown_cqes": r["grown_cqes"], "second_cqes": r["second_cqes"],
                   "resize_us": spread([x / 1e3 for x in r["resize_ns_rounds"]]),
                   "new_cq_us": spread([x / 1e3 for x in r["new_cq_ns_rounds"]]),
                   "ratio": median(r["resize_ratio_rounds"]),
                   "ratio_rounds": spread(r["resize_ratio_rounds"])})
    if not gr:
        return {}
    gr.sort(key=lambda g: g["nr_cqe"])
    cheaper = [g["second_cqes"] for g in gr if g["ratio"] < 1]
    # The largest CQ whose resize cost less than a second CQ.
    return {"growth": {"sizes": gr, "crossover_cqes": max(cheaper) if cheaper else None}}


def values(run):
    g = run.summary.get("growth")
    if not g:
        return None
    rows = [run.text(NAME, "row", cqes=fmt(e["second_cqes"]), grown=fmt(e["grown_cqes"]),
                     resize=cell(e["resize_us"], 1), second=cell(e["new_cq_us"], 1),
                     ratio=rcell(e["ratio"]), lo=fmt(e["ratio_rounds"]["min"], 2),
                     hi=fmt(e["ratio_rounds"]["max"], 2)) for e in g["sizes"]]
    rs = [e["ratio"] for e in g["sizes"]]
    verdict = run.text(NAME, "never_cheaper", lo=rcell(min(rs)), hi=rcell(max(rs))) \
        if g["crossover_cqes"] is None else \
        run.text(NAME, "crossover", cqes=fmt(g["crossover_cqes"]))
    return {"iterations": "%d" % g["sizes"][0]["iterations"], "rows": "\n".join(rows),
            "verdict": verdict}
