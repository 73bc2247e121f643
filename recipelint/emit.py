"""The only code that writes compiled output: all of it, or nothing.

The whole API is written into a fresh folder beside OUT and swapped in with renames,
so a compile that fails (or is killed) leaves the previous OUT exactly as it was.
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


def write_files(files: Iterable[tuple[str, bytes]], folder: Path) -> int:
    """Write each (relative path, bytes) under the fresh folder ``folder``; returns the count.

    ``files`` is consumed lazily and at most a bounded number of writes are pending,
    so the serialised API never has to be held in memory all at once.
    """
    base = os.fspath(folder)
    made: set[str] = set()
    pending: deque[Future[None]] = deque()
    batch: list[tuple[str, bytes]] = []
    count = 0
    with ThreadPoolExecutor(WRITER_THREADS) as pool:
        try:
            for rel, data in files:
                if not _safe_relative(rel):
                    raise EmitError(f"refusing to write {rel!r}: not a plain relative path")
                parent = rel.rpartition("/")[0]
                if parent and parent not in made:
                    os.makedirs(os.path.join(base, parent), exist_ok=True)
                    made.add(parent)
                batch.append((rel, data))
                count += 1
                if len(batch) == WRITE_BATCH:
                    pending.append(pool.submit(_write_batch, base, batch))
                    batch = []
                    if len(pending) > MAX_PENDING_WRITES // WRITE_BATCH:
                        pending.popleft().result()
            if batch:
                pending.append(pool.submit(_write_batch, base, batch))
        finally:
            for future in pending:
                future.result()
    return count


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


def replace_folder(files: Iterable[tuple[str, bytes]], out: Path) -> int:
    """Write ``files`` to a temporary folder beside ``out``, then swap it in."""
    out = Path(os.path.abspath(out))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    except OSError as exc:
        raise EmitError(f"cannot create a folder beside {out}: {exc.strerror or exc}") from exc
    try:
        count = write_files(files, staging)
        os.chmod(staging, 0o755)
    except BaseException as exc:
        remove_folder(staging)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise EmitError(f"could not write the output: {exc}") from exc
    with _swap_lock(out.parent):
        _swap(staging, out)
    return count


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
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
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
