"""Requirements a tree adopts: keys the format made required after trees were written.

Upstream added ``meta.date_added`` to every recipe in one pull request (vllm-project/recipes
#686) and required it from then on. A tree from before that pull request has the field in no
recipe; reporting it missing there would flag every recipe of the tree for a rule the tree
never followed (and every pull request replayed on it). Such a key is required in a
document of its kind once the tree uses it, that is once any document of that kind has it:
a new recipe without ``date_added`` in a tree whose other recipes have one is still an error.

Which requirements a tree has not adopted is a value computed from the whole tree
(:func:`unadopted_requirements`) and passed down to the schema stage, which leaves those
missing keys unreported. It lives outside recipelint.schema so that a check answered from
the cache, which needs the value for its cache key, does not import the schema stage.
"""

from __future__ import annotations

from collections.abc import Iterable

from recipelint.read.document import value_at
from recipelint.read.load import Document

# (document kind, pointer of the required key), in the order the format adopted them.
ADOPTED_REQUIREMENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("recipe", ("meta", "date_added")),
)

_ABSENT = object()

Unadopted = frozenset[tuple[str, tuple[str | int, ...]]]
NONE_UNADOPTED: Unadopted = frozenset()


def unadopted_requirements(docs: Iterable[Document]) -> Unadopted:
    """The (kind, pointer) of each adoptable requirement no usable document of that kind in
    ``docs`` (the whole tree, not only the documents in focus) satisfies."""
    pending = set(ADOPTED_REQUIREMENTS)
    for doc in docs:
        if not pending:
            break
        if not doc.usable:
            continue
        pending -= {
            (kind, pointer)
            for kind, pointer in pending
            if doc.kind == kind and value_at(doc.data, pointer, _ABSENT) is not _ABSENT
        }
    return frozenset(pending)
