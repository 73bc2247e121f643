"""The check cache: a tree's parsed documents kept between runs of `recipelint check`.

As ruff keeps `.ruff_cache/`, a check keeps `.recipelint_cache/` at the tree root (with its
own `.gitignore`), or the folder `--cache-dir` / `RECIPELINT_CACHE_DIR` names. One file per
document, named by a SHA-256 over recipelint's version and code, the document's place
(path, rel, kind), the load limits and the file's bytes: an unchanged file is never parsed
again, a changed one misses and is parsed as before.

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
from dataclasses import astuple
from pathlib import Path

import recipelint
from recipelint.atomicfile import write_atomic
from recipelint.load import Document, LoadLimits

CACHE_FOLDER = ".recipelint_cache"
# Bumped when an entry's layout changes.
FORMAT = b"recipelint-check-cache-1"
_KEY_BYTES = 32
_SIGNATURE_BYTES = hashlib.sha256().digest_size


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """A digest of recipelint's installed sources: any code change invalidates every entry."""
    digest = hashlib.sha256(recipelint.__version__.encode())
    package = Path(recipelint.__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.digest()


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

    @classmethod
    def open(cls, folder: Path) -> DocumentCache | None:
        key = signing_key()
        return None if key is None else cls(folder, key)

    def _name(self, path: Path, rel: str, kind: str, limits: LoadLimits, raw: bytes) -> str:
        digest = hashlib.sha256(FORMAT + b"\0" + code_fingerprint())
        place = f"{path}\0{rel}\0{kind}\0{astuple(limits)!r}\0"
        digest.update(place.encode("utf-8", "surrogateescape"))
        digest.update(raw)
        return digest.hexdigest()

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()

    def get(
        self, path: Path, rel: str, kind: str, limits: LoadLimits, raw: bytes
    ) -> Document | None:
        entry = self.folder / self._name(path, rel, kind, limits, raw)
        try:
            stored = entry.read_bytes()
        except OSError:
            return None
        signature, body = stored[:_SIGNATURE_BYTES], stored[_SIGNATURE_BYTES:]
        if not hmac.compare_digest(signature, self._sign(body)):
            return None  # damaged or foreign: rewritten by the caller
        try:
            doc = pickle.loads(body)  # noqa: S301 - signed with the user's own key above
        except Exception:  # noqa: BLE001 - a signed entry of an older layout is a miss
            return None
        return doc if isinstance(doc, Document) else None

    def put(self, doc: Document, limits: LoadLimits, raw: bytes) -> None:
        # The source map is rebuilt from the text when asked: it is not worth its bytes.
        doc.__dict__.pop("_map", None)
        body = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._prepare()
            name = self._name(doc.path, doc.rel, doc.kind, limits, raw)
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
