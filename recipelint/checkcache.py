"""The check cache: what a check derives from one file, kept between runs of `recipelint check`.

As ruff keeps `.ruff_cache/`, a check keeps `.recipelint_cache/` at the tree root (with its
own `.gitignore`), or the folder `--cache-dir` / `RECIPELINT_CACHE_DIR` names. One file per
document, named by a SHA-256 over recipelint's version and code, the document's place
(path, rel, kind), the load limits and the file's bytes: an unchanged file is never parsed
again, a changed one misses and is parsed as before. Beside the documents it keeps each
document's schema findings, its rule findings that read no other file (recipelint.check.rulecache),
and each recipe's planned rendering under everything else rendering reads. What is kept of one
document lives in one file with it, its bundle (a warm run reads one file per document, not
five), written once at the end of the run (``flush``); a value is unpickled only when asked.

An entry is a pickle, so it is code as much as data: each one is signed with an HMAC key
kept in the user's own cache folder, and an entry whose signature does not match (damaged,
written by someone else, copied from another machine) is a miss, never unpickled. Entries
are written to a temporary file and renamed, so a concurrent run sees a whole entry or none.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import pickle
import shutil
import time
from collections.abc import Callable
from dataclasses import astuple, replace
from pathlib import Path
from typing import TYPE_CHECKING

import recipelint
from recipelint.atomicfile import write_atomic
from recipelint.diagnostics import Diagnostic
from recipelint.packagedata import RULE_CATALOG, SCHEMAS, data_folder
from recipelint.read.configfile import OVERLAY_FOLDER
from recipelint.read.load import Document, LoadLimits

if TYPE_CHECKING:
    from recipelint.compile.publication import RecipeOutcome
    from recipelint.configuration.config import Config
    from recipelint.read.tree import RecipeTree

# One entry per document: the findings of each rule check (by "module:qualname") that ran on
# it alone, or None for a check that read another file and runs again every time.
RuleEntry = dict[str, list[Diagnostic] | None]

CACHE_FOLDER = ".recipelint_cache"
# The tree's quickstart pages, which the rendering stage's closing files read (publication.py).
QUICKSTART_FOLDER = "quickstart"
# Bumped when an entry's layout changes.
FORMAT = b"recipelint-check-cache-3"
_KEY_BYTES = 32
_SIGNATURE_BYTES = hashlib.sha256().digest_size
# A document's bundle keeps the values of the contexts a run asked for and, beside them, at
# most this many others (older contexts: a taxonomy since edited, another configuration).
MAX_BUNDLED = 16
_DOCUMENT = "document"
# Where a document keeps its text_digest (with the text and place it is of).
_TEXT_DIGEST = "_text_digest"


# A file changed this recently may change again within its timestamps' resolution unseen:
# its stat record is not trusted to stand for its bytes (as git treats "racily clean" files).
_SETTLED_SECONDS = 2.0


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """A digest of recipelint's installed sources (the compile cache keys its entries by it)."""
    digest = hashlib.sha256(recipelint.__version__.encode())
    package = Path(recipelint.__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.digest()


def _fingerprinted_files() -> list[tuple[Path, str]]:
    """Every file a finding can come from: recipelint's sources, the rule catalog (severities,
    vLLM's flag and backend catalogs) and the schemas, each with a stable name."""
    package = Path(recipelint.__file__).parent
    files = [
        (path, "code/" + path.relative_to(package).as_posix()) for path in package.rglob("*.py")
    ]
    for data in (RULE_CATALOG, SCHEMAS):
        folder = Path(str(data_folder(data)))
        files += [
            (path, f"{data}/{path.relative_to(folder).as_posix()}")
            for path in folder.rglob("*")
            if path.is_file()
        ]
    return sorted(files, key=lambda item: item[1])


def content_fingerprint(files: list[tuple[Path, str]]) -> bytes:
    """A digest of recipelint's version and the bytes of ``files``."""
    digest = hashlib.sha256(recipelint.__version__.encode())
    for path, name in files:
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + path.read_bytes())
    return digest.digest()


def stat_record(files: list[tuple[Path, str]]) -> bytes | None:
    """Each file's size, inode and change times (any write changes its ctime, which no tool
    sets back); None while some file is too fresh for them to be trusted."""
    now = time.time()
    digest = hashlib.sha256(recipelint.__version__.encode())
    for path, name in files:
        info = path.stat()
        if now - max(info.st_mtime, info.st_ctime) < _SETTLED_SECONDS:
            return None
        record = f"{name}\0{info.st_size}\0{info.st_ino}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\n"
        digest.update(record.encode("utf-8", "surrogateescape"))
    return digest.digest()


def _document_digest(digest: hashlib._Hash, doc: Document | None) -> None:
    """A document's place, usability and text (a missing one as such)."""
    digest.update(b"-\0" if doc is None else text_digest(doc))


def _place(doc: Document) -> str:
    return f"{doc.path}\0{doc.rel}\0{doc.kind}\0{doc.usable}\0"


def text_digest(doc: Document) -> bytes:
    """The digest of a document's place, usability and text, worked out once per text: the
    entry names and contexts of a run hash each recipe's text again otherwise (six times)."""
    place = _place(doc)
    stored = doc.stored_text
    kept = doc.__dict__.get(_TEXT_DIGEST)
    if kept is not None and kept[0] is stored and kept[1] == place:
        return kept[2]  # type: ignore[no-any-return]
    text = stored if isinstance(stored, bytes) else stored.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(place.encode("utf-8", "surrogateescape"))
    digest.update(len(text).to_bytes(8, "big") + text)
    found = digest.digest()
    doc.__dict__[_TEXT_DIGEST] = (stored, place, found)
    return found


def rules_context(tree: RecipeTree, config: Config, fingerprint: bytes) -> bytes:
    """What a rule check that reads one recipe alone may also depend on: the code and its
    data, the configuration, and whether the tree has its tree-wide files at all (a check
    may ask whether there is a taxonomy without reading it)."""
    digest = hashlib.sha256(FORMAT + b"\0rules\0" + fingerprint)
    digest.update(repr(replace(config, origins={})).encode("utf-8", "surrogateescape"))
    digest.update(f"\0{tree.root}\0{tree.taxonomy is None}\0{tree.platforms is None}".encode())
    return digest.digest()


def shared_rules_context(tree: RecipeTree, rules: bytes) -> bytes:
    """What a rule check that reads one recipe and the tree-wide files may depend on: what
    ``rules`` (:func:`rules_context`) covers, those files' places and texts, and every
    recipe's place (the ids the tree publishes)."""
    digest = hashlib.sha256(FORMAT + b"\0shared-rules\0" + rules)
    for doc in (tree.taxonomy, tree.platforms, *tree.strategies, *tree.kv_stores):
        _document_digest(digest, doc)
    digest.update(f"\0{len(tree.strategies)}\0{len(tree.kv_stores)}\0".encode())
    rels = "\0".join(doc.rel for doc in tree.recipes)
    digest.update(rels.encode("utf-8", "surrogateescape"))
    return digest.digest()


def rendering_context(tree: RecipeTree, config: Config, fingerprint: bytes) -> bytes:
    """Everything besides a recipe's own document that planning its rendering reads: the
    code, the tree-wide files, every recipe's place (related recipes are looked up by id)
    and the rendering limit."""
    digest = hashlib.sha256(FORMAT + b"\0rendering\0" + fingerprint)
    digest.update(f"\0{tree.root}\0{config.max_renderings}\0".encode())
    for doc in (tree.taxonomy, tree.platforms, *tree.strategies, *tree.kv_stores):
        _document_digest(digest, doc)
    rels = "\0".join(doc.rel for doc in tree.recipes)
    digest.update(rels.encode("utf-8", "surrogateescape"))
    return digest.digest()


def stage_context(tree: RecipeTree, rendering: bytes, focused: list[Path]) -> bytes:
    """Everything the rendering stage's findings depend on: what ``rendering``
    (:func:`rendering_context`) covers, every recipe's document (which recipes share an
    output folder with the named ones is read from them), the files named, what the
    tree's loader reported, and the quickstart folder."""
    digest = hashlib.sha256(FORMAT + b"\0rendering-stage\0" + rendering)
    for doc in tree.recipes:
        _document_digest(digest, doc)
    named = "\0".join(str(path) for path in focused)
    digest.update(
        f"\0{len(tree.recipes)}\0{named}\0{tree.problems!r}".encode("utf-8", "surrogateescape")
    )
    _folder_digest(digest, tree.root / QUICKSTART_FOLDER)
    return digest.digest()


def _folder_digest(digest: hashlib._Hash, folder: Path) -> None:
    """Every entry of one flat folder: its name, what it is, where a link points (its
    confinement depends on that) and a file's bytes. The closing files read it from disk,
    outside the tree's documents, so a stage entry must be keyed by it too."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as exc:
        digest.update(f"\0no folder: {type(exc).__name__}\0".encode())
        return
    for entry in entries:
        name = entry.name.encode("utf-8", "surrogateescape")
        link = os.readlink(entry.path) if entry.is_symlink() else ""
        target = os.path.realpath(entry.path)
        where = f"\0{entry.is_dir()}\0{link}\0{target}\0".encode("utf-8", "surrogateescape")
        try:
            body = Path(entry.path).read_bytes() if entry.is_file() else b""
        except OSError as exc:
            body = f"unreadable: {type(exc).__name__}".encode()
        digest.update(name + where + len(body).to_bytes(8, "big") + body)


def cache_disabled() -> bool:
    """`RECIPELINT_NO_CACHE=1` turns the cache off (as `--no-cache` does)."""
    return os.environ.get("RECIPELINT_NO_CACHE", "") not in ("", "0")


def cache_folder(root: Path, chosen: Path | None = None) -> Path:
    """Where a tree's cache lives: ``chosen``, else $RECIPELINT_CACHE_DIR, else the tree root's."""
    if chosen is not None:
        return chosen
    named = os.environ.get("RECIPELINT_CACHE_DIR")
    return Path(named) if named else root / CACHE_FOLDER


def _key_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "recipelint" / "cache-key"


@functools.lru_cache(maxsize=1)
def signing_key() -> bytes | None:
    """The user's HMAC key, made on first use (mode 0600); None when it cannot be had."""
    path = _key_file()
    try:
        key = path.read_bytes()
        if len(key) == _KEY_BYTES:
            return key
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, os.urandom(_KEY_BYTES), mode=0o600)
        key = path.read_bytes()  # a concurrent run may have written its own: use the one kept
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None


def schema_context(root: Path, config: Config) -> bytes | None:
    """What a tree's schema overlays are made of, as bytes; None when it has an overlay
    folder (its files are not looked into here: such a tree's schema stage is not cached)."""
    if (root / OVERLAY_FOLDER).exists():
        return None
    parts = [repr(sorted(config.schema.items())).encode()]
    for name in (".recipelint.toml", "pyproject.toml"):
        try:
            parts.append((root / name).read_bytes())
        except FileNotFoundError:
            parts.append(b"-")
        except OSError:
            return None
    return b"\0".join(hashlib.sha256(part).digest() for part in parts)


def user_values() -> DocumentCache | None:
    """The user's own cache of values that do not belong to one tree (the rule catalog,
    the flag catalogs' answers), signed as check cache entries are; None when the cache is off."""
    key = None if cache_disabled() else signing_key()
    return None if key is None else DocumentCache(_key_file().parent / "values", key)


def kept_value(what: bytes, source: bytes, compute: Callable[[], object]) -> object:
    """``compute()``, kept in the user's cache under ``what`` and the ``source`` it is made
    from; computed afresh when the cache is off."""
    store = user_values()
    if store is None:
        return compute()
    kept = store.value(what, source)
    if kept is None:
        kept = compute()
        store.keep_value(what, source, kept)
    return kept


def remove_cache(folder: Path) -> bool:
    """Remove a cache folder (`recipelint clean`); whether there was one."""
    if not folder.is_dir() or folder.is_symlink():
        return False
    shutil.rmtree(folder)
    return True


class DocumentCache:
    """Parsed documents of one tree, by the bytes they were parsed from."""

    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        self._key = key
        self._ready = False
        self._fingerprint: bytes | None = None
        # Bundles by name (a value pickled under each entry name), the documents read or
        # parsed this run with their bundle's name (by id, the document kept so that its id
        # stays its own), and the bundles to write.
        self._bundles: dict[str, dict[str, bytes]] = {}
        self._bundle_of: dict[int, tuple[Document, str]] = {}
        self._changed: set[str] = set()

    def fingerprint(self) -> bytes:
        """The digest of recipelint's code and data every entry is kept under (any change
        invalidates them all). Reading all those files costs more than the rest of a warm
        check of one file: their digest is kept in the cache under their stat record."""
        if self._fingerprint is None:
            files = _fingerprinted_files()
            record = stat_record(files)
            name = None if record is None else self._plain_name(b"fingerprint", record)
            kept = None if name is None else self._load(name)
            if isinstance(kept, bytes):
                self._fingerprint = kept
            else:
                self._fingerprint = content_fingerprint(files)
                if name is not None:
                    self._store(name, self._fingerprint)
        return self._fingerprint

    def kept(self, what: bytes, compute: Callable[[], object]) -> object:
        """``compute()``, a function of recipelint's code alone, kept under its fingerprint."""
        name = self._plain_name(what, self.fingerprint())
        found = self._load(name)
        if found is None:
            found = compute()
            self._store(name, found)
        return found

    def value(self, what: bytes, source: bytes) -> object | None:
        """A value kept under ``what`` and the ``source`` it was made from by this version."""
        return self._load(self._value_name(what, source))

    def keep_value(self, what: bytes, source: bytes, value: object) -> None:
        self._store(self._value_name(what, source), value)

    def _value_name(self, what: bytes, source: bytes) -> str:
        return self._plain_name(what + b"\0" + recipelint.__version__.encode(), source)

    @staticmethod
    def _plain_name(what: bytes, body: bytes) -> str:
        return hashlib.sha256(FORMAT + b"\0" + what + b"\0" + body).hexdigest()

    @classmethod
    def open(cls, folder: Path) -> DocumentCache | None:
        key = signing_key()
        return None if key is None else cls(folder, key)

    def _name(self, path: Path, rel: str, kind: str, limits: LoadLimits, raw: bytes) -> str:
        digest = hashlib.sha256(FORMAT + b"\0" + self.fingerprint())
        place = f"{path}\0{rel}\0{kind}\0{astuple(limits)!r}\0"
        digest.update(place.encode("utf-8", "surrogateescape"))
        digest.update(raw)
        return digest.hexdigest()

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()

    def get(
        self, path: Path, rel: str, kind: str, limits: LoadLimits, raw: bytes
    ) -> Document | None:
        name = self._name(path, rel, kind, limits, raw)
        doc = self._unpickled(self._bundle(name).get(_DOCUMENT))
        if not isinstance(doc, Document):
            return None
        self._owns(doc, name)
        return doc

    def put(self, doc: Document, limits: LoadLimits, raw: bytes) -> None:
        # The source map is rebuilt from the text when asked: it is not worth its bytes; the
        # text's digest is worked out again in each run.
        doc.__dict__.pop("_map", None)
        doc.__dict__.pop(_TEXT_DIGEST, None)
        name = self._name(doc.path, doc.rel, doc.kind, limits, raw)
        self._keep_in(name, _DOCUMENT, doc)
        self._owns(doc, name)

    def _owns(self, doc: Document, name: str) -> None:
        """Keep what is derived from ``doc`` in bundle ``name``. The name, a digest of the
        document's place and bytes (and of the code that parsed them), is its text_digest
        too: its text need not be hashed again."""
        self._bundle_of[id(doc)] = (doc, name)
        place = _place(doc)
        doc.__dict__[_TEXT_DIGEST] = (doc.stored_text, place, bytes.fromhex(name))

    def _bundle(self, name: str) -> dict[str, bytes]:
        """The bundle of the document entry ``name``, read once (empty when missing or bad)."""
        bundle = self._bundles.get(name)
        if bundle is None:
            kept = self._load(name)
            if not isinstance(kept, dict) or not all(
                type(key) is str and type(value) is bytes for key, value in kept.items()
            ):
                kept = {}
            bundle = self._bundles[name] = kept
        return bundle

    def _keep_in(self, name: str, entry: str, value: object) -> None:
        bundle = self._bundle(name)
        bundle.pop(entry, None)  # the newest last: the oldest go first when the bundle is full
        bundle[entry] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._changed.add(name)

    @staticmethod
    def _unpickled(body: bytes | None) -> object | None:
        if body is None:
            return None
        try:
            value: object = pickle.loads(body)  # noqa: S301 - inside a signed bundle
        except Exception:  # noqa: BLE001 - a value of an older layout is a miss
            return None
        return value

    def _bundled(self, doc: Document, entry: str) -> object | None:
        """The value kept under ``entry`` for ``doc``: in its bundle when the document was read
        or parsed through this cache, else in an entry of its own."""
        owner = self._bundle_of.get(id(doc))
        if owner is None or owner[0] is not doc:
            return self._load(entry)
        return self._unpickled(self._bundle(owner[1]).get(entry))

    def _keep_bundled(self, doc: Document, entry: str, value: object) -> None:
        owner = self._bundle_of.get(id(doc))
        if owner is None or owner[0] is not doc:
            self._store(entry, value)
        else:
            self._keep_in(owner[1], entry, value)

    def flush(self) -> None:
        """Write the bundles this run added to, each with the document, the values this run
        kept and the newest MAX_BUNDLED others."""
        for name in sorted(self._changed):
            bundle = self._bundles[name]
            older = [entry for entry in bundle if entry != _DOCUMENT][:-MAX_BUNDLED]
            for entry in older:
                del bundle[entry]
            self._store(name, bundle)
        self._changed.clear()

    def schema_findings(self, doc: Document, context: bytes) -> list[Diagnostic] | None:
        """The schema stage's findings on ``doc`` from an earlier run, if there was one."""
        found = self._bundled(doc, self._findings_name(doc, context))
        if isinstance(found, list) and all(isinstance(d, Diagnostic) for d in found):
            return found
        return None

    def keep_schema_findings(self, doc: Document, context: bytes, found: list[Diagnostic]) -> None:
        self._keep_bundled(doc, self._findings_name(doc, context), found)

    def _findings_name(self, doc: Document, context: bytes) -> str:
        # A document's schema findings are a function of its place, kind and text, the
        # tree's schema overlays (``context``) and the code: nothing else is read.
        digest = hashlib.sha256(FORMAT + b"\0schema\0" + self.fingerprint() + context)
        digest.update(text_digest(doc))
        return digest.hexdigest()

    def rule_findings(self, doc: Document, context: bytes, what: bytes) -> RuleEntry | None:
        """The findings of each rule check on ``doc`` from an earlier run, if any (``what``
        tells the checks that read the document alone from those that read tree-wide files)."""
        found = self._bundled(doc, self._entry_name(what, doc, context))
        if isinstance(found, dict) and all(
            isinstance(key, str)
            and (value is None or all(isinstance(d, Diagnostic) for d in value))
            for key, value in found.items()
        ):
            return found
        return None

    def keep_rule_findings(
        self, doc: Document, context: bytes, what: bytes, entry: RuleEntry
    ) -> None:
        self._keep_bundled(doc, self._entry_name(what, doc, context), entry)

    def rendering(self, doc: Document, context: bytes) -> object | None:
        """What an earlier run kept as the recipe's planned rendering, if anything. The check
        stage tells a ``RecipeOutcome`` from anything else: the cache sits below the compile
        stage and does not import it."""
        return self._bundled(doc, self._entry_name(b"rendering", doc, context))

    def keep_rendering(self, doc: Document, context: bytes, outcome: RecipeOutcome) -> None:
        self._keep_bundled(doc, self._entry_name(b"rendering", doc, context), outcome)

    def stage_findings(self, key: bytes) -> list[Diagnostic] | None:
        """The rendering stage's findings from an earlier run on the same inputs, if any."""
        found = self._load(self._plain_name(b"rendering-stage", key))
        if isinstance(found, list) and all(isinstance(d, Diagnostic) for d in found):
            return found
        return None

    def keep_stage_findings(self, key: bytes, found: list[Diagnostic]) -> None:
        self._store(self._plain_name(b"rendering-stage", key), found)

    def _entry_name(self, what: bytes, doc: Document, context: bytes) -> str:
        digest = hashlib.sha256(FORMAT + b"\0" + what + b"\0" + context)
        _document_digest(digest, doc)
        return digest.hexdigest()

    def _load(self, name: str) -> object | None:
        try:
            stored = (self.folder / name).read_bytes()
        except OSError:
            return None
        signature, body = stored[:_SIGNATURE_BYTES], stored[_SIGNATURE_BYTES:]
        if not hmac.compare_digest(signature, self._sign(body)):
            return None  # damaged or foreign: rewritten by the caller
        try:
            value: object = pickle.loads(body)  # noqa: S301 - signed with the user's own key
        except Exception:  # noqa: BLE001 - a signed entry of an older layout is a miss
            return None
        return value

    def _store(self, name: str, value: object) -> None:
        body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._prepare()
            write_atomic(self.folder / name, self._sign(body) + body)
        except OSError:
            pass  # a read-only tree is checked without a cache

    def _prepare(self) -> None:
        if self._ready:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            write_atomic(ignore, b"# Made by recipelint: the check cache is not for git.\n*\n")
        self._ready = True
