# SPDX-License-Identifier: GPL-2.0
"""How make check turns what a test printed into passes, failures and skips.

One module per kind of output (GoogleTest, kselftest, KUnit, blktests),
each with the rules that say when a run counts, and tests of those rules
fed the bad cases (tests/).  check.sh and blktests.sh call them through
``python3 -m cqcheck`` (__main__.py).
"""
