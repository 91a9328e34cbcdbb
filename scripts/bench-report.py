#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py - turn the BENCH lines of make bench's VM run
(vm/payload-bench.sh) into bench/results.json and BENCHMARKS.md.

Standard library only.  Every number in BENCHMARKS.md comes from the
results file; targets are checked against the ratios of the same run and
a miss is written down as a miss.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

import bench_plots

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median(v):
    return statistics.median(v) if v else None


def spread(v):
    v = [x for x in v if x is not None]
    if not v:
        return None
    return {"median": median(v), "min": min(v), "max": max(v), "n": len(v)}


def ratio(a, b):
    return a / b if a is not None and b else None


def parse_results(path):
    out, fails = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            m = re.match(r"BENCH (\S+) (.*)$", line)
            if m:
                try:
                    out[m.group(1)] = json.loads(m.group(2))
                except json.JSONDecodeError as e:
                    fails.append("%s: bad JSON (%s)" % (m.group(1), e))
                continue
            m = re.match(r"BENCH-FAIL (\S+) (.*)$", line)
            if m:
                fails.append("%s: %s" % (m.group(1), m.group(2)))
    return out, fails


def pahole_sizes(ko):
    sizes = {}
    for s in ("cqpool_qp", "cqpool_hook", "cqpool_cq"):
        try:
            txt = subprocess.run(["pahole", "-C", s, ko], capture_output=True,
                                 text=True, check=False).stdout
        except OSError:
            break
        m = re.search(r"/\* size: (\d+)", txt)
        if m:
            sizes[s] = int(m.group(1))
    return sizes


def kmalloc_bucket(n):
    for b in (8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096):
        if n <= b:
            return b
    return n


def git(*args):
    try:
        return subprocess.run(["git", "--no-optional-locks", "-C", TOP] + list(args), capture_output=True,
                              text=True, check=False).stdout.strip()
    except OSError:
        return ""


# The pools of the turnover scenario, in its JSON's keys, with their labels.
TURNOVER_POOLS = (("cqpool", "cqpool (new CQs, the default)"),
                  ("cqpool_resize", "cqpool, resize in place (opt-in)"),
                  ("upstream", "upstream"))


def bench_series(r, mode):
    m = r.get(mode) or {}
    if not m or m.get("skipped"):
        return None
    return m


def per_call(m, op):
    """A batched run's rounds of @op ("get" or "put"), ns per call: each
    round's median batch, where the module gives it, else its mean."""
    return m.get(op + "_p50_ns_rounds") or m[op + "_ns_rounds"]


def paired(a, b):
    """The median of the rounds' own ratios a/b, and their spread.  A round
    runs both sides back to back, so a change of the host's speed from one
    round to the next cancels in it, where it would not in a ratio of the
    sides' medians."""
    rr = [x / y for x, y in zip(a, b) if x is not None and y]
    return median(rr), spread(rr)


def getput_ratio(s, prefill, op):
    """cqpool's @op over upstream's at @prefill CQs per vector, and its
    rounds' spread, as the targets read it: over every layout of the code
    placement runs (1d) where there are several, as built (1) if not."""
    for row in s.get("placed", []):
        if row["prefill"] == prefill:
            return row[op + "_ratio"], row[op + "_ratio_rounds"]
    for row in s.get("getput", []):
        if row["kind"] == "getput" and row["prefill"] == prefill:
            return row.get(op + "_ratio"), row.get(op + "_ratio_rounds")
    return None, None


def summarize(raw):
    s = {}
    # 1. get/put latency
    gp = []
    for prefill in (1, 64, 1024):
        for kind in ("getput", "churn"):
            r = raw.get("%s-%d" % (kind, prefill))
            if not r:
                continue
            row = {"kind": kind, "prefill": prefill, "iterations": r["iterations"]}
            for mode in ("cqpool", "upstream", "perqp"):
                m = bench_series(r, mode)
                if m:
                    row[mode] = {"get_ns": spread(per_call(m, "get")),
                                 "put_ns": spread(per_call(m, "put")),
                                 "cqs": m["cqs"], "cqes": m["cqes"]}
            c, u = bench_series(r, "cqpool"), bench_series(r, "upstream")
            if c and u:
                for op in ("get", "put"):
                    row[op + "_ratio"], row[op + "_ratio_rounds"] = paired(
                        per_call(c, op), per_call(u, op))
            gp.append(row)
    s["getput"] = gp

    # 1e. the ledger alone: the core's reserve and release on a copy of
    #     cqpool's filled ledger, against upstream's get and put in rounds
    #     of their own; what is left of cqpool's calls (below, once 1d is
    #     read) is its ratio less the ledger's, both over upstream's of
    #     their own rounds
    led = []
    for prefill in (1, 64, 1024):
        r = raw.get("ledger-%d" % prefill)
        l, u = (bench_series(r, m) if r else None for m in ("cqpool", "upstream"))
        if not l or not u:
            continue
        row = {"prefill": prefill}
        for op in ("get", "put"):
            row["ledger_" + op + "_ns"] = spread(per_call(l, op))
            row["upstream_" + op + "_ns"] = spread(per_call(u, op))
            row[op + "_ratio"], row[op + "_ratio_rounds"] = paired(
                per_call(l, op), per_call(u, op))
        led.append(row)
    if led:
        s["ledger"] = led

    # 1a. what a ULP pays: upstream's get/put on its own pool, and through
    #     the takeover on cqpool's, one round of each at a time
    tk, pairs = {}, {}
    ids = sorted({int(k.rsplit("-", 1)[1]) for k in raw
                  if re.fullmatch(r"takeover-(off|on|direct)-\d+", k)})
    for side in ("off", "on", "direct"):
        rounds = [bench_series(raw.get("takeover-%s-%d" % (side, i), {}), "upstream")
                  for i in ids]
        # get+put of each round, None where the round has none
        pairs[side] = [per_call(m, "get")[0] + per_call(m, "put")[0] if m else None
                       for m in rounds]
        rounds = [m for m in rounds if m]
        if rounds:
            tk[side] = {op + "_ns": spread([per_call(m, op)[0] for m in rounds])
                        for op in ("get", "put")}
    if "off" in tk and "on" in tk:
        tk["getput_ratio"], tk["getput_ratio_rounds"] = paired(pairs["on"], pairs["off"])
        if "direct" in tk:
            # The livepatch's redirection: through it less around it, per
            # round, over upstream's own get+put of the same round.
            redir = [on - d if on is not None and d is not None else None
                     for on, d in zip(pairs["on"], pairs["direct"])]
            tk["redirect_ns"] = spread([r for r in redir if r is not None])
            tk["redirect_ratio"], tk["redirect_ratio_rounds"] = paired(redir, pairs["off"])
        s["takeover"] = tk

    # 1b. per-call latency: each round's percentiles, their spread over
    #     the rounds; the mean per call, clock included
    r = raw.get("latency-1")
    if r:
        lat = {"iterations": r["iterations"]}
        for mode in ("cqpool", "upstream", "perqp"):
            m = bench_series(r, mode)
            if m:
                lat[mode] = {k[:-len("_rounds")]: spread(m[k]) for k in m
                             if re.fullmatch(r"(get|put)_(p\d+|max)_ns_rounds", k)}
                lat[mode]["get_mean_ns"] = spread(m["get_ns_rounds"])
                lat[mode]["put_mean_ns"] = spread(m["put_ns_rounds"])
        s["latency"] = lat

    # 1c. parallel get+put (its own boot, 4 vCPUs): wall ns per pair over
    #     all threads; throughput ratio = upstream's time / cqpool's
    par = []
    for k in sorted((k for k in raw if re.fullmatch(r"parallel-\d+", k)),
                    key=lambda k: int(k.split("-")[1])):
        r = raw[k]
        row = {"threads": r["threads"], "iterations": r["iterations"]}
        for mode in ("cqpool", "upstream"):
            m = bench_series(r, mode)
            if m:
                row[mode] = {"pair_ns": spread(m["pair_ns_rounds"])}
        c, u = bench_series(r, "cqpool"), bench_series(r, "upstream")
        if c and u:
            row["throughput_ratio"], row["throughput_ratio_rounds"] = paired(
                u["pair_ns_rounds"], c["pair_ns_rounds"])
        par.append(row)
    one = next((r for r in par if r["threads"] == 1), None)
    for row in par:
        for mode in ("cqpool", "upstream"):
            if one and mode in row and mode in one:
                row[mode]["speedup"] = ratio(one[mode]["pair_ns"]["median"],
                                             row[mode]["pair_ns"]["median"])
    if par:
        s["parallel"] = {"rows": par,
                         "vcpus": (raw.get("machine-parallel") or {}).get("vcpus")}

    # 1d. code placement: getput at 1, 64 and 1,024 CQs per vector, one
    #     round of each layout of cqpool.ko's code (shifted by PAD bytes)
    #     at a time; "placed" is each size over all the layouts' rounds
    runs = {}
    for k in raw:
        m = re.fullmatch(r"placement-(\d+)-(\d+)-(\d+)", k)
        if m:
            runs.setdefault(int(m.group(1)), {}).setdefault(
                int(m.group(2)), []).append((int(m.group(3)), raw[k]))
    place, placed = [], []
    for prefill in sorted(runs):
        every = {"get": ([], []), "put": ([], [])}
        for pad in sorted(runs[prefill]):
            rs = [r for _, r in sorted(runs[prefill][pad], key=lambda x: x[0])]
            sides = {mode: [bench_series(r, mode) for r in rs] for mode in ("cqpool", "upstream")}
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
    if place:
        s["placement"] = place
    if placed:
        s["placed"] = placed
    # What is left of cqpool's calls is its ratio less the ledger's.
    for row in s.get("ledger", []):
        for op in ("get", "put"):
            own = getput_ratio(s, row["prefill"], op)[0]
            if own is not None:
                row["rest_" + op + "_ratio"] = own - row[op + "_ratio"]

    # 2. storm: time of one round = (get + put per op) * iterations
    r = raw.get("storm")
    if r:
        it = r["iterations"]
        st = {"iterations": it, "nr_cqe": r["nr_cqe"], "poll_ctx": r["poll_ctx"]}
        for mode in ("cqpool", "upstream", "perqp"):
            m = bench_series(r, mode)
            if not m:
                continue
            tot = [(g + p) * it / 1e6 for g, p in zip(m["get_ns_rounds"], m["put_ns_rounds"])]
            get = [g * it / 1e6 for g in m["get_ns_rounds"]]
            put = [p * it / 1e6 for p in m["put_ns_rounds"]]
            ent = {"total_ms": spread(tot), "get_ms": spread(get), "put_ms": spread(put),
                   "cqs": spread(m["cqs_rounds"]), "cqes": spread(m["cqes_rounds"]),
                   "reserved_cqes": m["reserved_cqes"]}
            if mode == "upstream":
                # Round 1 is the first use of this poll context in the boot:
                # upstream allocates.  Later rounds reuse its CQs.
                ent["cold"] = {"total_ms": spread(tot[:1]), "cqs": m["cqs_rounds"][0],
                               "cqes": m["cqes_rounds"][0]}
                ent["warm"] = {"total_ms": spread(tot[1:]),
                               "cqs": spread(m["cqs_rounds"][1:]),
                               "cqes": spread(m["cqes_rounds"][1:])}
            st[mode] = ent
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
        m = bench_series(rs, "cqpool") if rs else None
        if m and "cqpool" in st:
            it = rs["iterations"]
            tot = [(g + p) * it / 1e6 for g, p in zip(m["get_ns_rounds"], m["put_ns_rounds"])]
            st["resize"] = {"total_ms": spread(tot), "cqs": spread(m["cqs_rounds"]),
                            "cqes": spread(m["cqes_rounds"])}
            st["ratio_resize"] = ratio(st["resize"]["total_ms"]["median"],
                                       st["cqpool"]["total_ms"]["median"])
        # What any pool must allocate at least: what the storm reserves.
        if "upstream" in st:
            st["reserved_per_upstream_cold"] = ratio(
                st["upstream"]["reserved_cqes"], st["upstream"]["cold"]["cqes"])
        s["storm"] = st

    # Storms like against like.  Cold: a re-added device, so that upstream's
    # pool is new too, one round of each per device (storm-cold-K).  Warm:
    # cqpool on the device's shared pool within its idle timeout against
    # upstream's kept CQs, rounds 2+ of storm-warm (round 1 fills cqpool's
    # shared pool).
    def storm_ms(r, mode, rounds):
        m = bench_series(r, mode)
        if not m:
            return []
        it = r["iterations"]
        return [(g + p) * it / 1e6 for g, p in
                list(zip(m["get_ns_rounds"], m["put_ns_rounds"]))[rounds]]

    # Each list in the order of its rounds, both sides' of a round or none.
    cold = {"cqpool": [], "upstream": []}
    for name in sorted(k for k in raw if k.startswith("storm-cold-")):
        c, u = (storm_ms(raw[name], mode, slice(0, 1)) for mode in cold)
        if c and u:
            cold["cqpool"] += c
            cold["upstream"] += u
    r = raw.get("storm-warm")
    warm = {mode: storm_ms(r, mode, slice(1, None)) for mode in cold} if r else {}
    for label, runs in (("cold", cold), ("warm", warm)):
        if runs.get("cqpool") and runs.get("upstream"):
            ent = {mode: spread(v) for mode, v in runs.items()}
            ent["samples"] = min(len(v) for v in runs.values())
            ent["ratio"], ent["ratio_rounds"] = paired(runs["cqpool"], runs["upstream"])
            s.setdefault("storm_like", {})[label] = ent

    # first 32-CQE reservation
    r = raw.get("first32")
    if r:
        f = {}
        for mode in ("cqpool", "upstream"):
            m = bench_series(r, mode)
            if m:
                f[mode] = {"cqs": m["cqs_rounds"][0], "cqes": m["cqes_rounds"][0],
                           "per_request": m["cqes_rounds"][0] / r["nr_cqe"]}
        s["first32"] = f

    # 3./4. mixed workload: memory and balance
    r = raw.get("mixed")
    if r:
        mx = {"reservations": r["reservations"], "idle_timeout_ms": r["idle_timeout_ms"],
              "poll_ctx": r["poll_ctx"]}
        for mode in ("cqpool", "upstream"):
            m = r.get(mode)
            if not m:
                continue
            mx[mode] = {
                "cqs": spread(m["cqs"]), "cqes": spread(m["cqes"]),
                "reserved": spread(m["reserved"]),
                "allocated_per_reserved": spread([a / b for a, b in zip(m["cqes"], m["reserved"])]),
                "balance": spread(m["balance"]),
                "held_after_release": spread(m["held_after_release"]),
                "held_after_idle": spread(m["held_after_idle"]),
                "idle_wait_ms": spread(m["idle_wait_ms"]),
            }
        if "cqpool" in mx and "upstream" in mx:
            mx["held_after_idle_ratio"] = ratio(mx["cqpool"]["held_after_idle"]["median"],
                                                mx["upstream"]["held_after_idle"]["median"])
        s["mixed"] = mx
    # The same reservations on an owned pool that opts in to resizing.
    r = raw.get("mixed-resize")
    m = r.get("cqpool") if r else None
    if m:
        s["mixed_resize"] = {
            "cqs": spread(m["cqs"]), "cqes": spread(m["cqes"]),
            "reserved": spread(m["reserved"]),
            "allocated_per_reserved": spread([a / b for a, b in zip(m["cqes"], m["reserved"])]),
            "balance": spread(m["balance"]),
        }

    # Turnover: allocated/reserved after each step, per pool.
    r = raw.get("turnover")
    if r:
        to = {k: r[k] for k in ("live", "per_step", "steps", "poll_ctx")}
        for mode, _ in TURNOVER_POOLS:
            if r.get(mode):
                to[mode] = {k: r[mode][k] for k in ("worst", "mean", "ratio", "reserved")}
        res = [x for mode, _ in TURNOVER_POOLS if mode in to for x in to[mode]["reserved"]]
        to["swing"] = max(res) / min(res) if res and min(res) else None
        s["turnover"] = to

    # A simulated day of a target, and the upstream model against the VM.
    r = raw.get("day")
    if r:
        day = {"hosts": r["hosts"], "devices": {}}
        for name, d in r["devices"].items():
            day["devices"][name] = {
                k: d[k] for k in ("nvec", "max_cqe", "connects", "peak_hosts",
                                  "cqpool", "upstream")}
            day["devices"][name]["peak_ratio"] = ratio(d["cqpool"]["peak"],
                                                       d["upstream"]["peak"])
            day["devices"][name]["mean_ratio"] = ratio(d["cqpool"]["mean"],
                                                       d["upstream"]["mean"])
        s["day"] = day
    r = raw.get("upstream-model")
    if r:
        vm = {"first32": s.get("first32", {}).get("upstream"),
              "mixed": (s.get("mixed", {}).get("upstream") or {}),
              "storm": (s.get("storm", {}).get("upstream") or {}).get("cold")}
        rows = []
        for k in ("first32", "mixed", "storm"):
            v = vm[k] or {}
            cqs, cqes = v.get("cqs"), v.get("cqes")
            if isinstance(cqs, dict):
                cqs, cqes = cqs["median"], cqes["median"]
            rows.append({"workload": k, "model_cqs": r[k]["cqs"], "model_cqes": r[k]["cqes"],
                         "vm_cqs": cqs, "vm_cqes": cqes})
        s["upstream_model"] = rows

    # Resizes by pool since cqpool.ko's load: the opt-in pools are named
    # *-resize; every other pool grows by new CQs alone.
    r = raw.get("resizes")
    if r is not None:
        by = r.get("by_pool", {})
        s["resizes"] = {"by_pool": by,
                        "default": sum(n for p, n in by.items() if not p.endswith("-resize")),
                        "opt_in": sum(n for p, n in by.items() if p.endswith("-resize"))}

    # Growth: the device's resize against a second CQ (growth-N).
    gr = []
    for name, r in raw.items():
        if not re.match(r"growth-\d+$", name):
            continue
        gr.append({"nr_cqe": r["nr_cqe"], "iterations": r["iterations"],
                   "grown_cqes": r["grown_cqes"],
                   "second_cqes": r["second_cqes"],
                   "resize_us": spread([x / 1e3 for x in r["resize_ns_rounds"]]),
                   "new_cq_us": spread([x / 1e3 for x in r["new_cq_ns_rounds"]]),
                   "ratio": median(r["resize_ratio_rounds"]),
                   "ratio_rounds": spread(r["resize_ratio_rounds"])})
    if gr:
        gr.sort(key=lambda g: g["nr_cqe"])
        cheaper = [g["second_cqes"] for g in gr if g["ratio"] < 1]
        s["growth"] = {"sizes": gr,
                       # The largest CQ whose resize cost less than a second CQ.
                       "crossover_cqes": max(cheaper) if cheaper else None}

    # 5. completions
    tr = {}
    for name, r in raw.items():
        m = re.match(r"traffic-(\d+)-(\d+)$", name)
        if not m:
            continue
        pairs = int(m.group(1))
        t = tr.setdefault(pairs, {"qp_pairs": pairs, "qps": 2 * pairs, "runs": {}})
        for mr in r.get("modes", []):
            if mr.get("skipped") or mr.get("failed"):
                continue
            d = t["runs"].setdefault(mr["mode"], {"cps": [], "cqs": [], "mean": [], "max": [],
                                                  "errors": []})
            d["cps"].append(mr["completions_per_s"])
            d["cqs"].append(mr["cqs"])
            d["mean"].append(mr["qps_per_cq_mean"])
            d["max"].append(mr["qps_per_cq_max"])
            d["errors"].append(mr["errors"])
    for pairs, t in tr.items():
        for mode, d in t["runs"].items():
            t[mode] = {"completions_per_s": spread(d["cps"]), "cqs": spread(d["cqs"]),
                       "qps_per_cq_mean": spread(d["mean"]), "qps_per_cq_max": spread(d["max"]),
                       "errors": sum(d["errors"])}
        del t["runs"]
        c = t.get("cqpool", {}).get("completions_per_s")
        for other in ("upstream", "perqp"):
            o = t.get(other, {}).get("completions_per_s")
            if c and o:
                t["ratio_" + other] = ratio(c["median"], o["median"])
    s["completions"] = [tr[k] for k in sorted(tr)]
    return s


def straddles(rr, limit):
    """A target's note: the range of the rounds' own ratios where it falls
    on both sides of its limit (this run alone does not tell which side the
    target is on), else empty."""
    if rr and rr["min"] <= limit < rr["max"]:
        return "%.2f-%.2f" % (rr["min"], rr["max"])
    return ""


# Issue 15's parallel target: cqpool's throughput over upstream's, 4 threads.
PARALLEL_TARGET = 1.5


def targets(s, sizes):
    t = []

    def add(name, value, ok, note=""):
        t.append({"target": name, "value": value, "met": ok, "note": note})

    # Issue 15's targets: batched get <= 0.9x and put <= 1.0x upstream's.
    limit = {"get": 0.9, "put": 1.0}
    for row in s.get("getput", []):
        if row["kind"] == "getput":
            for op in ("get", "put"):
                r, rr = getput_ratio(s, row["prefill"], op)
                add("get/put %d CQs/vector: %s <= %.1fx upstream" % (row["prefill"], op, limit[op]),
                    r, r is not None and r <= limit[op], straddles(rr, limit[op]))
        elif row["prefill"] == 1024:
            r = row.get("get_ratio")
            add("churn 1024 CQs/vector: get <= 0.05x upstream", r, r is not None and r <= 0.05)
    r = s.get("takeover", {}).get("getput_ratio")
    if r is not None:
        add("takeover get+put (what ULPs pay) <= 1.0x upstream", r, r <= 1.0)
    par = s.get("parallel", {})
    row = next((r for r in par.get("rows", []) if r["threads"] == 4), None)
    if row:
        r = row.get("throughput_ratio")
        add("parallel get+put throughput, 4 threads, %s vCPUs >= %.1fx upstream" % (
            par.get("vcpus"), PARALLEL_TARGET), r, r is not None and r >= PARALLEL_TARGET)
    like = s.get("storm_like", {})
    for label, limit in (("cold", 0.9), ("warm", 0.5)):
        ent = like.get(label, {})
        r = ent.get("ratio")
        add("storm, %s against %s: time <= %.1fx upstream" % (label, label, limit), r,
            r is not None and r <= limit, straddles(ent.get("ratio_rounds"), limit))
    mx = s.get("mixed")
    if mx and "cqpool" in mx:
        r = mx["cqpool"]["allocated_per_reserved"]["median"]
        add("mixed: allocated/reserved <= 1.10", r, r <= 1.10)
        r = mx.get("held_after_idle_ratio")
        add("CQEs held after release + idle timeout: 0% of upstream's", r, r == 0)
        r = mx["cqpool"]["balance"]["median"]
        add("balance (max/mean users per CQ in a vector) <= 1.25", r, r <= 1.25)
    rz = s.get("resizes")
    if rz is not None:
        add("CQs resized in place by the default pools: 0", rz["default"], rz["default"] == 0)
    cx = s.get("day", {}).get("devices", {}).get("cx-63vec")
    if cx:
        add("simulated day, 63-vector device: peak CQEs <= 1.0x upstream", cx["peak_ratio"],
            cx["peak_ratio"] <= 1.0)
        add("simulated day, 63-vector device: mean CQEs <= 0.6x upstream", cx["mean_ratio"],
            cx["mean_ratio"] <= 0.6)
    to = s.get("turnover", {}).get("cqpool")
    if to:
        add("turnover: allocated/reserved, worst step <= 1.25", to["worst"], to["worst"] <= 1.25)
    f = s.get("first32", {}).get("cqpool")
    if f:
        add("first 32-CQE reservation allocates <= 2x", f["per_request"], f["per_request"] <= 2)
    for c in s.get("completions", []):
        for other in ("upstream", "perqp"):
            r = c.get("ratio_" + other)
            add("completions/s, %d QPs: >= 1.0x %s" % (c["qps"], other), r,
                r is not None and r >= 1.0)
    for c in s.get("completions", []):
        d = c.get("cqpool")
        if c["qps"] == 256 and d and d["qps_per_cq_mean"]["median"]:
            r = d["qps_per_cq_max"]["median"] / d["qps_per_cq_mean"]["median"]
            add("QPs per CQ max/mean, 256 same-size QPs <= 1.25", r, r <= 1.25)
    # A scenario that did not run misses its targets: it is not left out.
    for key in ("getput", "takeover", "parallel", "storm_like", "mixed", "first32", "turnover",
                "resizes",
                "completions"):
        if not s.get(key):
            add("%s: every target" % key, None, False)
            t[-1]["missing"] = True
    return t


# --- Markdown --------------------------------------------------------------------

def fmt(v, digits=0):
    if v is None:
        return "-"
    if digits == 0:
        return "{:,.0f}".format(v)
    return "{:,.{d}f}".format(v, d=digits)


def cell(sp, digits=0):
    if not sp:
        return "-"
    if sp["n"] == 1:
        return fmt(sp["median"], digits)
    return "%s (%s–%s)" % (fmt(sp["median"], digits), fmt(sp["min"], digits),
                            fmt(sp["max"], digits))


def rcell(r, digits=2):
    return "-" if r is None else ("%.*fx" % (digits, r))


def markdown(res):
    m, s, raw = res["machine"], res["summary"], res["raw"]
    L = []
    w = L.append
    w("# cqpool benchmarks")
    w("")
    w("Generated by `make bench` (`scripts/bench.sh` → `vm/payload-bench.sh` in the VM →")
    w("`scripts/bench-report.py`) from `bench/results.json`; do not edit by hand.")
    w("Every scenario runs cqpool, upstream's `ib_cq_pool_get()` and (where it")
    w("applies) one CQ per QP on the same device in the same VM boot, alternating")
    w("A B C A B C for %s rounds; cells are **median (min–max)** over the rounds." % m["rounds"])
    w("")
    w("| machine | |")
    w("| --- | --- |")
    debug = {True: " (with the debug options: kmemleak, lockdep)",
             False: " (without kmemleak or lockdep)"}.get(m.get("debug"), "")
    w("| guest kernel | %s%s |" % (m.get("kernel", "?"), debug))
    w("| vCPUs | %s, QEMU %s (no KVM: every time below is emulated and slow in absolute terms; only ratios carry over) |" % (m.get("vcpus"), m.get("accel")))
    w("| guest memory | %s |" % m.get("guest_mem"))
    w("| host CPU | %s |" % m.get("host_cpu"))
    w("| RDMA device | rxe0 (soft-RoCE over veth), %s completion vectors, cqpool nvec %s |" % (m.get("num_comp_vectors"), m.get("nvec")))
    w("| date | %s |" % m.get("date"))
    w("| commit | %s%s |" % (m.get("commit"), " + uncommitted changes" if m.get("dirty") else ""))
    w("| `make bench` wall time | %s s |" % m.get("elapsed_s"))
    w("")
    if res.get("failures"):
        w("**Scenarios that failed in this run:** " + "; ".join(res["failures"]))
        w("")

    w("## Targets")
    w("")
    w("| target | this run | |")
    w("| --- | --- | --- |")
    for t in res["targets"]:
        v = t["value"]
        vs = "-" if v is None else ("%.1f%%" % (100 * v) if "1%" in t["target"] else "%.3g" % v)
        w("| %s | %s | %s |" % (t["target"], vs, "met" if t["met"] else "**missed**"))
    w("")
    if s.get("placed"):
        w("The get/put rows are read over every layout of *Code placement* (section 1):")
        w("cqpool.ko as built and with its code shifted, the median of all their rounds'")
        w("own ratios, as under TCG where code lands moves a call's cost. Section 1's")
        w("table is the layout as built alone.")
        w("")
    w("Why the misses are misses is in the sections below and under *Notes*.")
    w("")
    if res.get("plots"):
        w("## Charts")
        w("")
        w("Drawn by `scripts/bench_plots.py` from the same results as the tables below.")
        w("")
        for title, path in res["plots"]:
            w("![%s](%s)" % (title, path))
            w("")

    w("## 1. get/put cost (in-kernel, one clock pair per batch of 64 calls)")
    w("")
    w("`CQPOOL_IOC_BENCH` GET_PUT and CHURN, 32 CQEs per get, %s get+put pairs per"
      % "/".join(sorted({fmt(row["iterations"]) for row in s.get("getput", [])})))
    w("round, poll context UNBOUND_WORKQUEUE (used by nothing else in the boot), in")
    w("batches: 64 gets timed together, then their 64 puts. Under TCG a clock read")
    w("costs about as much as a call, so a clock pair around each call would pull")
    w("every ratio towards 1. A round's figure is its median batch's time per call:")
    w("the host stops QEMU for milliseconds at a time, which moves a round's mean by")
    w("tens of percent and its median batch hardly at all. A ratio is the median of")
    w("the rounds' own ratios: a round runs the sides back to back, and the host also")
    w("changes speed (up to 2x) from one round to the next.")
    w("Each vector first gets *N* CQs filled to their real size (a get of 4,096, then")
    w("one of the rest: rxe makes 8,191 entries of a 4,096 request), so the pool has no")
    w("room but what the benchmark makes: the second get of one CQ per vector is put")
    w("back (its first stays, as a CQ of a live pool has users; a put that leaves a CQ")
    w("idle also arms cqpool's reaper, which this does not time). *getput* picks the")
    w("CQ upstream's first-fit scan meets first (the newest), *churn* the one it meets")
    w("last (the oldest), so upstream walks its whole list; cqpool picks least-used in")
    w("O(log n) either way. cqpool runs on a fresh owned pool of 4,096-entry CQs")
    w("(`NO_RESIZE`) each round; upstream on its own pool, whose CQs stay: the prefill")
    w("sizes run in increasing order on a poll context nothing else uses, so its list")
    w("holds exactly the *N* prefilled CQs per vector (the fill is not timed, so")
    w("reusing them does not help it). Per-QP: `ib_alloc_cq()` + `ib_free_cq()` of 32")
    w("entries (no pool, so the prefill does not apply).")
    w("")
    w("| pattern | CQs/vector | cqpool get ns | upstream get ns | per-QP alloc ns | get cqpool/upstream | cqpool put ns | upstream put ns | per-QP free ns | put cqpool/upstream |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in s.get("getput", []):
        c, u, p = row.get("cqpool", {}), row.get("upstream", {}), row.get("perqp", {})
        w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["kind"], row["prefill"], cell(c.get("get_ns")), cell(u.get("get_ns")),
            cell(p.get("get_ns")), rcell(row.get("get_ratio")), cell(c.get("put_ns")),
            cell(u.get("put_ns")), cell(p.get("put_ns")), rcell(row.get("put_ratio"))))
    w("")

    led = s.get("ledger")
    if led:
        w("**The ledger alone.** `bench --ledger`, *getput* as above, in rounds of its own")
        w("against upstream's again. The harness links a second build of the C++ core,")
        w("makes on it a ledger of the CQs and reservations cqpool's pool holds after the")
        w("fill, and times the core's `cqp_pool_try_reserve()` and `cqp_pool_release()` on")
        w("it in the same batches: the ledger's part of a get and a put (a call, and the")
        w("release's fast path inline, as in cqpool.ko). The rest of cqpool's get or put")
        w("(the vector picked or the CQ found from itself, the vector's lock, the hook")
        w("checked, the reference and the reaper) is its ratio as the targets read it")
        w("less the ledger's, both over upstream's of their own rounds.")
        w("")
        w("| CQs/vector | ledger reserve ns | upstream get ns | reserve/upstream get | rest of cqpool's get/upstream get | ledger release ns | upstream put ns | release/upstream put | rest of cqpool's put/upstream put |")
        w("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in led:
            w("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                row["prefill"], cell(row["ledger_get_ns"]), cell(row["upstream_get_ns"]),
                rcell(row["get_ratio"]), rcell(row.get("rest_get_ratio")),
                cell(row["ledger_put_ns"]), cell(row["upstream_put_ns"]),
                rcell(row["put_ratio"]), rcell(row.get("rest_put_ratio"))))
        w("")

    tk = s.get("takeover")
    if tk:
        w("**What a ULP pays, through the takeover.** The same `ib_cq_pool_get()` and")
        w("`ib_cq_pool_put()` calls a ULP makes (*getput*, 1 CQ per vector, poll context")
        w("UNBOUND_WORKQUEUE, after the rows above), timed on upstream's own pool, then")
        w("with `cqpool_takeover.ko` loaded, which sends them to cqpool's shared pool")
        w("(`bench --takeover`): one round of each at a time, the takeover loaded and")
        w("removed between them. The takeover's get adds a lookup of the device's pool")
        w("(under RCU, with no reference taken: `cqpool_device_cq_get()`) and an insert")
        w("into its table of reservations (under a mutex, with a")
        w("record an earlier put left, so that nothing is allocated in the steady state),")
        w("and its put the lookup and removal, to cqpool's own get and put; both go")
        w("through the livepatch's ftrace redirection.")
        w("")
        w("| | get ns | put ns | get+put, taken over/upstream's own |")
        w("| --- | ---: | ---: | ---: |")
        w("| upstream's own | %s | %s | |" % (cell(tk["off"]["get_ns"]), cell(tk["off"]["put_ns"])))
        w("| through the takeover | %s | %s | %s |" % (
            cell(tk["on"]["get_ns"]), cell(tk["on"]["put_ns"]), rcell(tk.get("getput_ratio"))))
        d = tk.get("direct")
        if d:
            w("| the takeover's functions, called directly | %s | %s | |" % (
                cell(d["get_ns"]), cell(d["put_ns"])))
        w("")
        if d:
            w("The last row (`bench --takeover-direct`, in the same rounds) calls the")
            w("takeover's replacements of the two functions without the livepatch, through a")
            w("function pointer. Through the livepatch less that, per round, is what the")
            w("redirection alone costs a get+put: %s ns, %s upstream's own whole get+put"
              % (cell(tk["redirect_ns"]), rcell(tk["redirect_ratio"])))
            w("(the median of the rounds' own ratios). The direct calls pay an indirect call")
            w("through a retpoline that the patched ones do not, so this understates it.")
            w("")

    place = s.get("placement")
    if place:
        shifts = [str(p) for p in sorted({r["pad"] for r in place if r["pad"]})]
        w("**Code placement.** *getput* at each size as above, on the re-added rxe0 at the")
        w("end of the boot, with the same `cqpool.ko` loaded as built and with %s" % (
            ", ".join(shifts[:-1]) + " and " + shifts[-1] if len(shifts) > 1 else "".join(shifts)))
        w("bytes of dead code linked in front of its code (`module/text_pad.S`), which")
        w("moves every function that much further into its pages; one round of each")
        w("layout at a time. Under TCG a call's cost depends on where its code lands")
        w("(QEMU chains translated blocks directly only within a page, and looks up every")
        w("other jump and return), so the rows of one size differ by placement alone.")
        w("The targets read the get and put over all the layouts of a size (*all*).")
        w("")
        w("| CQs/vector | code shifted by | cqpool get ns | upstream get ns | get cqpool/upstream | cqpool put ns | upstream put ns | put cqpool/upstream |")
        w("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        placed = {r["prefill"]: r for r in s.get("placed", [])}
        for i, row in enumerate(place):
            w("| %d | %d B | %s | %s | %s | %s | %s | %s |" % (
                row["prefill"], row["pad"], cell(row["cqpool_get_ns"]),
                cell(row["upstream_get_ns"]), rcell(row["get_ratio"]),
                cell(row["cqpool_put_ns"]), cell(row["upstream_put_ns"]),
                rcell(row["put_ratio"])))
            last = i + 1 == len(place) or place[i + 1]["prefill"] != row["prefill"]
            if last and row["prefill"] in placed:
                a = placed[row["prefill"]]
                w("| %d | all | | | %s | | | %s |" % (
                    row["prefill"], rcell(a["get_ratio"]), rcell(a["put_ratio"])))
        w("")

    lat = s.get("latency")
    if lat:
        w("**Per-call latency.** *getput* at 1 CQ per vector as above, %s get+put pairs"
          % fmt(lat["iterations"]))
        w("a round, with a clock pair around each call (`bench --kind latency`): the")
        w("distribution of single calls, where the batches above give their median. Each")
        w("call's time includes one clock read, which under TCG costs about as much as a")
        w("call; *mean* is the same runs' mean, for comparison with the batches. Cells")
        w("are the median (min–max) over the rounds of each round's percentile.")
        w("")
        w("| | get p50 | get p90 | get p99 | get max | get mean | put p50 | put p90 | put p99 | put max | put mean |")
        w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for mode, label in (("cqpool", "cqpool"), ("upstream", "upstream"),
                            ("perqp", "per-QP alloc/free")):
            d = lat.get(mode)
            if d:
                w("| %s | %s |" % (label, " | ".join(
                    cell(d.get("%s_%s_ns" % (op, q))) for op in ("get", "put")
                    for q in ("p50", "p90", "p99", "max", "mean"))))
        w("")

    par = s.get("parallel")
    if par:
        w("**Parallel get+put.** A boot of its own with %s vCPUs (the rest of this report"
          % par.get("vcpus"))
        w("is from the boot above): *getput*'s pool and room at 1 CQ per vector (poll")
        w("context UNBOUND_WORKQUEUE), with its get+put pairs shared by 1, 2 or 4 kernel")
        w("threads at once, thread *i* on vector *i* as a ULP's queues are")
        w("(`bench --kind parallel`). One clock pair around the whole run; a cell is")
        w("the run's wall time over all its pairs, so the lower the faster. Throughput")
        w("ratio: the median of the rounds' own upstream's time over cqpool's (above 1,")
        w("cqpool serves more pairs a second); speedup: a side's median time with 1")
        w("thread over its median time with *n*.")
        w("")
        w("| threads | pairs | cqpool ns/pair | upstream ns/pair | throughput cqpool/upstream | cqpool speedup | upstream speedup |")
        w("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in par["rows"]:
            c, u = row.get("cqpool", {}), row.get("upstream", {})
            w("| %d | %s | %s | %s | %s | %s | %s |" % (
                row["threads"], fmt(row["iterations"]), cell(c.get("pair_ns")),
                cell(u.get("pair_ns")), rcell(row.get("throughput_ratio")),
                rcell(c.get("speedup")), rcell(u.get("speedup"))))
        w("")

    st = s.get("storm")
    if st:
        w("## 2. Connection storm")
        w("")
        w("%s reservations of %s CQEs (an nvme-rdma I/O queue's CQ: 4 × queue_size 128 + 1;"
          % (fmt(st["iterations"]), st["nr_cqe"]))
        w("`IOC_BENCH` STORM takes one size, so the admin queue's 129 is left out), vector")
        w("hint -1, poll context %s, then all released. Time = all gets + all puts." % st["poll_ctx"])
        w("cqpool: a fresh owned pool sized to demand every round, so it always allocates")
        w("(cold). Upstream: round 1 is the first use of this poll context in the boot")
        w("(**cold**, it allocates); rounds 2+ find the CQs of round 1 (**warm**, nothing")
        w("allocated). Per-QP: one `ib_alloc_cq()` per reservation.")
        w("")
        w("| | total ms | gets ms | puts ms | CQs | CQEs allocated |")
        w("| --- | ---: | ---: | ---: | ---: | ---: |")
        c = st.get("cqpool")
        if c:
            w("| cqpool (cold, every round) | %s | %s | %s | %s | %s |" % (
                cell(c["total_ms"], 1), cell(c["get_ms"], 1), cell(c["put_ms"], 1),
                cell(c["cqs"]), cell(c["cqes"])))
        u = st.get("upstream")
        if u:
            w("| upstream cold (round 1) | %s | | | %s | %s |" % (
                cell(u["cold"]["total_ms"], 1), fmt(u["cold"]["cqs"]), fmt(u["cold"]["cqes"])))
            w("| upstream warm (rounds 2+) | %s | | | %s | %s |" % (
                cell(u["warm"]["total_ms"], 1), cell(u["warm"]["cqs"]), cell(u["warm"]["cqes"])))
        n = st.get("resize")
        if n:
            w("| cqpool, resize in place (an owned pool's opt-in; cold) | %s | | | %s | %s |" % (
                cell(n["total_ms"], 1), cell(n["cqs"]), cell(n["cqes"])))
        p = st.get("perqp")
        if p:
            w("| one CQ per QP | %s | %s | %s | %s | %s |" % (
                cell(p["total_ms"], 1), cell(p["get_ms"], 1), cell(p["put_ms"], 1),
                cell(p["cqs"]), cell(p["cqes"])))
        w("")
        w("cqpool/upstream: %s against cold, %s against warm; cqpool/per-QP %s." % (
            rcell(st.get("ratio_cold")), rcell(st.get("ratio_warm")), rcell(st.get("ratio_perqp"))))
        if st.get("ratio_resize") is not None:
            w("")
            w("The old default, now an owned pool's opt-in, against the default, both cold:")
            w("resizing a vector's CQs in place takes %s the time of growing by new CQs."
              % rcell(st["ratio_resize"]))
            w("On rxe a resize allocates a new queue and copies the old one into it; a new")
            w("CQ only allocates. What each costs is measured below (growth).")
        if st.get("reserved_per_upstream_cold") is not None:
            w("")
            w("The storm reserves %s of the entries upstream allocates for it cold: a pool"
              % rcell(st["reserved_per_upstream_cold"], 3))
            w("that allocated exactly what is reserved would allocate that share of upstream's")
            w("entries, and the cost of a CQ grows with its entries (growth, below).")
        w("")
    like = s.get("storm_like")
    if like:
        w("**Like against like.** Cold: rxe0 deleted and re-added before each sample, so")
        w("that upstream's pool is as new as cqpool's fresh one, one storm of each per")
        w("device, which side goes first alternating. Warm: cqpool on the device's shared")
        w("pool (`bench --shared`), within its idle timeout, against upstream's kept CQs;")
        w("rounds 2+ (round 1 fills both). The ratio is the median of the samples' own")
        w("ratios, as in section 1.")
        w("")
        w("| storm | samples | cqpool total ms | upstream total ms | cqpool/upstream |")
        w("| --- | ---: | ---: | ---: | ---: |")
        for label in ("cold", "warm"):
            e = like.get(label)
            if e:
                w("| %s against %s | %d | %s | %s | %s |" % (
                    label, label, e["samples"], cell(e["cqpool"], 1), cell(e["upstream"], 1),
                    rcell(e["ratio"])))
        w("")

    g = s.get("growth")
    if g:
        w("**Growth on this device, the verbs alone** (`cqpoolctl bench --kind growth`):")
        w("a CQ grown in place (`ib_resize_cq()`) to twice its size plus one, against")
        w("a second CQ of its size (`ib_alloc_cq()`), which adds as many entries; %d of"
          % g["sizes"][0]["iterations"])
        w("each per round, in turns. The ratio is the median of the rounds' own ratios.")
        w("")
        w("| CQ (real entries) | grown to | resize us | second CQ us | resize/second CQ |")
        w("| ---: | ---: | ---: | ---: | ---: |")
        for e in g["sizes"]:
            rr = e["ratio_rounds"]
            w("| %s | %s | %s | %s | %s (%s–%s) |" % (
                fmt(e["second_cqes"]), fmt(e["grown_cqes"]), cell(e["resize_us"], 1),
                cell(e["new_cq_us"], 1), rcell(e["ratio"]), fmt(rr["min"], 2),
                fmt(rr["max"], 2)))
        w("")
        lo = min(e["ratio"] for e in g["sizes"])
        hi = max(e["ratio"] for e in g["sizes"])
        if g["crossover_cqes"] is None:
            w("A resize costs %s to %s a second CQ at every size measured: on this device"
              % (rcell(lo), rcell(hi)))
            w("growing in place is never the cheaper way to add entries, and the default")
            w("never does it; an owned pool may still opt in, for CQs of one size on a")
            w("vector (its rows in sections 2 to 4).")
        else:
            w("A resize is the cheaper way to add entries up to CQs of %s entries; above,"
              % fmt(g["crossover_cqes"]))
            w("a second CQ is.")
        w("")

    mx = s.get("mixed")
    f = s.get("first32", {})
    if mx or f:
        w("## 3. Memory")
        w("")
        if f:
            w("**First reservation of 32 CQEs** (`IOC_BENCH` STORM of 1; upstream first, on a")
            w("poll context nothing had used in the boot; cqpool on a fresh pool):")
            w("")
            w("| | CQs | CQEs allocated | × request |")
            w("| --- | ---: | ---: | ---: |")
            for mode in ("cqpool", "upstream"):
                if mode in f:
                    w("| %s | %s | %s | %.1fx |" % (mode, fmt(f[mode]["cqs"]), fmt(f[mode]["cqes"]),
                                                 f[mode]["per_request"]))
            w("")
        if mx:
            w("**Mixed workload**: %s reservations cycling 33, 129, 385, 1025, 65, 257 CQEs"
              % fmt(mx["reservations"]))
            w("(`cqpoolctl bench --kind mixed`, `CQPOOL_IOC_CQ_GET` on cqpool's shared pool")
            w("and with `_UPSTREAM`, poll context %s, vector hint -1), then all put back."
              % mx["poll_ctx"])
            w("cqpool's idle timeout is set to %s ms for the run (default 30 s); \"after idle\""
              % fmt(mx["idle_timeout_ms"]))
            w("is read once cqpool has no CQs left (both pools read after the same wait).")
            w("Upstream keeps its CQs across rounds, so rounds 2+ reuse them; its")
            w("allocation is the same every round. Upstream's figures are all of its CQs on")
            w("the device, which at that point are only those of this workload (and the")
            w("first-32 test's two CQs, which this workload would have allocated the same).")
            w("")
            w("| | CQs | CQEs allocated | CQEs reserved | allocated/reserved | held after release | held after idle timeout |")
            w("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for mode in ("cqpool", "upstream"):
                d = mx.get(mode)
                if d:
                    w("| %s | %s | %s | %s | %s | %s | %s |" % (
                        mode, cell(d["cqs"]), cell(d["cqes"]), cell(d["reserved"]),
                        cell(d["allocated_per_reserved"], 3), cell(d["held_after_release"]),
                        cell(d["held_after_idle"])))
            d = s.get("mixed_resize")
            if d:
                w("| cqpool, resize in place (opt-in) | %s | %s | %s | %s | | |" % (
                    cell(d["cqs"]), cell(d["cqes"]), cell(d["reserved"]),
                    cell(d["allocated_per_reserved"], 3)))
            w("")
            if d:
                w("The last row is the old default, now an owned pool's opt-in: the same")
                w("reservations on a pool of cqpool's that grows its CQs in place")
                w("(`--resize`), made for each round and destroyed after it.")
                w("")
            r = mx.get("held_after_idle_ratio")
            w("Held after release + idle timeout, cqpool/upstream: %s." % (
                "-" if r is None else "%.2f%%" % (100 * r)))
            w("")
            w("## 4. Balance")
            w("")
            w("After the %s mixed reservations above: for each vector, the most reservations"
              % fmt(mx["reservations"]))
            w("on one CQ over the mean per CQ, from the CQ id and vector each get returned;")
            w("the worst vector counts.")
            w("")
            w("| | max/mean users per CQ |")
            w("| --- | ---: |")
            for mode in ("cqpool", "upstream"):
                d = mx.get(mode)
                if d:
                    w("| %s | %s |" % (mode, cell(d["balance"], 2)))
            d = s.get("mixed_resize")
            if d:
                w("| cqpool, resize in place (opt-in) | %s |" % cell(d["balance"], 2))
            w("")
            to = s.get("turnover")
            if to:
                w("## 4a. Turnover")
                w("")
                w("%s reservations of the mixed workload's sizes (random, one sequence for every"
                  % fmt(to["live"]))
                w("pool), then %s steps, each giving back a random %s of them and making as many"
                  % (fmt(to["steps"]), fmt(to["per_step"])))
                w("anew, as connections come and go (`cqpoolctl bench --kind turnover`, poll")
                w("context %s, on a device no other scenario used). After each step, the CQEs"
                  % to["poll_ctx"])
                w("the pool has allocated over those reserved:")
                w("")
                w("| | worst step | mean | reserved, fewest–most |")
                w("| --- | ---: | ---: | ---: |")
                for mode, label in TURNOVER_POOLS:
                    d = to.get(mode)
                    if d:
                        w("| %s | %s | %s | %s–%s |" % (
                            label, fmt(d["worst"], 3), fmt(d["mean"], 3),
                            fmt(min(d["reserved"])), fmt(max(d["reserved"]))))
                w("")
                w("The reserved total itself moves between its fewest and most by %s over the"
                  % rcell(to["swing"], 3))
                w("run: a CQ with users cannot be freed, so what a pool allocated for the most")
                w("stays while the demand falls back.")
                w("")
            rz = s.get("resizes")
            if rz is not None:
                w("**CQs resized in place** in this run (trace `cqpool_cq_resize`, counted by")
                w("pool with a histogram trigger): %s in the default pools (the devices'" % fmt(rz["default"]))
                w("shared pools and fresh owned pools that did not opt in), %s in the pools"
                  % fmt(rz["opt_in"]))
                w("that opted in (`*-resize`).")
                w("")

    day = s.get("day")
    if day:
        w("## 4b. A day of a target, by simulation")
        w("")
        w("`userspace/sim/day.cpp`: an NVMe-oF target through a day, hosts connecting and")
        w("leaving at random, up to %s at once in the afternoon, each with an admin queue"
          % fmt(day["hosts"]))
        w("and 8 to 32 I/O queues as nvmet-rdma sizes their CQs (97 and 385 entries),")
        w("replayed through cqpool's own pool ledger (the core, as built into the module,")
        w("with its 30-s idle timeout) and through a model of upstream's `cq.c` (first fit,")
        w("newest CQs first; on a miss a CQ of `max(nr_cqe, 4096)` on every vector; never")
        w("freed), on devices this machine cannot boot. CQEs held, sampled every minute:")
        w("")
        w("| device | vectors | connects | cqpool peak | upstream peak | peak ratio | cqpool mean | upstream mean | mean ratio |")
        w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, d in day["devices"].items():
            w("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                name, d["nvec"], fmt(d["connects"]), fmt(d["cqpool"]["peak"]),
                fmt(d["upstream"]["peak"]), rcell(d["peak_ratio"], 3), fmt(d["cqpool"]["mean"]),
                fmt(d["upstream"]["mean"]), rcell(d["mean_ratio"], 3)))
        w("")
        um = s.get("upstream_model")
        if um:
            w("The model of upstream replays the VM's own workloads on rxe's two vectors,")
            w("beside what the VM measured of upstream in this run:")
            w("")
            w("| workload | model CQs | model CQEs | VM CQs | VM CQEs |")
            w("| --- | ---: | ---: | ---: | ---: |")
            for r in um:
                w("| %s | %s | %s | %s | %s |" % (r["workload"], fmt(r["model_cqs"]),
                                                  fmt(r["model_cqes"]), fmt(r["vm_cqs"]),
                                                  fmt(r["vm_cqes"])))
            w("")

    comp = s.get("completions", [])
    if comp:
        w("## 5. Completions")
        w("")
        w("`cqpoolctl run --profile custom --connections 1 --queues P --queue-depth 128")
        w("--mode all --seconds 3` on rxe0 looped back: P RC QP pairs (2P QPs), SEND of")
        w("512 B, 32 in flight per pair, completions in the CQs' poll context (softirq).")
        w("Each run does cqpool, upstream, per-QP in turn; %s runs per size." % m["rounds"])
        w("Upstream's softirq pool already holds the storm's CQs at this point (it never")
        w("frees them), so its QPs spread over those: that is what upstream does in a")
        w("long-running system.")
        w("")
        w("| QPs | | completions/s | CQs | QPs per CQ mean | QPs per CQ max | errors |")
        w("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        for c in comp:
            for mode in ("cqpool", "upstream", "perqp"):
                d = c.get(mode)
                if d:
                    w("| %d | %s | %s | %s | %s | %s | %s |" % (
                        c["qps"], mode, cell(d["completions_per_s"]), cell(d["cqs"]),
                        cell(d["qps_per_cq_mean"], 1), cell(d["qps_per_cq_max"]),
                        fmt(d["errors"])))
            w("| %d | **cqpool/upstream, cqpool/per-QP** | %s, %s | | | | |" % (
                c["qps"], rcell(c.get("ratio_upstream")), rcell(c.get("ratio_perqp"))))
        w("")
        w("**Completions per CQ poll** (batching) is not reported: completions are")
        w("counted in the `ib_cqe` done callbacks (`harness/traffic.c`), and the poll loop")
        w("that calls them (`ib_poll_handler()` / `ib_cq_poll_work()` in the RDMA core) is")
        w("not cqpool's, so the number of polls is not visible without a kernel-side")
        w("change (see *Notes*).")
        w("")

    sz = res.get("sizes", {})
    if sz:
        w("## 6. Per-QP overhead")
        w("")
        w("From the DWARF of the `cqpool.ko` that ran (`pahole`); kmalloc rounds")
        w("`kzalloc()` up to its size class. Nothing is allocated per reservation (the")
        w("ledger keeps counts per CQ).")
        w("")
        w("| object | bytes | allocated as | per |")
        w("| --- | ---: | --- | --- |")
        if "cqpool_qp" in sz:
            w("| `struct cqpool_qp` | %d | kmalloc-%d | pooled QP (`cqpool_create_qp()`), holds both hooks |" % (
                sz["cqpool_qp"], kmalloc_bucket(sz["cqpool_qp"])))
        if "cqpool_hook" in sz:
            w("| `struct cqpool_hook` | %d | embedded by the caller | hook on a pooled CQ |" % sz["cqpool_hook"])
        if "cqpool_cq" in sz:
            w("| `struct cqpool_cq` | %d | kmalloc-%d | pooled CQ (shared by its users) |" % (
                sz["cqpool_cq"], kmalloc_bucket(sz["cqpool_cq"])))
        w("")
        w("Upstream keeps no per-QP state (and has no hooks); one CQ per QP costs a")
        w("whole CQ per QP (see the per-QP CQE counts in the storm above).")
        w("")

    w("## Notes")
    w("")
    for n in res.get("notes", []):
        w("- " + n)
    w("")
    return "\n".join(L)


def overlap(a, b):
    return a and b and a["min"] <= b["max"] and b["min"] <= a["max"]


REASONS = {
    "get/put": "Both sides take one spinlock per call. Upstream's put is that lock "
               "around a subtraction. cqpool's put also finds its CQ from the CQ "
               "itself (its event handler and context), checks the reservation "
               "against the CQ's users, re-keys the CQ in its vector's treap (in "
               "the steady state in place, inline in the put with no call into the "
               "core: a put only raises the CQ's key, so it is compared with the "
               "next higher CQ and the tree is left alone) and "
               "moves a CQ left without users to the idle list, which is more than "
               "a subtraction however it is laid out. Its get does the same work the other way, and is below "
               "upstream's, whose first-fit walk costs more than the re-keying "
               "(see churn).",
    "takeover": "Through the takeover a ULP's get is cqpool's get plus the "
                "livepatch's redirection (an ftrace handler that saves the registers "
                "and changes the return address) and the takeover's own bookkeeping: "
                "a lookup of the device's shared pool and an insert into its table of "
                "reservations under a mutex (it must tell its CQs from upstream's at "
                "the put, and give them back if the patch is disabled); the put is "
                "cqpool's plus the same. The mirror of the count in the CQ's "
                "`cqe_used` that ib_core's own put would need takes the device's "
                "lock only while a patch transition may run that put, not in the "
                "steady state timed here. Upstream's own get and put are each one "
                "call under one lock: the redirection and the table add several "
                "times what cqpool's get saves (section 1).",
    "parallel": "A cqpool get or put that fits takes its vector's lock alone, "
                "and the threads here are on different vectors, as a ULP's "
                "queues are, so they share no lock and write no line they share; "
                "upstream serializes every get and put on the device's "
                "`cq_pools_lock` with interrupts off. What is left is the host: under "
                "QEMU TCG the vCPUs are host threads, and the guest's vCPUs share "
                "the host's cores (the bound below).",
    "churn": "Upstream's get walks its whole list to the CQ with room; cqpool's "
             "re-keys that CQ in its vector's treap, O(log n) in the CQs of the vector.",
    "storm": "cqpool's storm pool grows by new CQs, as the device's shared pool does: "
             "a vector's first CQ is the natural size of a reservation, later ones "
             "about four times the vector, up to CQs that hold eight of its "
             "largest reservation. Cold, both pools allocate and zero every entry "
             "they make, and a CQ's cost grows with its entries (growth), so the "
             "storm's time follows the entries each allocates. Warm, neither side "
             "allocates: what is left is each get's and put's own cost (see "
             "get/put), and on a warm pool each get moves its CQ in the vector's "
             "treap, as least-used selection spreads the gets over every CQ.",
    "turnover": "Least-used selection spreads the reservations over every CQ of a "
                "vector, so a CQ rarely empties while others come and go, and a CQ "
                "with users cannot be freed: what the pool allocated for the most "
                "reserved at once stays while demand falls back.",
    "balance": "A vector's first CQs are sized to the first reservations, before "
               "its demand shows; each holds a few of them, where the CQs that "
               "follow, of the plateau's size, hold many, and the few weigh in "
               "the mean users per CQ. Only growing CQs in place (the opt-in) "
               "keeps a vector's CQs of one size.",
}


def growth_cost(s):
    """What this run measured of the storm's trade: what any pool must
    allocate, and what the opt-in's resizes cost."""
    g, st = s.get("growth"), s.get("storm", {})
    out = []
    if st.get("reserved_per_upstream_cold") is not None:
        out.append("the storm reserves %s of the entries upstream allocates for it, so a "
                   "pool that allocated no more than it reserves would still take about "
                   "that share of upstream's time" % rcell(st["reserved_per_upstream_cold"], 3))
    if g:
        rs = [e["ratio"] for e in g["sizes"]]
        out.append("a resize cost %s to %s a second CQ of the same size (growth)"
                   % (rcell(min(rs)), rcell(max(rs))))
    if st.get("ratio_resize") is not None:
        out.append("growing in place (the opt-in) took %s the default's storm time"
                   % rcell(st["ratio_resize"]))
    return (" In this run: " + "; ".join(out) + ".") if out else ""


def turnover_cost(s):
    """How far the demand itself moved in the turnover run."""
    to = s.get("turnover", {})
    if to.get("swing") is None:
        return ""
    return (" In this run the reserved total moved between its fewest and most by %s."
            % rcell(to["swing"], 3))


def takeover_cost(s):
    """What the takeover adds to cqpool's own get and put in this run."""
    tk = s.get("takeover")
    own = next((r["cqpool"] for r in s.get("getput", [])
                if r["kind"] == "getput" and r["prefill"] == 1), None)
    if not tk or not own:
        return ""
    def med(side, op):
        return side[op + "_ns"]["median"]

    get = med(tk["on"], "get") - med(own, "get")
    put = med(tk["on"], "put") - med(own, "put")
    upstream = med(tk["off"], "get") + med(tk["off"], "put")
    out = (" In this run the takeover's get took %s ns more than cqpool's own at 1 CQ "
           "per vector (section 1) and its put %s ns more: %.1fx upstream's whole "
           "get+put (%s ns)%s." % (
               fmt(get), fmt(put), (get + put) / upstream, fmt(upstream),
               ", which no saving inside cqpool can make up" if get + put >= upstream
               else ""))
    d = tk.get("direct")
    if d and tk.get("redirect_ns"):
        redirect = tk["redirect_ns"]["median"]
        own_pair = med(own, "get") + med(own, "put")
        books = med(d, "get") + med(d, "put") - own_pair
        floor = (own_pair + redirect) / upstream
        out += (" The livepatch's redirection alone took %s ns a get+put (the takeover's "
                "functions called directly, against through the patch); with cqpool's "
                "own get+put (%s ns) that is %.2fx upstream's whole get+put" % (
                    fmt(redirect), fmt(own_pair), floor))
        out += (", so no takeover by livepatch reaches the target on this cqpool, "
                "whatever it keeps; the takeover's bookkeeping (the device's pool "
                "found, the table of reservations, and the direct row's indirect "
                "call) adds %s ns on top." % fmt(books)
                if floor >= 1.0 else
                "; the rest, %s ns, is the takeover's bookkeeping (the device's pool "
                "found, the table of reservations), where "
                "the difference would have to be saved." % fmt(books))
    return out


def ledger_row(s, prefill):
    """The ledger alone's row at @prefill CQs per vector, or None."""
    return next((r for r in s.get("ledger", []) if r["prefill"] == prefill), None)


def ledger_cost(s):
    """What the ledger's release takes of cqpool's put in this run, and what
    it would have to take for the put to meet its target."""
    row = ledger_row(s, 1)
    if not row or row.get("rest_put_ratio") is None:
        return ""
    rest, led = row["rest_put_ratio"], row["put_ratio"]
    room = 1.0 - rest
    out = (" In this run, at 1 CQ per vector, the ledger's release alone took %s ns, "
           "%s upstream's whole put, and the rest of cqpool's put %s (see *The "
           "ledger alone*)" % (fmt(row["ledger_put_ns"]["median"]), rcell(led), rcell(rest)))
    if room <= 0:
        return out + ": the rest alone is at the target, with no release at all."
    return out + (": for the target the release would have to take at most %s "
                  "upstream's put, %s ns, %.0f%% of what it takes." % (
                      rcell(room), fmt(room * row["upstream_put_ns"]["median"]),
                      100 * room / led))


def get_cost(s, prefill):
    """cqpool's get at @prefill CQs per vector, split as The ledger alone
    splits it, for a get target missed."""
    row = ledger_row(s, prefill)
    if not row or row.get("rest_get_ratio") is None:
        return ""
    return ("cqpool's get is its ledger's reserve, which alone took %s upstream's "
            "get in this run, and the rest of its call, %s (see *The ledger "
            "alone*). Upstream's get here meets the room in the first CQ of its "
            "list, under the device's lock." % (
                rcell(row["get_ratio"]), rcell(row["rest_get_ratio"])))


def placement_spread(s):
    """How far code placement alone moved the get/put ratios in this run."""
    place = [r for r in s.get("placement", []) if r["prefill"] == 1]
    if len(place) < 2:
        return ""
    def ratios(op):
        return "/".join("%.2f" % r[op + "_ratio"] for r in place)

    return (" Placement alone moves the ratios under TCG: the same cqpool.ko with its "
            "code shifted by %s bytes gave put ratios of %s and get ratios of %s at 1 CQ "
            "per vector (see Code placement)." % (
                "/".join(str(r["pad"]) for r in place), ratios("put"), ratios("get")))


def parallel_ceiling(s, cores):
    """The best throughput ratio at the most threads that the host's cores allow."""
    rows = (s.get("parallel") or {}).get("rows", [])
    if not cores or len(rows) < 2 or rows[-1]["threads"] <= cores:
        return ""
    one, most = rows[0], rows[-1]
    best = most["upstream"]["pair_ns"]["median"] * cores / one["cqpool"]["pair_ns"]["median"]
    return (" The guest's %d vCPUs share the host's %d cores: even if cqpool's %d "
            "threads served %d times the pairs of its 1 (every core busy, nothing "
            "lost to the lock), its throughput would be %.2fx upstream's at %d "
            "threads in this run%s." % (
                most["threads"], cores, most["threads"], cores, best, most["threads"],
                ", below the target: it cannot be met on this host"
                if best < PARALLEL_TARGET else ""))


def notes(s, tg, cores=None):
    n = []
    said = set()
    for t in tg:
        if t["met"]:
            continue
        why = ""
        # A get missed has its own split; the reasons below are the put's.
        get = re.match(r"get/put (\d+) CQs/vector: get ", t["target"])
        keys = ("churn", "storm", "get/put", "takeover", "parallel", "turnover",
                "balance")
        if get:
            why = get_cost(s, int(get.group(1)))
            keys = ()
        for k in keys:
            if t["target"].startswith(k):
                if k == "get/put" and "churn" in t["target"]:
                    continue
                if k in said:
                    why = "(see above)"
                    break
                said.add(k)
                # The reason, and what this run measured of it.
                why = REASONS[k] + {
                    "get/put": lambda: ledger_cost(s) + placement_spread(s),
                    "takeover": lambda: takeover_cost(s),
                    "storm": lambda: growth_cost(s),
                    "turnover": lambda: turnover_cost(s),
                    "parallel": lambda: parallel_ceiling(s, cores),
                }.get(k, lambda: "")()
                break
        if t.get("missing"):
            why = "The scenario has no result in this run."
        elif t["note"]:
            why = ("The rounds' own ratios (%s) fall on both sides of the target: this "
                   "run alone does not tell. " % t["note"] + why).strip()
        if t["target"].startswith("completions"):
            m = re.match(r"completions/s, (\d+) QPs: >= 1.0x (\w+)", t["target"])
            if m:
                c = next((c for c in s.get("completions", []) if c["qps"] == int(m.group(1))), {})
                a = c.get("cqpool", {}).get("completions_per_s")
                b = c.get(m.group(2), {}).get("completions_per_s")
                why = ("The min-max ranges of the rounds overlap: under TCG the difference "
                       "is within run-to-run noise." if overlap(a, b) else
                       "The ranges do not overlap. cqpool puts the QPs on the fewest "
                       "CQs (see QPs per CQ), so each CQ's poll pass (a budget of "
                       "completions per softirq or work item) serves many QPs, where "
                       "more CQs are polled in parallel; that this is the cause is "
                       "likely, not shown by this benchmark.")
        n.append("Missed: %s (this run: %s). %s" % (
            t["target"], "-" if t["value"] is None else "%.3g" % t["value"], why))
    for t in tg:
        if t["met"] and t["note"]:
            n.append("Met, but within noise: %s (this run: %.3g); the rounds' own ratios "
                     "(%s) fall on both sides of the target." % (
                         t["target"], t["value"], t["note"]))
        if t["met"] and t["target"].startswith("completions"):
            m = re.match(r"completions/s, (\d+) QPs: >= 1.0x (\w+)", t["target"])
            c = next((c for c in s.get("completions", []) if m and c["qps"] == int(m.group(1))), {})
            a = c.get("cqpool", {}).get("completions_per_s")
            b = c.get(m.group(2), {}).get("completions_per_s") if m else None
            if overlap(a, b):
                n.append("Met, but within noise: %s (this run: %.3g); the min-max ranges "
                         "of the rounds overlap, so this run does not show cqpool faster, "
                         "only not slower." % (t["target"], t["value"]))
    for c in s.get("completions", []):
        d = c.get("cqpool")
        if d and d["qps_per_cq_mean"]["median"]:
            r = d["qps_per_cq_max"]["median"] / d["qps_per_cq_mean"]["median"]
            if r > 1.25:
                n.append("In the completions scenario with %d QPs, cqpool's busiest CQ has "
                         "%.2fx the mean QPs per CQ (%s vs %s): a CQ holds up to 24 "
                         "same-size QPs' worth (rounded up by the driver), and these "
                         "QPs fill one and start another that only a few reach." % (
                             c["qps"], r, fmt(d["qps_per_cq_max"]["median"]),
                             fmt(d["qps_per_cq_mean"]["median"], 1)))
    n.append("QEMU maps guest RAM on first touch: a discarded warm-up storm round "
             "(cqpool and per-QP only, so upstream's list stays fresh) runs before the "
             "storm; the first round of a scenario can still be an outlier, which the "
             "medians discount but the max shows.")
    n.append(("Times are from QEMU TCG (no KVM) on a %s host shared with other work; "
              "absolute nanoseconds are far above those of real hardware and rounds vary; "
              "medians over alternating rounds cancel drift, not the emulation.")
             % ("%d-core" % cores if cores else "shared"))
    n.append("Completions per CQ poll would need the poll loop counted: e.g. a per-CQ "
             "count of poll passes (a generation bumped from the CQ's `comp_handler`, "
             "which runs once per arm/interrupt, compared in harness/traffic.c's done "
             "callback), returned in `struct cqpool_traffic` (a new `polls` field in "
             "include/uapi/linux/cqpool.h) and printed by `cqpoolctl run`.")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", required=True)
    ap.add_argument("--qemu-cmdline")
    ap.add_argument("--ko")
    ap.add_argument("--elapsed")
    ap.add_argument("--commit", help="HEAD when the run was built; -dirty if changed")
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--plots", help="directory for the SVG charts, beside --json "
                    "by default; linked from --md relative to it")
    a = ap.parse_args()

    raw, fails = parse_results(a.results)
    if not raw:
        sys.exit("bench-report: no BENCH lines in %s" % a.results)
    mach = dict(raw.get("machine", {}))
    res_machine = {
        "kernel": mach.get("kernel"), "vcpus": mach.get("vcpus"),
        "guest_mem": "%.1f GiB" % (mach.get("mem_kb", 0) / 1048576.0),
        "guest_cpu": mach.get("cpu"),
        # When the VM run ended (the results file's time), not when this ran.
        "date": datetime.datetime.fromtimestamp(os.path.getmtime(a.results),
                                                datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": (a.commit or git("rev-parse", "--short", "HEAD")).replace("-dirty", ""),
        "dirty": a.commit.endswith("-dirty") if a.commit else
                 bool(git("status", "--porcelain", "--untracked-files=no")),
        "elapsed_s": int(a.elapsed) if a.elapsed else None,
        "rounds": (raw.get("storm") or raw.get("mixed") or {}).get("rounds"),
        "debug": None if "debug" not in mach else bool(mach["debug"]),
    }
    host_cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    host_cpu = line.split(":", 1)[1].strip()
                    break
        host_cpu += ", %d cores" % os.cpu_count()
        res_machine["host_cores"] = os.cpu_count()
    except OSError:
        pass
    res_machine["host_cpu"] = host_cpu
    accel = "?"
    if a.qemu_cmdline and os.path.exists(a.qemu_cmdline):
        cmd = open(a.qemu_cmdline).read()
        m = re.search(r"-accel (\w+)", cmd)
        accel = m.group(1).upper() if m else ("KVM" if "kvm" in cmd else "TCG")
    res_machine["accel"] = accel
    for d in (raw.get("devices") or {}).get("devices", []) if isinstance(raw.get("devices"), dict) else (raw.get("devices") or []):
        if isinstance(d, dict) and d.get("name") == "rxe0":
            res_machine["num_comp_vectors"] = d.get("num_comp_vectors")
            res_machine["nvec"] = d.get("nvec")
    sizes = pahole_sizes(a.ko) if a.ko else {}
    summ = summarize(raw)
    tg = targets(summ, sizes)
    res = {"machine": res_machine, "summary": summ, "targets": tg, "sizes": sizes,
           "failures": fails, "raw": raw}
    res["notes"] = notes(summ, tg, res_machine.get("host_cores"))
    plots = a.plots or os.path.dirname(os.path.abspath(a.json))
    md_dir = os.path.dirname(os.path.abspath(a.md))
    res["plots"] = [(title, os.path.relpath(os.path.join(plots, name), md_dir))
                    for title, name in bench_plots.draw(summ, plots)]
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(a.md, "w") as f:
        f.write(markdown(res) + "\n")


if __name__ == "__main__":
    main()
