"""The language server's one door into recipelint: every library entry point it uses.

The server keeps a loaded tree and re-checks documents the way `recipelint check
--stdin-filename` does; when a module it relies on is renamed or moved, only the
imports here change.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recipelint.check.checking import CheckOptions, tree_config
from recipelint.check.engine import SUPPRESSION, run_checks
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.flags.catalog import (
    Catalog,
    FlagSpec,
    catalog_for,
    flag_span,
    newest_catalog,
    value_span,
    version_key,
)
from recipelint.flags.support import DefaultEra, default_eras
from recipelint.jsvalue import JsonValue
from recipelint.read.configfile import ConfigError
from recipelint.read.load import Document, LoadLimits, load_document, parse_yaml, value_at
from recipelint.read.tree import RecipeTree, find_tree_root, load_tree, recipe_hf_id
from recipelint.rulebook.catalog import RuleInfo, load_rulebook, rule_url
from recipelint.spelling import close_flags

# What the server reads from recipelint; the names it may use.
__all__ = [
    "Catalog",
    "Config",
    "DefaultEra",
    "default_eras",
    "ConfigError",
    "Diagnostic",
    "Document",
    "FlagCatalogs",
    "FlagSpec",
    "JsonValue",
    "LoadLimits",
    "RecipeTree",
    "RenderFailure",
    "RuleInfo",
    "SUPPRESSION",
    "Severity",
    "Span",
    "check_document",
    "close_flags",
    "default_hardware",
    "default_strategy",
    "find_tree_root",
    "fixable_codes",
    "fixed_text",
    "flag_catalogs",
    "flag_span",
    "is_args_list",
    "args_item_at",
    "item_fates",
    "load_tree",
    "named_documents",
    "parse_document",
    "profiles_of",
    "read_document",
    "recipe_hf_id",
    "render",
    "renders_no_command",
    "rule_info",
    "rule_url",
    "tree_settings",
    "value_at",
    "value_span",
]


def tree_settings(root: Path) -> Config:
    """The configuration `recipelint check` applies to this tree (ConfigError when unusable)."""
    return tree_config(root, CheckOptions())


def check_document(tree: RecipeTree, config: Config, path: Path) -> list[Diagnostic]:
    """`recipelint check PATH` over the loaded tree, with the document at PATH in focus."""
    return run_checks(tree, config, focus=lambda candidate: candidate == path, jobs=1)


def document_kind(root: Path, path: Path) -> str | None:
    """The kind of tree file ``path`` is (as the tree loader names it), None for any other file."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    if parts in (("taxonomy.yaml",), ("platforms.yaml",)):
        return parts[0].removesuffix(".yaml")
    if len(parts) == 2 and parts[1].endswith(".yaml"):
        return {"strategies": "strategy", "kv_store": "kv_store"}.get(parts[0])
    if parts[0] == "models" and parts[-1].endswith((".yaml", ".yml")):
        rel = "/".join(parts)
        return "recipe" if recipe_hf_id(rel) is not None and len(parts) >= 3 else None
    return None


def parse_document(root: Path, path: Path, kind: str, text: str, limits: LoadLimits) -> Document:
    """An editor buffer as a document of the tree, with a file's limits (a BOM is dropped)."""
    text = text[1:] if text.startswith("\ufeff") else text
    rel = path.relative_to(root).as_posix()
    return parse_yaml(text, path=path, kind=kind, rel=rel, limits=limits)


# The fixers are imported when a code action is asked for: checking never needs them.


def read_document(root: Path, path: Path, kind: str, limits: LoadLimits) -> Document:
    """A file of the tree as saved on disk, with the loader's limits and decoding."""
    return load_document(path, path.relative_to(root).as_posix(), kind, limits)


def fixable_codes() -> frozenset[str]:
    from recipelint.fix.fixers import FIXERS

    return frozenset(FIXERS)


def fixed_text(doc: Document, diagnostics: list[Diagnostic]) -> str | None:
    """The document's text with the safe fixes of these findings applied, None when none applies."""
    from recipelint.fix.fixers import plan_document

    return plan_document(doc, diagnostics)


def rule_info(code: str) -> RuleInfo | None:
    return load_rulebook().get(code.upper())


# Each keystroke in a list asks again about the same list: the answer is kept.
@functools.lru_cache(maxsize=1024)
def is_args_list(kind: str, pointer: tuple[str | int, ...]) -> bool:
    """Whether ``pointer`` in a document of ``kind`` (as the tree loader names kinds) is a place
    the layers declare for `vllm serve` arguments: the lists the rules judge as arguments."""
    from recipelint.resolve.layers import is_list_place

    return is_list_place(kind, pointer)


@dataclass(frozen=True)
class FlagCatalogs:
    """The releases a recipe's flags are judged against (as the RL35x rules judge them)."""

    package: str
    min_version: str | None
    minimum: Catalog | None  # None: no usable min_vllm_version, or older than every catalog
    newest: Catalog

    @property
    def judged(self) -> Catalog:
        return self.minimum or self.newest


def flag_catalogs(data: JsonValue, variant: str | None = None) -> FlagCatalogs:
    """The catalogs of a recipe's min_vllm_version (a variant's own one when higher) and newest."""
    from recipelint.resolve.layers import is_omni

    package = (
        "vllm-omni" if isinstance(data, dict) and ("omni" in data or is_omni(data)) else "vllm"
    )
    wanted = _minimum_version(data, variant)
    minimum = catalog_for(wanted, package) if wanted else None
    return FlagCatalogs(package, wanted, minimum, newest_catalog(package))


def _minimum_version(data: JsonValue, variant: str | None) -> str | None:
    model = data.get("model") if isinstance(data, dict) else None
    base = _version(model.get("min_vllm_version")) if isinstance(model, dict) else None
    variants = data.get("variants") if isinstance(data, dict) else None
    own = variants.get(variant) if isinstance(variants, dict) and variant else None
    raised = _version(own.get("min_vllm_version")) if isinstance(own, dict) else None
    if raised is not None and (base is None or version_key(raised) > version_key(base)):
        return raised
    return base


def _version(raw: JsonValue) -> str | None:
    if not isinstance(raw, str):
        return None
    try:
        version_key(raw)
    except ValueError:
        return None
    return raw.strip().lstrip("vV")


# ---------------------------------------------------------------- rendering


class RenderFailure(Exception):
    """The combination cannot be rendered (what `compile` would report as a finding)."""


class _TreeInputs:
    """The tree-wide inputs of every rendering, kept while those documents stay the same ones."""

    documents: tuple[Document, ...] = ()
    inputs: Any = None

    @classmethod
    def of(cls, tree: RecipeTree) -> Any:
        from recipelint.compile.compiler import Compiler

        current = tuple(doc for doc in tree.documents() if doc.kind != "recipe")
        same = len(current) == len(cls.documents) and all(
            new is old for new, old in zip(current, cls.documents, strict=True)
        )
        if not same:
            prepared = Compiler(tree).prepare()
            cls.documents = current
            cls.inputs = prepared.inputs if prepared is not None else None
        return cls.inputs


def render(
    tree: RecipeTree, doc: Document, variant: str, hardware: str, strategy: str
) -> dict[str, Any]:
    """One combination of an in-memory recipe, rendered as `compile` publishes it.

    Defaults as `recipelint.compile.compiler.render_combination`: the features the hardware
    enables by default and the strategy's own node floor.
    """
    from recipelint.resolve.command import render_command

    inputs, recipe, combo = _combination(tree, doc, variant, hardware, strategy)
    rendered: dict[str, Any] = _rendering(lambda: render_command(inputs, recipe, combo))
    return rendered


def deployment_lines(
    tree: RecipeTree, doc: Document, variant: str, hardware: str, strategy: str
) -> list[str]:
    """The deployment summary (recipelint.resolve.deployment) of the combination `render`
    renders: each PD role's in turn."""
    from recipelint.argv import dedupe_tokens
    from recipelint.resolve.command import rendered_args
    from recipelint.resolve.deployment import deployment_of_argv
    from recipelint.resolve.layers import PD_ROLES
    from recipelint.rules.common import flag_catalog

    inputs, recipe, combo = _combination(tree, doc, variant, hardware, strategy)
    flags = flag_catalog(recipe)
    pd = inputs.deploy_type_of(strategy) == "pd_cluster"
    lines: list[str] = []
    for role in PD_ROLES if pd else (None,):

        def summary(role: str | None = role) -> list[str]:
            tokens = dedupe_tokens(rendered_args(inputs, recipe, combo, role))
            return deployment_of_argv(inputs, recipe, combo, role, tokens, flags).describe()

        lines += _rendering(summary)
    return lines


def _combination(
    tree: RecipeTree, doc: Document, variant: str, hardware: str, strategy: str
) -> tuple[Any, dict[str, Any], Any]:
    """(render inputs, the recipe as the compiler reads it, the combination) `render` renders."""
    from recipelint.jsvalue import get
    from recipelint.resolve.command import Combination
    from recipelint.resolve.features import default_features
    from recipelint.resolve.strategy import nodes_for_strategy

    inputs = _TreeInputs.of(tree)
    hf_id = recipe_hf_id(doc.rel)
    if inputs is None or not doc.usable or not isinstance(doc.data, dict) or hf_id is None:
        raise RenderFailure("the recipe or the tree's taxonomy cannot be read")
    recipe = {**doc.data, "hf_id": hf_id}

    def combination() -> Any:
        features = default_features(recipe, hardware, variant)
        floor = 2 if get(inputs.strategies.get(strategy), "deploy_type") == "multi_node" else 1
        gpus = get(inputs.profiles.get(hardware, {}), "gpu_count")
        nodes = max(floor, nodes_for_strategy(recipe, strategy, gpus, hardware))
        return Combination(variant, strategy, hardware, nodes, tuple(features), None, None)

    return inputs, recipe, _rendering(combination)


def _rendering(work: Any) -> Any:
    """What ``work`` returns; what rendering raises, as a RenderFailure."""
    from recipelint.resolve.formatting import RenderError

    try:
        return work()
    except RenderError as exc:
        raise RenderFailure(str(exc)) from None
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        raise RenderFailure(f"{type(exc).__name__}: {exc}") from None


def args_item_at(doc: Document, line: int, character: int) -> tuple[str | int, ...] | None:
    """The args list item written at a 0-based position of a recipe: its pointer, or None."""
    from recipelint.resolve.layers import lists

    if not doc.usable or doc.kind != "recipe":
        return None
    here = (line + 1, character + 1)
    for layer in lists(doc.data):
        for index in range(len(layer.items)):  # type: ignore[arg-type]  # lists() keeps lists
            span = doc.span((*layer.pointer, index))
            end = (span.end_line or span.line, span.end_column or span.column)
            if (span.line, span.column) <= here <= end:
                return (*layer.pointer, index)
    return None


@dataclass(frozen=True)
class ItemFates:
    """What the commands of one combination do with one list item (recipelint.report.showing)."""

    variant: str
    hardware: str
    strategy: str
    fates: list[Any]  # showing.ItemFate, in command order


def item_fates(
    tree: RecipeTree,
    doc: Document,
    item: tuple[str | int, ...],
    variant: str,
    hardware: str,
    strategy: str,
) -> ItemFates:
    """What the commands `recipelint show` renders for the combination do with a recipe's
    list item; the hardware and then the strategy fall back to the published defaults when
    the combination is not rendered. Raises RenderFailure when nothing renders."""
    from recipelint.report import showing
    from recipelint.resolve.layers import RECIPE

    inputs = _TreeInputs.of(tree)
    hf_id = recipe_hf_id(doc.rel)
    if inputs is None or not doc.usable or not isinstance(doc.data, dict) or hf_id is None:
        raise RenderFailure("the recipe or the tree's taxonomy cannot be read")
    loaded = showing.Loaded(tree, inputs, doc, hf_id)
    asked: list[tuple[str | None, str | None]] = [
        (hardware, strategy),
        (hardware, None),
        (None, None),
    ]
    for wanted_hardware, wanted_strategy in asked:
        try:
            choice = showing.choose(loaded, variant, wanted_hardware, wanted_strategy)
            view = showing.build_view(loaded, choice)
        except showing.ShowError:
            continue
        except showing.RenderFailed as exc:
            raise RenderFailure(str(exc)) from None
        fates = showing.item_fates(view, RECIPE, item)
        return ItemFates(choice.combination.variant_key, choice.hardware, choice.strategy, fates)
    raise RenderFailure(f"variant {variant} is rendered on no hardware")


def renders_no_command(data: JsonValue) -> bool:
    """An omni recipe: upstream serves it through vLLM-Omni and publishes no command."""
    from recipelint.resolve.layers import is_omni

    return is_omni(data)


def default_hardware(tree: RecipeTree, data: JsonValue, variant: str) -> str | None:
    """The hardware the API publishes a variant's command for first (None when it has none)."""
    from recipelint.jsvalue import get
    from recipelint.resolve.hardware import pick_default_hardware

    if not isinstance(data, dict):
        return None  # as when reading its meta raised AttributeError below
    try:
        chosen = pick_default_hardware(profiles_of(tree), get(get(data, "variants"), variant), data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    return chosen if isinstance(chosen, str) and chosen else None


def default_strategy(data: JsonValue) -> str | None:
    """The strategy the API recommends for one node of the recipe."""
    from recipelint.resolve.strategy import recommend_strategy

    if not isinstance(data, dict):
        return None  # as when reading its default_strategy raised AttributeError below
    try:
        chosen = recommend_strategy(data, 1)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    return chosen if isinstance(chosen, str) else None


def profiles_of(tree: RecipeTree) -> dict[str, JsonValue]:
    """The taxonomy's hardware profiles by id ({} when the taxonomy is unusable)."""
    data = tree.taxonomy.data if tree.taxonomy is not None and tree.taxonomy.usable else None
    profiles = data.get("hardware_profiles") if isinstance(data, dict) else None
    return profiles if isinstance(profiles, dict) else {}


def named_documents(docs: list[Document]) -> Iterator[tuple[str, Document]]:
    """Strategy or kv_store documents by their `name`."""
    for doc in docs:
        name = doc.data.get("name") if doc.usable and isinstance(doc.data, dict) else None
        if isinstance(name, str):
            yield name, doc
