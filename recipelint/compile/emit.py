"""The only code that writes compiled output: all of it, or nothing.

The API is written into a fresh staging folder beside OUT as it is produced and swapped
in with renames, so a compile that fails (or is killed) leaves the previous OUT exactly
as it was. A compile holds a lock on its staging folder while it runs; the staging
folders of compiles that died are removed by the next one, under the swap lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from recipelint.atomicfile import folder_lock, held, lock
from recipelint.compile.carryover import (
    CarryOver,
    FolderIdentity,
    Listing,
    Record,
    Survey,
    digest,
    identity,
    listing_of,
    spare_folder,
    verified,
)

# A folder we are about to replace must look like an earlier compile's output.
OUTPUT_MARKER = "models.json"


class EmitError(Exception):
    """The output could not be written; OUT is unchanged."""


class Stored(Protocol):
    """A file's bytes kept elsewhere (a cache entry), read only when they must be written:
    a spare already holding bytes of that digest keeps its file."""

    digest: str  # recipelint.compile.carryover.digest of the bytes

    def read(self) -> bytes: ...


# What a file is written from: its bytes, or where they are stored.
Content = bytes | Stored
# A step: (path, content) writes a new file, (path, None) is `rm -rf path`.
Step = tuple[str, Content | None]


class Withdrawn(Exception):
    """Raised by the files being written to call the output off (the compile found errors);
    the staging folder is removed and the exception passes through unchanged."""


def check_destination(out: Path, tree_root: Path) -> None:
    """Refuse destinations whose replacement would destroy something that is not ours."""
    out = Path(os.path.abspath(out))
    root = Path(os.path.abspath(tree_root))
    if out == Path(out.anchor):
        raise EmitError(f"{out} is a filesystem root; choose a folder for the compiled API")
    if out == root or out in root.parents:
        raise EmitError(f"{out} holds the recipe tree {root}; writing there would delete it")
    if out.is_symlink():
        raise EmitError(f"{out} is a symbolic link; name the real folder")
    if out.exists():
        if not out.is_dir():
            raise EmitError(f"{out} exists and is not a folder")
        if any(out.iterdir()) and not (out / OUTPUT_MARKER).is_file():
            raise EmitError(
                f"{out} is not empty and holds no {OUTPUT_MARKER}, so it is not an earlier compile's "
                "output; refusing to replace it"
            )
        foreign = foreign_files(out)
        if foreign:
            shown = ", ".join(foreign[:FOREIGN_SHOWN]) + (
                ", …" if len(foreign) > FOREIGN_SHOWN else ""
            )
            raise EmitError(
                f"{out} holds {len(foreign)} file{'s' * (len(foreign) != 1)} no compile writes "
                f"({shown}); refusing to replace it: move them out or choose another folder"
            )


FOREIGN_SHOWN = 5
# Every file of the JSON API is a JSON document (the tree-wide files, models.json, each
# recipe's, variant's and hardware's document, quickstart): anything else in OUT was put
# there by someone else, and replacing OUT would delete it.
API_FILE_SUFFIX = ".json"


def foreign_files(out: Path) -> list[str]:
    """The entries of an earlier output that no compile writes (relative, sorted): files
    not named *.json, and links, pipes or devices. A compile writes nothing else, so an
    output any version of recipelint wrote has none."""
    found: list[str] = []
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            with os.scandir(out / rel if rel else out) as entries:
                for entry in entries:
                    path = f"{rel}{entry.name}"
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(path + "/")
                    elif not (
                        entry.is_file(follow_symlinks=False)
                        and entry.name.endswith(API_FILE_SUFFIX)
                    ):
                        found.append(path)
        except OSError:
            found.append(rel or ".")  # a folder that cannot be listed cannot be accounted for
    return sorted(found, key=lambda name: name.encode("utf-8", "surrogateescape"))


def _safe_relative(path: str) -> bool:
    if (  # the common case, in a few C-level tests: no segment is empty or starts with a dot
        path[:1] not in ("", "/", ".")
        and path[-1] != "/"
        and "//" not in path
        and "/." not in path
        and "\\" not in path
        and "\x00" not in path
    ):
        return True
    return (
        bool(path)
        and not path.startswith("/")
        and "\\" not in path
        and "\x00" not in path
        and all(part not in ("", ".", "..") for part in path.split("/"))
    )


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
# A file of our own staging folder rewritten in place: no directory entry is made or removed.
_OWN_FILE = os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)


def _write_one(path: str, data: bytes, flags: int) -> None:
    fd = os.open(path, flags, 0o644)
    try:
        done = os.write(fd, data)
        if done < len(data):  # a regular file takes it all at once unless the disk is full
            view = memoryview(data)[done:]
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_files(files: Iterable[Step], folder: Path) -> int:
    """Write each (relative path, content) under the fresh folder ``folder``; returns the count.

    A (path, None) step is `rm -rf path` of what earlier steps wrote (upstream's overwrite
    semantics, replayed in order). ``files`` is consumed lazily, each file written as it
    comes, so the serialised API is never held in memory all at once.
    """
    return _write_all(files, _Writer(os.fspath(folder)))


def _write_all(files: Iterable[Step], writer: _Writer, checked: bool = False) -> int:
    """Write the steps in order; ``checked`` says every path was already found safe (a
    compile's paths all pass its PathLedger), so none is checked again."""
    # Each file is written as it comes, by this thread. Creating a file is kernel work more
    # than waiting; writer threads (four, or one with large batches) cost more CPU than they
    # saved, since after each of a file's three system calls the writing thread must win the
    # interpreter lock back from the thread rendering the documents.
    add, remove, safe = writer.add, writer.remove, _safe_relative
    for rel, data in files:
        if not checked and not safe(rel):
            raise EmitError(f"refusing to write {rel!r}: not a plain relative path")
        if data is None:
            remove(rel)
        else:
            add(rel, data)
    writer.finish()
    return writer.count


class _Writer:
    """Files written into a fresh folder, in the order they were given."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.made: set[str] = set()
        self.count = 0

    def add(self, rel: str, data: Content) -> None:
        parent = rel.rpartition("/")[0]
        if parent and parent not in self.made:
            self._make(parent)
        _write_one(
            f"{self.base}/{rel}", data if isinstance(data, bytes) else data.read(), _NEW_FILE
        )
        self.count += 1

    def _make(self, folder: str) -> None:
        """Make ``folder`` and the parents it lacks: one mkdir each, no stat (os.makedirs
        asks whether every parent exists, a system call per folder for nothing)."""
        missing = []
        while folder and folder not in self.made:
            missing.append(folder)
            folder = folder.rpartition("/")[0]
        for name in reversed(missing):
            try:
                os.mkdir(f"{self.base}/{name}")
            except FileExistsError:  # an earlier output's, when updating one
                pass
            else:
                self._changed(name)
                self._changed(name.rpartition("/")[0])
            self.made.add(name)

    def _changed(self, folder: str) -> None:
        """An entry of ``folder`` was made or removed (its identity changed)."""

    def finish(self) -> None:
        """Called once every file is written."""

    def remove(self, rel: str) -> None:
        """`rm -rf rel` of what was written, then drop folders left empty."""
        target = f"{self.base}/{rel}"
        if os.path.isdir(target) and not os.path.islink(target):
            gone = [rel]
            for current, folders, names in os.walk(target):
                self.count -= len(names)
                below = rel + current[len(target) :]
                gone.extend(f"{below}/{folder}" for folder in folders)
            shutil.rmtree(target)
            self.made.difference_update(gone)
        elif os.path.lexists(target):
            self.count -= 1
            os.unlink(target)
        else:
            return
        parent = rel.rpartition("/")[0]
        while parent:
            try:
                os.rmdir(f"{self.base}/{parent}")
            except OSError:  # not empty: it and its parents stay
                break
            self.made.discard(parent)
            parent = parent.rpartition("/")[0]


class _UpdatingWriter(_Writer):
    """Brings an earlier output (the spare) up to date: a file whose bytes are already there,
    as recorded, is kept; others are written; what the new output lacks is deleted."""

    def __init__(self, base: str, survey: Survey) -> None:
        super().__init__(base)
        self.present = survey.present  # files on disk with known bytes
        self.found = survey.found  # every entry the folder held
        self.unchanged = survey.folders  # folders whose recorded identity is still theirs
        self.touched: set[str] = set()  # folders whose entries this compile changed
        self.kept: dict[str, Record | None] = {}  # the new output; None: written now
        self.written = 0

    def add(self, rel: str, data: Content) -> None:
        record = self.present.get(rel)
        if record is not None and record[0] == (
            data.digest if not isinstance(data, bytes) else digest(data)
        ):
            self.kept[rel] = record
            return
        if not isinstance(data, bytes):
            data = data.read()
        fresh = digest(data)
        if record is None:
            self._clear_way(rel)
            self._changed(rel.rpartition("/")[0])
        self.present[rel] = (fresh, -1, -1, -1)  # bytes known, identity read at the end
        self.found.add(rel)
        self.kept[rel] = None
        self.written += 1
        if record is None:
            parent = rel.rpartition("/")[0]
            if parent and parent not in self.made:
                self._make(parent)
        _write_one(f"{self.base}/{rel}", data, _NEW_FILE if record is None else _OWN_FILE)

    def _changed(self, folder: str) -> None:
        self.touched.add(folder)

    def _clear_way(self, rel: str) -> None:
        """Remove what the spare holds at ``rel`` or in place of one of its folders, from
        the top down, so nothing is ever reached through a link."""
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in self.made:
                continue
            folder = os.path.join(self.base, parent)
            if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
                os.unlink(folder)  # a link or a file where a folder must be
                self._changed(parent.rpartition("/")[0])
                break  # nothing below it exists any more
        target = os.path.join(self.base, rel)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        elif os.path.lexists(target):
            os.unlink(target)

    def remove(self, rel: str) -> None:
        # Left on disk and dropped from the new output: deleted at the end unless written again.
        for path in [p for p in self.kept if p == rel or p.startswith(rel + "/")]:
            del self.kept[path]

    def finish(self) -> None:
        for rel in self.found - self.kept.keys():
            path = os.path.join(self.base, rel)
            if os.path.isdir(path) and not os.path.islink(path):
                continue  # a link or file this compile replaced by a folder of the output
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            self._changed(rel.rpartition("/")[0])
            self._drop_empty_parents(rel)
        self.count = len(self.kept)

    def _drop_empty_parents(self, rel: str) -> None:
        parent = rel.rpartition("/")[0]
        while parent:
            try:
                os.rmdir(os.path.join(self.base, parent))
            except OSError:
                break
            parent = parent.rpartition("/")[0]
            self._changed(parent)

    def listing(self) -> Listing:
        """Every file of the new output with its digest and identity on disk; a folder's
        identity read when the spare was surveyed is reused while its entries are as they
        were then."""
        known: dict[str, FolderIdentity] = {
            folder: ident for folder, ident in self.unchanged.items() if folder not in self.touched
        }
        return listing_of(self.base, self._records(), known)

    def _records(self) -> dict[str, Record]:
        done: dict[str, Record] = {}
        for rel, record in self.kept.items():
            if record is None:
                found = identity(os.path.join(self.base, rel))
                if found is None:
                    continue  # not a plain file any more: the next compile rewrites it
                record = (self.present[rel][0], *found)
            done[rel] = record
        return done


REMOVER_THREADS = 4


def remove_folder(folder: Path) -> None:
    """Delete a folder this module created (staging or retired output), files in parallel."""
    files: list[str] = []
    folders: list[str] = []
    for current, dirs, names in os.walk(folder, topdown=False):
        files.extend(os.path.join(current, name) for name in names)
        files.extend(
            os.path.join(current, d) for d in dirs if os.path.islink(os.path.join(current, d))
        )
        folders.append(current)
    # Here the threads have the interpreter to themselves, and an unlink may wait on the disk.
    with ThreadPoolExecutor(REMOVER_THREADS) as pool:
        list(pool.map(_unlink_all, [files[i : i + 32] for i in range(0, len(files), 32)]))
    for current in folders:
        try:
            os.rmdir(current)
        except OSError:
            shutil.rmtree(current, ignore_errors=True)


def _unlink_all(paths: list[str]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


def replace_folder(
    files: Iterable[Step], out: Path, carry: CarryOver | None = None, checked: bool = False
) -> int:
    """Write ``files`` to a staging folder beside ``out`` as they come, then swap it in.

    With ``carry`` (a compile with a cache), the staging folder is the output before the
    current one when it was kept (see :mod:`recipelint.compile.carryover`): only files whose bytes
    changed are written, and the replaced output is kept in turn. ``checked`` says the
    paths come from a compile's PathLedger, which refuses every unsafe one: they are not
    checked again."""
    out = Path(os.path.abspath(out))
    staging, hold, spare = _new_staging(out, carry)
    try:
        writer = _writer_for(staging, carry, spare)
        try:
            count = _write_all(files, writer, checked)
            os.chmod(staging, 0o755)
        except BaseException as exc:
            remove_folder(staging)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, Withdrawn)):
                raise
            raise EmitError(f"could not write the output: {exc}") from exc
        new_output = _folder_id(staging)
        try:
            with folder_lock(out.parent):
                _sweep(out)
                if carry is None or not isinstance(writer, _UpdatingWriter):
                    _swap(staging, out)
                else:
                    _swap_keeping(staging, out, carry, writer.listing())
        except KeyboardInterrupt:
            if _folder_id(out) != new_output:
                raise  # before the swap: OUT is the previous output, the staging folder goes
            _interrupted_after_swap(staging, carry)
    finally:
        os.close(hold)
    return count


def _folder_id(folder: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(folder, follow_symlinks=False)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _interrupted_after_swap(staging: Path, carry: CarryOver | None) -> None:
    """Interrupted once the new output was in place: the compile has succeeded. What the
    swap replaced is removed now if it is still at the staging path, else by the next
    compile's sweep; the record of the kept output is dropped (it may describe neither)."""
    with contextlib.suppress(KeyboardInterrupt, OSError):
        if carry is not None:
            carry.save(Listing())
        if os.path.lexists(staging):
            remove_folder(staging)


def _writer_for(staging: Path, carry: CarryOver | None, spare: Listing | None) -> _Writer:
    if carry is None:
        return _Writer(os.fspath(staging))
    if spare is None:
        return _UpdatingWriter(os.fspath(staging), Survey())
    return _UpdatingWriter(os.fspath(staging), verified(os.fspath(staging), spare))


def _swap_keeping(staging: Path, out: Path, carry: CarryOver, records: Listing) -> None:
    """The swap, keeping the replaced output as the spare, and the record of both."""
    spare = spare_folder(out)
    try:
        exchanged = os.path.lexists(out) and _exchange(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise EmitError(f"could not move the output into place: {exc}") from exc
    if not exchanged:
        _swap(staging, out)
        carry.save(records)
        return
    try:
        if os.path.lexists(spare):
            remove_folder(spare)  # a spare this compile did not take (it had no record)
        os.rename(staging, spare)
    except OSError:
        remove_folder(staging)
        carry.save(records)
        return
    carry.rotate(records)


STAGING_INFIX = ".new-"
RETIRED_INFIX = ".old-"


def _new_staging(out: Path, carry: CarryOver | None) -> tuple[Path, int, Listing | None]:
    """A staging folder beside ``out``, an open descriptor holding its lock, and, when it is
    the kept spare of an earlier compile, that spare's record.

    It is made (or the spare taken) and locked under the swap lock, so a sweep (which runs
    under that lock too) never sees a live compile's folder unlocked."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with folder_lock(out.parent):
            staging = Path(tempfile.mkdtemp(prefix=f".{out.name}{STAGING_INFIX}", dir=out.parent))
            spare = _take_spare(out, staging, carry)
            hold = os.open(staging, os.O_RDONLY)
            lock(hold)
    except OSError as exc:
        raise EmitError(f"cannot create a folder beside {out}: {exc.strerror or exc}") from exc
    return staging, hold, spare


def _take_spare(out: Path, staging: Path, carry: CarryOver | None) -> Listing | None:
    """Move the kept spare to ``staging`` (an empty folder) when it has a record."""
    spare = spare_folder(out)
    if carry is None or spare.is_symlink() or not spare.is_dir():
        return None
    recorded = carry.spare()
    if not recorded.files:
        return None
    os.rmdir(staging)
    try:
        os.rename(spare, staging)
    except OSError:
        staging.mkdir()
        return None
    return recorded


def _sweep(out: Path) -> None:
    """Remove what compiles that are no longer running left beside ``out``: their staging
    folders, and retired outputs (moved back when OUT itself is missing). Runs under the
    swap lock; a folder whose lock is held belongs to a live compile and stays."""
    prefixes = (f".{out.name}{STAGING_INFIX}", f".{out.name}{RETIRED_INFIX}")
    try:
        names = sorted(os.listdir(out.parent))
    except OSError:
        return
    for name in names:
        if not name.startswith(prefixes):
            continue
        leftover = out.parent / name
        if leftover.is_symlink() or not leftover.is_dir() or held(leftover):
            continue
        previous = leftover / "previous"
        if name.startswith(prefixes[1]) and not os.path.lexists(out) and previous.is_dir():
            try:
                os.rename(previous, out)  # killed between the two renames of the fallback swap
            except OSError:
                continue  # leave it for a person to look at rather than lose it
        remove_folder(leftover)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux renameat2); False where that is not supported.

    Two renames leave a moment with no OUT at all; a kill there would lose it."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), os.fspath(b))


def _swap(staging: Path, out: Path) -> None:
    if not out.exists():
        try:
            os.rename(staging, out)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise EmitError(f"could not move the output into place: {exc}") from exc
        return
    try:
        exchanged = _exchange(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise EmitError(f"could not move the output into place: {exc}") from exc
    if exchanged:
        remove_folder(staging)  # it now holds the previous output
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}{RETIRED_INFIX}", dir=out.parent))
    try:
        os.rename(out, retired / "previous")
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        os.rmdir(retired)
        raise EmitError(f"could not move the previous output aside: {exc}") from exc
    try:
        os.rename(staging, out)
    except OSError as exc:
        os.rename(retired / "previous", out)
        shutil.rmtree(staging, ignore_errors=True)
        os.rmdir(retired)
        raise EmitError(f"could not move the output into place: {exc}") from exc
    remove_folder(retired)
