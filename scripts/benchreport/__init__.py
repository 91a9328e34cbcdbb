# SPDX-License-Identifier: GPL-2.0
"""The benchmark report: make bench's BENCH lines into bench/results.json
and BENCHMARKS.md, scenario by scenario.

  results.py      the VM run's log into raw records and the machine block
  scenarios/      one module per scenario (its interface: scenarios/__init__.py)
  registry.py     the scenarios in report order
  templates/      the prose, one Markdown template per scenario and
                  report.md around them, with no figure in it (template.py)
  report.py       summary, targets and notes, and the report, from what
                  results.json holds
  design.py       figures of the code that results.json does not carry,
                  checked against the tree by the tests
  stats.py, cells.py   the arithmetic and the formatting of figures
  cli.py          build, render, lint, selftest (python3 -m benchreport)

scripts/bench-report.py is `build`; scripts/bench_plots.py draws the charts.
"""
