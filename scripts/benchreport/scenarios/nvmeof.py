# SPDX-License-Identifier: GPL-2.0
"""NVMe-oF through the real ULPs (vm/payload-bench-nvmeof.sh): fio through
nvme-rdma and nvmet-rdma on upstream's pool and on cqpool's through the
takeover, the two alternating within each round (nvmeof-rR-MODE); the
CQ memory at 1, 8 and 32 controllers and after every disconnect; the
time to connect 32 and to bring them back after a link flap; and the
memory at 1 controller again where rxe has 8 vectors
(nvmeof-vectors-rR-MODE).
"""
import re

from ..cells import cell, fmt, rcell
from ..stats import paired, ratio, spread, straddles
from . import Target, at_most

NAME = "nvmeof"
MODES = ("upstream", "cqpool")
# cqpool's CQEs at one controller against upstream's: an eighth or less.
EIGHTH = 1 / 8
EVEN = 1.0


def rounds(raw, part):
    """[(round, {mode: record})] of @part, the rounds that have both modes."""
    found = {}
    for k, v in raw.items():
        m = re.fullmatch(re.escape(part) + r"-r(\d+)-(upstream|cqpool)", k)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = v
    return [(r, d) for r, d in sorted(found.items()) if len(d) == len(MODES)]


def per_interrupt(io):
    """Completions ib_core polled for each poll it scheduled."""
    return ratio(io["completions"], io["scheduled"])


IO_FIGURES = {"iops": lambda io: io["iops"], "p50_us": lambda io: io["p50_us"],
              "p99_us": lambda io: io["p99_us"], "p999_us": lambda io: io["p999_us"],
              "cpu_us_per_io": lambda io: io["cpu_us_per_io"],
              "per_interrupt": per_interrupt}


def io_summary(rr, n):
    """The fio runs at @n controllers: each mode's figures over the rounds,
    and cqpool's over upstream's, per round."""
    out = {m: {f: spread([get(d[m]["io"][n]) for _, d in rr]) for f, get in IO_FIGURES.items()}
           for m in MODES}
    out["ratio"] = {}
    for f, get in IO_FIGURES.items():
        r, sp = paired([get(d["cqpool"]["io"][n]) for _, d in rr],
                       [get(d["upstream"]["io"][n]) for _, d in rr])
        out["ratio"][f] = {"median": r, "rounds": sp}
    return out


def memory_summary(rr, key):
    """CQs, CQEs and bytes held at @key (controllers, or "after")."""
    out = {m: {f: spread([d[m]["memory"][key][f] for _, d in rr])
               for f in ("cqs", "cqes", "bytes")} for m in MODES}
    r, sp = paired([d["cqpool"]["memory"][key]["cqes"] for _, d in rr],
                   [d["upstream"]["memory"][key]["cqes"] for _, d in rr])
    out["ratio"] = {"median": r, "rounds": sp}
    return out


def timing_summary(rr, key):
    out = {m: spread([d[m][key] for _, d in rr]) for m in MODES}
    r, sp = paired([d["cqpool"][key] for _, d in rr], [d["upstream"][key] for _, d in rr])
    out["ratio"] = {"median": r, "rounds": sp}
    return out


def summarize(raw):
    rr = rounds(raw, "nvmeof")
    if not rr:
        return {}
    first = rr[0][1]["upstream"]
    ctrl = [str(n) for n in first["controllers"]]
    st = {"rounds": len(rr), "controllers": first["controllers"],
          "vectors": first["vectors"], "cqe_bytes": first.get("cqe_bytes"),
          "setup": first.get("setup", {}),
          "io": {n: io_summary(rr, n) for n in first["io"]},
          "memory": {k: memory_summary(rr, k) for k in ctrl + ["after"]
                     if k in first["memory"]},
          "connect_s": timing_summary(rr, "connect_s"),
          "reconnect_s": timing_summary(rr, "reconnect_s"),
          "timeline": {m: rr[0][1][m]["reconnect_timeline"] for m in MODES}}
    vv = rounds(raw, "nvmeof-vectors")
    if vv:
        st["vectors_memory"] = {"vectors": vv[0][1]["upstream"]["vectors"],
                                **memory_summary(vv, "1")}
    return {"nvmeof": st}


def target_at_least(name, got, limit, **kw):
    """A ratio target met at @limit or above; a note where the rounds
    straddle it."""
    v = got["median"]
    return Target(name, v, v is not None and v >= limit, straddles(got["rounds"], limit), **kw)


def targets(run):
    st = run.summary.get("nvmeof")
    if not st:
        return []
    out = []
    for n, io in st["io"].items():
        r = io["ratio"]
        out += [target_at_least("NVMe-oF IOPS, %s connected: >= %gx upstream" % (n, EVEN),
                                r["iops"], EVEN),
                at_most("NVMe-oF p99 latency, %s connected: <= %gx upstream" % (n, EVEN),
                        r["p99_us"]["median"], EVEN, r["p99_us"]["rounds"]),
                at_most("NVMe-oF CPU per I/O, %s connected: <= %gx upstream" % (n, EVEN),
                        r["cpu_us_per_io"]["median"], EVEN, r["cpu_us_per_io"]["rounds"],
                        why_key="cpu"),
                target_at_least("NVMe-oF completions per CQ interrupt, %s connected: "
                                ">= %gx upstream" % (n, EVEN), r["per_interrupt"], EVEN,
                                why_key="interrupts %s" % n)]
    mem = st["memory"]
    one = [("%d vectors" % st["vectors"], mem.get("1"))]
    if "vectors_memory" in st:
        one.append(("%d vectors" % st["vectors_memory"]["vectors"], st["vectors_memory"]))
    for label, m in one:
        if m:
            out.append(at_most("NVMe-oF CQEs held, 1 controller, %s: <= 1/%d upstream"
                               % (label, round(1 / EIGHTH)), m["ratio"]["median"], EIGHTH,
                               m["ratio"]["rounds"]))
    for n in [str(x) for x in st["controllers"][1:]]:
        if n in mem:
            out.append(at_most("NVMe-oF CQEs held, %s connected: <= %gx upstream" % (n, EVEN),
                               mem[n]["ratio"]["median"], EVEN, mem[n]["ratio"]["rounds"],
                               why_key="memory %s" % n))
    if "after" in mem:
        held = mem["after"]["cqpool"]["cqes"]["max"]
        out.append(Target("NVMe-oF CQEs cqpool holds after disconnect + idle timeout: 0",
                          held, held == 0))
    for key, what in (("connect_s", "connect %d controllers" % st["controllers"][-1]),
                      ("reconnect_s", "all %d live again after a link flap"
                       % st["controllers"][-1])):
        r = st[key]["ratio"]
        out.append(at_most("NVMe-oF %s: time <= %gx upstream" % (what, EVEN),
                           r["median"], EVEN, r["rounds"], why_key=key))
    return out


def why(t, run):
    """What this run measured of a missed target."""
    st = run.summary["nvmeof"]
    # A reason per count of controllers (why_key "KIND N"), with its figures.
    key, _, n = (t.why_key or "").partition(" ")
    if key == "interrupts":
        io, mem = st["io"][n], st["memory"][n]
        # The spread is the reason only where the run shows it: more CQs
        # than upstream's, and fewer completions a poll.
        if not (mem["cqpool"]["cqs"]["median"] > mem["upstream"]["cqs"]["median"] and
                io["cqpool"]["per_interrupt"]["median"] < io["upstream"]["per_interrupt"]["median"]):
            return run.line(NAME, "why_other")
        return run.line(NAME, "why_interrupts",
                        cqpool_cqs=cell(mem["cqpool"]["cqs"]),
                        upstream_cqs=cell(mem["upstream"]["cqs"]),
                        cqpool=cell(io["cqpool"]["per_interrupt"], 1),
                        upstream=cell(io["upstream"]["per_interrupt"], 1))
    if key == "memory":
        m = st["memory"][n]
        return run.line(NAME, "why_memory", n=n,
                        cqpool=cell(m["cqpool"]["cqes"]), cqpool_cqs=cell(m["cqpool"]["cqs"]),
                        upstream=cell(m["upstream"]["cqes"]),
                        upstream_cqs=cell(m["upstream"]["cqs"]))
    if key in ("connect_s", "reconnect_s"):
        return run.line(NAME, "why_time", cqpool=cell(st[key]["cqpool"], 1),
                        upstream=cell(st[key]["upstream"], 1))
    return run.line(NAME, "why_other")


def io_rows(run, st):
    rows = []
    for n, io in st["io"].items():
        for m in MODES:
            d = io[m]
            rows.append(run.text(NAME, "io_row", n=n, mode=m, iops=cell(d["iops"]),
                                 p50=cell(d["p50_us"]), p99=cell(d["p99_us"]),
                                 p999=cell(d["p999_us"]), cpu=cell(d["cpu_us_per_io"], 1),
                                 interrupt=cell(d["per_interrupt"], 1)))
        r = io["ratio"]
        rows.append(run.text(NAME, "io_ratio", n=n, iops=rcell(r["iops"]["median"]),
                             p50=rcell(r["p50_us"]["median"]), p99=rcell(r["p99_us"]["median"]),
                             p999=rcell(r["p999_us"]["median"]),
                             cpu=rcell(r["cpu_us_per_io"]["median"]),
                             interrupt=rcell(r["per_interrupt"]["median"])))
    return "\n".join(rows)


def memory_rows(run, st):
    rows = []
    mem = dict(st["memory"])
    keys = [k for k in mem if k != "after"]
    labels = {k: run.line(NAME, "at_n", n=k, vectors="%d" % st["vectors"]) for k in keys}
    if "vectors_memory" in st:
        key = "1 (%d)" % st["vectors_memory"]["vectors"]
        mem[key] = st["vectors_memory"]
        labels[key] = run.line(NAME, "at_n", n="1",
                               vectors="%d" % st["vectors_memory"]["vectors"])
        keys.insert(1, key)
    if "after" in mem:
        keys.append("after")
        labels["after"] = run.line(NAME, "after")
    for k in keys:
        m = mem[k]
        rows.append(run.text(NAME, "memory_row", what=labels[k],
                             upstream=run.line(NAME, "held", cqs=cell(m["upstream"]["cqs"]),
                                               cqes=cell(m["upstream"]["cqes"]),
                                               kib=cell(kib(m["upstream"]["bytes"]))),
                             cqpool=run.line(NAME, "held", cqs=cell(m["cqpool"]["cqs"]),
                                             cqes=cell(m["cqpool"]["cqes"]),
                                             kib=cell(kib(m["cqpool"]["bytes"]))),
                             ratio=rcell(m["ratio"]["median"], 3)))
    return "\n".join(rows)


def kib(sp):
    """A spread of bytes, in KiB."""
    if not sp:
        return sp
    return {k: (v / 1024 if k != "n" else v) for k, v in sp.items()}


def values(run):
    st = run.summary.get("nvmeof")
    if not st:
        return None
    s = st["setup"]
    return {
        "rounds": "%d" % st["rounds"], "vectors": "%d" % st["vectors"],
        "fio_seconds": "%s" % s.get("fio_seconds", "-"), "iodepth": "%s" % s.get("iodepth", "-"),
        "jobs": "%s" % s.get("jobs", "-"), "bs": "%s" % s.get("bs", "-"),
        "io_queues": "%s" % s.get("io_queues", "-"), "null_mb": "%s" % s.get("null_blk_mb", "-"),
        "idle_ms": fmt(s.get("idle_timeout_ms")),
        "reconnect_delay": "%s" % s.get("reconnect_delay_s", "-"),
        "netdev": s.get("netdev", "-"),
        "many": "%d" % st["controllers"][-1],
        "cqe_bytes": "%s" % (st["cqe_bytes"] if st["cqe_bytes"] else "-"),
        "lat_a": "p%s" % s.get("percentiles", ["-"] * 3)[0],
        "lat_b": "p%s" % s.get("percentiles", ["-"] * 3)[1],
        "lat_c": "p%s" % s.get("percentiles", ["-"] * 3)[2],
        "io_rows": io_rows(run, st), "memory_rows": memory_rows(run, st),
        "connect_up": cell(st["connect_s"]["upstream"], 1),
        "connect_cq": cell(st["connect_s"]["cqpool"], 1),
        "connect_ratio": rcell(st["connect_s"]["ratio"]["median"]),
        "reconnect_up": cell(st["reconnect_s"]["upstream"], 1),
        "reconnect_cq": cell(st["reconnect_s"]["cqpool"], 1),
        "reconnect_ratio": rcell(st["reconnect_s"]["ratio"]["median"]),
    }


def readme(run):
    """README's table of what NVMe-oF holds, as make bench measured it."""
    st = run.summary.get("nvmeof")
    if not st:
        return run.text(NAME, "readme_none")
    # (what, memory): each count of controllers, 1 again where rxe has
    # more vectors, and after the disconnect.
    held = []
    for k in [str(n) for n in st["controllers"]] + ["after"]:
        if st["memory"].get(k):
            held.append((run.line(NAME, "after") if k == "after"
                         else run.line(NAME, "at_n", n=k, vectors="%d" % st["vectors"]),
                         st["memory"][k]))
        if k == "1" and "vectors_memory" in st:
            vm = st["vectors_memory"]
            held.append((run.line(NAME, "at_n", n="1", vectors="%d" % vm["vectors"]), vm))
    rows = []
    for what, m in held:
        rows.append(run.text(NAME, "readme_row", what=what,
                             upstream=run.line(NAME, "held_short", cqs=fmt(m["upstream"]["cqs"]["median"]),
                                               cqes=fmt(m["upstream"]["cqes"]["median"])),
                             cqpool=run.line(NAME, "held_short", cqs=fmt(m["cqpool"]["cqs"]["median"]),
                                             cqes=fmt(m["cqpool"]["cqes"]["median"]))))
    return run.text(NAME, "readme", rows="\n".join(rows), commit=run.machine.get("commit", "-"),
                    rounds="%d" % st["rounds"])
