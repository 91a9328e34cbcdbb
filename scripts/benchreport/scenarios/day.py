# SPDX-License-Identifier: GPL-2.0
"""A day of an NVMe-oF target, by simulation (section 4b;
userspace/sim/day.cpp, on the host): cqpool's ledger and a model of
upstream's pool on devices no VM here has (day), and the model replaying
the VM's own workloads beside what the VM measured (upstream-model).
"""
from .. import design
from ..cells import fmt, rcell, words
from ..stats import ratio
from . import at_most

NAME = "day"
# The targets' device: a ConnectX-class HCA's vectors.
DEVICE = "cx-63vec"
PEAK, MEAN = 1.0, 0.6
WORKLOADS = ("first32", "mixed", "storm")


def summarize(raw):
    r = raw.get("day")
    if not r:
        return {}
    day = {"hosts": r["hosts"], "devices": {}}
    for name, d in r["devices"].items():
        dev = {k: d[k] for k in ("nvec", "max_cqe", "connects", "peak_hosts",
                                 "cqpool", "upstream")}
        dev["peak_ratio"] = ratio(d["cqpool"]["peak"], d["upstream"]["peak"])
        dev["mean_ratio"] = ratio(d["cqpool"]["mean"], d["upstream"]["mean"])
        day["devices"][name] = dev
    return {"day": day}


def relate(s, raw):
    """The model of upstream beside the VM's upstream figures of the same
    workloads (storm: its cold round)."""
    r = raw.get("upstream-model")
    if not r:
        return {}
    vm = {"first32": s.get("first32", {}).get("upstream"),
          "mixed": s.get("mixed", {}).get("upstream"),
          "storm": (s.get("storm", {}).get("upstream") or {}).get("cold")}
    rows = []
    for k in WORKLOADS:
        v = vm[k] or {}
        cqs, cqes = v.get("cqs"), v.get("cqes")
        if isinstance(cqs, dict):
            cqs, cqes = cqs["median"], cqes["median"]
        rows.append({"workload": k, "model_cqs": r[k]["cqs"], "model_cqes": r[k]["cqes"],
                     "vm_cqs": cqs, "vm_cqes": cqes})
    return {"upstream_model": rows}


def targets(run):
    d = run.summary.get("day", {}).get("devices", {}).get(DEVICE)
    if not d:
        return []
    name = "simulated day, %d-vector device: %s CQEs <= %.1fx upstream"
    return [at_most(name % (d["nvec"], "peak", PEAK), d["peak_ratio"], PEAK),
            at_most(name % (d["nvec"], "mean", MEAN), d["mean_ratio"], MEAN)]


def model_rows(run):
    """The upstream model's workloads beside the VM's, the table's rows."""
    rows = run.summary.get("upstream_model")
    return "\n".join(run.text(NAME, "model_row", workload=r["workload"],
                              model_cqs=fmt(r["model_cqs"]), model_cqes=fmt(r["model_cqes"]),
                              vm_cqs=fmt(r["vm_cqs"]), vm_cqes=fmt(r["vm_cqes"]))
                     for r in rows or [])


def values(run):
    day = run.summary.get("day")
    if not day:
        return None
    io, span = design.DAY_IO_QUEUES.value
    io_cq, admin_cq = design.DAY_CQ_SIZES.value
    # By vectors, as day.cpp lists its devices (the json keeps keys sorted).
    devices = sorted(day["devices"].items(), key=lambda x: (x[1]["nvec"], x[0]))
    rows = [run.text(NAME, "row", name=name, nvec="%d" % d["nvec"],
                     connects=fmt(d["connects"]), cqpool_peak=fmt(d["cqpool"]["peak"]),
                     upstream_peak=fmt(d["upstream"]["peak"]),
                     peak_ratio=rcell(d["peak_ratio"], 3), cqpool_mean=fmt(d["cqpool"]["mean"]),
                     upstream_mean=fmt(d["upstream"]["mean"]),
                     mean_ratio=rcell(d["mean_ratio"], 3))
            for name, d in devices]
    model = run.summary.get("upstream_model")
    return {
        "hosts": fmt(day["hosts"]), "fewest_io": "%d" % io, "most_io": "%d" % (io + span - 1),
        "admin_cq": "%d" % admin_cq, "io_cq": "%d" % io_cq,
        "idle": "%d" % (design.DAY_IDLE_MS.value[0] // 1000),
        "upstream_cq": "%d" % design.DAY_UPSTREAM_CQ.value[0],
        "rows": "\n".join(rows),
        "model": run.text(NAME, "model", rows=model_rows(run),
                          vectors=words(run.machine.get("num_comp_vectors")))
        if model else "",
    }
