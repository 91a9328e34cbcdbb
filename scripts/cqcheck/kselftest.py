# SPDX-License-Identifier: GPL-2.0
"""kselftest binaries: their sections of a VM's results log.

The payload wraps each binary's TAP in ``@@begin kselftest:NAME`` and
``@@end kselftest:NAME rc=N``.  A binary counts its ``# Totals:`` line;
one that died before it, or exited non-zero with no failure counted,
failed; one that was expected and never ran failed; one that skipped every
case failed unless its expectation allows it, with a reason.  And a case
that failed a check and then skipped failed: 6.1's harness marks a
skipped case passed, which erases the failures before its SKIP().
"""

import re

from .counts import Counts
from . import expect

# "# file.c:LINE:case:Expected ..." : a failed EXPECT or ASSERT
FAILED_CHECK = re.compile(r"^# [\w.-]+\.c:\d+:[^:]+:Expected ")
SKIPPED = re.compile(r"^ok \d+ # SKIP")
TOTALS = re.compile(
    r"^# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) xpass:(\d+) skip:(\d+) error:(\d+)$")


def sections(log):
    """{NAME: (lines, rc)} of every kselftest section of @log, in order;
    rc is None when the section never ended."""
    out = {}
    name = None
    for line in log.replace("\r", "").splitlines():
        m = re.match(r"^@@begin kselftest:(\S+)$", line)
        if m:
            name = m.group(1)
            out[name] = ([], None)
            continue
        m = re.match(r"^@@end kselftest:(\S+) rc=(\d+)$", line)
        if m and m.group(1) == name:
            out[name] = (out[name][0], int(m.group(2)))
            name = None
            continue
        if name:
            out[name][0].append(line)
    return out


def one(lines, rc, may_skip=""):
    """Counts of one binary's section."""
    c = Counts()
    totals = [m for m in map(TOTALS.match, lines) if m]
    if not totals:
        c.fail("no totals: it died, or never started" if rc is None or rc
               else "no totals")
        return c
    p, f, xf, xp, s, e = (int(x) for x in totals[-1].groups())
    c.passed, c.failed, c.skipped = p + xf, f + xp + e, s
    if c.failed:
        c.notes.append(f"{c.failed} failed")
    checked_and_failed = False
    for line in lines:
        if line.startswith("#  RUN "):
            checked_and_failed = False
        elif FAILED_CHECK.match(line):
            checked_and_failed = True
        elif SKIPPED.match(line) and checked_and_failed:
            c.skipped -= 1
            c.fail("a case skipped after a check failed")
    if rc is None:
        c.fail("its section never ended")
    elif rc != 0 and c.failed == 0:
        c.fail(f"exit status {rc} with no failure counted")
    if c.passed == 0 and c.failed == 0 and not may_skip:
        c.fail("ran nothing: every case skipped" if s else "ran no case")
    return c


def counts(log, expected=None):
    """[(NAME, Counts)] for every binary of @log, then every binary
    @expected (a list of expect.Expected) that did not run."""
    want = expect.of_kind(expected or [], "kselftest")
    out = []
    for name, (lines, rc) in sections(log).items():
        out.append((name, one(lines, rc, want[name].may_skip if name in want else "")))
    for name in want:
        if name not in dict(out):
            c = Counts()
            c.fail("expected, and never ran")
            out.append((name, c))
    return out
