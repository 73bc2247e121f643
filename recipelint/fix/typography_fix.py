"""The `--fix` of RL321: an argument or env value rewritten with the ASCII its lookalikes pass for.

The edit replaces the one scalar the finding points at, in its own quoting style, and
states the new value as the intended change to the data, so recipelint.fix.fixers
applies it only when re-reading the edited file gives exactly that.
"""

from __future__ import annotations

from typing import Any

from recipelint.diagnostics import Diagnostic
from recipelint.fix.fixedit import Fix, Source, at, replace_scalar
from recipelint.read.load import Document
from recipelint.resolve.layers import is_list_place
from recipelint.rules.typography import corrected


def fix_typographic_lookalike(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL321: the scalar at the finding, spelt in ASCII."""
    pointer = diag.pointer
    if not pointer:
        return None
    try:
        value = at(doc.data, pointer)
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(value, str):
        return None
    # An args item sits at an index of a list at a declared args place; an env value under its name.
    argument = isinstance(pointer[-1], int) and is_list_place(doc.kind, pointer[:-1])
    fixed = corrected(value, argument)
    if fixed == value:
        return None
    edit = replace_scalar(source, pointer, fixed)
    if edit is None:
        return None

    def transform(data: Any) -> None:
        at(data, pointer[:-1])[pointer[-1]] = fixed

    return Fix(diag.code, pointer, (edit,), transform, edit.start)
