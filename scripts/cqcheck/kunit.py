# SPDX-License-Identifier: GPL-2.0
"""KUnit: the KTAP a module printed while it loaded, and kunit.py's verdict.

The payload prints ``cqpool-TAG-begin`` and ``cqpool-TAG-end`` to the
kernel log around each module's load; the KTAP between them goes to the
kernel's own ``tools/testing/kunit/kunit.py parse``.  Two things are
mended before it does:

- 6.1 prints a module's suites without a top-level header (6.12 prints
  one for the module): one is added.
- 6.1 prints a skipped parameter of a parameterised case as a bare ``ok``
  (the ``# SKIP`` directive for parameters came in 6.5), which kunit.py
  counts as a pass.  The case's own stats line, which 6.1 prints after
  its parameters (``# NAME: pass:P fail:F skip:S total:T``), says how
  many were skipped: that many bare ``ok`` lines of the case, the last
  ones, get the directive.
"""

import re
import subprocess
import sys

from .counts import Counts
from . import expect

TIMESTAMP = re.compile(r"^\[ *[0-9.]+\] ")
STATS = re.compile(r"^(\s*)# (\S+): pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)$")
RESULT = re.compile(r"^(\s*)(ok|not ok) (\d+) (.*)$")


def extract(console, tag):
    """The KTAP lines the kernel printed between @tag's markers."""
    lines, on = [], False
    for raw in console.replace("\r", "").splitlines():
        if f"cqpool-{tag}-begin" in raw:
            on = True
            continue
        if f"cqpool-{tag}-end" in raw:
            on = False
            continue
        if on:
            lines.append(TIMESTAMP.sub("", raw))
    return lines


def mend_skipped_params(lines):
    """@lines with 6.1's bare ``ok`` of skipped parameters marked SKIP."""
    out = list(lines)
    for i, line in enumerate(lines):
        m = STATS.match(line)
        # Only a case's stats: a suite's "# Totals" sums its parameters.
        if not m or m.group(2) == "Totals" or int(m.group(5)) == 0:
            continue
        # The case's parameters: the results just above, one level in.
        inner = m.group(1) + "    "
        params = []
        j = i - 1
        while j >= 0 and not lines[j].startswith(inner + "# Subtest:"):
            r = RESULT.match(lines[j])
            if r and r.group(1) == inner:
                params.append(j)
            j -= 1
        if j < 0:
            continue
        marked = sum("# SKIP" in out[k] for k in params)
        bare = [k for k in params if RESULT.match(out[k]).group(2) == "ok"
                and "# SKIP" not in out[k]]
        # params runs from the last result up: the last ones first.
        for k in bare[:int(m.group(5)) - marked]:
            out[k] += " # SKIP counted as skipped by the case's stats (6.1)"
    return out


def ktap(console, tag):
    """The KTAP of @tag's module from a @console log, mended (above)."""
    body = mend_skipped_params(extract(console, tag))
    if not any(line.startswith("KTAP version") for line in body):
        suites = sum(line.startswith("    # Subtest:") for line in body)
        body = ["KTAP version 1", f"1..{suites}"] + body
    return "\n".join(body) + "\n"


def suites(ktap_text):
    """The names of the suites a module's KTAP reports."""
    return re.findall(r"^    # Subtest: (\S+)$", ktap_text, re.M)


def counts(summary, parse_status, ktap_text="", expected=None, tag="kunit"):
    """Counts from kunit.py's @summary: passed, skipped, and as failed every
    test that neither passed nor skipped, each parser error, a parser
    that failed with nothing counted, a run of no test, and each suite
    @expected that is not in @ktap_text."""
    c = Counts()
    lines = re.findall(r"Testing complete\. Ran (\d+) tests?(.*)", summary)
    if not lines:
        c.fail("no kunit.py summary")
        return c
    ran, rest = int(lines[-1][0]), lines[-1][1]

    def field(name):
        m = re.search(name + r": (\d+)", rest)
        return int(m.group(1)) if m else 0

    c.passed, c.skipped = field("passed"), field("skipped")
    errors = field("errors")
    c.failed = ran - c.passed - c.skipped + errors
    if c.failed:
        c.notes.append(f"{c.failed} failed or crashed")
    if ran == 0:
        c.fail("no test ran")
    elif parse_status != 0 and c.failed == 0:
        c.fail(f"kunit.py exited {parse_status}")
    reported = set(suites(ktap_text))
    for name in expect.of_kind(expected or [], tag):
        if name not in reported:
            c.fail(f"suite {name} expected, and never ran")
    return c


def count_boot(console, tag, kunit_py, out, expected=None):
    """Counts of the KUnit module @tag of a boot whose console log is the
    text @console: its KTAP goes to @out/TAG.ktap, kunit.py's parse of it
    to @out/TAG.txt."""
    text = ktap(console, tag)
    with open(f"{out}/{tag}.ktap", "w") as f:
        f.write(text)
    with open(f"{out}/{tag}.txt", "w") as f:
        rc = subprocess.run([sys.executable, kunit_py, "parse", f"{out}/{tag}.ktap"],
                            stdout=f, stderr=subprocess.STDOUT, check=False).returncode
    with open(f"{out}/{tag}.txt", errors="replace") as f:
        summary = f.read()
    exp = [e for e in (expected or []) if e.kind == tag]
    return counts(summary, rc, text, exp, tag)

