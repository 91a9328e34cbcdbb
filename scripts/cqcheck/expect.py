# SPDX-License-Identifier: GPL-2.0
"""What a VM run is expected to run: the file check.sh writes beside a payload.

One test a line, ``KIND:NAME``: ``kselftest:pool_test``, a KUnit suite of
cqpool_kunit.ko ``kunit:cqpool_pools``, or of cqpool_race_kunit.ko
``races:cqpool_removal_races``,
optionally followed by ``may-skip: REASON`` when the test may skip every
case it has on that kernel, and why.  A test that does not run fails, and
so does one that skips everything without leave: a misspelt name, a binary
that died at once or a kernel without what the test needs would otherwise
count as nothing at all, which is not a failure.
"""

from dataclasses import dataclass

KINDS = ("kselftest", "kunit", "races")


@dataclass
class Expected:
    """One test a run must report."""

    kind: str
    name: str
    may_skip: str = ""


def parse(text):
    """The expectations of an expect file's @text, in order."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, _, rest = line.partition(" ")
        kind, colon, name = head.partition(":")
        rest = rest.strip()
        if not colon or not name or kind not in KINDS:
            raise ValueError(f"line {n}: not KIND:NAME: {raw!r}")
        may_skip = ""
        if rest:
            key, _, reason = rest.partition(":")
            if key != "may-skip" or not reason.strip():
                raise ValueError(f"line {n}: only 'may-skip: REASON' may follow: {raw!r}")
            may_skip = reason.strip()
        out.append(Expected(kind, name, may_skip))
    return out


def of_kind(expected, kind):
    """The expectations of one kind, by name."""
    return {e.name: e for e in expected if e.kind == kind}
