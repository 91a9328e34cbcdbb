#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py - turn the BENCH lines of make bench's VM run
(vm/payload-bench.sh) into bench/results.json and BENCHMARKS.md.

The report is scripts/benchreport's, scenario by scenario, its prose in
Markdown templates; this is its build command under the name
scripts/bench.sh and the report's header use:
  bench-report.py ARGS  =  python3 -m benchreport build ARGS
`python3 -m benchreport render` makes the report again from a
results.json alone.
"""
import sys

from benchreport.cli import main

sys.exit(main(["build"] + sys.argv[1:]))
