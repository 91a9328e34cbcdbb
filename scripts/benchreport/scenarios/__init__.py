# SPDX-License-Identifier: GPL-2.0
"""The report's scenarios, one module each, listed in registry.py.

A scenario module has:

  NAME                 its name: its template is templates/NAME.md, its
                       section numbers come from that template's headings
                       (common value section_NAME), and a run without it
                       misses "NAME: every target".
  values(run)          the values its template's body needs, all text
                       (cells.py), or None where the run has no result for
                       it: the report then leaves its section out.

and, where it has them:

  summarize(raw)       its part of results.json's summary, from the raw
                       records alone: {summary key: value}, {} when it did
                       not run.  (A scenario may read another's summary,
                       as balance reads mixed's.)
  relate(summary, raw) figures that need other scenarios' summaries (the
                       rest of cqpool's calls beside the ledger's), {key:
                       value} to add, after every summarize().
  targets(run)         its targets, a list of Target; [] where it has no
                       result, which the report counts as every target
                       missed.
  why(target, run)     what a missed target's note says after "Missed:
                       ...": the reason, and what this run measured of it.
  noise(target, run)   a note for a met target that this run cannot tell
                       from noise, else None.
  notes(run)           notes on what this run measured ([] if none).
  about_targets(run)   a paragraph under the Targets table, or None.

Its template's blocks other than "body" are its own to pick from (see
template.py); a block "standing" is a note the report always has, run or
not.  A template may open with the heading of a section it shares with
the scenario before it (mixed with first32): the report gives a heading
that repeats the one above once.  `run` is report.Run: the results, the summary, and run.text() /
run.line() to render its blocks.
"""
from dataclasses import dataclass, field

from ..stats import straddles


@dataclass
class Target:
    """One target of the Targets table, and what its notes need."""

    name: str
    value: float = None
    met: bool = False
    note: str = ""           # the rounds' ratios where they straddle the limit
    missing: bool = False    # the scenario has no result in this run
    why_key: str = ""        # a scenario's missed targets with one key share a reason
    about: dict = field(default_factory=dict)   # what the scenario's why() reads

    def public(self):
        """As results.json has it."""
        d = {"target": self.name, "value": self.value, "met": self.met, "note": self.note}
        if self.missing:
            d["missing"] = True
        return d


def at_most(name, value, limit, rounds=None, **kw):
    """A target met where @value is at most @limit; @rounds, the spread
    of the rounds' own ratios, notes a result within noise."""
    return Target(name, value, value is not None and value <= limit,
                  straddles(rounds, limit), **kw)


def at_least(name, value, limit, **kw):
    """A target met where @value is at least @limit."""
    return Target(name, value, value is not None and value >= limit, **kw)
