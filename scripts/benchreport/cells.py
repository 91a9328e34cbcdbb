# SPDX-License-Identifier: GPL-2.0
"""How a figure is written in the report: every value a template gets is
text made here, so that a figure is formatted the same way everywhere.

A figure the run lacks is written "-".
"""

WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight",
         "nine", "ten", "eleven", "twelve")


def fmt(v, digits=0):
    """@v with thousands separators and @digits decimals."""
    if v is None:
        return "-"
    if digits == 0:
        return "{:,.0f}".format(v)
    return "{:,.{d}f}".format(v, d=digits)


def cell(sp, digits=0):
    """A spread (stats.spread()) as "median (min–max)", its median alone
    where it has one value."""
    if not sp:
        return "-"
    if sp["n"] == 1:
        return fmt(sp["median"], digits)
    return "%s (%s–%s)" % (fmt(sp["median"], digits), fmt(sp["min"], digits),
                            fmt(sp["max"], digits))


def rcell(r, digits=2):
    """A ratio, as "0.83x"."""
    return "-" if r is None else ("%.*fx" % (digits, r))


def g3(v):
    """A target's value: three significant digits."""
    return "-" if v is None else "%.3g" % v


def words(n):
    """A small count spelt out, as prose has it ("two CQs")."""
    if n is None:
        return "-"
    return WORDS[n] if 0 <= n < len(WORDS) else fmt(n)


def listed(items, last):
    """ "a, b @last c": a list in a sentence."""
    items = [str(x) for x in items]
    if len(items) < 2:
        return "".join(items)
    return "%s %s %s" % (", ".join(items[:-1]), last, items[-1])
