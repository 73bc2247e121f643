"""The compiled API in memory (the library's `compile_tree`).

A recipe compiled elsewhere (a cache entry, another process) reaches the output as a
:class:`WriteJournal`; applying journals (``WriteJournal.apply_to``) in tree order gives the overwrites and conflicts
one sequential compile gives. :class:`OutputMap` keeps every document;
:class:`recipelint.compile.compilation.StreamedOutput` hands each one to the writer instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from recipelint.compile.outputpaths import PathLedger
from recipelint.compile.publication import StoredDocument, WriteJournal
from recipelint.jsvalue import JsOut, dumps

__all__ = ["OutputMap", "StoredDocument", "WriteJournal", "serialized"]


def serialized(doc: JsOut, special: bool, data: bytes | StoredDocument | None) -> bytes:
    """A document's bytes: already serialised (a cache's), or written now."""
    if data is None:
        return dumps(doc, special=special)
    return data if type(data) is bytes else data.read()  # type: ignore[union-attr]


@dataclass
class _Entry:
    doc: JsOut
    special: bool
    data: bytes | StoredDocument | None = None  # already serialised; doc is then None


class OutputMap:
    """The files upstream would leave in its output folder, with its write semantics, in memory."""

    def __init__(self) -> None:
        self.ledger = PathLedger()
        self._files: dict[str, _Entry] = {}

    def write(
        self,
        path: str,
        doc: JsOut,
        special: bool,
        origin: str,
        data: bytes | StoredDocument | None = None,
    ) -> None:
        if self.ledger.write(path, origin):
            self._files[path] = _Entry(doc, special, data)

    def remove_tree(self, base: str) -> None:
        for path in self.ledger.remove_tree(base):
            del self._files[path]

    @property
    def overwritten(self) -> list[tuple[str, str, str]]:
        return self.ledger.overwritten

    @property
    def refused(self) -> list[tuple[str, str, str]]:
        return self.ledger.refused

    def conflicts(self) -> list[str]:
        return self.ledger.conflicts()

    def __contains__(self, path: object) -> bool:
        return path in self._files

    def __len__(self) -> int:
        return len(self._files)

    def paths(self) -> list[str]:
        return sorted(self._files)

    def document(self, path: str) -> Any:
        entry = self._files[path]
        return json.loads(self.serialize(path)) if entry.data is not None else entry.doc

    def serialize(self, path: str) -> bytes:
        entry = self._files[path]
        return serialized(entry.doc, entry.special, entry.data)

    def items(self) -> Iterator[tuple[str, bytes]]:
        for path in self.paths():
            yield path, self.serialize(path)
