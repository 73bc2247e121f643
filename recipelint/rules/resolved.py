"""RL340–RL349: what the layers of one rendered command do to each other.

For every (variant, hardware, strategy) combination the compiler offers, the
argument layers are assembled in upstream order (docs/upstream-behaviour.md#layer-order) and attributed to the
list each token came from.  The compiler's own selection helpers decide which
combinations exist, which features are on and which mode a feature uses
(resolve.plan, resolve.strategy, resolve.features); the feature lists it picks
are the recipe's own list objects, so their source is known by identity.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from recipelint.jsvalue import JsonValue, JsValue, get, js_string, nullish, truthy
from recipelint.lazy import import_own
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.command import RenderInputs
from recipelint.resolve.hardware import (
    generation_of,
    is_kv_store_brand_supported,
    is_nvidia,
    is_scalable,
    pick_fitting_variant,
)
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.resolve.strategy import (
    effective_compatible,
    recommend_strategy,
)
from recipelint.rules import backends
from recipelint.rules.commandplan import (
    Assembler,
    CommandChoice,
    Compatible,
    Parts,
    plan_of,
    planned_recipes,
    replaced_layers,
    strategies_on,
)
from recipelint.rules.common import (
    ArgList,
    ArgUnit,
    Pointer,
    as_dict,
)
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

if TYPE_CHECKING:
    from recipelint.rules.references import Keyspace


@check("RL340", "RL341", "RL370", "RL371", "RL372", "RL373")  # backends.CODES
def resolved_commands(ctx: CheckContext) -> Iterator[Finding]:
    """RL340 (a value replaced by a later layer) and RL341 (a generation override that drops
    args) from one walk over the planned combinations; the backend rules (RL370-RL373,
    recipelint.rules.backends) read the same plan and layers.

    Each recipe's combinations and assembled layers are dropped once the rules have
    read them: kept for the whole run, they were thousands of objects the cyclic
    collector walked again and again.
    """
    shadowed, replaced = ctx.config.is_enabled("RL340"), ctx.config.is_enabled("RL341")
    inputs = ctx.render_inputs
    judge = backends.backend_judge(ctx, inputs)
    if not (shadowed or replaced or judge):
        return
    strategy_parts: Parts = {}
    strategy_values = _strategy_values(ctx) if shadowed else {}
    for doc in planned_recipes(ctx):
        # Most recipes give none of these rules anything to find: they are not planned at all.
        shadows = shadowed and may_shadow(ctx.arg_lists_of(doc), strategy_values)
        replaces = replaced and has_generation_tables(as_dict(doc.data))
        refusing = judge.refusing(ctx, doc) if judge is not None else frozenset()
        plan = (
            plan_of(ctx, inputs, doc, strategy_parts) if shadows or replaces or refusing else None
        )
        if plan is None:
            continue
        assembler, combos = plan
        if shadows:
            yield from _shadowed_values(assembler, combos)
        if replaces:
            yield from _strategy_override_replaces(assembler, combos)
        if judge is not None and refusing:
            yield from judge.findings(assembler, combos, refusing)


StrategyValues = dict[str, list[JsonValue]]


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
    values: dict[str, list[JsonValue]] = {}
    for listed in recipe_lists:
        for unit in listed.units:
            values.setdefault(unit.flag, []).append(unit.value)
    for flag, found in values.items():
        first = found[0]
        others = (*found[1:], *strategy_values.get(flag, ()))
        if any(value != first for value in others):
            return True
    return False


def has_generation_tables(recipe: dict[str, JsonValue]) -> bool:
    """Whether a strategy override keys args by hardware: RL341 judges nothing else
    (see Assembler.has_generation_table)."""
    overrides = get(recipe, "strategy_overrides")
    return type(overrides) is dict and any(
        type(override) is dict
        and type(table := override.get("hardware_overrides")) is dict
        and bool(table)
        for override in overrides.values()
    )


def _where(doc: Document, pointer: Pointer, index: int) -> str:
    line = doc.span((*pointer, index)).line
    place = ".".join(str(p) for p in pointer)
    return f"{place} ({doc.rel}:{line})"


def _shadowed_values(assembler: Assembler, combos: list[CommandChoice]) -> Iterator[Finding]:
    seen: set[tuple[Pointer, Pointer, int]] = set()
    done: set[tuple[int, ...]] = set()
    walked: set[tuple[object, ...]] = set()
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
    vanished: dict[tuple[Pointer, Pointer], tuple[list[str], list[str], str]] = {}
    restated: dict[Pointer, set[str]] = {}  # per override: options it shares with what it replaces
    for combo in combos:
        if combo.role is not None or not assembler.has_generation_table(combo.strategy):
            continue  # PD roles share the strategy's generation layer; one report per strategy
        try:
            strategy_layer, _kept, key = assembler.generation_layers(combo)
            if key is None:
                continue
            replaced = replaced_layers(assembler, combo)
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

    def __init__(self, ctx: CheckContext, recipe: dict[str, JsonValue], hardware: list[str]):
        self.ctx, self.inputs, self.recipe, self.hardware = ctx, ctx.render_inputs, recipe, hardware
        self._on: dict[str, list[str]] | None = None

    def variant_hardware(self, variant_key: str) -> list[str]:
        """The hardware a variant's commands are rendered for: its own, and a box that cannot
        scale out where the plan falls back to it as the largest variant that fits."""
        variant = get(get(self.recipe, "variants"), variant_key)
        own = self.ctx.variant_hardware(self.recipe, variant)[1] if truthy(variant) else []
        profiles = self.inputs.profiles
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
        inputs, compatible = self.inputs, Compatible(self.recipe)
        fallbacks = {recommend_strategy(self.recipe, nodes) for nodes in (1, 2)}
        on: dict[str, list[str]] = {}
        for hw_id in self.hardware:
            profile = inputs.profiles.get(hw_id, {})
            rendered = set(strategies_on(inputs, compatible, profile, hw_id))
            if not rendered:
                rendered = set(fallbacks)  # the recommendation is rendered even when not offered
            if _kv_store_offered(inputs, self.recipe, profile, hw_id):
                # A Mooncake instance serves with a compatible strategy, strategy_hardware aside.
                rendered.update(
                    s
                    for s in compatible.strategies
                    if inputs.deploy_type_of(s) in ("single_node", "multi_node")
                )
            for strategy in rendered:
                on.setdefault(strategy, []).append(hw_id)
        return on


def _kv_store_offered(
    inputs: RenderInputs, recipe: dict[str, JsonValue], profile: JsValue, hw_id: str
) -> bool:
    if not is_scalable(profile) or not is_kv_store_brand_supported(profile):
        return False
    opted = get(recipe, "kv_cache_strategy_hardware")
    return any(get(get(opted, kv), hw_id) != "unsupported" for kv in inputs.kv_ids)


def recipe_hardware(ctx: CheckContext, recipe: dict[str, JsonValue]) -> list[str]:
    """Every hardware some variant of the recipe is rendered for, in taxonomy order."""
    found: dict[str, None] = {}
    for variant in as_dict(recipe.get("variants")).values():
        if truthy(variant):
            found.update(dict.fromkeys(ctx.variant_hardware(recipe, variant)[1]))
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

    def __init__(self, ctx: CheckContext, inputs: RenderInputs, doc: Document, reach: _Reach):
        self.ctx, self.inputs, self.doc, self.reach = ctx, inputs, doc, reach
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
            deploy = self.inputs.deploy_type_of(name)
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
    def recipe(self) -> dict[str, JsonValue]:
        return as_dict(self.doc.data)

    def _unread_key(
        self, at: Pointer, key: object, hardware: list[str], where: str
    ) -> _Dead | None:
        space = self.spaces.get(at)
        if space is None or type(key) is not str:
            return None
        kinds = self._refs.key_kinds(key, self.ctx)
        if not self._refs.accepts(space, key, kinds) or (space.default and key == "default"):
            return None  # a key the table cannot read is RL201/RL202's finding
        profiles = self.inputs.profiles
        if any(_names(key, space, hw_id, profiles.get(hw_id, {})) for hw_id in hardware):
            return None
        shown = ", ".join(hardware[:4]) + (", …" if len(hardware) > 4 else "")
        return _Dead(
            at,
            f"`{key}` names none of {where} hardware ({shown or 'none'})",
        )


def _names(key: str, space: Keyspace, hw_id: str, profile: JsValue) -> bool:
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
    inputs: RenderInputs | None = None
    for doc in planned_recipes(ctx):
        pointers = [p for p in _recipe_lists(ctx, doc) if _scoped(p)]
        if not pointers:
            continue
        inputs = inputs or ctx.render_inputs
        recipe = as_dict(doc.data)
        try:
            hardware = recipe_hardware(ctx, recipe)
        except SYNTHESIS_ERRORS:
            continue
        if not hardware:
            continue  # a recipe rendered for no hardware at all is another rule's finding
        judge = _Judge(ctx, inputs, doc, _Reach(ctx, recipe, hardware))
        found: dict[Pointer, tuple[str, list[Pointer]]] = {}
        try:
            for pointer in pointers:
                dead = judge.dead(pointer)
                if dead is not None:
                    found.setdefault(dead.pointer, (dead.reason, []))[1].append(pointer)
        except SYNTHESIS_ERRORS:
            continue  # the plan cannot tell what is rendered (pick_fitting_variant threw)
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
