"""Runs every stage of `recipelint check` over a tree and returns its diagnostics.

It is long because combining the stages' findings (root causes, schema against rule
precedence, suppressions and unused ones) is one policy, applied in one place.

The stages run in this order: rendering starts first (in forked helpers when ``jobs`` > 1),
then the rule checks, then schema validation, then this process joins the rendering. The
rules run before the schema so that their indexes are freed before this process renders.
No stage reads another's findings while it runs; they are combined afterwards: load
problems, schema findings, rule and rendering findings (a broken tree-wide file explains
away what depends on it; a rule's more precise finding stands in for a schema type error;
a rule finding about a value the schema rejects is dropped), then the configuration
(select, ignore, severity, per-file ignores), then inline suppressions, sorted by position.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint.check.renderstage import COMPILE_CODES, RenderingStage, kept_outcome
from recipelint.check.renderstage import wanted as rendering_wanted
from recipelint.collector import few_full_collections, frozen_heap
from recipelint.configuration.config import Config
from recipelint.diagnostics import CHECKS_SKIPPED, Diagnostic, Related, Severity, Span
from recipelint.lazy import import_own
from recipelint.parallel import SharedTasks
from recipelint.read.configfile import TreeOverlay
from recipelint.read.load import Document
from recipelint.read.tree import RecipeTree
from recipelint.rulebook.catalog import RuleInfo, load_rulebook
from recipelint.rules.common import Pointer
from recipelint.rules.context import CheckContext, Focus, everything
from recipelint.rules.registry import Finding, RegisteredCheck, family_codes, registered_checks
from recipelint.schema.adoption import NONE_UNADOPTED, Unadopted, unadopted_requirements

if TYPE_CHECKING:
    from recipelint.checkcache import DocumentCache

SUPPRESSION = re.compile(r"#\s*recipelint:\s*disable=([A-Za-z0-9_, -]+)")
UNUSED_SUPPRESSION = "RL015"
# Schema codes that say a value itself is wrong (not RL103, which is about a missing sibling):
# whatever rules or rendering then say about that value or anything inside it is an echo.
VALUE_SCHEMA_CODES = frozenset({"RL101", "RL102", "RL104", "RL105", "RL106", "RL107"})
SCHEMA_CODES = VALUE_SCHEMA_CODES | {"RL103"}
# Rendering failures whose cause is not located (a crash of the whole recipe).
WHOLE_RECIPE_RENDERING = frozenset({"RL703"})
# Rules that report what the compile stage's RL702 reports, each with a precise message and hint.
FEATURE_MODE_RULES = frozenset({"RL206", "RL207", "RL212", "RL213"})
SECURITY_CODES = ("RL75",)


def _to_diagnostic(finding: Finding, code: str, severity: Severity) -> Diagnostic:
    """``code`` is the finding's own code or, when it names none, one its check reports."""
    doc = finding.doc
    if finding.span is not None:
        span = finding.span
    else:
        span = doc.key_span(finding.pointer) if finding.at_key else doc.span(finding.pointer)
    return Diagnostic(
        doc.path,
        span,
        code,
        severity,
        finding.message,
        finding.hint,
        tuple(finding.pointer),
        finding.related,
    )


def _schema_problems(
    docs: list[Document],
    overlay: TreeOverlay,
    cache: DocumentCache | None = None,
    context: bytes | None = None,
    unadopted: Unadopted = NONE_UNADOPTED,
) -> list[Diagnostic]:
    """Each document's schema findings (with the tree's ``overlay`` and the requirements
    the tree has not adopted), from the check cache when its text was seen before.

    The schema stage (and jsonschema) is imported only when some document needs it.
    """
    if cache is None or context is None:
        return [diag for found in _validated(docs, overlay, unadopted) for diag in found]
    if unadopted:  # the same text is judged differently in a tree that has not adopted a key
        context += b"\0unadopted " + repr(sorted(unadopted)).encode()
    kept = [cache.schema_findings(doc, context) for doc in docs]
    missed = [doc for doc, found in zip(docs, kept, strict=True) if found is None]
    fresh = iter(_validated(missed, overlay, unadopted) if missed else [])
    found: list[Diagnostic] = []
    for doc, entry in zip(docs, kept, strict=True):
        if entry is None:
            entry = next(fresh)
            cache.keep_schema_findings(doc, context, entry)
        found += entry
    return found


def _validated(
    docs: list[Document], overlay: TreeOverlay, unadopted: Unadopted = NONE_UNADOPTED
) -> list[list[Diagnostic]]:
    # Imported on first use, as the rule families are; missing, it is a broken install
    # (BrokenInstallError), never a stage quietly left out.
    validate_each = import_own("recipelint.schema.check").validate_each
    return list(validate_each(docs, overlay, unadopted))


def _rule_problems(
    context: CheckContext,
    cache: DocumentCache | None = None,
    key: tuple[bytes, bytes] | None = None,
) -> list[Diagnostic]:
    """Every enabled check called once; with a check ``cache``, a recipe's findings of the
    checks that read it alone come from there (recipelint.check.rulecache)."""
    if cache is None or key is None:
        found: list[Diagnostic] = []
        for registered in _enabled_checks(context.config):
            found += _check_problems(registered, context)
        return found
    from recipelint.check.rulecache import cached_rule_problems

    return cached_rule_problems(
        context, cache, key, lambda: _enabled_checks(context.config, cache), _check_problems
    )


def _enabled_checks(config: Config, cache: DocumentCache | None = None) -> list[RegisteredCheck]:
    """The checks that report an enabled code. With a check cache, which module's checks
    report which codes is kept there, and families a `--select` leaves out stay unimported."""
    modules = None
    if cache is not None:
        manifest = cache.kept(b"family-codes", family_codes)
        if isinstance(manifest, dict):
            modules = [m for m, codes in manifest.items() if any(map(config.is_enabled, codes))]
    return [
        registered
        for registered in registered_checks(modules)
        if any(config.is_enabled(code) for code in registered.codes)
    ]


def _check_problems(registered: RegisteredCheck, context: CheckContext) -> list[Diagnostic]:
    """One check's findings, each under its code when that is enabled."""
    catalog = load_rulebook()
    enabled = [code for code in registered.codes if context.config.is_enabled(code)]
    severities = {code: _severity(catalog.get(code)) for code in enabled}
    return [
        _to_diagnostic(finding, code, severities[code])
        for finding in registered.function(context)
        for code in registered.codes_of(finding)
        if code in severities
    ]


def _severity(info: RuleInfo | None) -> Severity:
    return info.severity if info else Severity.ERROR


def _configured(
    diagnostics: Iterable[Diagnostic], config: Config, root: Path
) -> Iterator[Diagnostic]:
    # Findings repeat their codes and files: each is looked up once.
    enabled = functools.cache(config.is_enabled)
    relative = functools.cache(lambda path: _relative(path, root))
    for diag in diagnostics:
        if not enabled(diag.code) or config.is_ignored_for(diag.code, relative(diag.path)):
            continue
        severity = config.severity_for(diag.code, diag.severity)
        yield diag if severity is diag.severity else diag.with_severity(severity)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass
class _Suppression:
    line: int
    column: int
    codes: set[str]
    used: set[str] = field(default_factory=set)


def _suppressions(doc: Document) -> dict[int, _Suppression]:
    found: dict[int, _Suppression] = {}
    stored = doc.stored_text  # looked into as it is held: most texts hold no suppression
    marked = "recipelint:" in stored if isinstance(stored, str) else b"recipelint:" in stored
    if not marked:
        return found
    for number, line in enumerate(doc.text.splitlines(), start=1):
        match = SUPPRESSION.search(line)
        if match:
            codes = {c.strip().upper() for c in match.group(1).split(",") if c.strip()}
            found[number] = _Suppression(number, match.start() + 1, codes)
    return found


def _candidate_lines(doc: Document, diag: Diagnostic) -> list[int]:
    """The finding's own line, then the line of every key that encloses it."""
    lines = [diag.span.line]
    pointer = diag.pointer
    while pointer:
        if doc.has_position(pointer):
            lines.append(doc.key_span(pointer).line)
        pointer = pointer[:-1]
    return lines


def _apply_suppressions(
    diagnostics: list[Diagnostic], tree: RecipeTree, config: Config, focus: Focus
) -> list[Diagnostic]:
    docs = {doc.path: doc for doc in tree.documents()}
    tables = {path: _suppressions(doc) for path, doc in docs.items()}
    kept: list[Diagnostic] = []
    for diag in diagnostics:
        table = tables.get(diag.path)
        if table:
            hit = next(
                (
                    table[n]
                    for n in _candidate_lines(docs[diag.path], diag)
                    if n in table and diag.code in table[n].codes
                ),
                None,
            )
            if hit is not None:
                hit.used.add(diag.code)
                continue
        kept.append(diag)
    if config.is_enabled(UNUSED_SUPPRESSION):
        # Only files in focus were checked: a suppression elsewhere cannot be judged unused.
        checked = {path: table for path, table in tables.items() if focus(path)}
        kept.extend(_unused(checked, config, tree.root))
    return kept


def _unused(
    tables: dict[Path, dict[int, _Suppression]], config: Config, root: Path
) -> Iterator[Diagnostic]:
    for path, table in tables.items():
        rel = _relative(path, root)
        for entry in table.values():
            for code in sorted(entry.codes - entry.used):
                # A rule switched off here did not run: nothing tells whether it would have fired.
                if not config.is_enabled(code) or config.is_ignored_for(code, rel):
                    continue
                yield Diagnostic(
                    path,
                    Span(entry.line, entry.column),
                    UNUSED_SUPPRESSION,
                    config.severity_for(UNUSED_SUPPRESSION, Severity.WARNING),
                    f"suppression of {code} is not needed here: no {code} finding on this line or block",
                    "remove the code from the comment",
                )


@dataclass(frozen=True)
class _CacheKeys:
    """What each stage's cache entries are kept under, besides a document's own text."""

    rules: tuple[bytes, bytes]
    rendering: bytes
    schema: bytes | None

    @classmethod
    def of(cls, tree: RecipeTree, config: Config, cache: DocumentCache) -> _CacheKeys:
        from recipelint.checkcache import (
            rendering_context,
            rules_context,
            schema_context,
            shared_rules_context,
        )

        fingerprint = cache.fingerprint()
        rules = rules_context(tree, config, fingerprint)
        return cls(
            (rules, shared_rules_context(tree, rules)),
            rendering_context(tree, config, fingerprint),
            schema_context(tree.root, config),
        )


def _stage_key(
    tree: RecipeTree, focus: Focus, cache: DocumentCache | None, keys: _CacheKeys | None
) -> bytes | None:
    if cache is None or keys is None:
        return None
    from recipelint.checkcache import stage_context

    named = [doc.path for doc in tree.documents() if focus(doc.path)]
    return stage_context(tree, keys.rendering, named)


class _CachedPlans:
    """The rendering stage's recipes, each planned now or taken from the check cache.

    A recipe's planned rendering reads only itself and what ``key`` covers, and is replayed
    in tree order with the others, so overwrites between recipes are found as without a cache.
    """

    def __init__(
        self, stage: RenderingStage | None, cache: DocumentCache | None, key: bytes | None
    ) -> None:
        self.stage = stage
        self.cache = cache if key is not None else None
        self.key = key or b""
        recipes = stage.recipes if stage is not None else []
        self.kept: list[Any] = [
            kept_outcome(self.cache.rendering(doc, self.key)) if self.cache is not None else None
            for doc in recipes
        ]
        self.missed = [doc for doc, kept in zip(recipes, self.kept, strict=True) if kept is None]

    def tasks(self, pieces: int) -> list[Callable[[], list[Any]]]:
        if self.stage is None or not self.missed:
            return []
        return self.stage.tasks(pieces, self.missed)

    def merged(self, results: Iterable[list[Any]]) -> list[list[Any]]:
        """Every recipe's outcome in tree order, the fresh ones kept for the next run."""
        fresh = iter([outcome for outcomes in results for outcome in outcomes])
        merged = []
        for doc_index, kept in enumerate(self.kept):
            if kept is None:
                kept = next(fresh)
                if self.cache is not None and self.stage is not None:
                    self.cache.keep_rendering(self.stage.recipes[doc_index], self.key, kept)
            merged.append(kept)
        return [merged]


# Below this many recipes a check is quick anyway, and forking helpers would only add to it.
PARALLEL_MIN_RECIPES = 16


def run_checks(
    tree: RecipeTree,
    config: Config | None = None,
    focus: Focus = everything,
    jobs: int = 1,
    cache: DocumentCache | None = None,
) -> list[Diagnostic]:
    """All findings for the files ``focus`` accepts; the rest of the tree is context only.

    With a check ``cache``, a document's schema findings from an earlier run on the same
    text are reused (they depend on no other file).

    With ``jobs`` > 1, ``jobs - 1`` forked helpers and this process share the rendering
    of every command; the findings are the same, in the same order.
    """
    config = config or Config()
    keys = _CacheKeys.of(tree, config, cache) if cache is not None else None
    with frozen_heap(), few_full_collections():
        context = CheckContext(tree, config, focus)
        recipes = context.recipes
        stage_key = _stage_key(tree, focus, cache, keys) if rendering_wanted(config) else None
        kept_stage = cache.stage_findings(stage_key) if cache and stage_key else None
        compile_stage = (
            RenderingStage(tree, config, focus)
            if rendering_wanted(config) and kept_stage is None
            else None
        )
        planned = _CachedPlans(compile_stage, cache, keys.rendering if keys else None)
        helpers = jobs - 1 if len(planned.missed) >= PARALLEL_MIN_RECIPES else 0
        # Rendering is the largest stage and needs nothing more: helpers start on it at once,
        # while this process sets up and runs the rule and schema stages, then joins them.
        compile_tasks = planned.tasks(8 * jobs if helpers else 1)
        with SharedTasks(compile_tasks, helpers) as rendering:
            rules = _rule_problems(context, cache, keys.rules if keys else None)
            # The rules' indexes and per-run caches go before this process renders: the
            # rendering then reuses their memory instead of adding to the peak.
            del context
            # Tree-wide files are validated whatever is in focus: a broken one explains the rest.
            schema = _schema_problems(
                [
                    doc
                    for doc in tree.documents()
                    if doc.usable and (focus(doc.path) or doc.kind != "recipe")
                ],
                config.overlay,
                cache,
                keys.schema if keys else None,
                unadopted_requirements(tree.documents()),
            )
            rendered = planned.merged(rendering.results())
    compiled = compile_stage.diagnostics(rendered) if compile_stage else kept_stage or []
    if cache is not None and stage_key is not None and kept_stage is None:
        cache.keep_stage_findings(stage_key, compiled)
    broken = _broken_inputs(tree, schema)
    shown = {doc.path for doc in broken}
    loaded = _kept(tree.all_problems(), config, tree.root)
    schema = _kept(schema, config, tree.root)
    derived = _kept(rules, config, tree.root) + _kept(compiled, config, tree.root)
    schema = _precise_over_schema(schema, derived)
    derived = _without_echoes(_without_dependents(derived, broken), schema)
    notes = _skip_notes(recipes, broken, config) if broken else []
    found = [
        diag for diag in loaded + schema + derived + notes if focus(diag.path) or diag.path in shown
    ]
    found = _apply_suppressions(found, tree, config, focus)
    return sorted(_collapse_items(_without_mirrors(set(found))), key=Diagnostic.sort_key)


def _without_mirrors(diagnostics: set[Diagnostic]) -> set[Diagnostic]:
    """A file-level finding that mirrors a finding of the same code in another file (its related
    place, such as RL706 on the standalone recipe a variant collides with) is for a check
    that does not show that place; where both are shown, the precise one is the cause's
    one finding."""
    shown = {(d.path, d.code, d.pointer) for d in diagnostics}
    return {
        d
        for d in diagnostics
        if d.pointer
        or not any(r.path != d.path and (r.path, d.code, r.pointer) in shown for r in d.related)
    }


def _kept(diagnostics: Iterable[Diagnostic], config: Config, root: Path) -> list[Diagnostic]:
    return list(_configured(diagnostics, config, root))


# --- root causes: a broken tree-wide file explains the findings that depend on it -----------------

# What recipes read from each kind of tree-wide file, and the codes that would misfire without it.
DEPENDENT_CODES: dict[str, tuple[str, frozenset[str]]] = {
    "taxonomy": (
        "hardware references and rendering",
        frozenset(
            {
                "RL201",
                "RL202",
                "RL211",
                "RL301",
                "RL302",
                "RL310",
                "RL314",
                "RL315",
                "RL340",
                "RL341",
                "RL342",
                "RL607",
            }
        ),
    ),
    "strategy": (
        "strategy references and rendering",
        frozenset({"RL201", "RL203", "RL214", "RL310", "RL314", "RL340", "RL341", "RL342"}),
    ),
    "kv_store": (
        "kv_store references and rendering",
        frozenset({"RL203", "RL204", "RL340", "RL341", "RL342"}),
    ),
}
# Schema findings at these places of a tree-wide file break what recipes reference in it
# ("*" is any key); elsewhere (an env value, a description) the file is still usable.
DEFINING_POINTERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "taxonomy": (
        (),
        ("hardware_profiles",),
        ("hardware_profiles", "*"),
        ("hardware_profiles", "*", "generation"),
        ("hardware_profiles", "*", "gpu_generation"),
        ("hardware_profiles", "*", "brand"),
    ),
    "strategy": ((), ("name",), ("deploy_type",)),
    "kv_store": ((), ("name",), ("deploy_type",)),
}


@dataclass(frozen=True)
class _Broken:
    """A tree-wide file recipes cannot rely on, and its first error (the cause to show)."""

    doc: Document
    cause: Diagnostic

    @property
    def path(self) -> Path:
        return self.doc.path


def _broken_inputs(tree: RecipeTree, schema: list[Diagnostic]) -> list[_Broken]:
    by_path: dict[Path, list[Diagnostic]] = {}
    for diag in schema:
        if diag.code in SCHEMA_CODES:
            by_path.setdefault(diag.path, []).append(diag)
    broken = []
    for doc in tree.documents():
        if doc.kind not in DEPENDENT_CODES:
            continue
        errors = (
            [d for d in doc.problems if d.severity is Severity.ERROR]
            if not doc.usable
            else [d for d in by_path.get(doc.path, ()) if _defining(doc.kind, _subject(d))]
        )
        if errors:
            broken.append(_Broken(doc, min(errors, key=Diagnostic.sort_key)))
    return broken


_MISSING_KEY = re.compile(r"missing required key '([^']*)'")


def _subject(diag: Diagnostic) -> tuple[str | int, ...]:
    """Where a schema finding's problem is: a missing key is reported on the mapping that
    lacks it, but what is missing is the key (a taxonomy without `strategies` still has
    every hardware profile)."""
    missing = _MISSING_KEY.match(diag.message) if diag.code == "RL103" else None
    return (*diag.pointer, missing.group(1)) if missing else diag.pointer


def _defining(kind: str, pointer: tuple[str | int, ...]) -> bool:
    return any(
        len(pattern) == len(pointer)
        and all(p in ("*", q) for p, q in zip(pattern, pointer, strict=False))
        for pattern in DEFINING_POINTERS[kind]
    )


def _without_dependents(diagnostics: list[Diagnostic], broken: list[_Broken]) -> list[Diagnostic]:
    """Drops what a broken file makes meaningless: references into it, and every rendering."""
    codes = frozenset().union(*(DEPENDENT_CODES[b.doc.kind][1] for b in broken))
    shown = {b.path for b in broken}
    return [
        d
        for d in diagnostics
        if d.path in shown or not (d.code in codes or (broken and d.code.startswith(COMPILE_CODES)))
    ]


def _skip_notes(recipes: list[Document], broken: list[_Broken], config: Config) -> list[Diagnostic]:
    """One note per recipe in focus: which checks did not run, and the file to fix first."""
    if not config.is_enabled(CHECKS_SKIPPED):
        return []
    severity = _catalog_severity(CHECKS_SKIPPED, Severity.INFO)
    kinds = dict.fromkeys(DEPENDENT_CODES[b.doc.kind][0] for b in broken)
    files = ", ".join(b.doc.rel for b in broken[:3]) + (
        f" and {len(broken) - 3} more" if len(broken) > 3 else ""
    )
    message = f"{' and '.join(_merged(kinds))} were not checked: {files} cannot be used"
    hint = "fix the errors reported in " + files + " first; these checks then run again"
    related = tuple(
        Related(b.path, b.cause.span, f"{b.cause.code}: {b.cause.message}") for b in broken
    )
    return [
        Diagnostic(doc.path, Span(1, 1), CHECKS_SKIPPED, severity, message, hint, (), related)
        for doc in recipes
    ]


def _merged(kinds: dict[str, None]) -> list[str]:
    """ "hardware references and rendering" + "strategy references and rendering" -> one list."""
    parts = dict.fromkeys(part.removesuffix(" and rendering") for part in kinds)
    return [", ".join(parts) + " and rendering"] if parts else []


def _catalog_severity(code: str, default: Severity) -> Severity:
    info = load_rulebook().get(code)
    return info.severity if info else default


# --- one problem, one finding -------------------------------------------------------------------


# A rule that names a schema type error more precisely, with a fix, stands in for it at the
# same value: `PYTHONHASHSEED: 0` is one unquoted env value, reported once and fixable.
PRECISE_TYPE_RULES = frozenset({"RL551"})


def _precise_over_schema(schema: list[Diagnostic], derived: list[Diagnostic]) -> list[Diagnostic]:
    covered = {(d.path, d.pointer) for d in derived if d.code in PRECISE_TYPE_RULES}
    return [d for d in schema if not (d.code == "RL102" and (d.path, d.pointer) in covered)]


def _without_echoes(diagnostics: list[Diagnostic], schema: list[Diagnostic]) -> list[Diagnostic]:
    """Rule and rendering findings about a value the schema already rejects (or inside it) are
    echoes of that finding, and RL702 repeats the feature-mode rules: each problem is kept once."""
    marked: dict[Path, set[Pointer]] = {}
    for diag in schema:
        if diag.code in VALUE_SCHEMA_CODES:
            marked.setdefault(diag.path, set()).add(diag.pointer)
    modes: dict[Path, list[Pointer]] = {}
    for diag in diagnostics:
        if diag.code in FEATURE_MODE_RULES:
            modes.setdefault(diag.path, []).append(diag.pointer)
    return [d for d in diagnostics if not _echoes(d, marked.get(d.path), modes.get(d.path))]


def _echoes(diag: Diagnostic, marked: set[Pointer] | None, modes: list[Pointer] | None) -> bool:
    pointer = diag.pointer
    if diag.code.startswith(SECURITY_CODES):
        return False  # a value dangerous in a shell is a second problem, whatever its form
    if marked:
        if diag.code in WHOLE_RECIPE_RENDERING and not pointer:
            return True  # a crash somewhere in a recipe the schema rejects: most likely that value
        if any(pointer[:length] in marked for length in range(len(pointer) + 1)):
            return True
    if modes and diag.code == "RL702":
        return any(_nested(pointer, other) for other in modes)
    return False


def _nested(one: Pointer, other: Pointer) -> bool:
    """One pointer is at or below the other."""
    length = min(len(one), len(other))
    return one[:length] == other[:length]


def _collapse_items(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The same finding on several items of one list becomes one finding at the first item."""
    groups: dict[tuple[Path, str, str, Pointer], list[Diagnostic]] = {}
    single: list[Diagnostic] = []
    for diag in diagnostics:
        if (
            diag.pointer
            and isinstance(diag.pointer[-1], int)
            and not isinstance(diag.pointer[-1], bool)
        ):
            groups.setdefault((diag.path, diag.code, diag.message, diag.pointer[:-1]), []).append(
                diag
            )
        else:
            single.append(diag)
    for (_path, _code, _message, parent), items in groups.items():
        if len(items) == 1:
            single.append(items[0])
            continue
        items.sort(key=lambda d: d.pointer[-1])
        first, rest = items[0], items[1:]
        where = ".".join(map(str, parent))
        more = f"{len(rest)} more item{'s' * (len(rest) != 1)}"
        related = first.related + tuple(
            Related(d.path, d.span, f"the same at `{where}[{d.pointer[-1]}]`", d.pointer)
            for d in rest
        )
        single.append(
            replace(first, message=f"{first.message} (and {more} of `{where}`)", related=related)
        )
    return single
