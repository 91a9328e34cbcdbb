# SPDX-License-Identifier: GPL-2.0
"""The ledger alone (section 1): the core's reserve and release on a copy
of cqpool's filled ledger, against upstream's get and put in rounds of
their own (ledger-N).  What is left of cqpool's calls is its ratio as the
targets read it less the ledger's, both over upstream's of their own
rounds.
"""
import re

from ..cells import cell, fmt, rcell
from ..stats import paired, per_call, series, spread
from . import placement

NAME = "ledger"


def summarize(raw):
    led = []
    for prefill in sorted(int(m.group(1)) for k in raw
                          for m in [re.fullmatch(r"ledger-(\d+)", k)] if m):
        r = raw["ledger-%d" % prefill]
        l, u = series(r, "cqpool"), series(r, "upstream")
        if not l or not u:
            continue
        row = {"prefill": prefill}
        for op in ("get", "put"):
            row["ledger_" + op + "_ns"] = spread(per_call(l, op))
            row["upstream_" + op + "_ns"] = spread(per_call(u, op))
            row[op + "_ratio"], row[op + "_ratio_rounds"] = paired(
                per_call(l, op), per_call(u, op))
        led.append(row)
    return {"ledger": led} if led else {}


def relate(s, raw):
    """The rest of cqpool's get and put: its ratio less the ledger's."""
    for row in s.get("ledger", []):
        for op in ("get", "put"):
            own = placement.targets_ratio(s, row["prefill"], op)[0]
            if own is not None:
                row["rest_" + op + "_ratio"] = own - row[op + "_ratio"]
    return {}


def row_at(s, prefill=None):
    """The row at @prefill CQs per vector, the fewest measured by default."""
    rows = s.get("ledger", [])
    if prefill is None:
        return rows[0] if rows else None
    return next((r for r in rows if r["prefill"] == prefill), None)


def get_cost(run, prefill):
    """cqpool's get at @prefill CQs per vector, split as this section
    splits it, for a get target missed."""
    row = row_at(run.summary, prefill)
    if not row or row.get("rest_get_ratio") is None:
        return ""
    return run.line(NAME, "get_cost", reserve=rcell(row["get_ratio"]),
                    rest=rcell(row["rest_get_ratio"]))


def put_cost(run, limit):
    """What the ledger's release takes of cqpool's put, and what it would
    have to take for the put to meet its target, @limit."""
    row = row_at(run.summary)
    if not row or row.get("rest_put_ratio") is None:
        return ""
    rest, led = row["rest_put_ratio"], row["put_ratio"]
    room = limit - rest
    measured = run.line(NAME, "put_measured", prefill="%d" % row["prefill"],
                        release=fmt(row["ledger_put_ns"]["median"]), ratio=rcell(led),
                        rest=rcell(rest))
    if room <= 0:
        return run.line(NAME, "put_no_room", measured=measured)
    return run.line(NAME, "put_room", measured=measured, room=rcell(room),
                    room_ns=fmt(room * row["upstream_put_ns"]["median"]),
                    share="%.0f" % (100 * room / led))


def values(run):
    rows = run.summary.get("ledger")
    if not rows:
        return None
    return {"rows": "\n".join(run.text(
        NAME, "row", prefill="%d" % r["prefill"], reserve=cell(r["ledger_get_ns"]),
        upstream_get=cell(r["upstream_get_ns"]), get_ratio=rcell(r["get_ratio"]),
        rest_get=rcell(r.get("rest_get_ratio")), release=cell(r["ledger_put_ns"]),
        upstream_put=cell(r["upstream_put_ns"]), put_ratio=rcell(r["put_ratio"]),
        rest_put=rcell(r.get("rest_put_ratio"))) for r in rows)}
