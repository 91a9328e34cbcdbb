# SPDX-License-Identifier: GPL-2.0
"""A count of one test step: what passed, failed and was skipped, and why."""

from dataclasses import dataclass, field


@dataclass
class Counts:
    """Passes, failures and skips of one step, with notes on the failures."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    notes: list = field(default_factory=list)

    def fail(self, note):
        """One more failure, with what it was."""
        self.failed += 1
        self.notes.append(note)

    def line(self):
        """"P F S NOTE": what the shell reads."""
        return f"{self.passed} {self.failed} {self.skipped} {'; '.join(self.notes)}".rstrip()
