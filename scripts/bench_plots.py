# SPDX-License-Identifier: GPL-2.0
"""bench_plots.py - the charts of BENCHMARKS.md, drawn from the summary that
scripts/benchreport makes of bench/results.json, as SVG with matplotlib
(Debian's python3-matplotlib).  Every value comes from that summary.
"""
import os

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

# Reproducible SVGs: the same results make the same files.
matplotlib.rcParams["svg.hashsalt"] = "cqpool-bench"
matplotlib.rcParams["svg.fonttype"] = "none"

COLOURS = {"cqpool": "tab:blue", "upstream": "tab:orange"}


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def _median_and_bars(sp):
    """median, and its distance to min and max, of a spread."""
    m = sp["median"]
    return m, (m - sp["min"], sp["max"] - m)


def get_put(summary, path):
    """Cost per get and per put against CQs per vector, log-log."""
    rows = summary.get("getput", [])
    if not rows:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    for ax, op in zip(axes, ("get", "put")):
        for mode in ("cqpool", "upstream"):
            for kind, style in (("getput", "-o"), ("churn", "--s")):
                pts = sorted((r["prefill"], r[mode][op + "_ns"])
                             for r in rows if r["kind"] == kind and mode in r)
                if not pts:
                    continue
                xs = [p for p, _ in pts]
                ys, lo, hi = [], [], []
                for _, sp in pts:
                    m, (a, b) = _median_and_bars(sp)
                    ys.append(m)
                    lo.append(a)
                    hi.append(b)
                ax.errorbar(xs, ys, yerr=[lo, hi], fmt=style, capsize=3,
                            color=COLOURS[mode], label="%s, %s" % (mode, kind))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("CQs per vector")
        ax.set_ylabel("ns per %s (median, min-max)" % op)
        ax.set_title(op)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    _save(fig, path)
    return True


def mixed_cqes(summary, path):
    """CQEs held through the mixed workload: reserved, after release,
    after the idle timeout."""
    mx = summary.get("mixed")
    if not mx or "cqpool" not in mx or "upstream" not in mx:
        return False
    phases = ["all {:,} reserved".format(mx["reservations"]), "all released",
              "idle timeout (%d ms) passed" % mx.get("idle_timeout_ms", 0)]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for mode in ("cqpool", "upstream"):
        d = mx[mode]
        ys = [d["cqes"]["median"], d["held_after_release"]["median"],
              d["held_after_idle"]["median"]]
        ax.step(range(len(ys) + 1), ys + ys[-1:], where="post",
                color=COLOURS[mode], label="%s: CQEs allocated" % mode)
    res = [mx["cqpool"]["reserved"]["median"], 0, 0]
    ax.step(range(len(res) + 1), res + res[-1:], where="post", color="grey",
            ls=":", label="CQEs reserved")
    ax.set_xticks([i + 0.5 for i in range(len(phases))])
    ax.set_xticklabels(phases)
    ax.set_ylabel("CQEs (median over rounds)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)
    return True


def storm(summary, path):
    """Storm time, cold against cold and warm against warm."""
    like = summary.get("storm_like", {})
    labels = [k for k in ("cold", "warm") if k in like]
    if not labels:
        return False
    fig, axes = plt.subplots(1, len(labels), figsize=(4 * len(labels), 3.4))
    if len(labels) == 1:
        axes = [axes]
    for ax, label in zip(axes, labels):
        e = like[label]
        for i, mode in enumerate(("cqpool", "upstream")):
            m, bars = _median_and_bars(e[mode])
            ax.bar(i, m, yerr=[[bars[0]], [bars[1]]], capsize=4,
                   color=COLOURS[mode])
        ax.set_xticks([0, 1])
        ax.set_xticklabels(["cqpool", "upstream"])
        ax.set_ylabel("ms, all gets and puts")
        ax.set_title("%s against %s (%d samples)" % (label, label, e["samples"]))
        ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)
    return True


def nvmeof_io(summary, path):
    """NVMe-oF: IOPS and p99 latency, each pool, at each controller count."""
    nv = summary.get("nvmeof")
    if not nv:
        return False
    ns = sorted(nv["io"], key=int)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for ax, (key, label) in zip(axes, (("iops", "IOPS"), ("p99_us", "p99 latency, µs"))):
        for i, mode in enumerate(("upstream", "cqpool")):
            xs = [j + (i - 0.5) * 0.38 for j in range(len(ns))]
            meds, lo, hi = [], [], []
            for n in ns:
                m, (a, b) = _median_and_bars(nv["io"][n][mode][key])
                meds.append(m)
                lo.append(a)
                hi.append(b)
            ax.bar(xs, meds, width=0.38, yerr=[lo, hi], capsize=3,
                   color=COLOURS[mode], label=mode)
        ax.set_xticks(range(len(ns)))
        ax.set_xticklabels(["%s controllers" % n for n in ns])
        ax.set_ylabel(label + " (median, min-max)")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    _save(fig, path)
    return True


def nvmeof_memory(summary, path):
    """NVMe-oF: CQEs held against controllers connected, each pool."""
    nv = summary.get("nvmeof")
    if not nv:
        return False
    ns = [n for n in nv["memory"] if n != "after"]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for mode in ("upstream", "cqpool"):
        ax.plot([int(n) for n in ns], [nv["memory"][n][mode]["cqes"]["median"] for n in ns],
                "-o", color=COLOURS[mode], label=mode)
    ax.set_xscale("log", base=2)
    ax.set_xticks([int(n) for n in ns])
    ax.set_xticklabels(ns)
    ax.set_xlabel("controllers connected (host and target)")
    ax.set_ylabel("CQEs held (median over rounds)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    _save(fig, path)
    return True


def nvmeof_reconnect(summary, path):
    """NVMe-oF: controllers live after the link comes back, over time."""
    nv = summary.get("nvmeof")
    if not nv or not nv.get("timeline"):
        return False
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for mode in ("upstream", "cqpool"):
        pts = nv["timeline"][mode]
        ax.step([t for t, _ in pts], [n for _, n in pts], where="post",
                color=COLOURS[mode], label=mode)
    ax.set_xlabel("s since the link went down (first round)")
    ax.set_ylabel("controllers live")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    _save(fig, path)
    return True


CHARTS = (
    ("get-put.svg", "Cost per get and per put against CQs per vector", get_put),
    ("mixed-cqes.svg", "CQEs held through the mixed workload", mixed_cqes),
    ("storm.svg", "Connection storm, cold and warm", storm),
    ("nvmeof-io.svg", "NVMe-oF: IOPS and p99 latency, upstream's pool and cqpool's",
     nvmeof_io),
    ("nvmeof-memory.svg", "NVMe-oF: CQEs held against controllers", nvmeof_memory),
    ("nvmeof-reconnect.svg", "NVMe-oF: controllers live again after a link flap",
     nvmeof_reconnect),
)


def draw(summary, outdir):
    """Draws every chart the summary has data for into @outdir; returns
    [(title, file name)] of those drawn."""
    os.makedirs(outdir, exist_ok=True)
    drawn = []
    for name, title, fn in CHARTS:
        if fn(summary, os.path.join(outdir, name)):
            drawn.append((title, name))
    return drawn
