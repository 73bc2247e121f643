"""Recipe tree -> the JSON API, in memory: {relative path: document} plus diagnostics.

The upstream build writes as it goes, `rm -rf`s each rendered variant's folder
first, and lets a later write replace an earlier one. Those semantics are modelled
here on an in-memory map (:class:`OutputMap`) so that nothing touches the disk
until the whole tree has compiled; :mod:`recipelint.emit` then writes the map.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from recipelint.diagnostics import UNKNOWN_SPAN, Diagnostic, Severity
from recipelint.jsvalue import (
    UNDEFINED,
    dumps,
    get,
    has_js_specials,
    js_key_order,
    js_or,
    js_ordered,
    js_string,
    truthy,
)
from recipelint.load import Document, load_document
from recipelint.resolve.command import Catalog, Combination, render_command
from recipelint.resolve.features import feature_mode_problems
from recipelint.resolve.install import synthesize_install
from recipelint.resolve.layers import ARG_KEYS, ENV_KEYS, is_omni
from recipelint.resolve.plan import Problems, render_variant
from recipelint.revision import checkout_fact, repo_slug
from recipelint.tree import RecipeTree, confined_files, load_tree, recipe_hf_id

# Diagnostic codes of the compile stage (family RL7xx).
UNSAFE_PATH = "RL701"
INVALID_FEATURE_MODES = "RL702"
UNRENDERABLE_RECIPE = "RL703"
SYNTHESIS_FAILED = "RL704"
BROKEN_RENDERING = "RL705"
PROMOTION_COLLIDES = "RL706"
OUTPUT_OVERWRITTEN = "RL707"
UNNAMED_SPEC = "RL708"
PATH_CONFLICT = "RL709"
MISSING_INPUT = "RL710"
TOO_MANY_RENDERINGS = "RL018"  # a resource limit, with RL003/RL009/RL010
NO_RUNNABLE_STRATEGY = "RL711"

HEAD_KEYS = ("hf_id", "meta", "recommended_command")
SYNTHESIS_ONLY_KEYS = ("strategy_overrides", "compatible_strategies", "default_strategy")


# ---------------------------------------------------------------- provenance


@dataclass(frozen=True)
class Provenance:
    """Where the recipes came from; each recipe JSON then ends with a `source` block."""

    source: str
    repo: str
    ref: str
    sha: str
    repo_root: Path  # paths in the block are relative to this folder

    def block(self, recipe_file: Path) -> dict[str, Any]:
        try:
            rel = recipe_file.resolve().relative_to(self.repo_root.resolve()).as_posix()
        except ValueError:
            rel = recipe_file.name
        return {
            "source": self.source,
            "repo": self.repo,
            "ref": self.ref,
            "sha": self.sha,
            "path": rel,
            "edit_url": f"https://github.com/{self.repo}/edit/{self.ref}/{rel}",
            "overlays": [],
        }


def git_provenance(
    folder: Path,
    name: str | None = None,
    repo: str | None = None,
    ref: str | None = None,
    sha: str | None = None,
) -> Provenance | None:
    """Fill the source block from the git checkout holding ``folder``; None outside git.

    git runs through :mod:`recipelint.revision`, the package's one git helper."""
    root = checkout_fact(folder, "rev-parse", "--show-toplevel")
    if root is None:
        return None
    url = checkout_fact(folder, "remote", "get-url", "origin")
    repo = repo or (repo_slug(url) if url else None)
    ref = (
        ref
        or checkout_fact(folder, "symbolic-ref", "--quiet", "--short", "HEAD")
        or checkout_fact(folder, "rev-parse", "HEAD")
    )
    sha = sha or checkout_fact(folder, "rev-parse", "HEAD")
    if not (repo and ref and sha):
        return None
    return Provenance(name or repo.split("/")[-1], repo, ref, sha, Path(root))


# ---------------------------------------------------------------- output map


def unsafe_path_reason(path: str) -> str | None:
    """Why a data-derived output path (an hf id) could leave, or clobber, the output folder."""
    if type(path) is str and _plainly_safe(path):
        return None
    if not isinstance(path, str) or not path:
        return "it is empty"
    if "\x00" in path:
        return "it contains a NUL character"
    if "\\" in path:
        return "it contains a backslash"
    if path.startswith("/"):
        return "it is an absolute path"
    if _BAD_SEGMENT.search(path):
        return "it has an empty, '.' or '..' path segment"
    if _CONTROL.search(path):
        return "it contains a control character"
    return None


_BAD_SEGMENT = re.compile(r"(?:^|/)(?:\.{1,2})?(?:/|$)")
_CONTROL = re.compile(r"[\x00-\x1f]")


def _plainly_safe(path: str) -> bool:
    """The common case in a few C-level string tests: printable (so no control character),
    no backslash, no empty segment, and no segment starting with a dot (so no '.' or '..').
    Anything else takes the careful checks above."""
    return (
        path.isprintable()
        and path[:1] not in ("", "/", ".")
        and path[-1] != "/"
        and "\\" not in path
        and "//" not in path
        and "/." not in path
    )


class StoredDocument(Protocol):
    """A document serialised earlier (by a cache), read back when it is written out."""

    def read(self) -> bytes: ...


class OutcomeSource(Protocol):
    """Where :meth:`Compiler.run` gets a recipe's outcome from instead of compiling it (a cache)."""

    def outcome(self, compiler: Compiler, doc: Document, globals_: _Globals) -> RecipeOutcome: ...


@dataclass
class _Entry:
    doc: Any
    special: bool
    origin: str  # the tree file that produced it
    data: bytes | StoredDocument | None = (
        None  # already serialised (a cached rendering); doc is then None
    )


class WriteJournal:
    """The writes and `rm -rf`s one recipe makes, in order, to be applied to an OutputMap later.

    Recording instead of writing lets a recipe compile in another process or come from a
    cache, while the map still sees every operation in tree order (overwrites, conflicts).
    Without ``keep_documents`` only the paths are kept: all `check` needs.
    """

    def __init__(self, keep_documents: bool = True) -> None:
        self.keep_documents = keep_documents
        self.ops: list[tuple] = []  # ("write", path, doc, special, origin) | ("remove", base)

    def write(self, path: str, doc: Any, special: bool, origin: str) -> None:
        self.ops.append(("write", path, doc if self.keep_documents else None, special, origin))

    def remove_tree(self, base: str) -> None:
        self.ops.append(("remove", base))


class OutputMap:
    """The files upstream would leave in its output folder, with its write semantics."""

    def __init__(self) -> None:
        self._files: dict[str, _Entry] = {}
        # Paths by their first two segments (a recipe's folder), so `rm -rf org/model`
        # looks at that recipe's files only.
        self._by_folder: dict[str, set[str]] = {}
        self.overwritten: list[tuple[str, str, str]] = []  # path, earlier origin, later origin
        self.refused: list[tuple[str, str, str]] = []  # path, reason, origin

    def write(
        self,
        path: str,
        doc: Any,
        special: bool,
        origin: str,
        data: bytes | StoredDocument | None = None,
    ) -> None:
        # The last line of defence for every data-derived path (hardware ids are taxonomy keys).
        reason = unsafe_path_reason(path)
        if reason is not None:
            self.refused.append((path, reason, origin))
            return
        earlier = self._files.get(path)
        if earlier is not None and earlier.origin != origin:
            self.overwritten.append((path, earlier.origin, origin))
        self._files[path] = _Entry(doc, special, origin, data)
        self._by_folder.setdefault(_folder_key(path), set()).add(path)

    def apply(self, ops: list[tuple]) -> None:
        """Replay a :class:`WriteJournal` (a "write" op may carry bytes instead of a document)."""
        for op in ops:
            if op[0] == "remove":
                self.remove_tree(op[1])
            else:
                _, path, doc, special, origin, *data = op
                self.write(path, doc, special, origin, data[0] if data else None)

    def remove_tree(self, base: str) -> None:
        """`rm -rf <base>`: the file or folder at base, and everything below it."""
        prefix = base + "/"
        key = _folder_key(base)
        # A one-segment base spans every folder under it; a deeper one lies in one folder.
        keys = (
            [k for k in self._by_folder if k == key or k.startswith(prefix)]
            if key == base
            else [key]
        )
        for key in keys:
            bucket = self._by_folder.get(key)
            if not bucket:
                continue
            doomed = [p for p in bucket if p == base or p.startswith(prefix)]
            for path in doomed:
                bucket.discard(path)
                del self._files[path]

    def __contains__(self, path: str) -> bool:
        return path in self._files

    def __len__(self) -> int:
        return len(self._files)

    def paths(self) -> list[str]:
        return sorted(self._files)

    def document(self, path: str) -> Any:
        entry = self._files[path]
        return json.loads(self.serialize(path)) if entry.data is not None else entry.doc

    def serialize(self, path: str) -> bytes:
        entry = self._files[path]
        if entry.data is None:
            return dumps(entry.doc, special=entry.special)
        return entry.data if type(entry.data) is bytes else entry.data.read()

    def items(self) -> Iterator[tuple[str, bytes]]:
        for path in self.paths():
            yield path, self.serialize(path)

    def conflicts(self) -> list[str]:
        """Paths that are a file and also a folder holding other files (mkdir would fail)."""
        files = self._files
        folders: set[str] = set()
        for path in files:
            parent = path.rpartition("/")[0]
            while parent and parent not in folders:
                folders.add(parent)
                parent = parent.rpartition("/")[0]
        if folders.isdisjoint(files):
            return []
        clashes = []
        for path in files:
            cut = path.find("/")
            while cut != -1:
                if path[:cut] in files:
                    clashes.append(path)
                    break
                cut = path.find("/", cut + 1)
        return sorted(clashes)


def _folder_key(path: str) -> str:
    """The first two segments of a path (all of it when it has fewer)."""
    first = path.find("/")
    second = path.find("/", first + 1) if first != -1 else -1
    return path if second == -1 else path[:second]


# ---------------------------------------------------------------- compile


@dataclass
class CompileResult:
    files: OutputMap
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)


def _diag(
    doc: Document | None,
    fallback: Path,
    pointer: tuple,
    code: str,
    severity: Severity,
    message: str,
    hint: str | None = None,
) -> Diagnostic:
    span = doc.span(pointer) if doc is not None and doc.usable else UNKNOWN_SPAN
    # The pointer lets `check` relate the finding to schema findings and suppressions.
    return Diagnostic(
        doc.path if doc is not None else fallback,
        span,
        code,
        severity,
        message,
        hint,
        tuple(pointer) if doc is not None else (),
    )


@dataclass
class RecipeOutcome:
    """What compiling one recipe contributes; :meth:`Compiler.absorb` adds it to the output."""

    writes: WriteJournal
    diagnostics: list[Diagnostic] = field(default_factory=list)
    index_entry: dict[str, Any] | None = None  # its models.json entry
    promoted_entries: list[dict[str, Any]] = field(default_factory=list)  # one per promoted variant


def _index_entry(parent: dict[str, Any]) -> dict[str, Any]:
    """A parent recipe's models.json entry: id, title and provider, and where it is published."""
    entry = {"hf_id": parent["hf_id"]}
    meta = parent["meta"]
    for key in ("title", "provider"):
        if key in meta:
            entry[key] = meta[key]
    entry["url"] = "/" + js_string(parent["hf_id"])
    entry["json"] = "/" + js_string(parent["hf_id"]) + ".json"
    return entry


@dataclass
class _Globals:
    catalog: Catalog
    special: bool  # any tree-wide input holds values orjson would print differently


class Compiler:
    """Compiles one loaded tree; ``run`` returns the in-memory output and the findings."""

    def __init__(
        self, tree: RecipeTree, provenance: Provenance | None = None, max_renderings: int = 5000
    ):
        self.tree = tree
        self.provenance = provenance
        self.max_renderings = max_renderings  # per recipe: [tool.recipelint.limits] max-renderings
        self.out = OutputMap()
        self.diagnostics: list[Diagnostic] = list(tree.all_problems())
        self.hf_ids = {recipe_hf_id(doc.rel) for doc in tree.recipes}
        self.index_entries: list[dict[str, Any]] = []  # models.json: every parent recipe ...
        self.promoted_entries: list[dict[str, Any]] = []  # ... then every promoted variant

    # -------------------------------------------------------- helpers

    def diagnostic(
        self,
        doc: Document | None,
        pointer: tuple,
        code: str,
        severity: Severity,
        message: str,
        hint: str | None = None,
    ) -> Diagnostic:
        # A tree-wide finding is anchored on taxonomy.yaml, the file that makes a folder a tree,
        # so every report format can point at a real file.
        anchor = (
            self.tree.taxonomy.path
            if self.tree.taxonomy is not None
            else self.tree.root / "taxonomy.yaml"
        )
        return _diag(doc, anchor, pointer, code, severity, message, hint)

    def report(
        self,
        doc: Document | None,
        pointer: tuple,
        code: str,
        severity: Severity,
        message: str,
        hint: str | None = None,
    ) -> None:
        self.diagnostics.append(self.diagnostic(doc, pointer, code, severity, message, hint))

    def run(
        self,
        recipe_filter: Callable[[Document], bool] | None = None,
        source: OutcomeSource | None = None,
    ) -> CompileResult:
        """Compile the tree; with ``recipe_filter`` only the recipes it accepts (for `check`),
        with ``source`` taking each recipe's outcome from there (a cache)."""
        globals_ = self.prepare()
        if globals_ is not None:
            for doc in self.tree.recipes:
                if recipe_filter is None or recipe_filter(doc):
                    self.absorb(
                        source.outcome(self, doc, globals_)
                        if source is not None
                        else self.compile_recipe(doc, globals_)
                    )
        return self.finish(globals_)

    # The three steps of `run`, public so that recipes can be compiled elsewhere (another
    # process, a cache) and absorbed here in tree order with the same result.

    def prepare(self) -> _Globals | None:
        """Write the tree-wide files; None when there is no usable taxonomy (already reported)."""
        return self._global_files()

    def absorb(self, outcome: RecipeOutcome) -> None:
        self.out.apply(outcome.writes.ops)
        self.diagnostics.extend(outcome.diagnostics)
        if outcome.index_entry is not None:
            self.index_entries.append(outcome.index_entry)
        self.promoted_entries.extend(outcome.promoted_entries)

    def finish(self, globals_: _Globals | None) -> CompileResult:
        if globals_ is not None:
            self._models_index()
            self._quickstart()
        self._final_checks()
        self.diagnostics.sort(key=Diagnostic.sort_key)
        return CompileResult(self.out, self.diagnostics)

    # -------------------------------------------------------- global files

    def _global_files(self) -> _Globals | None:
        tree = self.tree
        taxonomy = tree.taxonomy
        if taxonomy is None or not taxonomy.usable:
            return None  # the tree loader already reported why
        special = has_js_specials(taxonomy.data)
        taxonomy_data = js_ordered(taxonomy.data) if special else taxonomy.data
        self.out.write("taxonomy.json", taxonomy_data, special, taxonomy.rel)
        if tree.platforms is not None and tree.platforms.usable:
            self.out.write(
                "platforms.json",
                tree.platforms.data,
                has_js_specials(tree.platforms.data),
                tree.platforms.rel,
            )
        for folder in ("strategies", "kv_store"):
            if not (tree.root / folder).is_dir():
                self.report(
                    None,
                    (),
                    MISSING_INPUT,
                    Severity.ERROR,
                    f"the tree has no {folder}/ folder",
                    f"add {folder}/ with the deployment specs the recipes use",
                )
        strategies: dict[str, Any] = {}
        special |= self._specs(tree.strategies, "strategies", strategies, {})
        self.out.write("strategies.json", dict(strategies), special, "strategies")
        kv_map: dict[str, Any] = {}
        special |= self._specs(tree.kv_stores, "kv_store", strategies, kv_map)
        self.out.write("kv_store.json", kv_map, special, "kv_store")
        profiles = js_or(get(taxonomy_data, "hardware_profiles"), {})
        if type(profiles) is not dict:
            self.report(
                taxonomy,
                ("hardware_profiles",),
                UNRENDERABLE_RECIPE,
                Severity.ERROR,
                "hardware_profiles must be a mapping of hardware id to profile",
            )
            profiles = {}
        if has_js_specials({name: None for name in strategies}):
            strategies = {name: strategies[name] for name in js_key_order(list(strategies))}
        return _Globals(Catalog(taxonomy_data, profiles, strategies), special)

    def _specs(self, docs: list[Document], folder: str, strategies: dict, extra: dict) -> bool:
        special = False
        for doc in docs:
            if not doc.usable:
                continue
            name = get(doc.data, "name")
            reason = unsafe_path_reason(name) if type(name) is str else "it is not a string"
            if reason is not None or "/" in name:
                self.report(
                    doc,
                    ("name",),
                    UNNAMED_SPEC,
                    Severity.ERROR,
                    f"`name` cannot name the output file {folder}/<name>.json: "
                    f"{reason or 'it contains a slash'}",
                    f"set name: {PurePosixPath(doc.rel).stem}",
                )
                continue
            doc_special = has_js_specials(doc.data)
            data = js_ordered(doc.data) if doc_special else doc.data
            strategies[name] = data
            extra[name] = data
            special |= doc_special or has_js_specials({name: None})  # names become object keys
            self.out.write(f"{folder}/{name}.json", data, doc_special, doc.rel)
        return special

    # -------------------------------------------------------- recipes

    def compile_recipe(
        self, doc: Document, globals_: _Globals, keep_documents: bool = True
    ) -> RecipeOutcome:
        """One recipe's writes, findings and index entries; the compiler's own state is not touched."""
        outcome = RecipeOutcome(WriteJournal(keep_documents))
        hf_id = recipe_hf_id(doc.rel)
        if not doc.usable or hf_id is None:
            return outcome  # reported by the tree loader
        problem = self._unrenderable(doc, hf_id)
        if problem is not None:
            outcome.diagnostics.append(problem)
            return outcome
        for pointer, message in feature_mode_problems(doc.data):
            outcome.diagnostics.append(
                self.diagnostic(doc, pointer, INVALID_FEATURE_MODES, Severity.ERROR, message)
            )
        if outcome.diagnostics:
            return outcome
        try:
            _RecipeCompiler(self, doc, hf_id, globals_, outcome).run()
        except (
            TypeError,
            AttributeError,
            ValueError,
            KeyError,
            IndexError,
            ArithmeticError,
            RecursionError,
        ) as exc:
            outcome.diagnostics.append(
                self.diagnostic(
                    doc,
                    (),
                    UNRENDERABLE_RECIPE,
                    Severity.ERROR,
                    f"the recipe cannot be compiled: {type(exc).__name__}: {exc}",
                )
            )
        return outcome

    def _unrenderable(self, doc: Document, hf_id: str) -> Diagnostic | None:
        reason = unsafe_path_reason(hf_id)
        if reason is not None:
            return self.diagnostic(
                doc,
                (),
                UNSAFE_PATH,
                Severity.ERROR,
                f"the recipe id {hf_id!r} taken from the file path is not a safe output path: "
                f"{reason}",
                "rename the file or its folder",
            )
        if type(doc.data) is not dict:
            return self.diagnostic(
                doc, (), UNRENDERABLE_RECIPE, Severity.ERROR, "a recipe must be a mapping"
            )
        if type(get(doc.data, "meta")) is not dict:
            return self.diagnostic(
                doc,
                ("meta",),
                UNRENDERABLE_RECIPE,
                Severity.ERROR,
                "the recipe has no `meta` mapping (upstream crashes building models.json)",
                "add meta: with at least title and provider",
            )
        return None

    def _models_index(self) -> None:
        entries = self.index_entries + self.promoted_entries
        special = any(has_js_specials(e) for e in entries)
        self.out.write("models.json", entries, special, "models")

    def _quickstart(self) -> None:
        folder = self.tree.root / "quickstart"
        if not folder.is_dir():
            return
        # Confined like every other tree file: a link to a file outside would be published.
        for path in confined_files(self.tree.root, folder, ".yaml", self.diagnostics):
            doc = load_document(path, f"quickstart/{path.name}", "other")
            self.diagnostics.extend(doc.problems)
            if not doc.usable:
                continue
            profile = js_string(get(doc.data, "hardware_profile"))
            reason = unsafe_path_reason(profile)
            if reason is not None or "/" in profile:
                self.report(
                    doc,
                    ("hardware_profile",),
                    UNSAFE_PATH,
                    Severity.ERROR,
                    f"hardware_profile {profile!r} is not a safe output file name",
                )
                continue
            self.out.write(
                f"quickstart/{profile}.json", doc.data, has_js_specials(doc.data), doc.rel
            )

    def _final_checks(self) -> None:
        for path, reason, origin in self.out.refused:
            doc = next((d for d in self.tree.documents() if d.rel == origin), None)
            self.report(
                doc,
                (),
                UNSAFE_PATH,
                Severity.ERROR,
                f"output path {path!r} is not safe ({reason}); it was not written",
                "hardware profile ids, names and model ids must be plain path segments",
            )
        for path in self.out.conflicts():
            self.report(
                None,
                (),
                PATH_CONFLICT,
                Severity.ERROR,
                f"output {path} needs a folder where another output file is written",
            )
        seen: set[str] = set()
        for path, earlier, later in self.out.overwritten:
            if path in seen:
                continue
            seen.add(path)
            doc = next((d for d in self.tree.recipes if d.rel == later), None)
            self.report(
                doc,
                (),
                OUTPUT_OVERWRITTEN,
                Severity.WARNING,
                f"{path} is written by {earlier} and again by {later}; the later one is kept",
            )


def argument_lists(value: Any, pointer: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(pointer, value) of every `*args` entry in a recipe, wherever it is nested."""
    if type(value) is dict:
        for key, item in value.items():
            if key in ARG_KEYS and item is not None:
                yield (*pointer, key), item
            elif isinstance(item, (dict, list)):
                yield from argument_lists(item, (*pointer, key))
    elif type(value) is list:
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from argument_lists(item, (*pointer, index))


class _RecipeCompiler:
    """One recipe file: its renderings, promoted variants, and the parent document."""

    def __init__(
        self, owner: Compiler, doc: Document, hf_id: str, globals_: _Globals, outcome: RecipeOutcome
    ):
        self.owner = owner
        self.outcome = outcome
        self.doc = doc
        self.hf_id = hf_id
        self.catalog = globals_.catalog
        own_special = has_js_specials(doc.data)
        self.data = js_ordered(doc.data) if own_special else doc.data
        self.special = globals_.special or own_special
        self.problems = Problems()
        self.renderings = 0
        self.capped = False
        self.failure_pointers: dict[tuple[str, str, str], tuple] = {}

    def write(self, path: str, document: Any) -> None:
        self.outcome.writes.write(path, document, self.special, self.doc.rel)

    def report(
        self, pointer: tuple, code: str, severity: Severity, message: str, hint: str | None = None
    ) -> None:
        self.outcome.diagnostics.append(
            self.owner.diagnostic(self.doc, pointer, code, severity, message, hint)
        )

    def run(self) -> None:
        recipe = self._published_recipe()
        default = self._render_and_write(recipe, "default", self.hf_id)
        if default is not None:
            recipe["recommended_command"] = default
        promotions = self._promote(recipe)
        if promotions and type(get(recipe, "variants")) is dict:
            variants = dict(recipe["variants"])
            for key, model_id, _ in promotions:
                variants[key] = (
                    {**variants[key], "json": f"/{model_id}.json"}
                    if type(variants[key]) is dict
                    else {"json": f"/{model_id}.json"}
                )
            recipe["variants"] = variants
        for key in SYNTHESIS_ONLY_KEYS:
            recipe.pop(key, None)
        parent = self._write_recipe_json(self.hf_id, recipe)
        self.outcome.index_entry = _index_entry(parent)
        for key, model_id, rendered in promotions:
            self._write_promoted(recipe, key, model_id, rendered)
        self._report_problems()

    def _published_recipe(self) -> dict[str, Any]:
        """The recipe as the API publishes it: hf_id added, install synthesised, dependencies dropped."""
        recipe = dict(self.data)
        recipe["hf_id"] = self.hf_id
        install = synthesize_install(recipe)
        model = recipe.get("model")
        if truthy(model):
            rest = {k: v for k, v in model.items() if k != "install"} if type(model) is dict else {}
            recipe["model"] = {**rest, "install": install} if install is not None else rest
        elif install is not None:
            recipe["model"] = {"install": install}
        recipe.pop("dependencies", None)
        return recipe

    def _render_and_write(self, recipe: dict, variant_key: str, base: str) -> dict[str, Any] | None:
        variant = get(get(recipe, "variants"), variant_key)
        if not truthy(variant):
            return None
        if is_omni(recipe):
            return None
        if self.renderings >= self.owner.max_renderings:
            self._too_many_renderings(variant_key)
            return None
        self.outcome.writes.remove_tree(base)
        rendered = render_variant(self.catalog, recipe, variant_key, self.problems)
        if rendered is None:
            return None
        default_hw, by_hw = rendered
        self.renderings += sum(1 + len(hardware.alternatives) for hardware in by_hw)
        links: dict[str, str] = {}
        for hardware in by_hw:
            folder = (
                f"{base}/strategies"
                if hardware.hw_id == default_hw
                else f"{base}/hw/{hardware.hw_id}/strategies"
            )
            alt_links = {}
            for strategy, alternative in hardware.alternatives.items():
                # compatible_strategies may list numbers or booleans: JS object keys are strings.
                name = js_string(strategy)
                path = f"{folder}/{name}.json"
                self.write(path, alternative)
                alt_links[name] = "/" + path
            if alt_links:
                hardware.recommended["alternatives"] = alt_links
            hw_path = f"{base}/hw/{hardware.hw_id}.json"
            self.write(hw_path, hardware.recommended)
            links[hardware.hw_id] = "/" + hw_path
        return {**by_hw[0].recommended, "by_hardware": links}

    def _promote(self, recipe: dict) -> list[tuple[str, str, dict]]:
        variants = get(recipe, "variants")
        if type(variants) is not dict:
            return []
        kept = []
        promoted_by: dict[str, str] = {}
        for key, cfg in variants.items():
            model_id = get(cfg, "model_id")
            if type(model_id) is not str or "/" not in model_id:
                continue
            pointer = ("variants", key, "model_id")
            if model_id in self.owner.hf_ids:
                own = model_id == self.hf_id
                self.report(
                    pointer,
                    PROMOTION_COLLIDES,
                    Severity.INFO if own else Severity.WARNING,
                    f"variant {key!r} is not published as {model_id}: "
                    + (
                        "that is this recipe's own id" if own else "a standalone recipe has that id"
                    ),
                )
                continue
            reason = unsafe_path_reason(model_id)
            if reason is not None:
                self.report(
                    pointer,
                    UNSAFE_PATH,
                    Severity.ERROR,
                    f"variant {key!r} model_id {model_id!r} cannot be an output path: {reason}",
                    "use a Hugging Face id of the form org/name",
                )
                continue
            if model_id in promoted_by:
                self.report(
                    pointer,
                    OUTPUT_OVERWRITTEN,
                    Severity.WARNING,
                    f"variants {promoted_by[model_id]!r} and {key!r} both publish {model_id}; "
                    f"{key!r} replaces it and models.json lists it twice",
                )
            promoted_by[model_id] = key
            rendered = self._render_and_write(recipe, key, model_id)
            if rendered is not None:
                kept.append((key, model_id, rendered))
        return kept

    def _failure_pointer(self, variant: str, strategy: str, message: str) -> tuple:
        """The value whose rendering failed: the one the message names, preferring the variant's
        own values, then those every variant shares, then the strategy's overrides."""
        key = (variant, strategy, message)
        if key not in self.failure_pointers:
            self.failure_pointers[key] = _failing_value(
                self.doc.data, variant, strategy, message
            ) or ("variants", variant)
        return self.failure_pointers[key]

    def _write_recipe_json(self, hf_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        ordered = {k: payload[k] for k in HEAD_KEYS if k in payload}
        ordered.update((k, v) for k, v in payload.items() if k not in HEAD_KEYS)
        if self.owner.provenance is not None:
            ordered.pop("source", None)
            ordered["source"] = self.owner.provenance.block(self.doc.path)
        self.write(f"{hf_id}.json", ordered)
        return ordered

    def _write_promoted(self, recipe: dict, key: str, model_id: str, rendered: dict) -> None:
        cfg = js_or(get(recipe["variants"], key), {})
        core = (
            {k: v for k, v in cfg.items() if k not in ("model_id", "json")}
            if type(cfg) is dict
            else {}
        )
        meta = recipe["meta"]
        model = recipe.get("model")
        promoted = {
            **recipe,
            "hf_id": model_id,
            "meta": {**meta, "derived_from": self.hf_id, "variant": key},
            "model": {**(model if type(model) is dict else {}), "model_id": model_id},
            "variants": {"default": core},
            "recommended_command": rendered,
        }
        self._write_recipe_json(model_id, promoted)
        entry: dict[str, Any] = {"hf_id": model_id}
        for field_name in ("title", "provider"):
            value = promoted["meta"].get(field_name, UNDEFINED)
            if value is not UNDEFINED:
                entry[field_name] = value
        entry.update(
            {"url": f"/{self.hf_id}", "json": f"/{model_id}.json", "derived_from": self.hf_id}
        )
        self.outcome.promoted_entries.append(entry)

    def _too_many_renderings(self, variant_key: str) -> None:
        """Hostile recipes can multiply variants x hardware x strategies; stop at the limit."""
        if self.capped:
            return
        self.capped = True
        self.report(
            ("variants", variant_key),
            TOO_MANY_RENDERINGS,
            Severity.ERROR,
            f"the recipe reached the limit of {self.owner.max_renderings} renderings: variant "
            f"{variant_key!r} and the ones after it were not rendered",
            "remove variants, or raise limits.max-renderings in the recipelint configuration",
        )

    def _report_problems(self) -> None:
        reported: set[tuple] = set()
        for pointer, value in argument_lists(self.doc.data):
            if type(value) is str:
                self.report(
                    pointer,
                    SYNTHESIS_FAILED,
                    Severity.ERROR,
                    f"{'.'.join(map(str, pointer))} is a string, which upstream spreads into "
                    "single characters",
                    "write it as a list of arguments",
                )
        # One finding per failing value, naming every rendering it breaks.
        failures: dict[tuple[tuple, str], _Affected] = {}
        for variant, strategy, hw_id, message in self.problems.failed:
            pointer = self._failure_pointer(variant, strategy, message)
            failures.setdefault((pointer, message), _Affected()).add(variant, hw_id, strategy)
        for (pointer, message), affected in failures.items():
            self.report(
                pointer,
                SYNTHESIS_FAILED,
                Severity.ERROR,
                f"cannot render {affected.describe()}: {message}",
            )
        fallbacks: dict[tuple[str, str], list[str]] = {}
        for variant, hw_id, strategy in self.problems.unrunnable:
            fallbacks.setdefault((variant, strategy), []).append(hw_id)
        for (variant, strategy), hardware in fallbacks.items():
            pointer = (
                ("compatible_strategies",)
                if "compatible_strategies" in self.doc.data
                else ("variants", variant)
            )
            self.report(
                pointer,
                NO_RUNNABLE_STRATEGY,
                Severity.WARNING,
                f"variant {variant!r} has no strategy it can run on {', '.join(hardware)}; "
                f"{strategy} is rendered there anyway",
                "list the strategies the model supports in compatible_strategies",
            )
        for pointer, message in self.problems.invalid:
            key = (pointer, message)
            if key in reported:
                continue
            reported.add(key)
            self.report(pointer, BROKEN_RENDERING, Severity.ERROR, message)


@dataclass
class _Affected:
    """The renderings one failing value breaks, in the order they were attempted."""

    variants: dict[str, None] = field(default_factory=dict)
    hardware: dict[str, None] = field(default_factory=dict)
    strategies: dict[str, None] = field(default_factory=dict)

    def add(self, variant: str, hw_id: str, strategy: str) -> None:
        self.variants[variant] = self.hardware[hw_id] = self.strategies[strategy] = None

    def describe(self) -> str:
        if len(self.variants) == len(self.hardware) == len(self.strategies) == 1:
            return f"variant {next(iter(self.variants))!r} ({next(iter(self.strategies))} on {next(iter(self.hardware))})"
        return " × ".join(
            (
                _counted(self.variants, "variant", "variants", quote=True),
                _counted(self.hardware, "hardware", "hardware"),
                _counted(self.strategies, "strategy", "strategies"),
            )
        )


def _counted(names: dict[str, None], one: str, many: str, quote: bool = False) -> str:
    """`variant 'a'`, `3 variants (a, b, c)`, `12 hardware (h100, h200, b200, …)`: compact but concrete."""
    shown = [repr(n) if quote else str(n) for n in list(names)[:3]]
    if len(names) == 1:
        return f"{one} {shown[0]}"
    return f"{len(names)} {many} ({', '.join(shown)}{', …' if len(names) > 3 else ''})"


_NOT_ITERABLE = re.compile(r"^(?P<value>.*) is not iterable")
_NON_STRING = re.compile(r"^non-string argument (?P<value>.*) \(quote it")
_NOT_MAPPING = re.compile(r"^expected a mapping of environment variables, got (?P<value>.*)$")


def _failing_value(data: Any, variant: str, strategy: str, message: str) -> tuple | None:
    """The pointer of the value a synthesis message names, or None when it names none."""
    wanted = _failure_test(message)
    if wanted is None:
        return None
    best: tuple[int, tuple] | None = None
    for pointer in _matching_values(data, wanted):
        rank = _scope_rank(pointer, variant, strategy)
        if best is None or rank < best[0]:
            best = (rank, pointer)
            if rank == 0:
                break
    return best[1] if best else None


def _failure_test(message: str) -> Callable[[str, Any], Iterator[tuple]] | None:
    """A function (key, value) -> pointers below that value (relative) that match ``message``."""
    if found := _NOT_ITERABLE.match(message):
        text = found["value"]
        return lambda key, value: (
            iter([()])
            if key in ARG_KEYS and type(value) not in (list, str) and js_string(value) == text
            else iter(())
        )
    if found := _NON_STRING.match(message):
        text = found["value"]
        return lambda key, value: (
            ((i,) for i, item in enumerate(value) if type(item) is not str and repr(item) == text)
            if key in ARG_KEYS and type(value) is list
            else iter(())
        )
    if found := _NOT_MAPPING.match(message):
        text = found["value"]
        return lambda key, value: (
            iter([()])
            if key in ENV_KEYS and type(value) is not dict and js_string(value) == text
            else iter(())
        )
    return None


def _matching_values(
    value: Any, test: Callable[[str, Any], Iterator[tuple]], pointer: tuple = ()
) -> Iterator[tuple]:
    if type(value) is dict:
        for key, item in value.items():
            for below in test(key, item):
                yield (*pointer, key, *below)
            if isinstance(item, (dict, list)):
                yield from _matching_values(item, test, (*pointer, key))
    elif type(value) is list:
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from _matching_values(item, test, (*pointer, index))


def _scope_rank(pointer: tuple, variant: str, strategy: str) -> int:
    """0: the variant's own value; 1: shared by every variant (or this strategy's); 2: another's."""
    if pointer[:2] == ("variants", variant):
        return 0
    if pointer[:1] not in (("variants",), ("strategy_overrides",)) or pointer[:2] == (
        "strategy_overrides",
        strategy,
    ):
        return 1
    return 2


# ---------------------------------------------------------------- library entry points


def compile_tree(
    root: Path, provenance: Provenance | None = None, max_renderings: int = 5000
) -> CompileResult:
    """Load and compile the tree at ``root`` without writing anything."""
    return Compiler(load_tree(root), provenance, max_renderings).run()


@functools.lru_cache(maxsize=8)
def _loaded_tree(root: str, signature: tuple) -> tuple[RecipeTree, Catalog]:
    """The loaded tree and its catalog, reused while no file in the tree changes."""
    tree = load_tree(Path(root))
    compiler = Compiler(tree)
    globals_ = compiler.prepare()
    if globals_ is None:
        raise ValueError(f"{root}: the tree has no usable taxonomy.yaml")
    return tree, globals_.catalog


def _tree_signature(root: Path) -> tuple:
    """(path, size, mtime) of every file: a cheap stat walk that invalidates the cache."""
    entries = []
    for folder, _, names in os.walk(root):
        for name in names:
            try:
                stat = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            entries.append((folder, name, stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(entries))


def render_combination(
    tree: Path | str,
    hf_id: str,
    variant: str,
    hardware: str,
    strategy: str,
    features: list[str] | None = None,
    node_count: int | None = None,
    pd_nodes: dict[str, int] | None = None,
    kv_offload: str | None = None,
) -> dict[str, Any]:
    """One rendering of a recipe, as the API would publish it, without writing files.

    ``features`` defaults to the features enabled by default on that hardware;
    ``node_count`` defaults to the strategy's own floor (2 for multi-node).
    Raises LookupError for an unknown recipe and RenderError when synthesis fails.
    """
    from recipelint.resolve.features import default_features
    from recipelint.resolve.strategy import nodes_for_strategy

    root = Path(tree).resolve()
    loaded, catalog = _loaded_tree(str(root), _tree_signature(root))
    doc = next((d for d in loaded.recipes if recipe_hf_id(d.rel) == hf_id and d.usable), None)
    if doc is None:
        raise LookupError(f"no recipe {hf_id} in {tree}")
    recipe = dict(doc.data)
    recipe["hf_id"] = hf_id
    if features is None:
        features = default_features(recipe, hardware, variant)
    if node_count is None:
        profile = catalog.profiles.get(hardware, {})
        floor = 2 if get(catalog.strategies.get(strategy), "deploy_type") == "multi_node" else 1
        node_count = max(
            floor, nodes_for_strategy(recipe, strategy, get(profile, "gpu_count"), hardware)
        )
    combo = Combination(
        variant, strategy, hardware, node_count, tuple(features), pd_nodes, kv_offload
    )
    return render_command(catalog, recipe, combo)
