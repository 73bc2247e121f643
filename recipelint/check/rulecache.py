"""Rule findings that read one recipe alone, kept in the check cache and reused.

Whether a check's findings on a recipe depend on that recipe alone is not declared by hand:
on a recipe the cache has not seen, every check runs once on a :class:`FileContext`, a
context whose tree shows only the recipes being looked at. Everything else a check could
read (the taxonomy, strategies, kv stores, other recipes, the indexes built from them) is
behind a tripwire: reading it raises :class:`TreeWideRead`, and that check's findings on
those recipes are not kept — it runs on the whole tree every time, as without a cache. A
check that finished without tripping read nothing but the recipe (its findings are kept
under the recipe's text, the configuration and recipelint's code and data), so it does not
run again until one of those changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.read.load import Document
from recipelint.read.tree import RecipeTree
from recipelint.rules.common import ArgList
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import RegisteredCheck, check_id, registered_check

if TYPE_CHECKING:
    from recipelint.checkcache import DocumentCache, RuleEntry

Convert = Callable[[RegisteredCheck, CheckContext], list[Diagnostic]]


class TreeWideRead(BaseException):  # noqa: N818 - a signal, not an error
    """A check run on one recipe read another file of the tree.

    A BaseException, so that a check's own ``except Exception`` cannot swallow it."""


class _Tripwire:
    def __init__(self) -> None:
        self.tripped = False

    def trip(self, what: str) -> NoReturn:
        self.tripped = True
        raise TreeWideRead(what)


class _PathOnly:
    """A tree-wide document seen from one recipe: its path (whether it is in focus), nothing else."""

    def __init__(self, path: Path, wire: _Tripwire) -> None:
        self.path = path
        self._wire = wire

    def __getattr__(self, name: str) -> NoReturn:
        self._wire.trip(f"document.{name}")


class _GuardedTree:
    """A tree that shows its root and whether its tree-wide files exist (with ``shared``,
    the files themselves); every other read trips."""

    def __init__(self, tree: RecipeTree, wire: _Tripwire, shared: bool) -> None:
        self.root = tree.root
        self.taxonomy: Document | _PathOnly | None
        self.platforms: Document | _PathOnly | None
        if shared:
            self.taxonomy, self.platforms = tree.taxonomy, tree.platforms
            self.strategies, self.kv_stores = tree.strategies, tree.kv_stores
        else:
            self.taxonomy = _path_only(tree.taxonomy, wire)
            self.platforms = _path_only(tree.platforms, wire)
        self._wire = wire

    def __getattr__(self, name: str) -> NoReturn:
        self._wire.trip(f"tree.{name}")


def _path_only(doc: Document | None, wire: _Tripwire) -> _PathOnly | None:
    return None if doc is None else _PathOnly(doc.path, wire)


class FileContext(CheckContext):
    """A check context over some recipes alone, with every read of the rest tripping; with
    ``shared``, the tree-wide files (taxonomy, platforms, strategies, kv stores) and what is
    built from them may be read, other recipes still may not."""

    def __init__(
        self, tree: RecipeTree, config: Config, docs: list[Document], shared: bool = False
    ) -> None:
        self.wire = _Tripwire()
        self.shared = shared
        self.whole = tree
        paths = {doc.path for doc in docs}
        guarded = _GuardedTree(tree, self.wire, shared)
        super().__init__(guarded, config, paths.__contains__)  # type: ignore[arg-type]
        self._docs = docs

    @property
    def recipes(self) -> list[Document]:
        return self._docs

    @property
    def arg_lists(self) -> list[ArgList]:
        # Only recipes are in focus here, so no strategy or kv_store list is either.
        return [arg_list for lists in self.recipe_arg_lists.values() for arg_list in lists]

    def _trip(self, name: str) -> NoReturn:
        self.wire.trip(name)

    def _tree_wide(name: str) -> property:  # type: ignore[misc]  # noqa: N805 - builds properties
        inherited = getattr(CheckContext, name)

        def read(self: FileContext) -> object:
            if not self.shared:
                self._trip(name)
            if name not in self.__dict__:
                self.__dict__[name] = inherited.func(self)
            return self.__dict__[name]

        return property(read)

    all_recipes = property(lambda self: self._trip("all_recipes"))

    @property
    def hf_ids(self) -> Mapping[str, Document]:  # type: ignore[override]
        """With ``shared``, which ids the tree's recipes publish (their paths are in the key),
        but not the recipes themselves."""
        if not self.shared:
            self._trip("hf_ids")
        if "hf_ids" not in self.__dict__:
            self.__dict__["hf_ids"] = _KeysOnly(CheckContext(self.whole).hf_ids, self.wire)
        found: Mapping[str, Document] = self.__dict__["hf_ids"]
        return found

    profiles = _tree_wide("profiles")
    strategies = _tree_wide("strategies")
    kv_stores = _tree_wide("kv_stores")
    generations = _tree_wide("generations")
    brands = _tree_wide("brands")
    hardware_groups = _tree_wide("hardware_groups")
    shared_arg_lists = _tree_wide("shared_arg_lists")


class _KeysOnly(Mapping[str, Document]):
    """A mapping whose keys may be read, not its values (other recipes)."""

    def __init__(self, mapping: Mapping[str, Document], wire: _Tripwire) -> None:
        self._keys = set(mapping)
        self._order = list(mapping)
        self._wire = wire

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __getitem__(self, key: str) -> NoReturn:
        self._wire.trip("hf_ids[]")


def _alone(
    checks: list[RegisteredCheck], context: FileContext, convert: Convert
) -> dict[str, list[Diagnostic] | None]:
    """Each check run on the context's recipes alone: its findings, or None if it tripped."""
    found: dict[str, list[Diagnostic] | None] = {}
    for registered in checks:
        context.wire.tripped = False
        try:
            result: list[Diagnostic] | None = convert(registered, context)
        except TreeWideRead:
            result = None
        found[check_id(registered.function)] = None if context.wire.tripped else result
    return found


def _each_alone(
    checks: list[RegisteredCheck], context: FileContext, convert: Convert
) -> dict[Path, RuleEntry]:
    """Each recipe's findings of each check. The checks run on all the recipes at once; one
    that trips on some recipe runs again on each recipe alone, so a recipe's entry does not
    depend on which recipes were looked at with it."""
    docs = context.recipes
    entries = _entries(docs, _alone(checks, context, convert))
    tripped = [c for c in checks if entries[docs[0].path][check_id(c.function)] is None]
    if len(docs) > 1 and tripped:
        for doc in docs:
            one = FileContext(context.whole, context.config, [doc], context.shared)
            entries[doc.path].update(_entries([doc], _alone(tripped, one, convert))[doc.path])
    return entries


def _entries(
    docs: list[Document], found: dict[str, list[Diagnostic] | None]
) -> dict[Path, RuleEntry]:
    """Each recipe's share of the findings; a check that reported on another file (a
    tree-wide one) is not kept for any."""
    entries: dict[Path, RuleEntry] = {doc.path: {} for doc in docs}
    for cid, diagnostics in found.items():
        by_path: dict[Path, list[Diagnostic]] | None = {path: [] for path in entries}
        for diag in diagnostics or ():
            if by_path is None or diag.path not in by_path:
                by_path = None
                break
            by_path[diag.path].append(diag)
        for path, entry in entries.items():
            entry[cid] = (
                None if diagnostics is None or by_path is None else _canonical(by_path[path])
            )
    return entries


def _canonical(found: list[Diagnostic]) -> list[Diagnostic]:
    """Findings in one order whatever order a check found them in (a set's order changes from
    one process to the next), so that an entry written again is written alike."""
    return sorted(found, key=lambda diag: (diag.sort_key(), repr(diag)))


# The levels of a recipe's rule findings: those of checks that read the recipe alone, then
# those of checks that read also the tree-wide files (kept under those files' texts too).
_LEVELS = ((b"rules", False), (b"rules-shared", True))


def cached_rule_problems(
    context: CheckContext,
    cache: DocumentCache,
    keys: tuple[bytes, bytes],
    enabled_checks: Callable[[], list[RegisteredCheck]],
    convert: Convert,
) -> list[Diagnostic]:
    """The rule stage with per-recipe findings from the cache: each check runs on the whole
    tree only for the files in focus whose findings it cannot take from there."""
    tree = context.tree
    # Per recipe in focus, the checks still to answer for it (None: every enabled check).
    pending: dict[Path, set[str] | None] = {doc.path: None for doc in context.recipes}
    found: list[Diagnostic] = []
    served: dict[str, set[Path]] = {}
    checks: list[RegisteredCheck] | None = None
    for (what, shared), key in zip(_LEVELS, keys, strict=True):
        docs = [doc for doc in context.recipes if pending[doc.path] != set()]
        entries = {doc.path: cache.rule_findings(doc, key, what) for doc in docs}
        missed = [doc for doc in docs if entries[doc.path] is None]
        if missed:
            checks = checks if checks is not None else enabled_checks()
            level = _Level(what, key, shared)
            entries.update(_looked_at(missed, pending, checks, context, level, cache, convert))
        for path, entry in entries.items():
            still: set[str] = set()
            asked_here = pending[path]
            for cid in list(entry or ()) if asked_here is None else asked_here:
                kept = (entry or {}).get(cid)
                if kept is None:
                    still.add(cid)
                else:
                    served.setdefault(cid, set()).add(path)
                    found += kept
            pending[path] = still
    wanted: dict[str, set[Path]] = {}
    for path, cids in pending.items():
        for cid in cids or ():
            wanted.setdefault(cid, set()).add(path)
    # Other files in focus (tree-wide files, unusable recipes) are never cached.
    others = [
        doc.path for doc in tree.documents() if context.focus(doc.path) and doc.path not in pending
    ]
    if others:
        checks = checks if checks is not None else enabled_checks()
        for registered in checks:
            wanted.setdefault(check_id(registered.function), set()).update(others)
    found += _run_on(context, wanted, served, checks, convert)
    return found


@dataclass(frozen=True)
class _Level:
    what: bytes
    key: bytes
    shared: bool


def _looked_at(
    missed: list[Document],
    pending: dict[Path, set[str] | None],
    checks: list[RegisteredCheck],
    context: CheckContext,
    level: _Level,
    cache: DocumentCache,
    convert: Convert,
) -> dict[Path, RuleEntry]:
    """The checks ``missed`` recipes ask for, run on them alone, and kept in the cache."""
    asked = _union(pending[doc.path] for doc in missed)
    todo = [c for c in checks if asked is None or check_id(c.function) in asked]
    alone = FileContext(context.tree, context.config, missed, level.shared)
    fresh = _each_alone(todo, alone, convert)
    for doc in missed:
        # Only the checks this recipe asked for, in one order: its entry is the same
        # whichever other recipes were looked at with it and families imported before.
        own = pending[doc.path]
        entry = {c: v for c, v in sorted(fresh[doc.path].items()) if own is None or c in own}
        fresh[doc.path] = entry
        cache.keep_rule_findings(doc, level.key, level.what, entry)
    return fresh


def _union(sets: Iterable[set[str] | None]) -> set[str] | None:
    """The checks asked for by any of ``sets`` (None: every check)."""
    union: set[str] = set()
    for one in sets:
        if one is None:
            return None
        union |= one
    return union


def _run_on(
    context: CheckContext,
    wanted: dict[str, set[Path]],
    served: dict[str, set[Path]],
    checks: list[RegisteredCheck] | None,
    convert: Convert,
) -> Iterator[Diagnostic]:
    """Each check over the whole tree for the files it is wanted for (checks wanted for the
    same files share one context and its indexes), less what the cache gave for it."""
    known = {check_id(c.function): c for c in checks or ()}
    groups: dict[frozenset[Path], list[RegisteredCheck]] = {}
    for cid, paths in wanted.items():
        if paths:
            registered = known.get(cid) or registered_check(cid)
            groups.setdefault(frozenset(paths), []).append(registered)
    for members, group in groups.items():
        focused = (
            context
            if _same_focus(context, members)
            else CheckContext(context.tree, context.config, members.__contains__)
        )
        for registered in group:
            cached = served.get(check_id(registered.function), set())
            yield from (d for d in convert(registered, focused) if d.path not in cached)


def _same_focus(context: CheckContext, paths: Iterable[Path]) -> bool:
    wanted = set(paths)
    return all(context.focus(doc.path) == (doc.path in wanted) for doc in context.tree.documents())
