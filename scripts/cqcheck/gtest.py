# SPDX-License-Identifier: GPL-2.0
"""GoogleTest: the summary lines and the binary's exit status, both.

LeakSanitizer reports after GoogleTest's summary and exits 23, and a
destructor that crashes does so after it too: the summary alone would
count either as a pass.
"""

import re

from .counts import Counts


def counts(log, status):
    """Counts of a GoogleTest run that printed @log and exited @status."""
    c = Counts()
    passed = re.findall(r"^\[  PASSED  \] (\d+) tests?", log, re.M)
    failed = re.findall(r"^\[  FAILED  \] (\d+) tests?", log, re.M)
    c.passed = int(passed[-1]) if passed else 0
    c.failed = int(failed[-1]) if failed else 0
    if failed:
        c.notes.append(f"{c.failed} tests failed")
    if not passed and not failed:
        c.fail("no GoogleTest summary")
    elif status != 0 and c.failed == 0:
        why = "LeakSanitizer" if "LeakSanitizer" in log else "after its summary"
        c.fail(f"exit status {status} ({why})")
    return c
