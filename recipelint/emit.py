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
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, the swap is still all-or-nothing
    fcntl = None  # type: ignore[assignment]

# A folder we are about to replace must look like an earlier compile's output.
OUTPUT_MARKER = "models.json"


class EmitError(Exception):
    """The output could not be written; OUT is unchanged."""


class Withdrawn(Exception):  # noqa: N818 - a decision, not a fault
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


def _safe_relative(path: str) -> bool:
    parts = path.split("/")
    return (
        bool(path)
        and not path.startswith("/")
        and "\\" not in path
        and "\x00" not in path
        and all(part not in ("", ".", "..") for part in parts)
    )


# Writing thousands of small files is bound by filesystem latency, not CPU: a few
# threads keep several writes in flight (os.write and open release the GIL).
WRITER_THREADS = 4
MAX_PENDING_WRITES = 256
# Files go to a thread in batches: a future per file cost more CPU than the write itself.
WRITE_BATCH = 32


def _write_one(base: str, rel: str, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.path.join(base, rel), flags, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_files(files: Iterable[tuple[str, bytes | None]], folder: Path) -> int:
    """Write each (relative path, bytes) under the fresh folder ``folder``; returns the count.

    A (path, None) step is `rm -rf path` of what earlier steps wrote (upstream's overwrite
    semantics, replayed in order). ``files`` is consumed lazily and at most a bounded number
    of writes are pending, so the serialised API is never held in memory all at once.
    """
    writer = _Writer(os.fspath(folder))
    with ThreadPoolExecutor(WRITER_THREADS) as pool:
        try:
            for rel, data in files:
                if not _safe_relative(rel):
                    raise EmitError(f"refusing to write {rel!r}: not a plain relative path")
                if data is None:
                    writer.remove(pool, rel)
                else:
                    writer.add(pool, rel, data)
            writer.flush(pool)
        finally:
            writer.drain()
    return writer.count


class _Writer:
    """Batches of files in flight on a thread pool, in the order they were given."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.made: set[str] = set()
        self.pending: deque[Future[None]] = deque()
        self.batch: list[tuple[str, bytes]] = []
        self.count = 0

    def add(self, pool: ThreadPoolExecutor, rel: str, data: bytes) -> None:
        parent = rel.rpartition("/")[0]
        if parent and parent not in self.made:
            os.makedirs(os.path.join(self.base, parent), exist_ok=True)
            self.made.add(parent)
        self.batch.append((rel, data))
        self.count += 1
        if len(self.batch) == WRITE_BATCH:
            self.flush(pool)
            if len(self.pending) > MAX_PENDING_WRITES // WRITE_BATCH:
                self.pending.popleft().result()

    def flush(self, pool: ThreadPoolExecutor) -> None:
        if self.batch:
            self.pending.append(pool.submit(_write_batch, self.base, self.batch))
            self.batch = []

    def drain(self) -> None:
        while self.pending:
            self.pending.popleft().result()

    def remove(self, pool: ThreadPoolExecutor, rel: str) -> None:
        """`rm -rf rel` once every earlier write is done, then drop folders left empty."""
        self.flush(pool)
        self.drain()
        target = os.path.join(self.base, rel)
        if os.path.isdir(target) and not os.path.islink(target):
            self.count -= sum(len(names) for _, _, names in os.walk(target))
            shutil.rmtree(target)
        elif os.path.lexists(target):
            self.count -= 1
            os.unlink(target)
        else:
            return
        self.made = {m for m in self.made if m != rel and not m.startswith(rel + "/")}
        parent = rel.rpartition("/")[0]
        while parent:
            try:
                os.rmdir(os.path.join(self.base, parent))
            except OSError:  # not empty: it and its parents stay
                break
            self.made.discard(parent)
            parent = parent.rpartition("/")[0]


def _write_batch(base: str, batch: list[tuple[str, bytes]]) -> None:
    for rel, data in batch:
        _write_one(base, rel, data)


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
    with ThreadPoolExecutor(WRITER_THREADS) as pool:
        list(
            pool.map(
                _unlink_all, [files[i : i + WRITE_BATCH] for i in range(0, len(files), WRITE_BATCH)]
            )
        )
    for current in folders:
        try:
            os.rmdir(current)
        except OSError:
            shutil.rmtree(current, ignore_errors=True)


def _unlink_all(paths: list[str]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


def replace_folder(files: Iterable[tuple[str, bytes | None]], out: Path) -> int:
    """Write ``files`` to a staging folder beside ``out`` as they come, then swap it in."""
    out = Path(os.path.abspath(out))
    staging, hold = _new_staging(out)
    try:
        try:
            count = write_files(files, staging)
            os.chmod(staging, 0o755)
        except BaseException as exc:
            remove_folder(staging)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, Withdrawn)):
                raise
            raise EmitError(f"could not write the output: {exc}") from exc
        with _swap_lock(out.parent):
            _sweep(out)
            _swap(staging, out)
    finally:
        os.close(hold)
    return count


STAGING_INFIX = ".new-"
RETIRED_INFIX = ".old-"


def _new_staging(out: Path) -> tuple[Path, int]:
    """A fresh staging folder beside ``out`` and an open descriptor holding its lock.

    It is made and locked under the swap lock, so a sweep (which runs under that lock too)
    never sees a live compile's folder unlocked."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with _swap_lock(out.parent):
            staging = Path(tempfile.mkdtemp(prefix=f".{out.name}{STAGING_INFIX}", dir=out.parent))
            hold = os.open(staging, os.O_RDONLY)
            if fcntl is not None:
                fcntl.flock(hold, fcntl.LOCK_EX)
    except OSError as exc:
        raise EmitError(f"cannot create a folder beside {out}: {exc.strerror or exc}") from exc
    return staging, hold


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
        if leftover.is_symlink() or not leftover.is_dir() or _held(leftover):
            continue
        previous = leftover / "previous"
        if name.startswith(prefixes[1]) and not os.path.lexists(out) and previous.is_dir():
            try:
                os.rename(previous, out)  # killed between the two renames of the fallback swap
            except OSError:
                continue  # leave it for a person to look at rather than lose it
        remove_folder(leftover)


def _held(folder: Path) -> bool:
    """Whether a live process holds the folder's lock (it is a compile's staging folder)."""
    if fcntl is None:
        return True  # without locks, a live compile cannot be told apart: sweep nothing
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


@contextlib.contextmanager
def _swap_lock(folder: Path) -> Iterator[None]:
    """Serialise swaps of two compiles into one folder. The lock is on the parent folder
    itself, so it leaves no lock file behind and is released when the process dies."""
    if fcntl is None:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


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
