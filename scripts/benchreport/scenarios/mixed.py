# SPDX-License-Identifier: GPL-2.0
"""The mixed workload's memory (section 3): RESERVATIONS of the sizes
cqpoolctl cycles through, on cqpool's shared pool and upstream's, then
all put back, and what each pool holds after the idle timeout (mixed);
the same on an owned pool that grows its CQs in place (mixed-resize).
"""
from .. import design
from ..cells import cell, fmt, words
from ..stats import ratio, spread
from . import at_most

NAME = "mixed"
MODES = ("cqpool", "upstream")
# Issue 15: allocated at most 1.10x reserved, and nothing held once the
# idle timeout has passed.
LIMIT, HELD = 1.10, 0


def pool(m, more=()):
    """A pool's figures over the rounds."""
    d = {k: spread(m[k]) for k in ("cqs", "cqes", "reserved", "balance") + more}
    d["allocated_per_reserved"] = spread([a / b for a, b in zip(m["cqes"], m["reserved"])])
    return d


def summarize(raw):
    out = {}
    r = raw.get("mixed")
    if r:
        mx = {k: r[k] for k in ("reservations", "idle_timeout_ms", "poll_ctx")}
        for mode in MODES:
            if r.get(mode):
                mx[mode] = pool(r[mode], ("held_after_release", "held_after_idle",
                                          "idle_wait_ms"))
        if "cqpool" in mx and "upstream" in mx:
            mx["held_after_idle_ratio"] = ratio(mx["cqpool"]["held_after_idle"]["median"],
                                                mx["upstream"]["held_after_idle"]["median"])
        out["mixed"] = mx
    m = (raw.get("mixed-resize") or {}).get("cqpool")
    if m:
        out["mixed_resize"] = pool(m)
    return out


def targets(run):
    mx = run.summary.get("mixed")
    if not mx or "cqpool" not in mx:
        return []
    return [at_most("mixed: allocated/reserved <= %.2f" % LIMIT,
                    mx["cqpool"]["allocated_per_reserved"]["median"], LIMIT),
            at_most("CQEs held after release + idle timeout: %d%% of upstream's" % HELD,
                    mx.get("held_after_idle_ratio"), HELD)]


def values(run):
    mx = run.summary.get("mixed")
    if not mx:
        return None
    first = run.summary.get("first32", {}).get("upstream") or {}
    rows = [run.text(NAME, "row", mode=mode, cqs=cell(d["cqs"]), cqes=cell(d["cqes"]),
                     reserved=cell(d["reserved"]), per=cell(d["allocated_per_reserved"], 3),
                     held=cell(d["held_after_release"]), idle=cell(d["held_after_idle"]))
            for mode, d in ((m, mx.get(m)) for m in MODES) if d]
    d = run.summary.get("mixed_resize")
    if d:
        rows.append(run.text(NAME, "row_resize", cqs=cell(d["cqs"]), cqes=cell(d["cqes"]),
                             reserved=cell(d["reserved"]),
                             per=cell(d["allocated_per_reserved"], 3)))
    r = mx.get("held_after_idle_ratio")
    return {
        "reservations": fmt(mx["reservations"]),
        "sizes": ", ".join("%d" % n for n in design.MIXED_SIZES.value),
        "poll": mx["poll_ctx"], "any_vector": "%d" % design.ANY_VECTOR.value[0],
        "idle": fmt(mx["idle_timeout_ms"]),
        "default_idle": fmt(design.IDLE_TIMEOUT_MS.value[0] / 1000),
        "first_nr_cqe": "%d" % run.raw["first32"]["nr_cqe"] if "first32" in run.raw else "-",
        "first_cqs": words(first.get("cqs")),
        "rows": "\n".join(rows),
        "resize": run.text(NAME, "resize") if d else "",
        "held": "-" if r is None else "%.2f%%" % (100 * r),
    }
