# SPDX-License-Identifier: GPL-2.0
"""The scenarios, in the report's order.

Adding one: its module in scenarios/, its template in templates/, and a
line here.
"""
from .scenarios import (balance, completions, day, first32, getput, growth, latency, ledger,
                        mixed, nvmeof, parallel, placement, resizes, sizes, storm,
                        storm_like, takeover, turnover)

SCENARIOS = (
    getput,
    ledger,
    takeover,
    placement,
    latency,
    parallel,
    storm,
    storm_like,
    growth,
    first32,
    mixed,
    balance,
    turnover,
    resizes,
    day,
    completions,
    sizes,
    nvmeof,
)

# The Targets table keeps the order the targets were set in, issue 15's
# first; a scenario not named here adds its targets after these.
TARGETS_ORDER = ("getput", "takeover", "parallel", "storm_like", "mixed", "balance",
                 "resizes", "day", "turnover", "first32", "completions", "nvmeof")


def by_targets():
    """The scenarios in the Targets table's order."""
    named = [s for n in TARGETS_ORDER for s in SCENARIOS if s.NAME == n]
    return named + [s for s in SCENARIOS if s not in named]
