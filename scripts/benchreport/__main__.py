# SPDX-License-Identifier: GPL-2.0
"""python3 -m benchreport: see cli.py."""
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
