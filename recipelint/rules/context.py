"""What checks read: the tree, the configuration, the files in focus, and indexes built once.

An index that checks of several families read (the documents by name, the taxonomy's
keys, every argument list) is a cached property here, computed on first use and
shared by every check of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from recipelint.configuration.config import Config
from recipelint.jsvalue import JsonValue, JsValue
from recipelint.read.load import Document
from recipelint.read.recipedata import Recipe
from recipelint.read.tree import RecipeTree, recipe_hf_id
from recipelint.resolve import layers
from recipelint.resolve.inputs import RenderInputs
from recipelint.rules.common import (
    ArgList,
    Pointer,
    SharedUnits,
    as_dict,
    env_mappings,
    recipe_arg_lists,
    shared_arg_lists,
)

if TYPE_CHECKING:
    from recipelint.rules.guide import GuideFacts

Focus = Callable[[Path], bool]


class HandedOver(TypedDict, total=False):
    """What one check works out for a later one, by what it is."""

    guide_facts: dict[str, GuideFacts]  # each guide's facts by its text, RL601-RL606 for RL607


def everything(path: Path) -> bool:
    """The focus of a check of a whole tree."""
    return True


@dataclass
class CheckContext:
    """The tree a check run reads, with indexes built once and shared."""

    tree: RecipeTree
    config: Config = field(default_factory=Config)
    # Findings are wanted only for these files; per-file checks skip the others.
    focus: Focus = everything

    # What one check works out for a later one (a guide's parsed blocks, ...), taken by the
    # check that reads it: each is worked out once per run, not once per check.
    handed_over: HandedOver = field(default_factory=HandedOver, init=False, repr=False)
    # (recipe, variant, resolve.plan.variant_hardware of them) by the ids of the two.
    _variant_hardware: dict[tuple[int, int], tuple[Recipe, JsValue, tuple[str, list[str]]]] = field(
        default_factory=dict, init=False, repr=False
    )

    def in_focus(self, doc: Document) -> bool:
        return self.focus(doc.path)

    @cached_property
    def recipes(self) -> list[Document]:
        """The usable recipes to report on."""
        return [doc for doc in self.all_recipes if self.focus(doc.path)]

    @cached_property
    def all_recipes(self) -> list[Document]:
        """Every usable recipe, for checks that compare recipes with each other."""
        return [doc for doc in self.tree.recipes if doc.usable]

    @cached_property
    def profiles(self) -> dict[str, JsonValue]:
        """The taxonomy's hardware profiles by id (each as the file holds it)."""
        taxonomy = self.tree.taxonomy
        return as_dict(
            as_dict(taxonomy.data).get("hardware_profiles")
            if taxonomy is not None and taxonomy.usable
            else None
        )

    @cached_property
    def strategies(self) -> dict[str, Document]:
        return _by_name(self.tree.strategies)

    @cached_property
    def kv_stores(self) -> dict[str, Document]:
        return _by_name(self.tree.kv_stores)

    @cached_property
    def hf_ids(self) -> dict[str, Document]:
        """Every recipe (usable or not) by the Hugging Face id its path publishes."""
        ids: dict[str, Document] = {}
        for doc in self.tree.recipes:
            hf_id = recipe_hf_id(doc.rel)
            if hf_id:
                ids.setdefault(hf_id, doc)
        return ids

    @cached_property
    def generations(self) -> set[str]:
        return {gen for profile in self.profiles.values() for gen in _generations(profile)}

    @cached_property
    def brands(self) -> set[str]:
        """Lower-case brands: the keys a brand-keyed table uses."""
        brands = (_brand(profile) for profile in self.profiles.values())
        return {brand.lower() for brand in brands if brand is not None}

    @cached_property
    def hardware_groups(self) -> dict[str, frozenset[str]]:
        """The profile ids each hardware key (an id, a generation, a lower-case brand) applies to."""
        groups: dict[str, set[str]] = {}
        for hw_id, profile in self.profiles.items():
            brand = _brand(profile)
            lowered = [brand.lower()] if brand is not None else []
            for key in {hw_id, *_generations(profile), *lowered}:
                groups.setdefault(key, set()).add(hw_id)
        return {key: frozenset(members) for key, members in groups.items()}

    def hardware_members(self, key: str | None) -> frozenset[str] | None:
        """Profile ids a hardware key applies to; None means every profile."""
        if key is None or key == "default":
            return None
        return self.hardware_groups.get(key, frozenset())

    @cached_property
    def render_inputs(self) -> RenderInputs:
        """What every rendering reads besides the recipe, built once per run: the hardware
        facts and deploy types it works out are then shared by every rule that renders."""
        taxonomy = self.tree.taxonomy
        data = taxonomy.data if taxonomy is not None and taxonomy.usable else {}
        specs = {name: doc.data for name, doc in {**self.strategies, **self.kv_stores}.items()}
        return RenderInputs(data, self.profiles, specs)

    def variant_hardware(self, recipe: Recipe, variant: JsValue) -> tuple[str, list[str]]:
        """resolve.plan.variant_hardware with the run's render inputs, worked out once per
        recipe and variant (several rule families ask for it); callers only read the list.
        A failure is not kept: it is raised again next time."""
        key = (id(recipe), id(variant))
        found = self._variant_hardware.get(key)
        if found is None:
            from recipelint.resolve.plan import variant_hardware

            # the recipe and variant are kept with the answer: their ids stay theirs
            answer = variant_hardware(self.render_inputs, recipe, variant)
            found = self._variant_hardware[key] = (recipe, variant, answer)
        answer = found[2]
        return answer[0], answer[1]

    @cached_property
    def units(self) -> SharedUnits:
        """Tokenises an argument list once for the whole run (recipelint.rules.common.arg_units)."""
        return SharedUnits()

    @cached_property
    def recipe_arg_lists(self) -> dict[Path, list[ArgList]]:
        """The args lists of each recipe in focus, by file."""
        return {doc.path: list(recipe_arg_lists(doc, self.units)) for doc in self.recipes}

    @cached_property
    def shared_arg_lists(self) -> list[ArgList]:
        """The args lists of every strategy and kv_store file, in focus or not."""
        return list(shared_arg_lists(self.strategies, self.kv_stores.values(), self.units))

    @cached_property
    def arg_lists(self) -> list[ArgList]:
        """Every argument list the per-list checks report on."""
        found = [arg_list for lists in self.recipe_arg_lists.values() for arg_list in lists]
        return found + [a for a in self.shared_arg_lists if self.in_focus(a.doc)]

    def arg_lists_of(self, doc: Document) -> list[ArgList]:
        """The args lists of one recipe (read again when it is not in focus)."""
        found = self.recipe_arg_lists.get(doc.path)
        return found if found is not None else list(recipe_arg_lists(doc, self.units))

    @cached_property
    def recipe_env_mappings(self) -> dict[Path, list[tuple[Pointer, dict[str, JsonValue]]]]:
        """The env mappings of each recipe in focus, by file: several families read them."""
        return {doc.path: list(env_mappings(doc.data, layers.RECIPE)) for doc in self.recipes}

    def env_mappings_of(self, doc: Document) -> list[tuple[Pointer, dict[str, JsonValue]]]:
        """The env mappings of one recipe (read again when it is not in focus)."""
        found = self.recipe_env_mappings.get(doc.path)
        return found if found is not None else list(env_mappings(doc.data, layers.RECIPE))


def _by_name(docs: Iterable[Document]) -> dict[str, Document]:
    named: dict[str, Document] = {}
    for doc in docs:
        name = doc.data.get("name") if doc.usable and isinstance(doc.data, dict) else None
        if isinstance(name, str):
            named.setdefault(name, doc)
    return named


def _generations(profile: object) -> list[str]:
    """A profile's generation keys (`generation`, else the older `gpu_generation`; one or a list)."""
    data = as_dict(profile)
    gen = data.get("generation") or data.get("gpu_generation")
    return [g for g in (gen if isinstance(gen, list) else [gen]) if isinstance(g, str)]


def _brand(profile: object) -> str | None:
    brand = as_dict(profile).get("brand")
    return brand if isinstance(brand, str) else None
