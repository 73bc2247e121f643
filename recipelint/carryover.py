"""`compile --cache`: the previous output kept beside OUT, brought up to date instead of rewritten.

After a compile with a cache, the output it replaced is not deleted: it stays beside OUT
as `.OUT.spare`, and a record in the cache folder lists every file of OUT and of the spare
with a digest of its bytes and its identity on disk (size, inode, modification time). The
next compile takes the spare as its staging folder, keeps every file whose bytes it would
write again, writes only the others, deletes what the new output does not hold, and swaps
it in: the usual all-or-nothing swap, with a few writes instead of one per file.

A file is kept only when its identity on disk is the one recorded when it was written, so
a file changed or added behind recipelint's back is rewritten or removed, never published.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

FORMAT = 2
SPARE_SUFFIX = ".spare"

# digest, size, inode, modification time (ns)
Record = tuple[str, int, int, int]


@dataclass
class Listing:
    """An output folder's files with their records, and its folders (below the top one)
    with their (inode, modification time): a folder whose entries changed has a new time."""

    files: dict[str, Record] = field(default_factory=dict)
    folders: dict[str, tuple[int, int]] = field(default_factory=dict)

    def encoded(self) -> dict[str, object]:
        return {"files": self.files, "folders": self.folders}

    @classmethod
    def decoded(cls, raw: Any) -> Listing:
        """From :meth:`encoded`'s JSON; a value of another shape raises (the record is unusable)."""
        files = {
            str(p): (str(d), int(s), int(i), int(m)) for p, (d, s, i, m) in raw["files"].items()
        }
        folders = {str(p): (int(i), int(m)) for p, (i, m) in raw["folders"].items()}
        return cls(files, folders)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def spare_folder(out: Path) -> Path:
    return out.parent / f".{out.name}{SPARE_SUFFIX}"


@dataclass
class CarryOver:
    """The record of OUT and its spare, kept in the cache folder ``folder``."""

    folder: Path
    out: Path

    @property
    def record(self) -> Path:
        key = hashlib.sha256(os.fsencode(os.path.abspath(self.out))).hexdigest()[:32]
        return self.folder / f"output-{key}.json"

    def load(self) -> tuple[Listing, Listing]:
        """(OUT's listing, the spare's); empty when there is no usable record."""
        try:
            data = orjson.loads(self.record.read_bytes())
            if data.get("format") != FORMAT:
                return Listing(), Listing()
            return Listing.decoded(data["out"]), Listing.decoded(data["spare"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError, orjson.JSONDecodeError):
            return Listing(), Listing()

    def save(self, out: Listing, spare: Listing) -> None:
        blob = orjson.dumps({"format": FORMAT, "out": out.encoded(), "spare": spare.encoded()})
        temp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(handle, "wb") as stream:
                stream.write(blob)
            os.replace(temp, self.record)
        except OSError:  # without a record the next compile just writes everything
            if temp is not None:
                Path(temp).unlink(missing_ok=True)


def identity(path: str) -> tuple[int, int, int] | None:
    """(size, inode, modification time) of a regular file, not following links."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    return found.st_size, found.st_ino, found.st_mtime_ns


def folder_identity(path: str) -> tuple[int, int] | None:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_mtime_ns) if stat.S_ISDIR(found.st_mode) else None


def listing_of(folder: str, files: dict[str, Record]) -> Listing:
    """The listing of a folder holding exactly ``files``: its folders' identities added."""
    folders: dict[str, tuple[int, int]] = {}
    for rel in files:
        parent = rel.rpartition("/")[0]
        while parent and parent not in folders:
            found = folder_identity(os.path.join(folder, parent))
            if found is not None:
                folders[parent] = found
            parent = parent.rpartition("/")[0]
    return Listing(files, folders)


def verified(folder: str, recorded: Listing) -> tuple[dict[str, Record], set[str]]:
    """The files of ``folder`` that are exactly as recorded, and every entry found there
    (files, links, anything but a real folder), by relative path.

    Folders are entered from the top, never through a link. A recorded folder whose identity
    is unchanged still holds the entries it held, so only the top folder and folders that
    changed are read."""
    files_in: dict[str, list[str]] = {}
    for rel in recorded.files:
        files_in.setdefault(rel.rpartition("/")[0], []).append(rel)
    folders_in: dict[str, list[str]] = {}
    for rel in recorded.folders:
        folders_in.setdefault(rel.rpartition("/")[0], []).append(rel)
    found: set[str] = set()
    pending = [""]
    while pending:
        current = pending.pop()
        ident = recorded.folders.get(current)
        if (
            current
            and ident is not None
            and folder_identity(os.path.join(folder, current)) == ident
        ):
            found.update(files_in.get(current, ()))
            pending.extend(folders_in.get(current, ()))
            continue
        pending.extend(_read_folder(folder, current, found))
    good: dict[str, Record] = {}
    for rel in found:
        record = recorded.files.get(rel)
        if record is not None and identity(os.path.join(folder, rel)) == record[1:]:
            good[rel] = record
    return good, found


def _read_folder(folder: str, current: str, found: set[str]) -> list[str]:
    """Add the entries of one folder to ``found``; its real subfolders, to be read in turn."""
    subfolders = []
    try:
        entries = list(os.scandir(os.path.join(folder, current)))
    except OSError:
        return []
    for entry in entries:
        rel = f"{current}/{entry.name}" if current else entry.name
        if entry.is_dir(follow_symlinks=False):
            subfolders.append(rel)
        else:
            found.add(rel)
    return subfolders
