# SPDX-License-Identifier: GPL-2.0
"""What a ULP pays through the takeover (section 1): upstream's get and put
on its own pool (takeover-off-N), through cqpool_takeover.ko on cqpool's
shared pool (takeover-on-N), and the takeover's functions called without
the livepatch (takeover-direct-N), one round of each at a time.
"""
import re

from ..cells import cell, fmt, rcell
from ..stats import paired, per_call, series, spread
from . import getput

NAME = "takeover"
SIDES = ("off", "on", "direct")
LIMIT = 1.0


def rounds(raw):
    """The round numbers of the takeover's records."""
    return sorted({int(k.rsplit("-", 1)[1]) for k in raw
                   if re.fullmatch(r"takeover-(off|on|direct)-\d+", k)})


def summarize(raw):
    tk, pairs = {}, {}
    ids = rounds(raw)
    for side in SIDES:
        ms = [series(raw.get("takeover-%s-%d" % (side, i)), "upstream") for i in ids]
        # get+put of each round, None where the round has none
        pairs[side] = [per_call(m, "get")[0] + per_call(m, "put")[0] if m else None
                       for m in ms]
        ms = [m for m in ms if m]
        if ms:
            tk[side] = {op + "_ns": spread([per_call(m, op)[0] for m in ms])
                        for op in ("get", "put")}
    if "off" not in tk or "on" not in tk:
        return {}
    tk["getput_ratio"], tk["getput_ratio_rounds"] = paired(pairs["on"], pairs["off"])
    if "direct" in tk:
        # The livepatch's redirection: through it less around it, per
        # round, over upstream's own get+put of the same round.
        redir = [on - d if on is not None and d is not None else None
                 for on, d in zip(pairs["on"], pairs["direct"])]
        tk["redirect_ns"] = spread([r for r in redir if r is not None])
        tk["redirect_ratio"], tk["redirect_ratio_rounds"] = paired(redir, pairs["off"])
    return {"takeover": tk}


def prefill(run):
    """CQs per vector the takeover's rounds run at."""
    return next((run.raw[k]["prefill"] for k in sorted(run.raw)
                 if re.fullmatch(r"takeover-on-\d+", k)), None)


def cost(run):
    """What the takeover adds to cqpool's own get and put in this run."""
    tk, p = run.summary.get("takeover"), prefill(run)
    own = getput.own(run.summary, p)
    if not tk or not own:
        return ""

    def pair(side):
        return side["get_ns"]["median"] + side["put_ns"]["median"]

    get = tk["on"]["get_ns"]["median"] - own["get_ns"]["median"]
    put = tk["on"]["put_ns"]["median"] - own["put_ns"]["median"]
    upstream = pair(tk["off"])
    out = run.line(NAME, "cost", get=fmt(get), put=fmt(put), prefill="%d" % p,
                   times="%.1fx" % ((get + put) / upstream), upstream=fmt(upstream),
                   beyond=run.line(NAME, "beyond") if get + put >= upstream else "")
    d = tk.get("direct")
    if not d or not tk.get("redirect_ns"):
        return out
    redirect = tk["redirect_ns"]["median"]
    floor = (pair(own) + redirect) / upstream
    books = fmt(pair(d) - pair(own))
    return " ".join((out, run.line(
        NAME, "redirect", redirect=fmt(redirect), own=fmt(pair(own)), floor="%.2fx" % floor,
        verdict=run.line(NAME, "out_of_reach" if floor >= LIMIT else "within_reach",
                         books=books))))


def values(run):
    tk = run.summary.get("takeover")
    if not tk:
        return None
    d = tk.get("direct")
    return {
        "prefill": "%d" % prefill(run),
        "off_get": cell(tk["off"]["get_ns"]), "off_put": cell(tk["off"]["put_ns"]),
        "on_get": cell(tk["on"]["get_ns"]), "on_put": cell(tk["on"]["put_ns"]),
        "ratio": rcell(tk.get("getput_ratio")),
        "direct_row": run.text(NAME, "direct_row", get=cell(d["get_ns"]),
                               put=cell(d["put_ns"])) if d else "",
        "direct": run.text(NAME, "direct", redirect=cell(tk["redirect_ns"]),
                           ratio=rcell(tk["redirect_ratio"])) if d else "",
        "cost": " ".join(filter(None, (run.line(NAME, "why"), cost(run)))),
    }
