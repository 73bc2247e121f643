"""A recipe tree on disk: which files exist, in the order the upstream compiler reads them.

Upstream: docs/upstream-behaviour.md#reading-order and #hf-id.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity, Span

if TYPE_CHECKING:
    from recipelint.checkcache import DocumentCache
from recipelint.read.load import (
    DEFAULT_LIMITS,
    Document,
    LoadLimits,
    decode_source,
    load_document,
    parse_yaml,
    read_within,
)

RECIPE_SUFFIXES = (".yaml", ".yml")


@dataclass
class RecipeTree:
    root: Path
    taxonomy: Document | None = None
    platforms: Document | None = None
    strategies: list[Document] = field(default_factory=list)
    kv_stores: list[Document] = field(default_factory=list)
    recipes: list[Document] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)

    def documents(self) -> Iterator[Document]:
        for doc in (self.taxonomy, self.platforms):
            if doc is not None:
                yield doc
        yield from self.strategies
        yield from self.kv_stores
        yield from self.recipes

    def all_problems(self) -> Iterator[Diagnostic]:
        yield from self.problems
        for doc in self.documents():
            yield from doc.problems


def byte_sorted(names: list[str]) -> list[str]:
    """Node's readdirSync order: file names compared as UTF-8 bytes (docs/upstream-behaviour.md#reading-order)."""
    return sorted(names, key=lambda name: name.encode("utf-8", "surrogateescape"))


def is_tree_root(folder: Path) -> bool:
    return (folder / "taxonomy.yaml").is_file() and (folder / "models").is_dir()


def find_tree_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` that holds taxonomy.yaml and models/."""
    current = path.resolve()
    if not current.is_dir():
        current = current.parent
    for folder in (current, *current.parents):
        if is_tree_root(folder):
            return folder
    return None


# A file name part: what a recipe id's org and repo, or a strategy's name, must be to place one.
_PLACE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def place_of_document(text: bytes) -> str | None:
    """The tree path a document belongs at, read from its content: a recipe at
    models/<model_id>.yaml, a strategy or kv_store file by its name and deploy type,
    taxonomy.yaml, platforms.yaml. None when the content does not say."""
    try:
        data = parse_yaml(text.decode("utf-8"), positions=False).data
    except UnicodeDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    if "hardware_profiles" in data:
        return "taxonomy.yaml"
    if "platforms" in data:
        return "platforms.yaml"
    name, deploy_type = data.get("name"), data.get("deploy_type")
    if isinstance(name, str) and _PLACE_PART.match(name) and isinstance(deploy_type, str):
        return f"{'kv_store' if deploy_type == 'kv_store_lb' else 'strategies'}/{name}.yaml"
    model = data.get("model")
    model_id = model.get("model_id") if isinstance(model, dict) else None
    if isinstance(model_id, str) and model_id.count("/") == 1:
        org, repo = model_id.split("/")
        if _PLACE_PART.match(org) and _PLACE_PART.match(repo) and ".." not in model_id:
            return f"models/{org}/{repo}.yaml"
    return None


def recipe_hf_id(rel: str) -> str | None:
    """models/<org>/.../<repo>.yaml -> org/repo; upstream drops any middle folders (docs/upstream-behaviour.md#hf-id)."""
    parts = rel.split("/")
    if parts and parts[0] == "models":
        parts = parts[1:]
    if len(parts) < 2:
        return None
    repo = parts[-1]
    for suffix in RECIPE_SUFFIXES:
        if repo.endswith(suffix):
            repo = repo[: -len(suffix)]
            break
    return f"{parts[0]}/{repo}"


class Walker:
    """Lists files inside the tree without ever following a link out of it."""

    def __init__(self, root: Path, problems: list[Diagnostic]):
        self.root = root
        self.resolved_root = root.resolve()
        self.problems = problems
        # Real folders already entered: links that lead back into one (loops, or two links to
        # the same folder) would make the walk exponential, so each folder is walked once.
        self.entered: set[Path] = set()

    def escapes(self, path: Path) -> bool:
        if not path.is_symlink():
            return False
        target = path.resolve()
        if target == self.resolved_root or self.resolved_root in target.parents:
            return False
        self.problems.append(
            Diagnostic(
                path,
                Span(1, 1),
                "RL012",
                Severity.ERROR,
                f"symbolic link points outside the recipe tree (to {target}); it was not followed",
                "replace the link with the file itself",
            )
        )
        return True

    def listing(self, folder: Path) -> list[Path]:
        if self.escapes(folder):  # models/, strategies/ or kv_store/ may themselves be links
            return []
        return [folder / entry.name for entry in self._entries(folder)]

    def _entries(self, folder: Path) -> list[os.DirEntry[str]]:
        """The folder's entries with plain names, in byte order; each knows whether it is a
        link, a folder or a file without another system call (scandir's file types)."""
        try:
            with os.scandir(folder) as listed:
                entries = {entry.name: entry for entry in listed}
        except OSError:
            return []
        return [
            entries[name] for name in byte_sorted(list(entries)) if self.plain_name(folder / name)
        ]

    def plain_name(self, path: Path) -> bool:
        """File names become hf ids, output paths and report text, which must stay valid UTF-8."""
        try:
            path.name.encode("utf-8")
        except UnicodeEncodeError:
            self.problems.append(
                Diagnostic(
                    path,
                    Span(1, 1),
                    "RL019",
                    Severity.ERROR,
                    "the file name is not valid UTF-8; it was not read",
                    "rename it with UTF-8 characters",
                )
            )
            return False
        return True

    def flat(self, folder: Path, suffix: str) -> list[Path]:
        return [
            p
            for p in self.listing(folder)
            if p.name.endswith(suffix) and not self.escapes(p) and self.regular(p)
        ]

    def regular(self, path: Path) -> bool:
        """Whether ``path`` (a link followed) is a regular file; a pipe, socket or device is
        reported, a folder or a missing link target passed over."""
        try:
            mode = path.stat().st_mode
        except OSError:
            return False
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return stat.S_ISREG(mode)
        self.problems.append(
            Diagnostic(
                path,
                Span(1, 1),
                "RL021",
                Severity.ERROR,
                f"this is a {_special_kind(mode)}, not a regular file; it was not read",
                "replace it with the recipe file itself, or remove it",
            )
        )
        return False

    def recursive(self, folder: Path, real: Path | None = None) -> Iterator[Path]:
        """The recipe files under ``folder``; ``real`` is its real path when the caller knows it
        (a folder that is no link lies where its parent really is)."""
        if real is None:
            if self.escapes(folder):  # models/ may itself be a link
                return
            real = folder.resolve()
        if real in self.entered:
            self.problems.append(
                Diagnostic(
                    folder,
                    Span(1, 1),
                    "RL017",
                    Severity.ERROR,
                    f"symbolic link leads into a folder that was already walked ({real}); it was not followed",
                    "remove the link: a recipe folder is listed once",
                )
            )
            return
        self.entered.add(real)
        for entry in self._entries(folder):
            path = folder / entry.name
            if entry.is_symlink():
                if self.escapes(path):
                    continue
                if path.is_dir():
                    yield from self.recursive(path, path.resolve())
                elif self.regular(path) and entry.name.endswith(RECIPE_SUFFIXES):
                    yield path
            elif entry.is_dir():
                yield from self.recursive(path, real / entry.name)
            elif entry.is_file():
                if entry.name.endswith(RECIPE_SUFFIXES):
                    yield path
            else:  # scandir's type says neither file nor folder: a pipe, socket or device
                self.regular(path)


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device"


def confined_files(root: Path, folder: Path, suffix: str, problems: list[Diagnostic]) -> list[Path]:
    """The files of one flat folder of the tree, with the walker's confinement (links, names)."""
    return Walker(Path(os.path.abspath(root)), problems).flat(folder, suffix)


def _rel(root: Path, path: Path) -> str:
    # The walker builds every path from the root: cutting its text is relative_to's answer.
    text, prefix = os.fspath(path), os.path.join(os.fspath(root), "")
    if text.startswith(prefix):
        return text[len(prefix) :].replace(os.sep, "/")
    return path.relative_to(root).as_posix()


# One document given in memory (an editor's unsaved buffer, read from stdin): its path in
# the tree, which need not exist on disk, and its text (bytes are decoded as a file's are).
Override = tuple[Path, str | bytes]


def _text_document(
    path: Path, rel: str, kind: str, text: str | bytes, limits: LoadLimits
) -> Document:
    """A document from memory, with a file's checks: size, NUL bytes and UTF-8 (RL003/RL004), BOM."""
    if isinstance(text, bytes):
        doc = Document(path=path, rel=rel, kind=kind, text="")
        decoded = decode_source(text, doc)
        if decoded is None:
            return doc
        text = decoded
    text = text[1:] if text.startswith("\ufeff") else text
    return parse_yaml(text, path=path, kind=kind, rel=rel, limits=limits)


def _is_new_in(new: Path | None, folder: Path, suffixes: tuple[str, ...], recursive: bool) -> bool:
    """Whether the in-memory document is a file of ``folder`` that is not on disk yet."""
    if new is None or not new.name.endswith(suffixes) or os.path.lexists(new):
        return False
    return new.parent == folder or (recursive and folder in new.parents)


def _with_new_file(paths: Iterable[Path], new: Path, folder: Path) -> list[Path]:
    """``paths`` with ``new`` where a listing would put it if it were on disk.

    Listings are byte-sorted per folder and depth-first, i.e. ordered by the path's parts
    as bytes, so the new path goes to that order's place: compile order stays upstream's.
    """

    def key(path: Path) -> tuple[bytes, ...]:
        return tuple(
            part.encode("utf-8", "surrogateescape") for part in path.relative_to(folder).parts
        )

    listed = list(paths)
    index = bisect.bisect([key(path) for path in listed], key(new))
    return [*listed[:index], new, *listed[index:]]


def _cached_document(
    cache: DocumentCache, path: Path, rel: str, kind: str, limits: LoadLimits
) -> Document:
    """The document from the check cache when its bytes were parsed before, else parsed."""
    try:
        raw, _ = read_within(path, limits.max_file_bytes)
    except OSError:
        raw = None
    if raw is None:  # unreadable or too large: load_document says so
        return load_document(path, rel, kind, limits)
    doc = cache.get(path, rel, kind, limits, raw)
    if doc is None:
        doc = load_document(path, rel, kind, limits)
        cache.put(doc, limits, raw)
    return doc


def load_tree(
    root: Path,
    limits: LoadLimits = DEFAULT_LIMITS,
    override: Override | None = None,
    cache: DocumentCache | None = None,
) -> RecipeTree:
    """Every file of the tree, parsed; ``override`` replaces (or adds) one document's text.

    With a ``cache``, a file whose bytes were parsed before is read from it instead.

    The override's path is absolute or relative to the working directory; an existing file
    at that path is listed (and confined) as usual, only its text comes from memory.
    """
    root = Path(os.path.abspath(root))
    tree = RecipeTree(root=root)
    walker = Walker(root, tree.problems)
    new = Path(os.path.abspath(override[0])) if override is not None else None

    def load(path: Path, kind: str, rel: str | None = None) -> Document:
        rel = _rel(root, path) if rel is None else rel
        if override is not None and path == new:
            return _text_document(path, rel, kind, override[1], limits)
        if cache is not None:
            return _cached_document(cache, path, rel, kind, limits)
        return load_document(path, rel, kind, limits)

    taxonomy = root / "taxonomy.yaml"
    if (taxonomy.is_file() or taxonomy == new) and not walker.escapes(taxonomy):
        tree.taxonomy = load(taxonomy, "taxonomy")
    else:
        tree.problems.append(
            Diagnostic(
                taxonomy,
                Span(1, 1),
                "RL013",
                Severity.ERROR,
                "the tree has no taxonomy.yaml",
                "add taxonomy.yaml with the hardware profiles",
            )
        )
    platforms = root / "platforms.yaml"
    if (platforms.is_file() or platforms == new) and not walker.escapes(platforms):
        tree.platforms = load(platforms, "platforms")
    flat_kinds = (
        ("strategies", "strategy", tree.strategies),
        ("kv_store", "kv_store", tree.kv_stores),
    )
    for name, kind, docs in flat_kinds:
        listed: Iterable[Path] = walker.flat(root / name, ".yaml")
        if new is not None and _is_new_in(new, root / name, (".yaml",), recursive=False):
            listed = _with_new_file(listed, new, root / name)
        docs.extend(load(p, kind) for p in listed)
    models: Iterable[Path] = walker.recursive(root / "models")
    if new is not None and _is_new_in(new, root / "models", RECIPE_SUFFIXES, recursive=True):
        models = _with_new_file(models, new, root / "models")
    for path in models:
        rel = _rel(root, path)
        if recipe_hf_id(rel) is None:
            tree.problems.append(
                Diagnostic(
                    path,
                    Span(1, 1),
                    "RL014",
                    Severity.ERROR,
                    "a recipe file directly under models/ has no organisation folder",
                    f"move it to models/<hf_org>/{path.name}",
                )
            )
            continue
        tree.recipes.append(load(path, "recipe", rel))
    return tree
