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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from recipelint.atomicfile import write_atomic

FORMAT = 3
SPARE_SUFFIX = ".spare"
# Files being written into the cache folder are named .tmp-<random><suffix> (cache.py prunes
# those of compiles that died).
TEMPORARY_PREFIX = ".tmp-"

# digest, size, inode, modification time (ns)
Record = tuple[str, int, int, int]
# A folder's (inode, modification time (ns)): its entries changed when the time did.
FolderIdentity = tuple[int, int]


@dataclass
class Listing:
    """An output folder's files with their records, and its folders (below the top one)
    with their identities."""

    files: dict[str, Record] = field(default_factory=dict)
    folders: dict[str, FolderIdentity] = field(default_factory=dict)

    def encoded(self) -> dict[str, list[Any]]:
        """Column by column: a record is read at every compile, and a few long lists of
        strings and numbers parse many times faster than a mapping of small lists."""
        records = self.files.values()
        folders = self.folders.values()
        return {
            "paths": list(self.files),
            "digests": [record[0] for record in records],
            "stats": [number for record in records for number in record[1:]],
            "folders": list(self.folders),
            "folder_stats": [number for ident in folders for number in ident],
        }

    @classmethod
    def decoded(cls, raw: Any) -> Listing:
        """From :meth:`encoded`'s JSON; a value of another shape raises (the record is unusable)."""
        paths, digests, stats = raw["paths"], raw["digests"], raw["stats"]
        folders, folder_stats = raw["folders"], raw["folder_stats"]
        _all_of_type(paths, str, len(digests))
        _all_of_type(digests, str, len(paths))
        _all_of_type(stats, int, 3 * len(paths))
        _all_of_type(folders, str, len(folder_stats) // 2)
        _all_of_type(folder_stats, int, 2 * len(folders))
        records = zip(digests, stats[0::3], stats[1::3], stats[2::3], strict=True)
        identities = zip(folder_stats[0::2], folder_stats[1::2], strict=True)
        return cls(
            dict(zip(paths, records, strict=True)), dict(zip(folders, identities, strict=True))
        )


def _all_of_type(values: Any, kind: type, length: int) -> None:
    if type(values) is not list or len(values) != length or not set(map(type, values)) <= {kind}:
        raise ValueError("not a listing")


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

    def _parts(self) -> tuple[bytes, bytes]:
        """The record's two listings as stored: (OUT's, the spare's); empty when there is
        no usable record.

        A record is a header line, then OUT's listing and the spare's, each JSON of the
        length the header gives: the swap passes OUT's listing on as the spare's without
        parsing it (it is checked when the next compile reads it)."""
        try:
            blob = self.record.read_bytes()
            line_end = blob.index(b"\n") + 1
            header = orjson.loads(blob[:line_end])
            out_end = line_end + header["out"]
            if header["format"] != FORMAT or out_end + header["spare"] != len(blob):
                return b"", b""
        except (OSError, ValueError, TypeError, KeyError, IndexError, orjson.JSONDecodeError):
            return b"", b""
        return blob[line_end:out_end], blob[out_end:]

    def spare(self) -> Listing:
        """The spare's listing; empty when there is no usable record."""
        try:
            return Listing.decoded(orjson.loads(self._parts()[1]))
        except (ValueError, TypeError, KeyError, orjson.JSONDecodeError):
            return Listing()

    def rotate(self, out: Listing) -> None:
        """Record ``out`` as OUT's listing and OUT's recorded listing as the spare's: the
        swap just made the output it replaced the spare."""
        self._write(orjson.dumps(out.encoded()), self._parts()[0])

    def save(self, out: Listing) -> None:
        """Record OUT's listing, and no spare."""
        self._write(orjson.dumps(out.encoded()), b"")

    def _write(self, out: bytes, spare: bytes) -> None:
        header = orjson.dumps({"format": FORMAT, "out": len(out), "spare": len(spare)})
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(
                self.record,
                b"".join((header, b"\n", out, spare)),
                mode=0o600,
                prefix=TEMPORARY_PREFIX,
                suffix=".json",
            )
        except OSError:  # without a record the next compile just writes everything
            pass


def identity(path: str) -> tuple[int, int, int] | None:
    """(size, inode, modification time) of a regular file, not following links."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    return found.st_size, found.st_ino, found.st_mtime_ns


def folder_identity(path: str) -> FolderIdentity | None:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_mtime_ns) if stat.S_ISDIR(found.st_mode) else None


def listing_of(
    folder: str,
    files: dict[str, Record],
    known: dict[str, FolderIdentity] | None = None,
) -> Listing:
    """The listing of a folder holding exactly ``files``: its folders' identities added,
    taken from ``known`` (identities read earlier, of folders whose entries have not changed
    since) or read now."""
    known = known or {}
    folders: dict[str, FolderIdentity] = {}
    for rel in files:
        parent = rel.rpartition("/")[0]
        while parent and parent not in folders:
            found = known.get(parent) or folder_identity(f"{folder}/{parent}")
            if found is not None:
                folders[parent] = found
            parent = parent.rpartition("/")[0]
    return Listing(files, folders)


@dataclass
class Survey:
    """What a spare holds: its files that are exactly as recorded, every entry found
    (files, links, anything but a real folder), and the folders whose identity is the
    recorded one, by relative path."""

    present: dict[str, Record] = field(default_factory=dict)
    found: set[str] = field(default_factory=set)
    folders: dict[str, FolderIdentity] = field(default_factory=dict)


def verified(folder: str, recorded: Listing) -> Survey:
    """Survey ``folder`` against its record.

    Folders are entered from the top, never through a link. A recorded folder whose identity
    is unchanged still holds the entries it held, so only the top folder and folders that
    changed are read. A file's contents can change without its folder's identity changing,
    so every file's own identity is compared too."""
    survey = Survey()
    _survey_folders(folder, recorded, survey)
    found, present, lstat, regular = survey.found, survey.present, os.lstat, stat.S_ISREG
    # In the record's order, which is the order the files were written: neighbours on disk
    # follow each other, and the kernel finds them faster than in a set's order.
    for rel, record in recorded.files.items():
        if rel not in found:
            continue
        try:
            now = lstat(f"{folder}/{rel}")
        except OSError:
            continue
        if (
            now.st_mtime_ns == record[3]
            and now.st_ino == record[2]
            and now.st_size == record[1]
            and regular(now.st_mode)
        ):
            present[rel] = record
    return survey


def _survey_folders(folder: str, recorded: Listing, survey: Survey) -> None:
    folders_in: dict[str, list[str]] = {}
    for rel in recorded.folders:
        folders_in.setdefault(rel.rpartition("/")[0], []).append(rel)
    found, unchanged = survey.found, survey.folders
    pending = [""]
    while pending:
        current = pending.pop()
        ident = recorded.folders.get(current)
        if current and ident is not None and folder_identity(f"{folder}/{current}") == ident:
            unchanged[current] = ident
            pending.extend(folders_in.get(current, ()))
            continue
        pending.extend(_read_folder(folder, current, found))
    # The recorded files of unchanged folders are still there (the rest were found above).
    found.update(rel for rel in recorded.files if rel.rpartition("/")[0] in unchanged)


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
