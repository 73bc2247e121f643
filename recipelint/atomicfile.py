"""Files replaced whole, and the leftovers of runs that died while replacing them.

A file is written under a temporary name beside its destination and renamed over it, so
a reader sees the old bytes or the new ones, never part of them, and a write that fails
(a full disk) leaves the destination as it was. While a run writes a temporary file (or
a compile its staging folder, :mod:`recipelint.compile.emit`) it holds an flock on it; the kernel
releases the lock when the process dies, however it dies. Temporary files are made, and
leftovers swept, under a lock on their folder, so a sweep never meets a live run's file
before that run has locked it: an unlocked leftover belongs to a run that is gone.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locks, nothing is ever swept
    fcntl = None  # type: ignore[assignment]

TEMPORARY_SUFFIX = ".tmp"


# Folder locks this process holds, per thread: taking one again (a cache folder that is also
# OUT's parent, locked for the swap and for writing the cache's record) must not wait on itself.
_HELD_HERE: dict[tuple[int, int, int], int] = {}


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Serialise making and sweeping temporaries (or swapping outputs) in ``folder``. The
    lock is on the folder itself, so it leaves no lock file behind; a thread already
    holding it takes it again at once."""
    if fcntl is None:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        found = os.fstat(fd)
        key = (found.st_dev, found.st_ino, threading.get_ident())
        depth = _HELD_HERE.get(key, 0)
        if depth == 0:
            fcntl.flock(fd, fcntl.LOCK_EX)
        _HELD_HERE[key] = depth + 1
        try:
            yield
        finally:
            if depth == 0:
                del _HELD_HERE[key]
            else:
                _HELD_HERE[key] = depth
    finally:
        os.close(fd)


def lock(fd: int) -> None:
    """Hold ``fd``'s lock until it is closed (or the process ends)."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)


def held(path: Path) -> bool:
    """Whether a live process holds the lock of the file or folder at ``path``."""
    if fcntl is None:
        return True  # without locks a live run cannot be told apart: treat every one as live
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


@dataclass
class StagedFile:
    """New bytes for ``destination``, written and locked under ``temporary`` beside it."""

    destination: Path
    temporary: Path
    fd: int

    def commit(self) -> None:
        """Rename the temporary file over the destination."""
        try:
            os.replace(self.temporary, self.destination)
        except BaseException:
            self.discard()
            raise
        os.close(self.fd)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.temporary)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def stage_file(
    destination: Path,
    data: bytes,
    mode: int | None = None,
    prefix: str | None = None,
    suffix: str = TEMPORARY_SUFFIX,
) -> StagedFile:
    """Write ``data`` to a new locked temporary file beside ``destination``, named
    ``<prefix><random><suffix>`` (``.<name>.<random>.tmp`` by default); nothing is left
    on failure."""
    import tempfile

    folder = destination.parent
    with folder_lock(folder):
        fd, name = tempfile.mkstemp(
            dir=folder, prefix=prefix or f".{destination.name}.", suffix=suffix
        )
        lock(fd)
    staged = StagedFile(destination, Path(name), fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if mode is not None:
            os.fchmod(fd, mode)
    except BaseException:
        staged.discard()
        raise
    return staged


def write_atomic(
    destination: Path,
    data: bytes,
    mode: int | None = None,
    prefix: str | None = None,
    suffix: str = TEMPORARY_SUFFIX,
) -> None:
    """Replace ``destination`` with ``data`` in one rename; on failure it is unchanged.

    A link is followed (the file it names is replaced, the link kept); a destination that
    is not a regular file (/dev/stdout, a pipe) cannot be renamed over and is written in
    place. A new file gets the mode the umask gives; a replaced one keeps its own."""
    target = Path(os.path.realpath(destination))
    try:
        found = os.stat(target)
    except FileNotFoundError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode):
        with open(target, "wb") as stream:
            stream.write(data)
        return
    if mode is None:
        mode = stat.S_IMODE(found.st_mode) if found is not None else 0o666 & ~_umask()
    stage_file(target, data, mode, prefix, suffix).commit()


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def sweep_temporaries(folder: Path, ours: Callable[[str], bool]) -> list[Path]:
    """Remove the temporary files in ``folder`` whose names ``ours`` accepts (the names
    :func:`stage_file` gives) and whose run is gone (no lock held on them); the paths removed."""
    removed: list[Path] = []
    try:
        with folder_lock(folder):
            for name in sorted(os.listdir(folder)):
                path = folder / name
                if not ours(name) or path.is_symlink():
                    continue
                if not path.is_file() or held(path):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed.append(path)
    except OSError:
        pass  # a folder we cannot list or lock keeps its leftovers: they harm nothing
    return removed
