"""Read a vLLM (or vllm-omni) release's Python sources without importing them.

A release is either a wheel (a zip: only its ``*.py`` members under the
top-level package are read) or an unpacked folder holding that package.
Modules are parsed lazily with ``ast`` because a release has thousands of
files and the flag definitions touch only a few dozen of them.
"""

from __future__ import annotations

import ast
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ("vllm_omni", "vllm")


class SourceError(Exception):
    """The input is not a readable vLLM release (message is user-facing)."""


@dataclass
class Module:
    name: str
    is_package: bool
    tree: ast.Module
    text: str
    # Top-level bindings, including those made inside if/try blocks (TYPE_CHECKING imports).
    bindings: dict[str, ast.AST] = field(default_factory=dict)
    # `from x import *` statements, in source order: each may bind any name.
    star_imports: list[ast.ImportFrom] = field(default_factory=list)
    # Names bound under `if TYPE_CHECKING:`; at runtime they are something else (often Any).
    typing_only: set[str] = field(default_factory=set)


class SourceTree:
    """Lazy module index over the ``.py`` files of one release."""

    def __init__(self, files: dict[str, str | None], reader: _Reader, package: str) -> None:
        self._files = files  # posix path -> None until read
        self._reader = reader
        self.package = package
        self._modules: dict[str, Module | None] = {}
        # vllm-omni builds on vLLM's parser: its `vllm.*` imports resolve in this tree.
        self.fallback: SourceTree | None = None

    @classmethod
    def open(cls, path: Path) -> SourceTree:
        reader = _Reader.open(path)
        names = reader.names()
        for package in PACKAGES:
            if f"{package}/__init__.py" in names:
                files: dict[str, str | None] = {
                    n: None for n in names if n.startswith(f"{package}/") and n.endswith(".py")
                }
                return cls(files, reader, package)
        raise SourceError(f"{path}: no vllm/ or vllm_omni/ package found (not a vLLM release)")

    def close(self) -> None:
        self._reader.close()
        if self.fallback is not None:
            self.fallback.close()

    def has(self, relpath: str) -> bool:
        return relpath in self._files or (self.fallback is not None and self.fallback.has(relpath))

    def paths(self, prefix: str) -> list[str]:
        own = sorted(p for p in self._files if p.startswith(prefix))
        return own or (self.fallback.paths(prefix) if self.fallback is not None else [])

    def read(self, relpath: str) -> str:
        if relpath not in self._files and self.fallback is not None:
            return self.fallback.read(relpath)
        text = self._files.get(relpath)
        if text is None:
            text = self._reader.read(relpath)
            self._files[relpath] = text
        return text

    def module(self, dotted: str) -> Module | None:
        if dotted in self._modules:
            return self._modules[dotted]
        base = dotted.replace(".", "/")
        mod: Module | None = None
        for relpath, is_pkg in ((f"{base}.py", False), (f"{base}/__init__.py", True)):
            if relpath in self._files:
                mod = self._parse(dotted, relpath, is_pkg)
                break
        if mod is None and self.fallback is not None:
            mod = self.fallback.module(dotted)
        self._modules[dotted] = mod
        return mod

    def module_of_path(self, relpath: str) -> Module | None:
        dotted = relpath[: -len(".py")].replace("/", ".")
        if dotted.endswith(".__init__"):
            dotted = dotted[: -len(".__init__")]
        return self.module(dotted)

    def _parse(self, dotted: str, relpath: str, is_pkg: bool) -> Module | None:
        text = self.read(relpath)
        try:
            tree = ast.parse(text, filename=relpath)
        except SyntaxError:
            return None  # a module newer Python syntax we cannot read stays invisible
        mod = Module(dotted, is_pkg, tree, text)
        _collect_bindings(tree.body, mod.bindings, stars=mod.star_imports)
        for stmt in tree.body:
            if isinstance(stmt, ast.If) and ast.unparse(stmt.test).endswith("TYPE_CHECKING"):
                inner: dict[str, ast.AST] = {}
                _collect_bindings(stmt.body, inner, True)
                mod.typing_only |= set(inner)
        return mod


def _collect_bindings(
    body: list[ast.stmt],
    out: dict[str, ast.AST],
    nested: bool = False,
    stars: list[ast.ImportFrom] | None = None,
) -> None:
    """Module-level names. Inside if/try blocks the first binding wins: that keeps the
    `if TYPE_CHECKING: from x import Alias` reading over the runtime `else: Alias = Any`."""
    for stmt in body:
        names: list[str] = []
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [stmt.name]
        elif isinstance(stmt, ast.Assign):
            names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        elif (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.value is not None
        ):
            names = [stmt.target.id]
        elif isinstance(stmt, (ast.ImportFrom, ast.Import)):
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound == "*" and isinstance(stmt, ast.ImportFrom):
                    if stars is not None:
                        stars.append(stmt)
                    continue
                out.setdefault(bound, stmt)
        elif isinstance(stmt, ast.If):
            _collect_bindings(stmt.body, out, True, stars)
            _collect_bindings(stmt.orelse, out, True, stars)
        elif isinstance(stmt, ast.Try):
            _collect_bindings(stmt.body, out, True, stars)
            for handler in stmt.handlers:
                _collect_bindings(handler.body, out, True, stars)
        elif type(stmt).__name__ == "TypeAlias":  # `type X = ...` (3.12 syntax)
            names = [stmt.name.id]  # type: ignore[attr-defined]
        for name in names:
            if nested:
                out.setdefault(name, stmt)
            else:
                out[name] = stmt


class _Reader:
    def names(self) -> set[str]:
        raise NotImplementedError

    def read(self, relpath: str) -> str:
        raise NotImplementedError

    def close(self) -> None:
        pass

    @staticmethod
    def open(path: Path) -> _Reader:
        if path.is_dir():
            return _DirReader(path)
        if path.is_file():
            try:
                return _ZipReader(path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise SourceError(f"{path}: not a readable wheel ({exc})") from None
        raise SourceError(f"{path}: no such file or folder")


class _DirReader(_Reader):
    def __init__(self, root: Path) -> None:
        # Accept the folder holding vllm/ or the vllm/ folder itself.
        if (root / "__init__.py").is_file() and root.name in PACKAGES:
            root = root.parent
        self.root = root
        self._names: set[str] | None = None

    def names(self) -> set[str]:
        if self._names is None:
            found: set[str] = set()
            for package in PACKAGES:
                pkg_dir = self.root / package
                if pkg_dir.is_dir():
                    found.update(p.relative_to(self.root).as_posix() for p in pkg_dir.rglob("*.py"))
            self._names = found
        return self._names

    def read(self, relpath: str) -> str:
        return (self.root / relpath).read_text(encoding="utf-8", errors="replace")


class _ZipReader(_Reader):
    def __init__(self, path: Path) -> None:
        # No full CRC pass (testzip): it would read 500 MB; bad members fail on read.
        self.zip = zipfile.ZipFile(path)

    def names(self) -> set[str]:
        return {n for n in self.zip.namelist() if n.endswith(".py")}

    def read(self, relpath: str) -> str:
        try:
            return self.zip.read(relpath).decode("utf-8", errors="replace")
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
            raise SourceError(f"corrupt wheel member {relpath}: {exc}") from None

    def close(self) -> None:
        self.zip.close()


_VERSION_RE = re.compile(
    r"""^(?:__version__|version|VERSION)\s*[:=].*?['"]([0-9][^'"]*)['"]""", re.M
)


def release_version(tree: SourceTree, path: Path) -> str | None:
    """The release's version: from its _version.py, else from the wheel/folder name."""
    named = re.search(r"(?:vllm|vllm_omni|vllm-omni)-(\d+(?:\.\d+)+(?:\.post\d+)?)", path.name)
    for rel in (f"{tree.package}/_version.py", f"{tree.package}/version.py"):
        if tree.has(rel):
            match = _VERSION_RE.search(tree.read(rel))
            # Some sdists were cut from an untagged checkout and say e.g. 0.6.1.dev238
            # for 0.6.2: a development version defers to the release the file is named for.
            if match and not (named and ".dev" in match.group(1)):
                return _public_version(match.group(1))
    return named.group(1) if named else None


def _public_version(raw: str) -> str:
    # Wheels built from tags carry e.g. "0.17.0" or "0.17.0+cu129"; keep the public part.
    return raw.split("+", 1)[0]
