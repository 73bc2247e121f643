"""How the cyclic garbage collector runs while a whole tree is checked or compiled.

Both commands build objects that live until they end (the loaded tree, the rules' indexes,
the output ledger) and make many short-lived ones per recipe. A full collection walks every
object not frozen, so with Python's defaults its cost grows with the tree while it finds
next to nothing to free; young collections still free the short-lived cycles.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

# Young collections between two full ones while a tree is worked on (Python's default is 10).
FULL_COLLECTION_SPACING = 1000
# Allocations between two young collections (Python's default is 700). A rendering makes
# thousands of short-lived containers that reference counting frees anyway; at 700 a
# compile of 1,730 recipes ran 734 young and 66 middle collections (0.33 s), at this
# spacing 44 and 4 (0.12 s).
YOUNG_COLLECTION_SPACING = 10_000


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Hide every object that exists now (the loaded tree, above all) from the collector.

    A full collection otherwise walks the whole tree each time it runs (10-30 ms on the
    corpus), and in a forked helper it also copies the memory pages it touches. Nothing
    is done when the caller has frozen objects of its own: their freeze is theirs to undo.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextlib.contextmanager
def few_full_collections() -> Iterator[None]:
    """Full collections a hundred times rarer for the block: what a check or a compile
    keeps lives until it ends, so walking it again and again freed next to nothing (a
    tenth of a large check's time; in a compile, eight walks of a growing ledger at 10x).
    Young collections are rarer too: most of what they would find is freed without them."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(
        max(young, YOUNG_COLLECTION_SPACING), middle, max(full, FULL_COLLECTION_SPACING)
    )
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
