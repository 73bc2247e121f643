"""The only code that writes compiled output: all of it, or nothing.

The whole API is written into a fresh folder beside OUT and swapped in with renames,
so a compile that fails (or is killed) leaves the previous OUT exactly as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

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


def write_files(files: Iterable[tuple[str, bytes]], folder: Path) -> int:
    """Write each (relative path, bytes) under ``folder``; returns the count."""
    made: set[str] = set()
    count = 0
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    base = os.fspath(folder)
    for rel, data in files:
        if not _safe_relative(rel):
            raise EmitError(f"refusing to write {rel!r}: not a plain relative path")
        parent = rel.rpartition("/")[0]
        if parent and parent not in made:
            os.makedirs(os.path.join(base, parent), exist_ok=True)
            made.add(parent)
        fd = os.open(os.path.join(base, rel), flags, 0o644)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        finally:
            os.close(fd)
        count += 1
    return count


def replace_folder(files: Iterable[tuple[str, bytes]], out: Path) -> int:
    """Write ``files`` to a temporary folder beside ``out``, then swap it in."""
    out = Path(os.path.abspath(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        count = write_files(files, staging)
        os.chmod(staging, 0o755)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise EmitError(f"could not write the output: {exc}") from exc
    _swap(staging, out)
    return count


def _swap(staging: Path, out: Path) -> None:
    if not out.exists():
        try:
            os.rename(staging, out)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise EmitError(f"could not move the output into place: {exc}") from exc
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
    shutil.rmtree(retired, ignore_errors=True)
