"""`compile --cache DIR`: reuse a recipe's rendered output while nothing it depends on changed.

One file per recipe, named by a SHA-256 over everything its output is a function of:
the recipe's own text, every tree-wide input (taxonomy, platforms, strategies,
kv_store, the set of recipe ids), the compile options and recipelint's own code.
A recompile after editing one recipe renders only that recipe. The file holds a
JSON header (writes, findings, models.json entries) and then the serialised output
documents back to back; the documents are read again only when written out, so a
cached compile holds no more in memory than an uncached one.

A cache is data, never code: a damaged or foreign file is a miss, not an error.
It is trusted as much as the output folder it feeds (its bytes are published as-is).

A recipe file is looked up by its text before it is parsed: an unchanged recipe is never
parsed again. Its entry then also holds the findings of reading it, and the digest of every
document, so an output file already holding those bytes is kept without reading them.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path
from typing import Any

import orjson

from recipelint.atomicfile import sweep_temporaries, write_atomic
from recipelint.checkcache import code_fingerprint
from recipelint.compile.carryover import TEMPORARY_PREFIX
from recipelint.compile.carryover import digest as content_digest
from recipelint.compile.compilation import Compiler
from recipelint.compile.provenance import Provenance
from recipelint.compile.publication import Globals, RecipeOutcome, WriteJournal
from recipelint.diagnostics import Diagnostic, Related, Severity, Span
from recipelint.jsvalue import UNDEFINED, dumps
from recipelint.read.load import Document, LoadLimits
from recipelint.read.recipefiles import RecipeFile
from recipelint.read.tree import RecipeTree, recipe_hf_id

FORMAT = 3
SUFFIX = ".rlc"
_ENTRY_NAME = re.compile(r"^[0-9a-f]{64}\.rlc$")
# An entry or the carry-over record being written (atomicfile's temporary names).
_TEMPORARY_NAME = re.compile(r"\.tmp-[a-z0-9_]+\.(?:rlc|json)")


def _document_digest(digest: Any, doc: Document | None) -> None:
    if doc is None:
        digest.update(b"-\0")
        return
    digest.update(f"{doc.rel}\0{doc.usable}\0".encode())
    digest.update(doc.text.encode("utf-8", "surrogatepass") + b"\0")


def tree_fingerprint(
    tree: RecipeTree,
    provenance: Provenance | None,
    max_renderings: int,
    limits: LoadLimits,
    recipe_rels: list[str] | None = None,
) -> str:
    """Everything besides a recipe's own text that its compiled output depends on
    (``recipe_rels``: the recipe files, when they are not loaded into ``tree``)."""
    digest = hashlib.sha256(
        f"{FORMAT}\0{code_fingerprint().hex()}\0{tree.root}\0{max_renderings}\0".encode()
    )
    digest.update(repr(astuple(limits)).encode())
    digest.update(repr(provenance).encode())
    for doc in (tree.taxonomy, tree.platforms, *tree.strategies, *tree.kv_stores):
        _document_digest(digest, doc)
    rels = recipe_rels if recipe_rels is not None else [doc.rel for doc in tree.recipes]
    ids = sorted(str(recipe_hf_id(rel)) for rel in rels)
    digest.update("\0".join(ids).encode())
    return digest.hexdigest()


# ---------------------------------------------------------------- lossless values


def _encode(value: Any) -> Any:
    """JSON for a parsed YAML value, exactly: lists are tags, so floats and big ints survive."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return ["i", str(value)]
    if kind is float:
        return ["f", value.hex()]
    if kind is list:
        return ["l", [_encode(item) for item in value]]
    if kind is dict:
        return ["d", [[key, _encode(item)] for key, item in value.items()]]
    if value is UNDEFINED:
        return ["u"]
    raise TypeError(f"cannot cache a {kind.__name__}")


def _decode(value: Any) -> Any:
    if not isinstance(value, list):
        return value
    tag = value[0]
    if tag == "i":
        return int(value[1])
    if tag == "f":
        return float.fromhex(value[1])
    if tag == "l":
        return [_decode(item) for item in value[1]]
    if tag == "d":
        return {key: _decode(item) for key, item in value[1]}
    if tag == "u":
        return UNDEFINED
    raise ValueError(f"unknown tag {tag!r}")


def _encode_diagnostic(diag: Diagnostic) -> list[Any]:
    span = diag.span
    return [
        str(diag.path),
        span.line,
        span.column,
        span.end_line,
        span.end_column,
        diag.code,
        int(diag.severity),
        diag.message,
        diag.hint,
        list(diag.pointer),
        [[str(r.path), *astuple(r.span), r.message, list(r.pointer)] for r in diag.related],
    ]


def _decode_diagnostic(raw: list[Any]) -> Diagnostic:
    path, line, column, end_line, end_column, code, severity, message, hint, pointer, related = raw
    return Diagnostic(
        Path(path),
        Span(line, column, end_line, end_column),
        code,
        Severity(severity),
        message,
        hint,
        tuple(pointer),
        tuple(_decode_related(*place) for place in related),
    )


def _decode_related(
    path: str,
    line: int,
    column: int,
    end_line: int,
    end_column: int,
    message: str,
    pointer: list[str | int],
) -> Related:
    return Related(Path(path), Span(line, column, end_line, end_column), message, tuple(pointer))


# ---------------------------------------------------------------- entries


def _text(value: Any) -> str:
    if type(value) is not str:
        raise ValueError("not a string")
    return value


class _EntryReader:
    """Entry files in memory, a few at a time: output files are written in path order,
    which visits one recipe's documents together.

    An entry can vanish between the lookup that chose it and the read of its documents
    (a compile of another tree sharing the cache pruned it): it is then rebuilt by
    compiling its recipe again, as a miss would have been."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._held: OrderedDict[Path, bytes] = OrderedDict()
        self.rebuilders: dict[Path, Callable[[], bytes | None]] = {}
        self.rebuilt: set[Path] = set()

    def read(self, entry: Path) -> bytes:
        blob = self._held.pop(entry, None)
        if blob is None:
            try:
                blob = entry.read_bytes()
            except FileNotFoundError:
                blob = self._rebuild(entry)
        self._held[entry] = blob
        while len(self._held) > self.keep:
            self._held.popitem(last=False)
        return blob

    def _rebuild(self, entry: Path) -> bytes:
        rebuilder = self.rebuilders.get(entry)
        blob = rebuilder() if rebuilder is not None else None
        if blob is None:
            raise OSError(f"cache entry {entry} was removed during the compile")
        self.rebuilt.add(entry)
        return blob

    def forget(self, entry: Path) -> None:
        self._held.pop(entry, None)


class CachedDocument:
    """One serialised output document inside a cache entry, read when it is written out."""

    __slots__ = ("digest", "entry", "length", "offset", "reader")

    def __init__(
        self, reader: _EntryReader, entry: Path, offset: int, length: int, digest: str
    ) -> None:
        self.reader = reader
        self.entry = entry
        self.offset = offset
        self.length = length
        self.digest = digest  # of its bytes, as recorded when the entry was written

    def __len__(self) -> int:
        return self.length

    def read(self) -> bytes:
        blob = self.reader.read(self.entry)
        if self.offset + self.length > len(blob):
            raise OSError(f"cache entry {self.entry} changed during the compile")
        data = blob[self.offset : self.offset + self.length]
        if self.entry in self.reader.rebuilt and content_digest(data) != self.digest:
            raise OSError(f"cache entry {self.entry} was removed during the compile")
        return data


class RecipeCache:
    """Cache entries for one compile of one tree."""

    def __init__(self, folder: Path, tree_key: str) -> None:
        self.folder = folder
        self.tree_key = tree_key
        self.used: set[str] = set()
        self.hits = 0
        self.misses = 0
        self.reader = _EntryReader()

    def key(self, doc: Document) -> str:
        """The key of a loaded recipe (whose load findings the tree reports)."""
        digest = hashlib.sha256(f"{self.tree_key}\0document\0".encode())
        _document_digest(digest, doc)
        return digest.hexdigest()

    def file_key(self, recipe: RecipeFile, text: str) -> str:
        """The key of a recipe file read as ``text`` (its entry holds its load findings)."""
        digest = hashlib.sha256(f"{self.tree_key}\0file\0{recipe.rel}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def outcome(self, compiler: Compiler[Any], doc: Document, globals_: Globals) -> RecipeOutcome:
        """The recipe's outcome from the cache, or compiled now and stored."""
        return self._outcome(self.key(doc), lambda: compiler.compile_recipe(doc, globals_))

    def file_outcome(
        self, compiler: Compiler[Any], recipe: RecipeFile, globals_: Globals
    ) -> RecipeOutcome:
        """A recipe file's outcome, its load findings first, from the cache without parsing
        it, or compiled now and stored. A file that is not plain text is never cached."""
        text = recipe.text
        if text is None:
            return compiler.compile_file(recipe, globals_)
        return self._outcome(
            self.file_key(recipe, text), lambda: compiler.compile_file(recipe, globals_)
        )

    def _outcome(self, key: str, compile_now: Callable[[], RecipeOutcome]) -> RecipeOutcome:
        self.used.add(key + SUFFIX)
        entry = self.folder / (key + SUFFIX)
        cached = self._load(entry)
        if cached is not None:
            self.hits += 1
            self.reader.rebuilders[entry] = lambda: self._serialised(compile_now())
            return cached
        self.misses += 1
        fresh = compile_now()
        stored = self._store(entry, fresh)
        return stored if stored is not None else fresh

    def prune(self) -> int:
        """Delete the entries this compile did not use (older versions of the tree), and the
        temporary files of compiles that died while writing one."""
        removed = 0
        try:
            names = os.listdir(self.folder)
        except OSError:
            return 0
        for name in names:
            if _ENTRY_NAME.match(name) and name not in self.used:
                try:
                    (self.folder / name).unlink()
                    removed += 1
                except OSError:
                    pass
        return removed + len(sweep_temporaries(self.folder, _is_temporary))

    def _load(self, entry: Path) -> RecipeOutcome | None:
        """The entry's outcome, from its header line only: documents are read when written."""
        try:
            with entry.open("rb") as stream:
                line = stream.readline()
                size = os.fstat(stream.fileno()).st_size
            header = orjson.loads(line)
            if header.get("format") != FORMAT:
                return None
            journal, end = self._journal(entry, header["ops"], len(line))
            if end != size:
                return None
            return RecipeOutcome(
                journal,
                [_decode_diagnostic(d) for d in header["diagnostics"]],
                _decode(header["index_entry"]),
                _decode(header["promoted_entries"]),
            )
        except (OSError, ValueError, TypeError, KeyError, IndexError, orjson.JSONDecodeError):
            self.reader.forget(entry)
            return None

    def _journal(self, entry: Path, ops: list[Any], offset: int) -> tuple[WriteJournal, int]:
        """The journal of an entry's ops, its documents found from ``offset`` on; and where
        the last one ends."""
        journal = WriteJournal()
        append, reader = journal.ops.append, self.reader
        for op in ops:
            if op[0] == "remove":
                append(("remove", _text(op[1])))
                continue
            _, path, origin, length, digest = op
            if not (type(path) is type(origin) is type(digest) is str) or type(length) is not int:
                raise ValueError("not a write")
            if length < 0:
                raise ValueError("negative length")
            append(
                (
                    "write",
                    path,
                    None,
                    False,
                    origin,
                    CachedDocument(reader, entry, offset, length, digest),
                )
            )
            offset += length
        return journal, offset

    def _store(self, entry: Path, outcome: RecipeOutcome) -> RecipeOutcome | None:
        """Write the entry; return the outcome re-pointed at it, so the documents can be freed."""
        blob = self._serialised(outcome)
        if blob is None:
            return None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(entry, blob, mode=0o600, prefix=TEMPORARY_PREFIX, suffix=SUFFIX)
        except OSError:
            return None
        self.reader.forget(entry)
        return self._load(entry)

    @staticmethod
    def _serialised(outcome: RecipeOutcome) -> bytes | None:
        """The entry file of an outcome: a header line, then its documents' bytes."""
        if not isinstance(outcome.writes, WriteJournal):
            return None  # a check's paths-only plan has no documents to keep
        ops, payload = [], []
        for op in outcome.writes.ops:
            if op[0] == "remove":
                ops.append(list(op))
                continue
            _, path, doc, special, origin = op[:5]
            data = dumps(doc, special=special)
            ops.append(["write", path, origin, len(data), content_digest(data)])
            payload.append(data)
        try:
            header = orjson.dumps(
                {
                    "format": FORMAT,
                    "ops": ops,
                    "diagnostics": [_encode_diagnostic(d) for d in outcome.diagnostics],
                    "index_entry": _encode(outcome.index_entry),
                    "promoted_entries": _encode(outcome.promoted_entries),
                }
            )
        except TypeError:
            return None  # a value the cache cannot represent exactly: just do not cache it
        return b"".join((header, b"\n", *payload))


def _is_temporary(name: str) -> bool:
    return _TEMPORARY_NAME.fullmatch(name) is not None
