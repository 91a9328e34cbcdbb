# SPDX-License-Identifier: GPL-2.0
"""The fixtures: what tests and boots printed, good and bad."""

import os

HERE = os.path.dirname(__file__)


def path(name):
    return os.path.join(HERE, name)


def read(name):
    with open(path(name)) as f:
        return f.read()
