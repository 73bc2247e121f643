"""The commands the command-walking rules read, planned once per recipe.

Which (variant, hardware, strategy, PD role) commands the compiler renders, one hardware per
layer class (command_choices), and the authored argument layers of each in upstream order
(Assembler). resolved_commands (recipelint.rules.resolved) plans each recipe once here and hands
the plan to every rule family that walks commands: RL340/RL341 there and RL370-RL373
(recipelint.rules.backends).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterator
from typing import NamedTuple

from recipelint.jsvalue import UNDEFINED, JsonValue, JsValue, get, js_string, nullish, truthy
from recipelint.read.load import Document
from recipelint.read.recipedata import Recipe
from recipelint.resolve import layers
from recipelint.resolve.command import RenderInputs
from recipelint.resolve.docker import docker_meta
from recipelint.resolve.features import FeatureResolver, default_features
from recipelint.resolve.hardware import (
    generation_of,
    is_nvidia,
    is_scalable,
)
from recipelint.resolve.layers import ARG_STEPS, EMITTER, PD_ROLES
from recipelint.resolve.plan import SYNTHESIS_ERRORS, variant_hardware
from recipelint.resolve.strategy import (
    effective_compatible,
    is_reachable,
    is_supported_on_hardware,
    listed_strategies,
)
from recipelint.rules.common import (
    ArgList,
    Pointer,
    arg_list,
    as_dict,
)
from recipelint.rules.context import CheckContext

MAX_COMBINATIONS = 2000
# resolve.plan.variant_hardware of a recipe and one of its variants.
HardwareOf = Callable[[Recipe, JsValue], tuple[str, list[str]]]
# What a hardware's layers are read by: its id when the recipe names it (or its profile is
# unusual), else a tuple of the profile facts the layers read (_hardware_class, _layer_class).
HardwareClass = str | tuple[object, ...]
# Argument lists of a command's layers, each kept under exactly what its step reads: a step's
# (name, what it reads), a whole command ("command", ...), the replaced generation layers
# ("replaced", ...). The strategy-only steps' are shared by the recipes of a run.
Parts = dict[tuple[object, ...], list[ArgList]]


class CommandChoice(NamedTuple):  # a tuple: thousands are made per run, and cheaply
    """One command a rule walks: a variant on a hardware with a strategy (and a PD role)."""

    variant: str
    hw_id: str  # the representative of every hardware in `members`
    strategy: str
    role: str | None
    members: tuple[str, ...] = ()


def render_inputs(ctx: CheckContext) -> RenderInputs:
    """The run's render inputs (CheckContext.render_inputs, built once and shared)."""
    return ctx.render_inputs


def _mentioned(value: object, profiles: dict[str, JsonValue], found: set[str]) -> set[str]:
    """Profile ids the recipe uses as keys or values anywhere: only those make a hardware special."""
    pending = [value]
    while pending:  # a walk without a call per value: recipes hold thousands of them
        value = pending.pop()
        if isinstance(value, dict):
            found.update(key for key in value if key in profiles)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and value in profiles:
            found.add(value)
    return found


def _hardware_class(hw_id: str, profile: JsValue, mentioned: set[str]) -> HardwareClass:
    """Hardware the recipe never names gets the same layers as any other of its generation and size."""
    gen, brand = generation_of(profile), get(profile, "brand")
    # The strategies offered read the generation and brand as strings: true and 1 are equal
    # keys here but "true" and "1" there, so an unusual profile is a class of its own.
    if hw_id in mentioned or type(gen) is not str or type(brand) is not str:
        return hw_id
    return (gen, brand, get(profile, "gpu_count"), is_scalable(profile))


# Tables the argument layers look up by exact hardware id, generation or lower-case brand,
# wherever they sit (recipe, variants, strategy overrides and their PD roles, features).
HARDWARE_TABLES = frozenset({"hardware_overrides", "hardware_opt_in_features"})


def _hardware_keys(value: object, found: set[str], table: bool = False) -> set[str]:
    """Keys of every HARDWARE_TABLES table in ``value`` (a key elsewhere never selects a layer)."""
    if isinstance(value, dict):
        if table:
            found.update(value)
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                _hardware_keys(item, found, key in HARDWARE_TABLES)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _hardware_keys(item, found)
    return found


def _mode_hardware_keys(recipe: dict[str, JsonValue], found: set[str]) -> set[str]:
    """Keys of each feature mode's `hardware` table (which marks a mode unsupported there)."""
    for feature in as_dict(recipe.get("features")).values():
        for mode in as_dict(as_dict(feature).get("modes")).values():
            found.update(as_dict(as_dict(mode).get("hardware")))
    return found


def _layer_class(hw_id: str, profile: JsValue, keys: set[str]) -> HardwareClass:
    """All the layers read of a hardware; two hardware of one class get the very same layers.

    The layers look a hardware up by its id, its generation and its lower-case brand, and
    also ask whether it is NVIDIA: a key no table holds reads nothing. Anything unusual
    (a non-string generation or brand) keeps the hardware in a class of its own.
    """
    gen, brand = generation_of(profile), get(profile, "brand")
    if hw_id in keys or type(gen) is not str or type(brand) is not str:
        return hw_id
    brand_key = brand.lower()
    return (
        gen if gen in keys else None,
        brand == "NVIDIA",
        brand_key if brand_key in keys else None,
    )


def command_choices(
    inputs: RenderInputs, recipe: dict[str, JsonValue], hardware_of: HardwareOf | None = None
) -> Iterator[CommandChoice]:
    """Every (variant, hardware, serving strategy, PD role) the compiler can render, one hardware
    per class. ``hardware_of`` answers variant_hardware for the recipe's variants (a run's
    CheckContext.variant_hardware keeps its answers for the other rules)."""
    mentioned = _mentioned(recipe, inputs.profiles, set())
    # Asked once per recipe rather than per variant: a hardware's class, the strategies offered
    # on it (which do not depend on the variant) and a strategy's PD roles.
    classes: dict[str, HardwareClass] = {}
    offered: dict[str, list[str]] = {}
    roles_of: dict[str, tuple[str | None, ...]] = {}
    compatible = Compatible(recipe)
    for variant_key, variant in as_dict(recipe.get("variants")).items():
        if not truthy(variant):
            continue
        _default, hardware = (
            hardware_of(recipe, variant)
            if hardware_of is not None
            else variant_hardware(inputs, recipe, variant)
        )
        members: dict[HardwareClass, list[str]] = {}
        for hw_id in hardware:
            hw_class = classes.get(hw_id)
            if hw_class is None:
                hw_class = classes[hw_id] = _hardware_class(
                    hw_id, inputs.profiles.get(hw_id, {}), mentioned
                )
            members.setdefault(hw_class, []).append(hw_id)
        # (layer class, strategy, role) -> the command's hardware, its representative first:
        # hardware of one layer class but another size shares the command of the first.
        commands: dict[tuple[HardwareClass, str, str | None], list[str]] = {}
        for hw_class, group in members.items():
            hw_id = group[0]
            # Layers depend on the hardware only through the keys they read: its id, generation and brand.
            layer_class = hw_class if isinstance(hw_class, str) else hw_class[:2]
            strategies = offered.get(hw_id)
            if strategies is None:
                strategies = offered[hw_id] = strategies_on(
                    inputs, compatible, inputs.profiles.get(hw_id, {}), hw_id
                )
            for strategy in strategies:
                roles = roles_of.get(strategy)
                if roles is None:
                    pd = get(inputs.strategies[strategy], "deploy_type") == "pd_cluster"
                    roles = roles_of[strategy] = PD_ROLES if pd else (None,)
                for role in roles:
                    commands.setdefault((layer_class, strategy, role), []).extend(group)
        for (_layer_class, strategy, role), hardware in commands.items():
            yield CommandChoice(variant_key, hardware[0], strategy, role, tuple(hardware))


class Compatible:
    """What the strategies offered on a hardware read of the recipe alone, read once per recipe."""

    def __init__(self, recipe: dict[str, JsonValue]) -> None:
        self.recipe = recipe
        self.strategies = list(
            dict.fromkeys(s for s in effective_compatible(recipe) if isinstance(s, str))
        )
        self.listed = listed_strategies(recipe)


def strategies_on(
    inputs: RenderInputs, compatible: Compatible, profile: JsValue, hw_id: str
) -> list[str]:
    recipe, scalable = compatible.recipe, is_scalable(profile)
    offered = []
    for strategy in compatible.strategies:
        spec = inputs.strategies.get(strategy)
        deploy = get(spec, "deploy_type")
        if spec is None or deploy == "kv_store_lb":
            continue
        if not scalable and (strategy.startswith("multi_node_") or strategy == "pd_cluster"):
            continue
        if is_supported_on_hardware(
            recipe, strategy, profile, hw_id, compatible.listed
        ) and is_reachable(recipe, strategy, deploy, get(profile, "gpu_count"), hw_id):
            offered.append(strategy)
    return offered


# Steps that read a hardware's lists by its exact id.
EXACT_STEPS = frozenset({"variant-exact-hardware", "exact-hardware"})
GENERATION_STEP = next(step for step in ARG_STEPS if step.name == "generation")
# The layers a rule sees: the join order without the emitter's tokens. A check plans no
# kv_store deployment, so the kv steps add nothing here.
RULE_STEPS = tuple(
    (step, tuple(sorted(step.reads)))
    for step in ARG_STEPS
    if step is not EMITTER and "kv" not in step.reads
)


def _reader(names: tuple[str, ...]) -> Callable[[dict[str, object]], object]:
    """What a step's part is kept under, read from Assembler.reads: the values of ``names``."""
    return operator.itemgetter(*names) if names else lambda reads: None


def _reads_strategy_file_only(step: layers.Step) -> bool:
    """Whether a step reads only the strategy file: its parts are the same for every recipe."""
    return step.reads <= {"strategy", "role"} and all(
        place.document != layers.RECIPE for place in step.places
    )


# Each rule step with whether it reads exact hardware ids, whether its parts are the same for
# every recipe, and the reader of its part's key.
RULE_KEYS = tuple(
    (step, step.name in EXACT_STEPS, _reads_strategy_file_only(step), _reader(names))
    for step, names in RULE_STEPS
)


class Assembler:
    """The authored argument layers of one recipe's commands, in upstream order (resolve.layers)."""

    def __init__(
        self,
        ctx: CheckContext,
        inputs: RenderInputs,
        doc: Document,
        strategy_parts: Parts | None = None,
    ):
        self.ctx, self.inputs, self.doc = ctx, inputs, doc
        self.recipe: dict[str, JsonValue] = as_dict(doc.data)
        # Parts of a command's layers, each kept under exactly what its step reads (see layers()).
        self._parts: Parts = {}
        # Parts of the steps that read only a strategy file: shared by the recipes of a run.
        self._strategy_parts: Parts = strategy_parts if strategy_parts is not None else {}
        # (set, its layer, the generation key picked) by (strategy, generation, is NVIDIA)
        self._strategy_generations: dict[
            tuple[str, str | None, bool], tuple[bool, list[ArgList], str | None]
        ] = {}
        self._generations: dict[str, tuple[str | None, bool]] = {}  # hw_id -> _generation
        self._images: dict[tuple[str, str], str | None] = {}  # (variant, hw_id) -> image
        self._feature_sets: dict[
            tuple[str, HardwareClass], tuple[list[str], FeatureResolver, bool]
        ] = {}  # (variant, hardware class) -> _features
        self._classes: dict[str, HardwareClass] = {}  # hw_id -> its _layer_class
        self._hardware_keys: set[str] | None = None
        self._strategy_tables: dict[str, bool] = {}
        self._facts: dict[str, tuple[JsValue, bool]] = {}

    def has_generation_table(self, strategy: str) -> bool:
        """Whether strategy_overrides[strategy].hardware_overrides has any key: without one the
        strategy sets no generation layer (resolve.layers.strategy_generation reads nothing)."""
        found = self._strategy_tables.get(strategy)
        if found is None:
            overrides = get(get(self.recipe, "strategy_overrides"), strategy)
            table = get(overrides, "hardware_overrides")
            found = self._strategy_tables[strategy] = type(table) is dict and bool(table)
        return found

    def layer_class(self, hw_id: str) -> HardwareClass:
        """The hardware's _layer_class in this recipe: what its layers are kept under."""
        found = self._classes.get(hw_id)
        if found is None:
            if self._hardware_keys is None:
                self._hardware_keys = _mode_hardware_keys(
                    self.recipe, _hardware_keys(self.recipe, set())
                )
            profile = self.inputs.profiles.get(hw_id, {})
            found = self._classes[hw_id] = _layer_class(hw_id, profile, self._hardware_keys)
        return found

    def _own(self, found: list[layers.Layer], strategy: str) -> list[ArgList]:
        """The non-empty lists among a step's layers, with the document each is in."""
        out = []
        for layer in found:
            if type(layer.items) is not list or not layer.items:
                continue
            if layer.document == layers.RECIPE:
                out.append(arg_list(self.doc, layer, self.ctx.units))
            else:
                doc = self.ctx.strategies.get(strategy)  # the only other document a rule step reads
                if doc is not None and isinstance(doc.data, dict):
                    out.append(arg_list(doc, layer, self.ctx.units))
        return out

    def selection(self, combo: CommandChoice) -> layers.Selection:
        """What the layers read of a combination (the features only when a step asks)."""
        recipe, variant_key, hw_id = self.recipe, combo.variant, combo.hw_id
        gen, nvidia = self._profile_facts(hw_id)
        variant = get(get(recipe, "variants"), variant_key)

        def features(strategy: str, kv_composing: bool) -> list[layers.Layer]:
            enabled, resolver, _filtered = self._features(
                variant_key, hw_id, self.layer_class(hw_id)
            )
            return resolver.layers_for(enabled, strategy, kv_composing)

        spec = self.ctx.strategies.get(
            combo.strategy
        )  # the strategy file (a kv_store is no serving strategy)
        return layers.Selection(
            recipe,
            variant_key,
            variant,
            hw_id,
            gen,
            nvidia,
            combo.strategy,
            spec.data if spec is not None else UNDEFINED,
            get(get(recipe, "strategy_overrides"), combo.strategy),
            features,
        )

    def reads(self, combo: CommandChoice, hw_class: HardwareClass) -> dict[str, object]:
        """What each name of a step's `reads` stands for in this combination, as parts are kept under it."""
        # Strategies differ in the features step only through the enabled features' `strategies` allow-lists.
        filtered = self._features(combo.variant, combo.hw_id, hw_class)[2]
        return {
            "variant": combo.variant,
            "hardware": hw_class,
            "generation": self._generation(combo.hw_id),
            "strategy": combo.strategy,
            "role": combo.role,
            "features": (combo.variant, hw_class, combo.strategy if filtered else None),
            "kv": None,
        }  # a check plans no kv_store deployment

    def layers(self, combo: CommandChoice) -> list[ArgList]:
        """The layers in command order; each step's part is assembled once per what it reads.

        Parts that read the hardware are kept under its layer class, not its id: they are
        computed for the first hardware of a class and are the same for the others.
        """
        hw_class = self.layer_class(combo.hw_id)
        parts = self._parts  # the hot path: plain lookups, a part is computed only on a miss
        whole = ("command", combo.variant, hw_class, combo.strategy, combo.role)  # RL341 asks again
        out: list[ArgList] | None = parts.get(whole)
        if out is not None:
            return out
        reads = self.reads(combo, hw_class)
        # A hardware of a class (not its own id) is named by no hardware table: its exact layers are empty.
        by_id = type(hw_class) is str
        sel: layers.Selection | None = None
        out = []
        for step, exact, wide, reader in RULE_KEYS:
            if step is GENERATION_STEP:  # RL341's own split of it keeps its parts under fewer keys
                strategy_layer, kept, _key = self.generation_layers(combo)
                out += strategy_layer + kept
                continue
            if exact and not by_id:
                continue
            key = (step.name, reader(reads))
            kept_in = self._strategy_parts if wide else parts
            part = kept_in.get(key)
            if part is None:
                sel = sel or self.selection(combo)
                part = kept_in[key] = self._own(
                    layers.step_layers(step, sel, combo.role), combo.strategy
                )
            out += part
        parts[whole] = out
        return out

    def generation_layers(
        self, combo: CommandChoice
    ) -> tuple[list[ArgList], list[ArgList], str | None]:
        """(strategy generation layer, recipe+variant generation layers, the key the strategy layer used).

        `so.hardware_overrides[gen] || nvidia` replaces the recipe's and the variant's generation
        layers when it is set (resolve.layers.hardware_maps).
        """
        if not self.has_generation_table(combo.strategy):
            return [], replaced_layers(self, combo), None
        key = (combo.strategy, *self._generation(combo.hw_id))
        found = self._strategy_generations.get(key)
        if found is None:
            picked, mapping = layers.strategy_generation(self.selection(combo))
            if truthy(mapping):
                layer = layers.STRATEGY_HW_ARGS.layer_at(
                    get(mapping, "extra_args"), strategy=combo.strategy, hardware=picked
                )
                found = (True, self._own([layer], combo.strategy), picked)
            else:
                found = (False, [], None)
            self._strategy_generations[key] = found
        is_set, strategy_layer, picked = found
        if is_set:
            return strategy_layer, [], picked
        return [], replaced_layers(self, combo), None

    def _generation(self, hw_id: str) -> tuple[str | None, bool]:
        """(generation, is NVIDIA): all a generation layer reads of a hardware (resolve.layers.generation_key)."""
        found = self._generations.get(hw_id)
        if found is None:
            gen, nvidia = self._profile_facts(hw_id)
            found = self._generations[hw_id] = (
                js_string(gen) if not nullish(gen) else None,
                nvidia,
            )
        return found

    def image(self, variant_key: str, hw_id: str) -> str | None:
        """The image a variant's commands on a hardware run in (resolve.docker.docker_meta);
        None for none, or for a value no image reference is (a malformed pin is the schema
        stage's)."""
        key = (variant_key, hw_id)
        if key not in self._images:
            variant = get(get(self.recipe, "variants"), variant_key)
            profile = self.inputs.profiles.get(hw_id, {})
            image = docker_meta(self.recipe, variant, profile, hw_id).image
            self._images[key] = image if isinstance(image, str) else None
        return self._images[key]

    def _profile_facts(self, hw_id: str) -> tuple[JsValue, bool]:
        """(generation, is NVIDIA) of a hardware's profile, as a Selection holds them."""
        found = self._facts.get(hw_id)
        if found is None:
            profile = self.inputs.profiles.get(hw_id, {})
            found = self._facts[hw_id] = (generation_of(profile), is_nvidia(profile))
        return found

    def _features(
        self, variant_key: str, hw_id: str, hw_class: HardwareClass
    ) -> tuple[list[str], FeatureResolver, bool]:
        """(enabled features, their resolver, whether any is limited to some strategies).

        Which features are on reads the variant and the hardware, not the strategy; the
        resolver keeps each feature's layer, the same for every strategy. A failure is not
        kept: it is raised again next time.
        """
        key = (variant_key, hw_class)
        found = self._feature_sets.get(key)
        if found is None:
            enabled = default_features(self.recipe, hw_id, variant_key)
            variant = get(get(self.recipe, "variants"), variant_key)
            profile = self.inputs.profiles.get(hw_id, {})
            resolver = FeatureResolver(self.recipe, variant, variant_key, profile, hw_id)
            found = self._feature_sets[key] = (
                enabled,
                resolver,
                _strategy_limited(self.recipe, enabled),
            )
        return found


def replaced_layers(assembler: Assembler, combo: CommandChoice) -> list[ArgList]:
    """The recipe and variant generation layers the strategy's generation override displaces."""
    key = ("replaced", combo.variant, *assembler._generation(combo.hw_id))
    found = assembler._parts.get(key)
    if found is None:
        maps = layers.recipe_generation_maps(assembler.selection(combo))
        found = assembler._parts[key] = assembler._own(
            [
                place.layer_at(get(mapping, "extra_args"), **bound)
                for place, bound, mapping in maps
                if bound["hardware"] is not None
            ],
            combo.strategy,
        )
    return found


def _strategy_limited(recipe: dict[str, JsonValue], enabled: list[str]) -> bool:
    """Whether an enabled feature has a non-empty `strategies` allow-list (see FeatureResolver._gate)."""
    features = get(recipe, "features")
    for name in enabled:
        feature = get(features, name)
        allow = get(feature, "strategies") if truthy(feature) else None
        if type(allow) is list and allow:
            return True
    return False


def planned_recipes(ctx: CheckContext) -> Iterator[Document]:
    # omni recipes get no renderings (docs/upstream-behaviour.md#omni-recipes)
    return (
        doc for doc in ctx.recipes if isinstance(doc.data, dict) and not layers.is_omni(doc.data)
    )


def plan_of(
    ctx: CheckContext,
    inputs: RenderInputs,
    doc: Document,
    strategy_parts: Parts | None = None,
) -> tuple[Assembler, list[CommandChoice]] | None:
    assembler = Assembler(ctx, inputs, doc, strategy_parts)
    try:
        # Real recipes plan a few hundred at most; the cap bounds the cost of a hostile file.
        choices = command_choices(inputs, as_dict(doc.data), ctx.variant_hardware)
        combos = list(itertools.islice(choices, MAX_COMBINATIONS))
    except SYNTHESIS_ERRORS:
        return None  # the compiler reports recipes it cannot plan
    return assembler, combos


def images_reached(ctx: CheckContext, doc: Document) -> dict[Pointer, frozenset[str | None]] | None:
    """The image of every deployment (variant x hardware x strategy x PD role the compiler
    renders) each of the recipe's own argument lists joins, by the list's pointer. A list no
    rendered command holds is absent. None when the recipe's commands cannot all be told: an
    omni recipe (rendered nowhere), a plan that fails or reaches the cap."""
    if layers.is_omni(doc.data):
        return None
    plan = plan_of(ctx, ctx.render_inputs, doc)
    if plan is None or len(plan[1]) >= MAX_COMBINATIONS:
        return None
    assembler, combos = plan
    reached: dict[Pointer, set[str | None]] = {}
    for combo in combos:
        try:
            joined = [listed.pointer for listed in assembler.layers(combo) if listed.doc is doc]
        except SYNTHESIS_ERRORS:
            return None  # a command the compiler cannot render: the reach is not known
        ran = {assembler.image(combo.variant, hw) for hw in combo.members or (combo.hw_id,)}
        for pointer in joined:
            reached.setdefault(pointer, set()).update(ran)
    return {pointer: frozenset(found) for pointer, found in reached.items()}
