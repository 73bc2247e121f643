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

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from recipelint.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.load import Document
from recipelint.rules.common import ArgList
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import RegisteredCheck, check_id, registered_check
from recipelint.tree import RecipeTree

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
    """A tree that shows its root and whether its tree-wide files exist; all else trips."""

    def __init__(self, tree: RecipeTree, wire: _Tripwire) -> None:
        self.root = tree.root
        self.taxonomy = None if tree.taxonomy is None else _PathOnly(tree.taxonomy.path, wire)
        self.platforms = None if tree.platforms is None else _PathOnly(tree.platforms.path, wire)
        self._wire = wire

    def __getattr__(self, name: str) -> NoReturn:
        self._wire.trip(f"tree.{name}")


class FileContext(CheckContext):
    """A check context over some recipes alone, with every read of the rest tripping."""

    def __init__(self, tree: RecipeTree, config: Config, docs: list[Document]) -> None:
        self.wire = _Tripwire()
        paths = {doc.path for doc in docs}
        super().__init__(_GuardedTree(tree, self.wire), config, paths.__contains__)  # type: ignore[arg-type]
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

    all_recipes = property(lambda self: self._trip("all_recipes"))
    profiles = property(lambda self: self._trip("profiles"))
    strategies = property(lambda self: self._trip("strategies"))
    kv_stores = property(lambda self: self._trip("kv_stores"))
    hf_ids = property(lambda self: self._trip("hf_ids"))
    generations = property(lambda self: self._trip("generations"))
    brands = property(lambda self: self._trip("brands"))
    hardware_groups = property(lambda self: self._trip("hardware_groups"))
    shared_arg_lists = property(lambda self: self._trip("shared_arg_lists"))


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


def _entries(
    docs: list[Document], found: dict[str, list[Diagnostic] | None]
) -> dict[Path, RuleEntry]:
    entries: dict[Path, RuleEntry] = {doc.path: {} for doc in docs}
    for cid, diagnostics in found.items():
        by_path: dict[Path, list[Diagnostic]] = {path: [] for path in entries}
        for diag in diagnostics or ():
            by_path[diag.path].append(diag)
        for path, entry in entries.items():
            entry[cid] = None if diagnostics is None else by_path[path]
    return entries


def cached_rule_problems(
    context: CheckContext,
    cache: DocumentCache,
    key: bytes,
    enabled_checks: Callable[[], list[RegisteredCheck]],
    convert: Convert,
) -> list[Diagnostic]:
    """The rule stage with per-recipe findings from the cache: each check runs on the whole
    tree only for the files in focus whose findings it cannot take from there."""
    tree, config = context.tree, context.config
    recipes = context.recipes
    entries = {doc.path: cache.rule_findings(doc, key) for doc in recipes}
    missed = [doc for doc in recipes if entries[doc.path] is None]
    # Other files in focus (tree-wide files, unusable recipes) are never cached.
    others = [
        doc.path for doc in tree.documents() if context.focus(doc.path) and doc.path not in entries
    ]
    checks: list[RegisteredCheck] | None = None
    if missed:
        checks = enabled_checks()
        fresh = _entries(missed, _alone(checks, FileContext(tree, config, missed), convert))
        for doc in missed:
            cache.keep_rule_findings(doc, key, fresh[doc.path])
        entries.update(fresh)
    if others and checks is None:
        checks = enabled_checks()
    found: list[Diagnostic] = []
    wanted: dict[str, set[Path]] = {}
    served: dict[str, set[Path]] = {}
    for path, entry in entries.items():
        for cid, kept in (entry or {}).items():
            if kept is None:
                wanted.setdefault(cid, set()).add(path)
            else:
                served.setdefault(cid, set()).add(path)
                found += kept
    for registered in checks or ():
        wanted.setdefault(check_id(registered.function), set()).update(others)
    found += _run_on(context, wanted, served, checks, convert)
    return found


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
