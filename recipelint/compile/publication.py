"""What a tree publishes, planned once for both commands.

It is long because it is upstream's recipe pipeline in upstream's order (tree-wide files,
renderings, promotion, models index, quickstart), which the parity tests hold as a whole;
output paths and the output map are their own modules.

`check` and `compile` both go through this layer: the tree-wide files, each recipe's
renderings (through :mod:`recipelint.resolve`), its promoted variants and parent document,
models.json and quickstart, and the findings that rendering reveals (RL70x/RL71x, RL018).
Documents go to an :class:`~recipelint.compile.outputmap.Output` the caller picks: `check` keeps
only their paths (:class:`PlannedPaths`), `compile` writes them.

Upstream: docs/upstream-behaviour.md#global-files, #recipe-pipeline, #promotion, #models-index and
#last-writer-wins; a throw outside synthesis: #error-handling.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, cast

from recipelint.compile.failurepointer import failing_value
from recipelint.compile.outputpaths import PathLedger, folder_key, unsafe_path_reason
from recipelint.compile.placevalues import place_values
from recipelint.diagnostics import UNKNOWN_SPAN, Diagnostic, Related, Severity
from recipelint.jsvalue import (
    JS_TYPE_ERRORS,
    UNDEFINED,
    JsonDocument,
    JsonValue,
    JsOut,
    get,
    has_js_specials,
    js_key_order,
    js_or,
    js_ordered,
    js_string,
    truthy,
)
from recipelint.read.load import Document, load_document
from recipelint.read.tree import RecipeTree, confined_files, recipe_hf_id
from recipelint.resolve.command import RenderInputs
from recipelint.resolve.features import feature_mode_problems
from recipelint.resolve.inputs import Memo
from recipelint.resolve.install import synthesize_install
from recipelint.resolve.layers import ARGS, Pointer, is_omni
from recipelint.resolve.plan import HardwareRendering, Problems, render_variant
from recipelint.resolve.synthesis import Problem

if TYPE_CHECKING:
    from recipelint.compile.provenance import Provenance


class StoredDocument(Protocol):
    """A document serialised earlier (by a cache), read back when it is written out; its
    length and digest are known without reading it."""

    digest: str  # recipelint.compile.carryover.digest of its bytes

    def __len__(self) -> int: ...

    def read(self) -> bytes: ...


# ("write", path, doc, special, origin[, data]) | ("remove", base)
JournalOp = tuple[Any, ...]


class WriteJournal:
    """The writes and `rm -rf`s one recipe makes, in order: its publication plan, applied
    to an output later (in tree order)."""

    keeps_documents = True

    def __init__(self) -> None:
        self.ops: list[JournalOp] = []

    def write(self, path: str, doc: JsOut, special: bool, origin: str) -> None:
        self.ops.append(("write", path, doc, special, origin))

    def remove_tree(self, base: str) -> None:
        self.ops.append(("remove", base))

    def apply_to(self, output: Output) -> None:
        """Replay the journal (a cache's "write" op may carry bytes instead of a document)."""
        write, remove_tree = output.write, output.remove_tree
        for op in self.ops:
            if op[0] == "write":
                write(op[1], op[2], op[3], op[4], op[5] if len(op) > 5 else None)
            else:
                remove_tree(op[1])


class PathJournal:
    """The paths one recipe writes and the folders it clears, in order: what a check needs
    to find overwrites and conflicts. A write is kept as its path alone and a clearing as
    a one-item tuple: a 10x tree plans 157,000 writes, and a tuple apiece held 14 MB more
    until the check replayed them. Every write a recipe makes names that recipe's file.
    Since no document is kept, the renderings are judged without being laid out."""

    keeps_documents = False

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.ops: list[str | tuple[str]] = []

    def write(self, path: str, doc: JsOut, special: bool, origin: str) -> None:
        self.ops.append(path)

    def remove_tree(self, base: str) -> None:
        self.ops.append((base,))

    def apply_to(self, output: Output) -> None:
        write, remove_tree, origin = output.write, output.remove_tree, self.origin
        for op in self.ops:
            if type(op) is str:
                write(op, None, False, origin)
            else:
                remove_tree(op[0])


class Output(Protocol):
    """Where a compile's documents go: memory, a staging folder, or only their paths."""

    ledger: PathLedger

    def write(
        self,
        path: str,
        doc: JsOut,
        special: bool,
        origin: str,
        data: bytes | StoredDocument | None = None,
    ) -> None: ...

    def remove_tree(self, base: str) -> None: ...


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

# render_variant's answer: the default hardware and each hardware's rendering, or None.
VariantRendering = tuple[str, list[HardwareRendering]] | None

HEAD_KEYS = ("hf_id", "meta", "recommended_command")
SYNTHESIS_ONLY_KEYS = ("strategy_overrides", "compatible_strategies", "default_strategy")


def _diag(
    doc: Document | None,
    fallback: Path,
    pointer: Pointer,
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

    writes: WriteJournal | PathJournal
    diagnostics: list[Diagnostic] = field(default_factory=list)
    index_entry: JsonDocument | None = None  # its models.json entry
    promoted_entries: list[JsonDocument] = field(default_factory=list)  # one per promoted variant


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
class Globals:
    inputs: RenderInputs
    special: bool  # any tree-wide input holds values orjson would print differently


class RecipeSource(Protocol):
    """Recipes read one at a time instead of held in ``tree.recipes``."""

    rels: list[str]

    def __len__(self) -> int: ...

    def reload(self, rel: str) -> Document | None: ...


class PlannedPaths:
    """An output that keeps paths only: what the check needs to find overwrites and conflicts."""

    def __init__(self) -> None:
        self.ledger = PathLedger()

    def write(self, path: str, doc: JsOut, special: bool, origin: str, data: object = None) -> None:
        self.ledger.write(path, origin)

    def remove_tree(self, base: str) -> None:
        self.ledger.remove_tree(base)


class Publisher:
    """What a tree publishes: the tree-wide files, each recipe's documents, models.json and
    quickstart, with the findings rendering reveals. Documents go to an output the caller
    chooses (memory, a staging folder, only their paths); recipes are published one at a
    time by :meth:`publish_recipe`, which touches no state of the publisher's."""

    def __init__(
        self,
        tree: RecipeTree,
        provenance: Provenance | None = None,
        max_renderings: int = 5000,
        recipes: RecipeSource | None = None,
    ):
        self.tree = tree
        self.provenance = provenance
        self.max_renderings = max_renderings  # per recipe: [tool.recipelint.limits] max-renderings
        self.diagnostics: list[Diagnostic] = list(tree.all_problems())
        # Recipes read one at a time (the compile) are not in tree.recipes.
        self.recipe_files = recipes
        rels = recipes.rels if recipes is not None else [doc.rel for doc in tree.recipes]
        self.hf_ids = {recipe_hf_id(rel) for rel in rels}
        self.rels_by_hf_id: dict[str | None, str] = {}
        for rel in rels:
            self.rels_by_hf_id.setdefault(recipe_hf_id(rel), rel)

    def diagnostic(
        self,
        doc: Document | None,
        pointer: Pointer,
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
        pointer: Pointer,
        code: str,
        severity: Severity,
        message: str,
        hint: str | None = None,
    ) -> None:
        self.diagnostics.append(self.diagnostic(doc, pointer, code, severity, message, hint))

    # -------------------------------------------------------- tree-wide files

    def publish_globals(self, output: Output) -> Globals | None:
        """Write the tree-wide files; None when there is no usable taxonomy (already reported)."""
        tree = self.tree
        taxonomy = tree.taxonomy
        if taxonomy is None or not taxonomy.usable:
            return None  # the tree loader already reported why
        special = has_js_specials(taxonomy.data)
        taxonomy_data = js_ordered(taxonomy.data) if special else taxonomy.data
        output.write("taxonomy.json", taxonomy_data, special, taxonomy.rel)
        if tree.platforms is not None and tree.platforms.usable:
            output.write(
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
        strategies: dict[str, JsonValue] = {}
        special |= self._specs(output, tree.strategies, "strategies", strategies, {})
        output.write("strategies.json", dict(strategies), special, "strategies")
        kv_map: dict[str, JsonValue] = {}
        special |= self._specs(output, tree.kv_stores, "kv_store", strategies, kv_map)
        output.write("kv_store.json", kv_map, special, "kv_store")
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
        return Globals(RenderInputs(taxonomy_data, profiles, strategies), special)

    def _specs(
        self,
        output: Output,
        docs: list[Document],
        folder: str,
        strategies: dict[str, JsonValue],
        extra: dict[str, JsonValue],
    ) -> bool:
        special = False
        for doc in docs:
            if not doc.usable:
                continue
            name = get(doc.data, "name")
            reason = unsafe_path_reason(name) if type(name) is str else "it is not a string"
            if reason is not None or "/" in cast(str, name):  # a string, when reason is None
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
            strategies[cast(str, name)] = data
            extra[cast(str, name)] = data
            special |= doc_special or has_js_specials({name: None})  # names become object keys
            output.write(f"{folder}/{name}.json", data, doc_special, doc.rel)
        return special

    # -------------------------------------------------------- recipes

    def publish_recipe(
        self, doc: Document, globals_: Globals, paths_only: bool = False
    ) -> RecipeOutcome:
        """One recipe's writes (or with ``paths_only`` their paths), findings and index
        entries; the publisher's own state is not touched."""
        outcome = RecipeOutcome(PathJournal(doc.rel) if paths_only else WriteJournal())
        hf_id = recipe_hf_id(doc.rel)
        if not doc.usable or hf_id is None:
            return outcome  # reported by the tree loader
        problem = self._unrenderable(doc, hf_id)
        if problem is not None:
            outcome.diagnostics.append(problem)
            return outcome
        assert type(doc.data) is dict  # _unrenderable reports any other top level
        for pointer, message in feature_mode_problems(doc.data):
            outcome.diagnostics.append(
                self.diagnostic(doc, pointer, INVALID_FEATURE_MODES, Severity.ERROR, message)
            )
        if outcome.diagnostics:
            return outcome
        try:
            _RecipePublisher(self, doc, hf_id, globals_, outcome).run()
        except JS_TYPE_ERRORS as exc:  # a throw outside upstream's synthesis try/catch
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

    # -------------------------------------------------------- closing files and checks

    def publish_closing(self, output: Output, entries: list[JsonDocument]) -> None:
        """models.json (``entries``: every parent recipe's, then every promoted variant's),
        then the quickstart files."""
        special = any(has_js_specials(e) for e in entries)
        output.write("models.json", entries, special, "models")
        self._quickstart(output)

    def _quickstart(self, output: Output) -> None:
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
            output.write(f"quickstart/{profile}.json", doc.data, has_js_specials(doc.data), doc.rel)

    def _reloaded(self, rel: str) -> Document | None:
        return self.recipe_files.reload(rel) if self.recipe_files is not None else None

    def check_paths(self, ledger: PathLedger) -> None:
        """Report refused paths, file-versus-folder conflicts and overwrites between files."""
        documents: dict[str, Document] = {}
        for doc in self.tree.documents():
            documents.setdefault(doc.rel, doc)
        for path, reason, origin in ledger.refused:
            self.report(
                documents.get(origin) or self._reloaded(origin),
                (),
                UNSAFE_PATH,
                Severity.ERROR,
                f"output path {path!r} is not safe ({reason}); it was not written",
                "hardware profile ids, names and model ids must be plain path segments",
            )
        for path in ledger.conflicts():
            self.report(
                None,
                (),
                PATH_CONFLICT,
                Severity.ERROR,
                f"output {path} needs a folder where another output file is written",
            )
        recipes: dict[str, Document] = {}
        for doc in self.tree.recipes:
            recipes.setdefault(doc.rel, doc)
        seen: set[str] = set()
        for path, earlier, later in ledger.overwritten:
            if path in seen:
                continue
            seen.add(path)
            message = f"{path} is written by {earlier} and again by {later}; the later one is kept"
            later_doc = recipes.get(later) or self._reloaded(later)
            self.report(later_doc, (), OUTPUT_OVERWRITTEN, Severity.WARNING, message)
            # Each recipe taking part hears of it, whichever of them a check names.
            earlier_doc = recipes.get(earlier) or self._reloaded(earlier)
            if earlier != later and earlier_doc is not None:
                self.report(earlier_doc, (), OUTPUT_OVERWRITTEN, Severity.WARNING, message)


def output_folders(doc: Document) -> set[str]:
    """The output folders a recipe may write in: its own id's and every variant model_id's it
    may promote. Two recipes whose folders differ cannot touch each other's output."""
    hf_id = recipe_hf_id(doc.rel)
    found = {folder_key(hf_id)} if hf_id is not None else set()
    variants = get(doc.data, "variants") if doc.usable else None
    if type(variants) is dict:
        for variant in variants.values():
            model_id = get(variant, "model_id")
            if type(model_id) is str and "/" in model_id:
                found.add(folder_key(model_id))
    return found


def argument_lists(recipe: object) -> Iterator[tuple[Pointer, JsonValue]]:
    """(pointer, value) of every value at a declared args place of a recipe (any type but
    null): the places resolve.layers.PLACES declares, not every key of such a name."""
    return place_values(recipe, ARGS)


class _RecipePublisher:
    """One recipe file: its renderings, promoted variants, and the parent document."""

    def __init__(
        self, owner: Publisher, doc: Document, hf_id: str, globals_: Globals, outcome: RecipeOutcome
    ):
        self.owner = owner
        self.outcome = outcome
        self.doc = doc
        self.hf_id = hf_id
        self.inputs = globals_.inputs
        assert type(doc.data) is dict  # publish_recipe renders nothing else
        own_special = has_js_specials(doc.data)
        self.data: dict[str, JsonValue] = js_ordered(doc.data) if own_special else doc.data
        self.special = globals_.special or own_special
        self.problems = Problems()
        self.shared_work: Memo = {}  # what its variants' renderings share
        self.renderings = 0
        self.capped = False
        self.failure_pointers: dict[tuple[str, str, str], Pointer] = {}
        # variant -> its rendering and the problems rendering it reported
        self.variant_renderings: dict[
            str,
            tuple[
                VariantRendering,
                list[tuple[str, str, str, str]],
                list[Problem],
                list[tuple[str, str, str]],
            ],
        ] = {}

    def write(self, path: str, document: JsOut) -> None:
        self.outcome.writes.write(path, document, self.special, self.doc.rel)

    def report(
        self,
        pointer: tuple[Any, ...],
        code: str,
        severity: Severity,
        message: str,
        hint: str | None = None,
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
        recipe: dict[str, Any] = dict(self.data)  # read values, and the compiler's own beside them
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

    def _render_and_write(
        self, recipe: dict[str, Any], variant_key: str, base: str
    ) -> JsonDocument | None:
        variant = get(get(recipe, "variants"), variant_key)
        if not truthy(variant):
            return None
        if is_omni(recipe):
            return None
        if self.renderings >= self.owner.max_renderings:
            self._too_many_renderings(variant_key)
            return None
        self.outcome.writes.remove_tree(base)
        rendered = self._rendered_variant(recipe, variant_key)
        if rendered is None:
            return None
        default_hw, by_hw = rendered
        self.renderings += sum(1 + len(hardware.alternatives) for hardware in by_hw)
        links: dict[str, str] = {}
        write, special, origin = self.outcome.writes.write, self.special, self.doc.rel
        for hardware in by_hw:
            folder = (
                f"{base}/strategies"
                if hardware.hw_id == default_hw
                else f"{base}/hw/{hardware.hw_id}/strategies"
            )
            alt_links = {}
            for strategy, alternative in hardware.alternatives.items():
                # compatible_strategies may list numbers or booleans: JS object keys are strings.
                name = strategy if type(strategy) is str else js_string(strategy)
                path = f"{folder}/{name}.json"
                write(path, alternative, special, origin)
                alt_links[name] = "/" + path
            if alt_links:
                hardware.recommended["alternatives"] = alt_links
            hw_path = f"{base}/hw/{hardware.hw_id}.json"
            write(hw_path, hardware.recommended, special, origin)
            links[hardware.hw_id] = "/" + hw_path
        return {**by_hw[0].recommended, "by_hardware": links}

    def _rendered_variant(self, recipe: dict[str, Any], variant_key: str) -> VariantRendering:
        """render_variant, once per variant: the default variant promoted under its model_id
        is published twice, rendered alike (nothing a rendering reads changes in between).
        The second time its problems are reported again, as rendering it again reports them,
        and each hardware's recommended document is a copy (the caller adds its links)."""
        problems = self.problems
        kept = self.variant_renderings.get(variant_key)
        if kept is not None:
            rendered, failed, invalid, unrunnable = kept
            problems.failed += failed
            problems.invalid += invalid
            problems.unrunnable += unrunnable
            return _copied(rendered)
        marks = len(problems.failed), len(problems.invalid), len(problems.unrunnable)
        rendered = render_variant(
            self.inputs,
            recipe,
            variant_key,
            problems,
            self.outcome.writes.keeps_documents,
            self.shared_work,
        )
        self.variant_renderings[variant_key] = (
            rendered,
            problems.failed[marks[0] :],
            problems.invalid[marks[1] :],
            problems.unrunnable[marks[2] :],
        )
        return rendered

    def _promote(self, recipe: dict[str, Any]) -> list[tuple[str, str, JsonDocument]]:
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
                if not own:
                    self._report_on_standalone(key, model_id, pointer)
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

    def _report_on_standalone(self, key: str, model_id: str, pointer: Pointer) -> None:
        """RL706 on the standalone recipe as well: a check of that file alone (a commit adding
        it) learns what it does to the other recipe. It is anchored at the file's start, so the
        finding depends on nothing of that file but its name (a cached outcome stays true)."""
        rel = self.owner.rels_by_hf_id.get(model_id)
        if rel is None:
            return
        related = Related(self.doc.path, self.doc.span(pointer), f"variant {key!r}", pointer)
        self.outcome.diagnostics.append(
            Diagnostic(
                self.owner.tree.root / rel,
                UNKNOWN_SPAN,
                PROMOTION_COLLIDES,
                Severity.WARNING,
                f"this recipe's id {model_id} is the model_id of variant {key!r} of "
                f"{self.doc.rel}, which is therefore not published on its own",
                "rename one of them, or drop the variant if this recipe takes its place",
                related=(related,),
            )
        )

    def _failure_pointer(self, variant: str, strategy: str, message: str) -> Pointer:
        """The value whose rendering failed: the one the message names, preferring the variant's
        own values, then those every variant shares, then the strategy's overrides."""
        key = (variant, strategy, message)
        if key not in self.failure_pointers:
            self.failure_pointers[key] = failing_value(
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

    def _write_promoted(
        self, recipe: dict[str, Any], key: str, model_id: str, rendered: JsonDocument
    ) -> None:
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
        reported: set[Problem] = set()
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
        failures: dict[Problem, _Affected] = {}
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
                if "compatible_strategies" in self.data
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


def _copied(rendered: VariantRendering) -> VariantRendering:
    """A variant's rendering whose recommended documents a second publication may change."""
    if rendered is None:
        return None
    default_hw, by_hw = rendered
    return default_hw, [
        HardwareRendering(hardware.hw_id, dict(hardware.recommended), hardware.alternatives)
        for hardware in by_hw
    ]


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
