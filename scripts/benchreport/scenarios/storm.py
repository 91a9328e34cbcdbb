# SPDX-License-Identifier: GPL-2.0
"""The connection storm (section 2): ITERATIONS reservations of one size,
then all released (storm); upstream's first round is cold, its later ones
warm.  The same storm on a pool that grows its CQs in place, the old
default (storm-resize).
"""
from .. import design
from ..cells import cell, fmt, rcell
from ..stats import ratio, series, spread

NAME = "storm"
MODES = ("cqpool", "upstream", "perqp")
# Round one of upstream's storm allocates; the rest find its CQs.
COLD, WARM = slice(0, 1), slice(1, None)


def times_ms(r, m, op=None):
    """A storm's rounds, ms: gets and puts, or @op's alone."""
    it = r["iterations"]
    if op:
        return [x * it / 1e6 for x in m[op + "_ns_rounds"]]
    return [(g + p) * it / 1e6 for g, p in zip(m["get_ns_rounds"], m["put_ns_rounds"])]


def side(r, m):
    """One side's storm over the rounds."""
    return {"total_ms": spread(times_ms(r, m)), "get_ms": spread(times_ms(r, m, "get")),
            "put_ms": spread(times_ms(r, m, "put")),
            "cqs": spread(m["cqs_rounds"]), "cqes": spread(m["cqes_rounds"]),
            "reserved_cqes": m["reserved_cqes"]}


def summarize(raw):
    r = raw.get("storm")
    if not r:
        return {}
    st = {"iterations": r["iterations"], "nr_cqe": r["nr_cqe"], "poll_ctx": r["poll_ctx"]}
    for mode in MODES:
        m = series(r, mode)
        if not m:
            continue
        st[mode] = side(r, m)
        if mode == "upstream":
            tot = times_ms(r, m)
            st[mode]["cold"] = {"total_ms": spread(tot[COLD]), "cqs": m["cqs_rounds"][0],
                                "cqes": m["cqes_rounds"][0]}
            st[mode]["warm"] = {"total_ms": spread(tot[WARM]),
                                "cqs": spread(m["cqs_rounds"][WARM]),
                                "cqes": spread(m["cqes_rounds"][WARM])}
    if "cqpool" in st and "upstream" in st:
        c = st["cqpool"]["total_ms"]["median"]
        st["ratio_cold"] = ratio(c, st["upstream"]["cold"]["total_ms"]["median"])
        w = st["upstream"]["warm"]["total_ms"]
        st["ratio_warm"] = ratio(c, w["median"]) if w else None
    if "cqpool" in st and "perqp" in st:
        st["ratio_perqp"] = ratio(st["cqpool"]["total_ms"]["median"],
                                  st["perqp"]["total_ms"]["median"])
    # The old default, an owned pool's opt-in now: CQs grown in place.
    rs = raw.get("storm-resize")
    m = series(rs, "cqpool")
    if m and "cqpool" in st:
        st["resize"] = {k: side(rs, m)[k] for k in ("total_ms", "cqs", "cqes")}
        st["ratio_resize"] = ratio(st["resize"]["total_ms"]["median"],
                                   st["cqpool"]["total_ms"]["median"])
    # What any pool must allocate at least: what the storm reserves.
    if "upstream" in st:
        st["reserved_per_upstream_cold"] = ratio(
            st["upstream"]["reserved_cqes"], st["upstream"]["cold"]["cqes"])
    return {"storm": st}


def figures(d):
    """A row's cells; the gets' and puts' where the row has them."""
    def count(x):
        return fmt(x) if isinstance(x, (int, float)) else cell(x)

    v = {"total": cell(d["total_ms"], 1), "cqs": count(d["cqs"]), "cqes": count(d["cqes"])}
    if "get_ms" in d:
        v.update(gets=cell(d["get_ms"], 1), puts=cell(d["put_ms"], 1))
    return v


def rows(run, st):
    """The table's rows, those the run has."""
    u = st.get("upstream") or {}
    parts = (("row_cqpool", st.get("cqpool")), ("row_cold", u.get("cold")),
             ("row_warm", u.get("warm")), ("row_resize", st.get("resize")),
             ("row_perqp", st.get("perqp")))
    return "\n".join(run.text(NAME, block, **figures(d)) for block, d in parts if d)


def values(run):
    st = run.summary.get("storm")
    if not st:
        return None
    factor, extra = design.NVME_RDMA_CQ_FACTOR, design.NVME_RDMA_CQ_EXTRA
    resize, reserved = st.get("ratio_resize"), st.get("reserved_per_upstream_cold")
    return {
        "iterations": fmt(st["iterations"]), "nr_cqe": "%s" % st["nr_cqe"],
        "factor": "%d" % factor, "extra": "%d" % extra,
        "queue_size": "%d" % ((st["nr_cqe"] - extra) // factor),
        "admin": "%d" % (factor * design.NVME_AQ_DEPTH + extra),
        "any_vector": "%d" % design.ANY_VECTOR.value[0], "poll": st["poll_ctx"],
        "rows": rows(run, st),
        "ratio_cold": rcell(st.get("ratio_cold")), "ratio_warm": rcell(st.get("ratio_warm")),
        "ratio_perqp": rcell(st.get("ratio_perqp")),
        "resize": run.text(NAME, "resize", ratio=rcell(resize)) if resize is not None else "",
        "reserved": run.text(NAME, "reserved", ratio=rcell(reserved, 3))
        if reserved is not None else "",
    }
