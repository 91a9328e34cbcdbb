# SPDX-License-Identifier: GPL-2.0
"""Per-QP overhead (section 6): the sizes of cqpool's objects in the DWARF
of the cqpool.ko that ran (pahole, results.json's "sizes"), and the
kmalloc size class each is allocated from.
"""
NAME = "sizes"
# The structures, as results.json names them, with their rows' blocks.
STRUCTS = (("cqpool_qp", "qp"), ("cqpool_hook", "hook"), ("cqpool_cq", "cq"))
KMALLOC = (8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096)


def bucket(n):
    """The kmalloc size class kzalloc(@n) comes from."""
    return next((b for b in KMALLOC if n <= b), n)


def values(run):
    sz = run.sizes
    if not sz:
        return None
    return {"rows": "\n".join(run.text(NAME, block, bytes="%d" % sz[s],
                                       bucket="%d" % bucket(sz[s]))
                              for s, block in STRUCTS if s in sz)}
