# SPDX-License-Identifier: GPL-2.0
"""Parallel get+put (section 1; a boot of its own, machine-parallel):
GET_PUT's pairs shared by N kernel threads (parallel-N), wall ns per pair
over all threads; the throughput ratio is upstream's time over cqpool's.
"""
import re

from ..cells import cell, fmt, listed, rcell
from ..stats import paired, ratio, series, spread
from . import at_least

NAME = "parallel"
MODES = ("cqpool", "upstream")
# A side's speedup is its time with this many threads over its time with n.
BASE = 1
# Issue 15: cqpool's throughput at least 1.5x upstream's with 4 threads.
THREADS, LIMIT = 4, 1.5


def summarize(raw):
    par = []
    for k in sorted((k for k in raw if re.fullmatch(r"parallel-\d+", k)),
                    key=lambda k: int(k.split("-")[1])):
        r = raw[k]
        row = {"threads": r["threads"], "iterations": r["iterations"]}
        for mode in MODES:
            m = series(r, mode)
            if m:
                row[mode] = {"pair_ns": spread(m["pair_ns_rounds"])}
        c, u = series(r, "cqpool"), series(r, "upstream")
        if c and u:
            row["throughput_ratio"], row["throughput_ratio_rounds"] = paired(
                u["pair_ns_rounds"], c["pair_ns_rounds"])
        par.append(row)
    if not par:
        return {}
    base = next((r for r in par if r["threads"] == BASE), None)
    for row in par:
        for mode in MODES:
            if base and mode in row and mode in base:
                row[mode]["speedup"] = ratio(base[mode]["pair_ns"]["median"],
                                             row[mode]["pair_ns"]["median"])
    return {"parallel": {"rows": par, "vcpus": (raw.get("machine-parallel") or {}).get("vcpus")}}


def targets(run):
    par = run.summary.get("parallel", {})
    row = next((r for r in par.get("rows", []) if r["threads"] == THREADS), None)
    if not row:
        return []
    return [at_least("parallel get+put throughput, %d threads, %s vCPUs >= %.1fx upstream"
                     % (THREADS, par.get("vcpus"), LIMIT), row.get("throughput_ratio"), LIMIT)]


def why(t, run):
    return " ".join(filter(None, (run.line(NAME, "why"), ceiling(run))))


def ceiling(run):
    """The best throughput ratio the host's cores allow at the most threads."""
    cores = run.machine.get("host_cores")
    rows = (run.summary.get("parallel") or {}).get("rows", [])
    if not cores or len(rows) < 2 or rows[-1]["threads"] <= cores:
        return ""
    one, most = rows[0], rows[-1]
    best = most["upstream"]["pair_ns"]["median"] * cores / one["cqpool"]["pair_ns"]["median"]
    return run.line(NAME, "ceiling", threads="%d" % most["threads"], cores="%d" % cores,
                    one="%d" % one["threads"], best="%.2fx" % best,
                    below=run.line(NAME, "below") if best < LIMIT else "")


def values(run):
    par = run.summary.get("parallel")
    if not par:
        return None
    first = next(run.raw[k] for k in sorted(run.raw) if re.fullmatch(r"parallel-\d+", k))
    rows = []
    for row in par["rows"]:
        c, u = row.get("cqpool", {}), row.get("upstream", {})
        rows.append(run.text(NAME, "row", threads="%d" % row["threads"],
                             pairs=fmt(row["iterations"]), cqpool=cell(c.get("pair_ns")),
                             upstream=cell(u.get("pair_ns")),
                             ratio=rcell(row.get("throughput_ratio")),
                             cqpool_speedup=rcell(c.get("speedup")),
                             upstream_speedup=rcell(u.get("speedup"))))
    return {"vcpus": "%s" % par.get("vcpus"), "prefill": "%d" % first["prefill"],
            "threads": listed([r["threads"] for r in par["rows"]], "or"),
            "base": "%d" % BASE, "rows": "\n".join(rows)}
