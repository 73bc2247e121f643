"""RL340–RL349: what the layers of one rendered command do to each other.

For every (variant, hardware, strategy) combination the compiler offers, the
argument layers are assembled in upstream order (docs/upstream-behaviour.md#layer-order) and attributed to the
list each token came from.  The compiler's own selection helpers decide which
combinations exist, which features are on and which mode a feature uses
(resolve.plan, resolve.strategy, resolve.features); the feature lists it picks
are the recipe's own list objects, so their source is known by identity.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from recipelint.jsvalue import UNDEFINED, get, js_string, nullish, truthy
from recipelint.lazy import import_own
from recipelint.load import Document
from recipelint.resolve import layers
from recipelint.resolve.command import RenderInputs
from recipelint.resolve.features import FeatureResolver, default_features
from recipelint.resolve.hardware import (
    generation_of,
    is_kv_store_brand_supported,
    is_nvidia,
    is_scalable,
    pick_fitting_variant,
)
from recipelint.resolve.layers import ARG_STEPS, EMITTER, PD_ROLES
from recipelint.resolve.plan import SYNTHESIS_ERRORS, variant_hardware
from recipelint.resolve.strategy import (
    effective_compatible,
    is_reachable,
    is_supported_on_hardware,
    listed_strategies,
    recommend_strategy,
)
from recipelint.rules.common import (
    ArgList,
    ArgUnit,
    Pointer,
    arg_list,
    as_dict,
)
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

MAX_COMBINATIONS = 2000


class CommandChoice(NamedTuple):  # a tuple: thousands are made per run, and cheaply
    """One command a rule walks: a variant on a hardware with a strategy (and a PD role)."""

    variant: str
    hw_id: str  # the representative of every hardware in `members`
    strategy: str
    role: str | None
    members: tuple[str, ...] = ()


def render_inputs(ctx: CheckContext) -> RenderInputs:
    taxonomy = (
        ctx.tree.taxonomy.data if ctx.tree.taxonomy is not None and ctx.tree.taxonomy.usable else {}
    )
    specs = {name: doc.data for name, doc in {**ctx.strategies, **ctx.kv_stores}.items()}
    return RenderInputs(taxonomy, ctx.profiles, specs)


def _mentioned(value: Any, profiles: dict[str, Any], found: set[str]) -> set[str]:
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


def _hardware_class(hw_id: str, profile: Any, mentioned: set[str]) -> Any:
    """Hardware the recipe never names gets the same layers as any other of its generation and size."""
    if hw_id in mentioned:
        return hw_id
    return (
        generation_of(profile),
        get(profile, "brand"),
        get(profile, "gpu_count"),
        is_scalable(profile),
    )


# Tables the argument layers look up by exact hardware id, generation or lower-case brand,
# wherever they sit (recipe, variants, strategy overrides and their PD roles, features).
HARDWARE_TABLES = frozenset({"hardware_overrides", "hardware_opt_in_features"})


def _hardware_keys(value: Any, found: set[Any], table: bool = False) -> set[Any]:
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


def _mode_hardware_keys(recipe: dict[str, Any], found: set[Any]) -> set[Any]:
    """Keys of each feature mode's `hardware` table (which marks a mode unsupported there)."""
    for feature in as_dict(recipe.get("features")).values():
        for mode in as_dict(as_dict(feature).get("modes")).values():
            found.update(as_dict(as_dict(mode).get("hardware")))
    return found


def _layer_class(hw_id: str, profile: Any, keys: set[Any]) -> Any:
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


def command_choices(catalog: RenderInputs, recipe: dict[str, Any]) -> Iterator[CommandChoice]:
    """Every (variant, hardware, serving strategy, PD role) the compiler can render, one hardware per class."""
    mentioned = _mentioned(recipe, catalog.profiles, set())
    # Asked once per recipe rather than per variant: a hardware's class, the strategies offered
    # on it (which do not depend on the variant) and a strategy's PD roles.
    classes: dict[str, Any] = {}
    offered: dict[str, list[str]] = {}
    roles_of: dict[str, tuple[str | None, ...]] = {}
    compatible = _Compatible(recipe)
    for variant_key, variant in as_dict(recipe.get("variants")).items():
        if not truthy(variant):
            continue
        _default, hardware = variant_hardware(catalog, recipe, variant)
        members: dict[Any, list[str]] = {}
        for hw_id in hardware:
            hw_class = classes.get(hw_id)
            if hw_class is None:
                hw_class = classes[hw_id] = _hardware_class(
                    hw_id, catalog.profiles.get(hw_id, {}), mentioned
                )
            members.setdefault(hw_class, []).append(hw_id)
        layer_keys: set[Any] = set()
        for hw_class, group in members.items():
            hw_id = group[0]
            # Layers depend on the hardware only through the keys they read: its id, generation and brand.
            layer_class = hw_class if isinstance(hw_class, str) else hw_class[:2]
            strategies = offered.get(hw_id)
            if strategies is None:
                strategies = offered[hw_id] = _strategies_on(
                    catalog, compatible, catalog.profiles.get(hw_id, {}), hw_id
                )
            for strategy in strategies:
                roles = roles_of.get(strategy)
                if roles is None:
                    pd = get(catalog.strategies[strategy], "deploy_type") == "pd_cluster"
                    roles = roles_of[strategy] = PD_ROLES if pd else (None,)
                for role in roles:
                    if (layer_class, strategy, role) not in layer_keys:
                        layer_keys.add((layer_class, strategy, role))
                        yield CommandChoice(variant_key, hw_id, strategy, role, tuple(group))


class _Compatible:
    """What the strategies offered on a hardware read of the recipe alone, read once per recipe."""

    def __init__(self, recipe: dict[str, Any]) -> None:
        self.recipe = recipe
        self.strategies = list(
            dict.fromkeys(s for s in effective_compatible(recipe) if isinstance(s, str))
        )
        self.listed = listed_strategies(recipe)


def _strategies_on(
    catalog: RenderInputs, compatible: _Compatible, profile: Any, hw_id: str
) -> list[str]:
    recipe, scalable = compatible.recipe, is_scalable(profile)
    offered = []
    for strategy in compatible.strategies:
        spec = catalog.strategies.get(strategy)
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


def _reader(names: tuple[str, ...]) -> Callable[[dict[str, Any]], Any]:
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
        catalog: RenderInputs,
        doc: Document,
        strategy_parts: dict[tuple[Any, ...], Any] | None = None,
    ):
        self.ctx, self.catalog, self.doc = ctx, catalog, doc
        self.recipe: dict[str, Any] = doc.data
        # Parts of a command's layers, each kept under exactly what its step reads (see layers()).
        self._parts: dict[tuple[Any, ...], Any] = {}
        # Parts of the steps that read only a strategy file: shared by the recipes of a run.
        self._strategy_parts = strategy_parts if strategy_parts is not None else {}
        self._classes: dict[str, Any] = {}  # hw_id -> its _layer_class
        self._hardware_keys: set[Any] | None = None
        self._strategy_tables: dict[str, bool] = {}
        self._facts: dict[str, tuple[Any, bool]] = {}

    def has_generation_table(self, strategy: str) -> bool:
        """Whether strategy_overrides[strategy].hardware_overrides has any key: without one the
        strategy sets no generation layer (resolve.layers.strategy_generation reads nothing)."""
        found = self._strategy_tables.get(strategy)
        if found is None:
            overrides = get(get(self.recipe, "strategy_overrides"), strategy)
            table = get(overrides, "hardware_overrides")
            found = self._strategy_tables[strategy] = type(table) is dict and bool(table)
        return found

    def layer_class(self, hw_id: str) -> Any:
        """The hardware's _layer_class in this recipe: what its layers are kept under."""
        found = self._classes.get(hw_id)
        if found is None:
            if self._hardware_keys is None:
                self._hardware_keys = _mode_hardware_keys(
                    self.recipe, _hardware_keys(self.recipe, set())
                )
            profile = self.catalog.profiles.get(hw_id, {})
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

    def reads(self, combo: CommandChoice, hw_class: Any) -> dict[str, Any]:
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
                part = kept_in[key] = self._own(step.layers(sel, combo.role), combo.strategy)
            out += part
        parts[whole] = out
        return out

    def generation_layers(self, combo: CommandChoice) -> tuple[list[ArgList], list[ArgList], Any]:
        """(strategy generation layer, recipe+variant generation layers, the key the strategy layer used).

        `so.hardware_overrides[gen] || nvidia` replaces the recipe's and the variant's generation
        layers when it is set (resolve.layers.hardware_maps).
        """
        if not self.has_generation_table(combo.strategy):
            return [], _replaced_layers(self, combo), None
        key = ("strategy-generation", combo.strategy, *self._generation(combo.hw_id))
        found = self._parts.get(key)
        if found is None:
            picked, mapping = layers.strategy_generation(self.selection(combo))
            if truthy(mapping):
                layer = layers.STRATEGY_HW_ARGS.layer_at(
                    get(mapping, "extra_args"), strategy=combo.strategy, hardware=picked
                )
                found = (True, self._own([layer], combo.strategy), picked)
            else:
                found = (False, [], None)
            self._parts[key] = found
        is_set, strategy_layer, picked = found
        if is_set:
            return strategy_layer, [], picked
        return [], _replaced_layers(self, combo), None

    def _generation(self, hw_id: str) -> tuple[Any, bool]:
        """(generation, is NVIDIA): all a generation layer reads of a hardware (resolve.layers.generation_key)."""
        key = ("generation-of", hw_id)
        found = self._parts.get(key)
        if found is None:
            gen, nvidia = self._profile_facts(hw_id)
            found = self._parts[key] = (js_string(gen) if not nullish(gen) else None, nvidia)
        return found

    def _profile_facts(self, hw_id: str) -> tuple[Any, bool]:
        """(generation, is NVIDIA) of a hardware's profile, as a Selection holds them."""
        found = self._facts.get(hw_id)
        if found is None:
            profile = self.catalog.profiles.get(hw_id, {})
            found = self._facts[hw_id] = (generation_of(profile), is_nvidia(profile))
        return found

    def _features(
        self, variant_key: str, hw_id: str, hw_class: Any
    ) -> tuple[list[str], FeatureResolver, bool]:
        """(enabled features, their resolver, whether any is limited to some strategies).

        Which features are on reads the variant and the hardware, not the strategy; the
        resolver keeps each feature's layer, the same for every strategy. A failure is not
        kept: it is raised again next time.
        """
        key = ("features-of", variant_key, hw_class)
        found = self._parts.get(key)
        if found is None:
            enabled = default_features(self.recipe, hw_id, variant_key)
            variant = get(get(self.recipe, "variants"), variant_key)
            profile = self.catalog.profiles.get(hw_id, {})
            resolver = FeatureResolver(self.recipe, variant, variant_key, profile, hw_id)
            found = self._parts[key] = (enabled, resolver, _strategy_limited(self.recipe, enabled))
        return found


def _strategy_limited(recipe: dict[str, Any], enabled: list[str]) -> bool:
    """Whether an enabled feature has a non-empty `strategies` allow-list (see FeatureResolver._gate)."""
    features = get(recipe, "features")
    for name in enabled:
        feature = get(features, name)
        allow = get(feature, "strategies") if truthy(feature) else None
        if type(allow) is list and allow:
            return True
    return False


@check("RL340", "RL341")
def resolved_commands(ctx: CheckContext) -> Iterator[Finding]:
    """RL340 (a value replaced by a later layer) and RL341 (a generation override that drops
    args) from one walk over the planned combinations; the backend rules (RL370-RL373,
    recipelint.rules.backends) read the same plan and layers.

    Each recipe's combinations and assembled layers are dropped once the rules have
    read them: kept for the whole run, they were thousands of objects the cyclic
    collector walked again and again.
    """
    shadowed, replaced = ctx.config.is_enabled("RL340"), ctx.config.is_enabled("RL341")
    catalog = render_inputs(ctx)
    backends = import_own("recipelint.rules.backends").backend_judge(ctx, catalog)
    if not (shadowed or replaced or backends):
        return
    strategy_parts: dict[tuple[Any, ...], Any] = {}
    strategy_values = _strategy_values(ctx) if shadowed else {}
    for doc in _planned_recipes(ctx):
        # Most recipes give none of these rules anything to find: they are not planned at all.
        shadows = shadowed and may_shadow(ctx.arg_lists_of(doc), strategy_values)
        replaces = replaced and has_generation_tables(doc.data)
        refusing = backends.refusing(ctx, doc) if backends is not None else frozenset()
        judged = backends is not None and bool(refusing)
        plan = (
            _plan_of(ctx, catalog, doc, strategy_parts) if shadows or replaces or judged else None
        )
        if plan is None:
            continue
        assembler, combos = plan
        if shadows:
            yield from _shadowed_values(assembler, combos)
        if replaces:
            yield from _strategy_override_replaces(assembler, combos)
        if judged:
            yield from backends.findings(assembler, combos, refusing)


StrategyValues = dict[str, list[Any]]


def _strategy_values(ctx: CheckContext) -> StrategyValues:
    """Every value each option has in the strategy files' lists: the only other lists a
    command's layers hold besides the recipe's own."""
    strategies = {id(doc) for doc in ctx.strategies.values()}
    found: StrategyValues = {}
    for shared in ctx.shared_arg_lists:
        if id(shared.doc) in strategies:
            for unit in shared.units:
                found.setdefault(unit.flag, []).append(unit.value)
    return found


def may_shadow(recipe_lists: list[ArgList], strategy_values: StrategyValues) -> bool:
    """Whether RL340 can find anything in a recipe: some option its lists set is set to
    another value in another of its lists or of the strategy files'.

    A command's layers are some of these lists (the recipe's at its declared places and
    the strategy files'), and RL340 reports an option of a recipe list that a later layer
    sets again to a value that differs: without two differing values, none can.
    """
    values: dict[str, list[Any]] = {}
    for listed in recipe_lists:
        for unit in listed.units:
            values.setdefault(unit.flag, []).append(unit.value)
    for flag, found in values.items():
        first = found[0]
        others = (*found[1:], *strategy_values.get(flag, ()))
        if any(value != first for value in others):
            return True
    return False


def has_generation_tables(recipe: dict[str, Any]) -> bool:
    """Whether a strategy override keys args by hardware: RL341 judges nothing else
    (see Assembler.has_generation_table)."""
    overrides = get(recipe, "strategy_overrides")
    return type(overrides) is dict and any(
        type(override) is dict
        and type(table := override.get("hardware_overrides")) is dict
        and bool(table)
        for override in overrides.values()
    )


def _planned_recipes(ctx: CheckContext) -> Iterator[Document]:
    # omni recipes get no renderings (docs/upstream-behaviour.md#omni-recipes)
    return (
        doc for doc in ctx.recipes if isinstance(doc.data, dict) and not layers.is_omni(doc.data)
    )


def _plan_of(
    ctx: CheckContext,
    catalog: RenderInputs,
    doc: Document,
    strategy_parts: dict[tuple[Any, ...], Any] | None = None,
) -> tuple[Assembler, list[CommandChoice]] | None:
    assembler = Assembler(ctx, catalog, doc, strategy_parts)
    try:
        # Real recipes plan a few hundred at most; the cap bounds the cost of a hostile file.
        combos = list(itertools.islice(command_choices(catalog, doc.data), MAX_COMBINATIONS))
    except SYNTHESIS_ERRORS:
        return None  # the compiler reports recipes it cannot plan
    return assembler, combos


def _where(doc: Document, pointer: Pointer, index: int) -> str:
    line = doc.span((*pointer, index)).line
    place = ".".join(str(p) for p in pointer)
    return f"{place} ({doc.rel}:{line})"


def _shadowed_values(assembler: Assembler, combos: list[CommandChoice]) -> Iterator[Finding]:
    seen: set[tuple[Pointer, Pointer, int]] = set()
    done: set[tuple[int, ...]] = set()
    walked: set[tuple[Any, ...]] = set()
    for combo in combos:
        # Hardware of one layer class get the same layers: the first combination walked them.
        planned = (combo.variant, assembler.layer_class(combo.hw_id), combo.strategy, combo.role)
        if planned in walked:
            continue
        try:
            layers = assembler.layers(combo)
        except SYNTHESIS_ERRORS:
            continue
        walked.add(planned)
        signature = tuple([id(layer.items) for layer in layers])
        if signature in done:
            continue  # another hardware or strategy with the very same layers
        done.add(signature)
        yield from _shadows(assembler, layers, combo, seen)


def _shadows(
    assembler: Assembler,
    layers: list[ArgList],
    combo: CommandChoice,
    seen: set[tuple[Pointer, Pointer, int]],
) -> Iterator[Finding]:
    doc = assembler.doc
    last: dict[str, tuple[ArgList, ArgUnit]] = {}
    for layer in layers:
        for unit in layer.units:
            previous = last.get(unit.flag)
            last[unit.flag] = (layer, unit)
            if previous is None or previous[0] is layer or previous[1].value == unit.value:
                continue
            earlier, earlier_unit = previous
            key = (earlier.at(earlier_unit.index), layer.pointer, unit.index)
            if layer.doc is not doc or key in seen:
                continue
            seen.add(key)
            yield _shadow_finding(
                _Shadow(
                    layer.at(unit.index),
                    f"`{unit.flag} {unit.text_value}` replaces `{earlier_unit.flag} "
                    f"{earlier_unit.text_value}` from ",
                    None if earlier.doc is doc else earlier.doc,
                    earlier.pointer,
                    earlier_unit.index,
                    f" in the {combo.strategy} command of variant `{combo.variant}` on "
                    f"{combo.hw_id} (last wins)",
                ),
                doc,
            )


class _Shadow(NamedTuple):
    """What an RL340 finding says: the earlier list is named by its file and line."""

    pointer: Pointer
    head: str
    earlier_doc: Document | None  # None: the recipe the finding is placed in
    earlier_pointer: Pointer
    earlier_index: int
    tail: str


def _shadow_finding(shadow: _Shadow, doc: Document) -> Finding:
    earlier = shadow.earlier_doc or doc
    return Finding(
        doc,
        shadow.pointer,
        shadow.head + _where(earlier, shadow.earlier_pointer, shadow.earlier_index) + shadow.tail,
        "intended overrides are fine; otherwise make the layers agree",
        code="RL340",
    )


def _families(assembler: Assembler, layers: list[ArgList]) -> set[str]:
    """The options a list of layers sets, spelling aside (`--no-x`, `--x_y.z` are `--x`, `--x-y`)."""
    return {unit.canonical for layer in layers for unit in layer.units}


def _setting(unit: ArgUnit) -> str:
    """The option and JSON sub-key a unit sets (`--x_y.z=1` sets `--x-y.z`)."""
    return unit.canonical + unit.name[len(unit.base) :]


def _strategy_override_replaces(
    assembler: Assembler, combos: list[CommandChoice]
) -> Iterator[Finding]:
    """Generation-level strategy overrides that drop args while reading as an addition.

    Replacing is the documented precedence (CLAUDE.md: the strategy override REPLACES the
    recipe baseline and the variant delta), so an override that restates any option of
    what it replaces was written as a replacement and leaves the rest out on purpose. One
    that restates none of them reads as an addition: what it drops, and what no other
    layer of the command sets again, is reported.
    """
    vanished: dict[tuple[Pointer, Pointer], tuple[list[str], list[str], Any]] = {}
    restated: dict[Pointer, set[str]] = {}  # per override: options it shares with what it replaces
    for combo in combos:
        if combo.role is not None or not assembler.has_generation_table(combo.strategy):
            continue  # PD roles share the strategy's generation layer; one report per strategy
        try:
            strategy_layer, _kept, key = assembler.generation_layers(combo)
            if key is None:
                continue
            replaced = _replaced_layers(assembler, combo)
            command = {_setting(unit) for layer in assembler.layers(combo) for unit in layer.units}
        except SYNTHESIS_ERRORS:
            continue
        target: Pointer = ("strategy_overrides", combo.strategy, "hardware_overrides", key)
        restated.setdefault(target, set()).update(
            _families(assembler, strategy_layer) & _families(assembler, replaced)
        )
        for layer in replaced:
            lost = [unit.flag for unit in layer.units if _setting(unit) not in command]
            if lost:
                entry = vanished.setdefault((target, layer.pointer), (lost, [], key))
                entry[1].extend(hw for hw in combo.members or (combo.hw_id,) if hw not in entry[1])
    for (target, source), (lost, hardware, _key) in vanished.items():
        if restated.get(target, set()) - _strategy_wide(assembler, str(target[1])):
            continue  # written as a replacement: what it leaves out, it leaves out on purpose
        yield _replacement_finding(assembler, target, source, list(dict.fromkeys(lost)), hardware)


def _strategy_wide(assembler: Assembler, strategy: str) -> set[str]:
    """Options a strategy override sets under every one of its (two or more) generation keys.

    Those are the strategy's own addition (say an autotune opt-out for a latency-oriented
    strategy); one that happens to be in a replaced layer too is no sign of a copy kept on purpose.
    """
    table = as_dict(
        get(get(get(assembler.recipe, "strategy_overrides"), strategy), "hardware_overrides")
    )
    generations = assembler.ctx.generations | {"nvidia"}
    lists = [get(spec, "extra_args") for key, spec in table.items() if key in generations]
    if len(lists) < 2:
        return set()
    families = [
        {unit.canonical for unit in assembler.ctx.units(items)}
        if isinstance(items, list)
        else set()
        for items in lists
    ]
    return set.intersection(*families)


def _replacement_finding(
    assembler: Assembler, target: Pointer, source: Pointer, lost: list[str], hardware: list[str]
) -> Finding:
    strategy, key = target[1], target[3]
    source_key = source[-2] if len(source) >= 2 else None
    wider = (
        f" (a `{key}` key displaces the `{source_key}` layer too)"
        if source_key not in (None, key)
        else ""
    )
    flags = ", ".join(f"`{flag}`" for flag in lost)
    return Finding(
        assembler.doc,
        target,
        f"strategy_overrides.{strategy}.hardware_overrides.{key} keeps none of the args it "
        f"replaces, so it reads as an addition, but it drops {flags} of "
        f"{'.'.join(str(p) for p in source)} from the {strategy} command on "
        f"{', '.join(hardware)}{wider}",
        f"restate {flags} in the override if the {strategy} command needs {'them' if len(lost) > 1 else 'it'}, "
        f"or key it by exact hardware ({', '.join(f'`{hw}:`' for hw in hardware[:3])}), "
        "which adds instead of replacing",
        at_key=True,
        code="RL341",
    )


def _replaced_layers(assembler: Assembler, combo: CommandChoice) -> list[ArgList]:
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


# ---------------------------------------------------------------- RL342: lists no command reads

RENDERS_NOWHERE = "RL342"


class _Dead(NamedTuple):
    """Why the lists under ``pointer`` land in no rendered command."""

    pointer: Pointer
    reason: str


class _Reach:
    """What a recipe's renderings read: the hardware they are rendered for, and on which of
    it each strategy is rendered.

    It errs towards reading more than upstream does (a strategy counts as rendered wherever
    the compiler could fall back to it), so that whatever it calls unread is unread.
    """

    def __init__(self, catalog: RenderInputs, recipe: dict[str, Any], hardware: list[str]):
        self.catalog, self.recipe, self.hardware = catalog, recipe, hardware
        self._on: dict[str, list[str]] | None = None

    def variant_hardware(self, variant_key: str) -> list[str]:
        """The hardware a variant's commands are rendered for: its own, and a box that cannot
        scale out where the plan falls back to it as the largest variant that fits."""
        variant = get(get(self.recipe, "variants"), variant_key)
        own = variant_hardware(self.catalog, self.recipe, variant)[1] if truthy(variant) else []
        profiles = self.catalog.profiles
        return own + [
            hw_id
            for hw_id in self.hardware
            if hw_id not in own
            and not is_scalable(profiles.get(hw_id, {}))
            and pick_fitting_variant(self.recipe, profiles.get(hw_id, {}), hw_id) == variant_key
        ]

    def strategy_hardware(self, strategy: str) -> list[str]:
        """The hardware a strategy's commands are rendered for."""
        if self._on is None:
            self._on = self._rendered_strategies()
        return self._on.get(strategy, [])

    def _rendered_strategies(self) -> dict[str, list[str]]:
        catalog, compatible = self.catalog, _Compatible(self.recipe)
        fallbacks = {recommend_strategy(self.recipe, nodes) for nodes in (1, 2)}
        on: dict[str, list[str]] = {}
        for hw_id in self.hardware:
            profile = catalog.profiles.get(hw_id, {})
            rendered = set(_strategies_on(catalog, compatible, profile, hw_id))
            if not rendered:
                rendered = set(fallbacks)  # the recommendation is rendered even when not offered
            if _kv_store_offered(catalog, self.recipe, profile, hw_id):
                # A Mooncake instance serves with a compatible strategy, strategy_hardware aside.
                rendered.update(
                    s
                    for s in compatible.strategies
                    if catalog.deploy_type_of(s) in ("single_node", "multi_node")
                )
            for strategy in rendered:
                on.setdefault(strategy, []).append(hw_id)
        return on


def _kv_store_offered(
    catalog: RenderInputs, recipe: dict[str, Any], profile: Any, hw_id: str
) -> bool:
    if not is_scalable(profile) or not is_kv_store_brand_supported(profile):
        return False
    opted = get(recipe, "kv_cache_strategy_hardware")
    return any(get(get(opted, kv), hw_id) != "unsupported" for kv in catalog.kv_ids)


def recipe_hardware(catalog: RenderInputs, recipe: dict[str, Any]) -> list[str]:
    """Every hardware some variant of the recipe is rendered for, in taxonomy order."""
    found: dict[str, None] = {}
    for variant in as_dict(recipe.get("variants")).values():
        if truthy(variant):
            found.update(dict.fromkeys(variant_hardware(catalog, recipe, variant)[1]))
    return list(found)


# Where a list's place binds its wildcards: the place patterns of a recipe, args and env alike.
_RECIPE_PLACES = tuple(
    place
    for place in layers.PLACES
    if place.document == layers.RECIPE and place.layer != layers.OMNI_TASK_ARGS.layer
)
_WILDCARDS = frozenset(
    {layers.VARIANT, layers.HARDWARE, layers.STRATEGY, layers.ROLE, layers.FEATURE, layers.MODE}
)


def bound_wildcards(pointer: Pointer) -> dict[str, tuple[int, Any]] | None:
    """The wildcards of the place a recipe list sits at, each with its index in the pointer."""
    for place in _RECIPE_PLACES:
        pattern = place.pattern
        if len(pattern) != len(pointer):
            continue
        bound: dict[str, tuple[int, Any]] = {}
        for index, (part, value) in enumerate(zip(pattern, pointer, strict=True)):
            if part in _WILDCARDS:
                bound[part] = (index, value)
            elif part != value:
                break
        else:
            return bound
    return None


class _Judge:
    """RL342 for one recipe: the keys and blocks whose lists no rendered command reads."""

    def __init__(self, ctx: CheckContext, catalog: RenderInputs, doc: Document, reach: _Reach):
        self.ctx, self.catalog, self.doc, self.reach = ctx, catalog, doc, reach
        refs = import_own("recipelint.rules.references")
        self._refs = refs
        self.spaces = {ref.pointer: ref.space for ref in refs.hardware_refs(doc.data)}

    def dead(self, pointer: Pointer) -> _Dead | None:
        bound = bound_wildcards(pointer)
        if bound is None:
            return None
        strategy, role = bound.get(layers.STRATEGY), bound.get(layers.ROLE)
        hardware: list[str] = self.reach.hardware
        where = "the recipe's"
        if strategy is not None:
            index, name = strategy
            if name not in self.ctx.strategies:
                return None  # an unknown strategy is RL203's finding
            hardware = self.reach.strategy_hardware(name)
            if not hardware:
                return _Dead(pointer[: index + 1], self._never_rendered(name))
            deploy = self.catalog.deploy_type_of(name)
            if role is not None and deploy != "pd_cluster":
                return _Dead(
                    pointer[: role[0] + 1],
                    f"`{name}` is a {js_string(deploy)} strategy, not a PD one: its commands "
                    f"have no {role[1]} role",
                )
            where = f"the {name} commands'"
        elif layers.VARIANT in bound:
            hardware = self.reach.variant_hardware(bound[layers.VARIANT][1])
            where = f"variant `{bound[layers.VARIANT][1]}`'s"
        if layers.HARDWARE in bound:
            index, key = bound[layers.HARDWARE]
            return self._unread_key(pointer[: index + 1], key, hardware, where)
        return None

    def _never_rendered(self, strategy: str) -> str:
        if strategy not in effective_compatible(self.recipe):
            return f"`{strategy}` is not in compatible_strategies, so no command uses it"
        return (
            f"`{strategy}` is offered on none of the recipe's hardware "
            "(strategy_hardware, strategy_min_gpus or a node count rules it out)"
        )

    @property
    def recipe(self) -> dict[str, Any]:
        return self.doc.data  # type: ignore[no-any-return]

    def _unread_key(self, at: Pointer, key: Any, hardware: list[str], where: str) -> _Dead | None:
        space = self.spaces.get(at)
        if space is None or type(key) is not str:
            return None
        kinds = self._refs.key_kinds(key, self.ctx)
        if not self._refs.accepts(space, key, kinds) or (space.default and key == "default"):
            return None  # a key the table cannot read is RL201/RL202's finding
        profiles = self.catalog.profiles
        if any(_names(key, space, hw_id, profiles.get(hw_id, {})) for hw_id in hardware):
            return None
        shown = ", ".join(hardware[:4]) + (", …" if len(hardware) > 4 else "")
        return _Dead(
            at,
            f"`{key}` names none of {where} hardware ({shown or 'none'})",
        )


def _names(key: str, space: Any, hw_id: str, profile: Any) -> bool:
    """Whether a layer reading ``space`` finds hardware ``hw_id`` under ``key``."""
    if space.exact and key == hw_id:
        return True
    if space.generation:
        gen = generation_of(profile)
        if not nullish(gen) and js_string(gen) == key:
            return True
    if space.nvidia and key == "nvidia" and is_nvidia(profile):
        return True
    brand = get(profile, "brand")
    return bool(space.brand and type(brand) is str and brand.lower() == key)


def _recipe_lists(ctx: CheckContext, doc: Document) -> Iterator[Pointer]:
    """Where the recipe's non-empty args and env lists are."""
    for listed in ctx.arg_lists_of(doc):
        if listed.items:
            yield listed.pointer
    for pointer, mapping in ctx.env_mappings_of(doc):
        if mapping:
            yield pointer


def _scoped(pointer: Pointer) -> bool:
    """Whether a list sits below a strategy or a hardware key: only those can render nowhere here."""
    return len(pointer) > 2 and (
        pointer[0] == "strategy_overrides" or "hardware_overrides" in pointer
    )


@check(RENDERS_NOWHERE)
def lists_rendered_nowhere(ctx: CheckContext) -> Iterator[Finding]:
    """RL342: an override whose args or env no rendered command reads (the inverse of the
    layers the combinations join: docs/upstream-behaviour.md#layer-order)."""
    catalog: RenderInputs | None = None
    for doc in _planned_recipes(ctx):
        pointers = [p for p in _recipe_lists(ctx, doc) if _scoped(p)]
        if not pointers:
            continue
        catalog = catalog or render_inputs(ctx)
        try:
            hardware = recipe_hardware(catalog, doc.data)
        except SYNTHESIS_ERRORS:
            continue
        if not hardware:
            continue  # a recipe rendered for no hardware at all is another rule's finding
        judge = _Judge(ctx, catalog, doc, _Reach(catalog, doc.data, hardware))
        found: dict[Pointer, tuple[str, list[Pointer]]] = {}
        for pointer in pointers:
            dead = judge.dead(pointer)
            if dead is not None:
                found.setdefault(dead.pointer, (dead.reason, []))[1].append(pointer)
        for at, (reason, held) in found.items():
            yield _nowhere_finding(doc, at, reason, held)


def _nowhere_finding(doc: Document, at: Pointer, reason: str, held: list[Pointer]) -> Finding:
    place = ".".join(str(p) for p in at)
    lists = ", ".join(".".join(str(p) for p in pointer[len(at) :]) for pointer in held)
    return Finding(
        doc,
        at,
        f"{place} holds {lists}, which no rendered command reads: {reason}",
        "offer what it is written for, move its lists where a rendered command reads them, "
        "or delete it",
        at_key=True,
        code=RENDERS_NOWHERE,
    )
