"""The argument and environment layers of a recipe's commands: where each list lives, its scope, the join order.

It is long because it is the one statement of the layer model (every place, its scope, the
join order) and of the walks that read it: split, the model would have two homes.

Upstream's order: docs/upstream-behaviour.md#layer-order (args) and #env-layers.

Upstream builds a `vllm serve` command by concatenating lists found at fixed places of
the recipe (and of the strategy file, the kv_store file and the taxonomy's kv_offload
option), in a fixed order, around the parallelism flags the strategy emitter writes;
the environment is assigned from mappings the same way. This module is the one
statement of that model:

- :data:`PLACES` declares every place (a pointer pattern per document), the scope it
  gives its list, and whether it holds args or env. :func:`lists` enumerates the lists
  of one document from it (the rules' view: every list, whatever the combination).
- :data:`ARG_STEPS` and :data:`ENV_STEPS` are the join order for one combination
  (variant x hardware x strategy x features/modes x role); :func:`layers` yields its
  `(pointer, scope, items)` layers. :data:`EMITTER` marks where the emitter's own
  tokens (resolve/command.py) go.
- :func:`is_omni` is the one test of "upstream renders no command for this recipe".

Adding a layer: a Place in PLACES (the rules, the fixes and the key sets then see its
lists) and a Step in ARG_STEPS/ENV_STEPS (RL340/RL341 join it, and so does the renderer).
The renderer in resolve/command.py builds every command by spreading the items these
steps yield (:func:`runs` groups them so that the steps reading only the placement are
joined once per variant and hardware); a *bare* :class:`Selection` gets the lists' items
without a Layer around each, which only the rules need.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple, TypeAlias, cast

from recipelint.jsvalue import UNDEFINED, JsonValue, JsValue, get, js_or, js_string, nullish, truthy
from recipelint.read.recipedata import Recipe

Pointer = tuple[str | int, ...]
# One item of an args list as the renderer joins it: whatever the document's list holds (the
# rules judge the strings), or a token the strategy emitter writes.
Token: TypeAlias = JsValue
# What a place's wildcards are bound to: keys of the document (a generation key may be None,
# whose mapping yields no list), an omni task's index.
BoundValue = str | int | None

# The documents a place can be in.
RECIPE, STRATEGY_FILE, KV_FILE, TAXONOMY = "recipe", "strategy", "kv_store", "taxonomy"
ARGS, ENV = "args", "env"
PD_ROLES = ("prefill", "decode")

# Wildcards of a place's pattern; each binds the Scope field of the same name.
VARIANT, HARDWARE, STRATEGY, ROLE, FEATURE, MODE, TASK, KV = (
    "<variant>",
    "<hardware>",
    "<strategy>",
    "<role>",
    "<feature>",
    "<mode>",
    "<task>",
    "<kv>",
)
_FIELD = {
    VARIANT: "variant",
    HARDWARE: "hardware",
    STRATEGY: "strategy",
    ROLE: "role",
    FEATURE: "feature",
    MODE: "mode",
    KV: "kv",
}
_POINTER_FIELD = {**_FIELD, TASK: "task"}  # an omni task is a list index, not a Scope field


class Scope(NamedTuple):
    """When a list lands in a command: which variant, strategy, role, hardware key and feature mode.

    A tuple rather than a dataclass: the renderer makes one per layer of every rendering.
    """

    layer: str
    variant: str | None = None
    strategy: str | None = None
    role: str | None = None
    hardware: str | None = None  # hardware key of the override holding the list
    feature: str | None = None
    mode: str | None = None


class Layer(NamedTuple):
    """One list of a command: `(pointer, scope, items)`, the first two worked out when asked.

    The renderer joins tens of thousands of layers per tree and reads only their items.
    """

    place: Place
    # (Scope field or "task"/"kv", the key in the document) pairs: a tuple of strings costs the
    # garbage collector nothing, a dict per layer did
    bound: tuple[tuple[str, BoundValue], ...]
    items: JsValue  # as the document holds it: the renderer spreads it, rules read lists only

    @property
    def pointer(self) -> Pointer:
        """Where the list is in its document."""
        return self.place.pointer_at(dict(self.bound))

    @property
    def scope(self) -> Scope:
        return self.place.scope_at(dict(self.bound))

    @property
    def document(self) -> str:
        return self.place.document


@dataclass(frozen=True)
class Place:
    """Where a list lives: a pointer pattern in one kind of document, and the scope it gives the list."""

    layer: str  # Scope.layer of its lists
    pattern: tuple[str, ...]
    document: str = RECIPE
    kind: str = ARGS
    # (index, bound name) of each wildcard: the renderer fills thousands of pointers per tree
    _slots: tuple[tuple[int, str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        slots = tuple(
            (index, _POINTER_FIELD[part])
            for index, part in enumerate(self.pattern)
            if part in _POINTER_FIELD
        )
        object.__setattr__(self, "_slots", slots)

    def layer_at(self, items: JsValue, **bound: BoundValue) -> Layer:
        """The layer of this place under the wildcards ``bound`` (keyed by Scope field)."""
        return Layer(self, tuple(bound.items()), items)

    def pointer_at(self, bound: dict[str, BoundValue]) -> Pointer:
        if not self._slots:
            return self.pattern
        filled: list[BoundValue] = list(self.pattern)
        for index, name in self._slots:
            filled[index] = bound[name]
        # a None key binds no list: its place's mapping is none (generation_key)
        return cast(Pointer, tuple(filled))

    def scope_at(self, bound: dict[str, BoundValue]) -> Scope:
        value: Callable[[str], str | None] = bound.get  # type: ignore[assignment]  # (no task)
        return Scope(
            self.layer,
            value("variant"),
            value("strategy"),
            value("role"),
            value("hardware"),
            value("feature"),
            value("mode"),
        )


# ---------------------------------------------------------------- the places

BASE_ARGS = Place("base", ("model", "base_args"))
VARIANT_ARGS = Place("variant", ("variants", VARIANT, "extra_args"))
VARIANT_HW_ARGS = Place(
    "variant-hw", ("variants", VARIANT, "hardware_overrides", HARDWARE, "extra_args")
)
RECIPE_HW_ARGS = Place("recipe-hw", ("hardware_overrides", HARDWARE, "extra_args"))
STRATEGY_EXTRA_ARGS = Place("strategy", ("strategy_overrides", STRATEGY, "extra_args"))
STRATEGY_VLLM_ARGS = Place("strategy", ("strategy_overrides", STRATEGY, "vllm_args"))
STRATEGY_HW_ARGS = Place(
    "strategy-hw", ("strategy_overrides", STRATEGY, "hardware_overrides", HARDWARE, "extra_args")
)
ROLE_EXTRA_ARGS = Place("role", ("strategy_overrides", STRATEGY, ROLE, "extra_args"))
ROLE_VLLM_ARGS = Place("role", ("strategy_overrides", STRATEGY, ROLE, "vllm_args"))
ROLE_HW_ARGS = Place(
    "role-hw", ("strategy_overrides", STRATEGY, ROLE, "hardware_overrides", HARDWARE, "extra_args")
)
FEATURE_ARGS = Place("feature", ("features", FEATURE, "args"))
FEATURE_HW_ARGS = Place("feature-hw", ("features", FEATURE, "hardware_overrides", HARDWARE, "args"))
MODE_ARGS = Place("mode", ("features", FEATURE, "modes", MODE, "args"))
MODE_HW_ARGS = Place(
    "mode-hw", ("features", FEATURE, "modes", MODE, "hardware_overrides", HARDWARE, "args")
)
OMNI_TASK_ARGS = Place(
    "omni", ("omni", "tasks", TASK, "extra_args")
)  # upstream renders none (is_omni)
FILE_ARGS = Place("strategy-file", ("vllm_args",), STRATEGY_FILE)
FILE_ROLE_ARGS = Place("strategy-file", (ROLE, "vllm_args"), STRATEGY_FILE)
KV_ARGS = Place("kv-file", ("vllm", "vllm_args"), KV_FILE)
KV_ROLE_ARGS = Place("kv-file", ("pd", ROLE, "args"), KV_FILE)
KV_OPTION_ARGS = Place("kv-option", ("kv_offload", KV, "args"), TAXONOMY)

BASE_ENV = Place("base", ("model", "base_env"), kind=ENV)
VARIANT_ENV = Place("variant", ("variants", VARIANT, "extra_env"), kind=ENV)
VARIANT_HW_ENV = Place(
    "variant-hw", ("variants", VARIANT, "hardware_overrides", HARDWARE, "extra_env"), kind=ENV
)
RECIPE_HW_ENV = Place("recipe-hw", ("hardware_overrides", HARDWARE, "extra_env"), kind=ENV)
STRATEGY_ENV = Place("strategy", ("strategy_overrides", STRATEGY, "env"), kind=ENV)
STRATEGY_EXTRA_ENV = Place("strategy", ("strategy_overrides", STRATEGY, "extra_env"), kind=ENV)
STRATEGY_HW_ENV = Place(
    "strategy-hw",
    ("strategy_overrides", STRATEGY, "hardware_overrides", HARDWARE, "extra_env"),
    kind=ENV,
)
ROLE_ENV = Place("role", ("strategy_overrides", STRATEGY, ROLE, "env"), kind=ENV)
ROLE_HW_ENV = Place(
    "role-hw",
    ("strategy_overrides", STRATEGY, ROLE, "hardware_overrides", HARDWARE, "extra_env"),
    kind=ENV,
)
FILE_ENV = Place("strategy-file", ("env",), STRATEGY_FILE, ENV)
FILE_ROLE_ENV = Place("strategy-file", (ROLE, "env"), STRATEGY_FILE, ENV)
KV_ENV = Place("kv-file", ("vllm", "env"), KV_FILE, ENV)
KV_OPTION_ENV = Place("kv-option", ("kv_offload", KV, "env"), TAXONOMY, ENV)

# Every place, in the order `lists` walks a document: nested as the document nests them
# (a variant's lists together, then the next variant's), which is the order rules report in.
PLACES: tuple[Place, ...] = (
    BASE_ARGS,
    VARIANT_ARGS,
    VARIANT_HW_ARGS,
    RECIPE_HW_ARGS,
    STRATEGY_EXTRA_ARGS,
    STRATEGY_VLLM_ARGS,
    STRATEGY_HW_ARGS,
    ROLE_EXTRA_ARGS,
    ROLE_VLLM_ARGS,
    ROLE_HW_ARGS,
    FEATURE_ARGS,
    FEATURE_HW_ARGS,
    MODE_ARGS,
    MODE_HW_ARGS,
    OMNI_TASK_ARGS,
    FILE_ARGS,
    FILE_ROLE_ARGS,
    KV_ARGS,
    KV_ROLE_ARGS,
    KV_OPTION_ARGS,
    BASE_ENV,
    VARIANT_ENV,
    VARIANT_HW_ENV,
    RECIPE_HW_ENV,
    STRATEGY_ENV,
    STRATEGY_EXTRA_ENV,
    STRATEGY_HW_ENV,
    ROLE_ENV,
    ROLE_HW_ENV,
    FILE_ENV,
    FILE_ROLE_ENV,
    KV_ENV,
    KV_OPTION_ENV,
)
# The keys that hold args or env lists wherever they sit: what key-name walks look for.
ARG_KEYS = frozenset(place.pattern[-1] for place in PLACES if place.kind == ARGS)
ENV_KEYS = frozenset(place.pattern[-1] for place in PLACES if place.kind == ENV)


# ---------------------------------------------------------------- every list of a document


class _Node:
    """The places below one pattern prefix, children in first-declared order (so `lists` nests)."""

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.places: list[Place] = []


def _trie(places: tuple[Place, ...]) -> _Node:
    root = _Node()
    for place in places:
        node = root
        for part in place.pattern:
            node = node.children.setdefault(part, _Node())
        node.places.append(place)
    return root


_TRIES: dict[tuple[str, str], _Node] = {}


def lists(
    data: object, document: str = RECIPE, kind: str = ARGS, **fixed: BoundValue
) -> Iterator[Layer]:
    """Every list at a declared place of one document, nested as the document nests them.

    ``fixed`` binds what the document itself stands for (a strategy file's `strategy`).
    """
    key = (document, kind)
    root = _TRIES.get(key)
    if root is None:
        root = _TRIES[key] = _trie(
            tuple(p for p in PLACES if p.document == document and p.kind == kind)
        )
    yield from _walk(root, data if isinstance(data, dict) else {}, fixed)


def _walk(
    node: _Node,
    value: JsValue,
    bound: dict[str, BoundValue],
    keep: Callable[[JsValue], bool] = lambda value: isinstance(value, list),
) -> Iterator[Layer]:
    for place in node.places:
        if keep(value):
            yield place.layer_at(value, **bound)
    for part, child in node.children.items():
        if part == ROLE:
            mapping = value if isinstance(value, dict) else {}
            for role in PD_ROLES:
                yield from _walk(child, mapping.get(role), {**bound, "role": role}, keep)
        elif part == TASK:
            for index, item in enumerate(value if isinstance(value, list) else []):
                yield from _walk(
                    child, item, {**bound, "variant": f"omni-task-{index}", "task": index}, keep
                )
        elif part in _FIELD:
            for name, item in value.items() if isinstance(value, dict) else ():
                yield from _walk(child, item, {**bound, _FIELD[part]: name}, keep)
        elif isinstance(value, dict):
            yield from _walk(child, value.get(part), bound, keep)


def place_of(document: str, pointer: Pointer, kind: str = ARGS) -> Place | None:
    """The declared place a pointer names in a document of that kind, or None."""
    for place in PLACES:
        if place.document == document and place.kind == kind and _matches(place.pattern, pointer):
            return place
    return None


def is_list_place(document: str, pointer: Pointer, kind: str = ARGS) -> bool:
    """Whether ``pointer`` names a list at a declared place: the test for "is this an args list"
    that sees a new layer as soon as PLACES declares it (a key-name test would not)."""
    return place_of(document, pointer, kind) is not None


def _matches(pattern: tuple[str, ...], pointer: Pointer) -> bool:
    if len(pattern) != len(pointer):
        return False
    for part, key in zip(pattern, pointer, strict=False):
        if part == ROLE:
            ok = key in PD_ROLES
        elif part == TASK:
            ok = type(key) is int
        else:
            ok = part in _FIELD or part == key
        if not ok:
            return False
    return True


# ---------------------------------------------------------------- one combination


# A step's output: Layers, or for a bare selection the items of the same lists alone.
LayerOrItems: TypeAlias = "Layer | JsValue"
# A hardware_overrides entry the generation and exact-hardware steps read: its place, the
# wildcards it binds, the table found there (any value), or only a mapping one.
HardwareTable = tuple[Place, dict[str, BoundValue], JsValue]
HardwareMapping = tuple[Place, dict[str, BoundValue], dict[str, JsonValue]]


@dataclass(slots=True)
class Selection:
    """One combination, as its layers read it; the renderer and RL340/RL341 build it.

    The strategy half stays empty for the layers that do not read it (a placement's).
    Which features are enabled and which of their lists apply is resolve.features'
    decision: ``features`` yields their layers for a strategy (their items, when bare).
    """

    recipe: Recipe
    variant_key: str
    variant: JsValue
    hw_id: str
    gen: JsValue
    nvidia: bool
    strategy: str = ""
    spec: JsValue = UNDEFINED  # the strategy file's data
    overrides: JsValue = UNDEFINED  # strategy_overrides[strategy]
    # The enabled features' layers, or what works them out for (strategy, kv composing) when asked.
    features: Callable[[str, bool], Sequence[LayerOrItems]] | Sequence[LayerOrItems] | None = None
    kv_composing: bool = False
    kv_option_id: str | None = None
    kv_option: JsValue | None = None  # the taxonomy's kv_offload option, once its gates let it in
    kv: JsValue = None  # the kv_store spec
    # What the layers worked out once: `memo` for this selection, `shared` for what reads only the
    # variant and the hardware (the renderer hands every rendering of a placement the same one).
    memo: dict[str | tuple[str, str | None], list[HardwareMapping]] | None = field(
        default=None, repr=False, compare=False
    )  # made on first use
    shared: dict[str, list[HardwareTable]] = field(default_factory=dict, repr=False, compare=False)
    # The renderer's selections: steps give each list's items, not a Layer around it.
    bare: bool = field(default=False, repr=False, compare=False)

    @property
    def has_kv(self) -> bool:
        """Whether a kv_offload option or a kv_store is in play: a step that reads "kv" adds nothing otherwise."""
        return self.kv_option is not None or self.kv is not None

    @property
    def pd(self) -> bool:
        return bool(get(self.spec, "deploy_type") == "pd_cluster")

    def present(self) -> int:
        """Which of :data:`NEEDS` this combination has, as bits (a Run's ``by_presence`` index)."""
        return (type(self.overrides) is dict) | (bool(self.features) << 1) | (self.has_kv << 2)


def generation_key(table: JsValue, gen: JsValue, nvidia: bool) -> tuple[str | None, JsValue]:
    """(key, value) that `table[gen] || (nvidia ? table.nvidia : null)` reads; key None when neither.

    The generation keyspace of docs/upstream-behaviour.md#hardware-keyspaces.
    """
    if not nullish(gen):
        key = js_string(gen)
        value = get(table, key)
        if truthy(value):
            return key, value
    if nvidia:
        return "nvidia", get(table, "nvidia")
    return None, None


def recipe_generation_maps(sel: Selection) -> list[HardwareTable]:
    """The recipe and the variant generation layers (the strategy's, when set, replaces them)."""
    found = sel.shared.get("recipe-generation")
    if found is None:
        recipe_key, recipe_map = generation_key(
            sel.recipe.get("hardware_overrides", UNDEFINED), sel.gen, sel.nvidia
        )
        variant_key, variant_map = generation_key(
            get(sel.variant, "hardware_overrides"), sel.gen, sel.nvidia
        )
        found = sel.shared["recipe-generation"] = [
            (RECIPE_HW_ARGS, {"hardware": recipe_key}, recipe_map),
            (VARIANT_HW_ARGS, {"variant": sel.variant_key, "hardware": variant_key}, variant_map),
        ]
    return found


def strategy_generation(sel: Selection) -> tuple[str | None, JsValue]:
    """(key, map) of the strategy's generation override; it replaces the recipe's and the variant's when truthy."""
    return generation_key(get(sel.overrides, "hardware_overrides"), sel.gen, sel.nvidia)


def generation_maps(sel: Selection) -> list[HardwareMapping]:
    """The generation-level hardware override mappings: the strategy's REPLACES the recipe's and the variant's.

    Only mappings are kept (any other value has no keys to read); args and env read the same ones.
    """
    if type(sel.overrides) is not dict:  # no strategy generation layer: the placement's apply
        mappings = sel.shared.get("recipe-generation-mappings")
        if mappings is None:
            mappings = sel.shared["recipe-generation-mappings"] = [
                entry for entry in recipe_generation_maps(sel) if type(entry[2]) is dict
            ]
        return mappings  # type: ignore[return-value]  # the entries whose table is a mapping
    if sel.memo is None:
        sel.memo = {}
    found = sel.memo.get("generation")
    if found is None:
        key, value = strategy_generation(sel)
        if truthy(value):
            candidates: list[HardwareTable] = [
                (STRATEGY_HW_ARGS, {"strategy": sel.strategy, "hardware": key}, value)
            ]
        else:
            candidates = recipe_generation_maps(sel)
        found = sel.memo["generation"] = [
            entry  # type: ignore[misc]  # the entries whose table is a mapping
            for entry in candidates
            if type(entry[2]) is dict
        ]
    return found


def exact_hardware_maps(sel: Selection, role: str | None) -> list[HardwareMapping]:
    """The exact-GPU deltas after the generation layer: the strategy's, then a PD role's."""
    if type(sel.overrides) is not dict:
        return []  # both are read below strategy_overrides[strategy]
    if sel.memo is None:
        sel.memo = {}
    found = sel.memo.get(("exact", role))
    if found is None:
        candidates: list[HardwareTable] = [
            (
                STRATEGY_HW_ARGS,
                {"strategy": sel.strategy, "hardware": sel.hw_id},
                get(get(sel.overrides, "hardware_overrides"), sel.hw_id),
            )
        ]
        if role:
            role_hw = get(get(sel.overrides, role), "hardware_overrides")
            candidates.append(
                (
                    ROLE_HW_ARGS,
                    {"strategy": sel.strategy, "role": role, "hardware": sel.hw_id},
                    get(role_hw, sel.hw_id),
                )
            )
        found = sel.memo[("exact", role)] = [
            entry  # type: ignore[misc]  # the entries whose table is a mapping
            for entry in candidates
            if type(entry[2]) is dict
        ]
    return found


# Each hardware-args place's env twin: the same mapping, its `extra_env` key.
_ENV_TWIN = {
    RECIPE_HW_ARGS: RECIPE_HW_ENV,
    VARIANT_HW_ARGS: VARIANT_HW_ENV,
    STRATEGY_HW_ARGS: STRATEGY_HW_ENV,
    ROLE_HW_ARGS: ROLE_HW_ENV,
}


def _from_maps(sel: Selection, maps: list[HardwareMapping], kind: str) -> list[LayerOrItems]:
    out: list[LayerOrItems] = []
    for place, bound, mapping in maps:
        if kind == ENV:
            place = _ENV_TWIN[place]
        items = mapping.get(place.pattern[-1], UNDEFINED)
        if truthy(items):
            out.append(items if sel.bare else place.layer_at(items, **bound))
    return out


def _one(sel: Selection, place: Place, items: JsValue, **bound: BoundValue) -> list[LayerOrItems]:
    """The list as a layer (its items alone for a bare selection); none when it is falsy."""
    if items is UNDEFINED or (type(items) is not list and not truthy(items)):
        return []  # (the usual absent list, then the rest of JS falsiness; a list is truthy)
    return [items] if sel.bare else [place.layer_at(items, **bound)]


class Step(NamedTuple):
    """One position of the join order: what it reads (callers cache by it) and its layers.

    ``layers`` gives Layers, or the bare items of the same lists for a bare selection.
    ``needs`` names what must be present for the step to add anything (see :data:`NEEDS`);
    a step that reads "features" or "kv" needs them without saying so.
    """

    name: str
    reads: frozenset[
        str
    ]  # of "variant", "hardware", "generation", "strategy", "role", "features", "kv"
    layers: Callable[[Selection, str | None], Sequence[LayerOrItems]]
    places: tuple[Place, ...] = ()  # where its layers can come from: the rules' view of the order
    needs: frozenset[str] = frozenset()


# What a step can need, in the order of the bits of Selection.present(): strategy_overrides[strategy]
# as a mapping, an enabled feature, a kv deployment.
OVERRIDES, FEATURES, KV_DEPLOYMENT = "overrides", "features", "kv"
NEEDS = (OVERRIDES, FEATURES, KV_DEPLOYMENT)


def _needs_of(step: Step) -> frozenset[str]:
    return step.needs | (step.reads & {FEATURES, KV_DEPLOYMENT})


def _present(bits: int) -> frozenset[str]:
    return frozenset(need for index, need in enumerate(NEEDS) if bits >> index & 1)


# The recipe's own lists join the same way for args and env; ``place`` says which list.
def _base_list(sel: Selection, role: str | None, place: Place) -> list[LayerOrItems]:
    return _one(sel, place, get(sel.recipe.get("model", UNDEFINED), place.pattern[-1]))


def _variant_list(sel: Selection, role: str | None, place: Place) -> list[LayerOrItems]:
    return _one(sel, place, get(sel.variant, place.pattern[-1]), variant=sel.variant_key)


def _variant_exact_list(sel: Selection, role: str | None, place: Place) -> list[LayerOrItems]:
    exact = get(get(sel.variant, "hardware_overrides"), sel.hw_id)
    return _one(
        sel, place, get(exact, place.pattern[-1]), variant=sel.variant_key, hardware=sel.hw_id
    )


def _recipe_steps(base: Place, variant: Place, variant_hw: Place) -> tuple[Step, ...]:
    """The first three steps of either join order: base, variant, variant × exact hardware."""
    return (
        Step("base", frozenset(), partial(_base_list, place=base), (base,)),
        Step("variant", frozenset({"variant"}), partial(_variant_list, place=variant), (variant,)),
        Step(
            "variant-exact-hardware",
            frozenset({"variant", "hardware"}),
            partial(_variant_exact_list, place=variant_hw),
            (variant_hw,),
        ),
    )


def _file_layer(
    sel: Selection, role: str | None, top: Place, per_role: Place
) -> list[LayerOrItems]:
    """A strategy file's list: the top-level one, or a PD role's (a PD strategy has no top-level one)."""
    key = top.pattern[-1]
    if not sel.pd:
        return _one(sel, top, get(sel.spec, key), strategy=sel.strategy)
    return (
        _one(sel, per_role, get(get(sel.spec, role), key), strategy=sel.strategy, role=role)
        if role
        else []
    )


def _file_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _file_layer(sel, role, FILE_ARGS, FILE_ROLE_ARGS)


def _override_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    """strategy_overrides[strategy] (a PD role's own block instead, for a role): extra_args, vllm_args."""
    so = sel.overrides
    if not truthy(so):
        return []
    if role:
        scope = get(so, role)
        return _one(
            sel, ROLE_EXTRA_ARGS, get(scope, "extra_args"), strategy=sel.strategy, role=role
        ) + _one(sel, ROLE_VLLM_ARGS, get(scope, "vllm_args"), strategy=sel.strategy, role=role)
    return _one(sel, STRATEGY_EXTRA_ARGS, get(so, "extra_args"), strategy=sel.strategy) + _one(
        sel, STRATEGY_VLLM_ARGS, get(so, "vllm_args"), strategy=sel.strategy
    )


def _generation_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _from_maps(sel, generation_maps(sel), ARGS)


def _exact_hardware_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _from_maps(sel, exact_hardware_maps(sel, role), ARGS)


def _feature_args(sel: Selection, role: str | None) -> Sequence[LayerOrItems]:
    found = sel.features
    if found is None or type(found) is list:
        return found or []
    return found(sel.strategy, sel.kv_composing)  # type: ignore[operator]  # (not a list: callable)


def _kv_option_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    if sel.kv_option is None:
        return []
    return _one(sel, KV_OPTION_ARGS, get(sel.kv_option, "args"), kv=sel.kv_option_id)


def _kv_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _one(sel, KV_ARGS, get(get(sel.kv, "vllm"), "vllm_args")) if sel.kv_composing else []


def _kv_role_args(sel: Selection, role: str | None) -> list[LayerOrItems]:
    if not (role and sel.kv is not None and sel.pd):
        return []
    return _one(sel, KV_ROLE_ARGS, get(get(get(sel.kv, "pd"), role), "args"), role=role)


def _nothing(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return []


EMITTER = Step("emitter", frozenset(), _nothing)  # the strategy emitter's own tokens go here

ARG_STEPS: tuple[Step, ...] = (
    *_recipe_steps(BASE_ARGS, VARIANT_ARGS, VARIANT_HW_ARGS),
    Step("strategy-file", frozenset({"strategy", "role"}), _file_args, (FILE_ARGS, FILE_ROLE_ARGS)),
    EMITTER,
    Step(
        "strategy-override",
        frozenset({"strategy", "role"}),
        _override_args,
        (STRATEGY_EXTRA_ARGS, STRATEGY_VLLM_ARGS, ROLE_EXTRA_ARGS, ROLE_VLLM_ARGS),
        frozenset({OVERRIDES}),
    ),
    Step(
        "generation",
        frozenset({"variant", "strategy", "generation"}),
        _generation_args,
        (STRATEGY_HW_ARGS, RECIPE_HW_ARGS, VARIANT_HW_ARGS),
    ),
    Step(
        "exact-hardware",
        frozenset({"strategy", "role", "hardware"}),
        _exact_hardware_args,
        (STRATEGY_HW_ARGS, ROLE_HW_ARGS),
        frozenset({OVERRIDES}),
    ),
    Step(
        "features",
        frozenset({"features"}),
        _feature_args,
        (FEATURE_ARGS, FEATURE_HW_ARGS, MODE_ARGS, MODE_HW_ARGS),
    ),
    Step("kv-option", frozenset({"kv"}), _kv_option_args, (KV_OPTION_ARGS,)),
    Step("kv-store", frozenset({"kv"}), _kv_args, (KV_ARGS,)),
    Step("kv-store-role", frozenset({"kv", "role"}), _kv_role_args, (KV_ROLE_ARGS,)),
)


def _file_env(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _file_layer(sel, role, FILE_ENV, FILE_ROLE_ENV)


def _kv_option_env(sel: Selection, role: str | None) -> list[LayerOrItems]:
    if sel.kv_option is None:
        return []
    return _one(sel, KV_OPTION_ENV, get(sel.kv_option, "env"), kv=sel.kv_option_id)


def _kv_env(sel: Selection, role: str | None) -> list[LayerOrItems]:
    """The kv_store's vllm env: when it composes with the strategy, or for a PD role of a kv store with `pd`."""
    if sel.kv_composing or (sel.pd and role and sel.kv is not None and truthy(get(sel.kv, "pd"))):
        return _one(sel, KV_ENV, get(get(sel.kv, "vllm"), "env"))
    return []


def _override_env(sel: Selection, role: str | None) -> list[LayerOrItems]:
    """strategy_overrides[strategy].env, then a PD role's env, or (no role) its extra_env."""
    so = sel.overrides
    if not truthy(so):
        return []
    out = _one(sel, STRATEGY_ENV, get(so, "env"), strategy=sel.strategy)
    if role:
        return out + _one(
            sel, ROLE_ENV, get(get(so, role), "env"), strategy=sel.strategy, role=role
        )
    return out + _one(sel, STRATEGY_EXTRA_ENV, get(so, "extra_env"), strategy=sel.strategy)


def _generation_env(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _from_maps(sel, generation_maps(sel), ENV)


def _exact_hardware_env(sel: Selection, role: str | None) -> list[LayerOrItems]:
    return _from_maps(sel, exact_hardware_maps(sel, role), ENV)


ENV_STEPS: tuple[Step, ...] = (
    *_recipe_steps(BASE_ENV, VARIANT_ENV, VARIANT_HW_ENV),
    Step("strategy-file", frozenset({"strategy", "role"}), _file_env, (FILE_ENV, FILE_ROLE_ENV)),
    Step("kv-option", frozenset({"kv"}), _kv_option_env, (KV_OPTION_ENV,)),
    Step("kv-store", frozenset({"kv", "role"}), _kv_env, (KV_ENV,)),
    EMITTER,  # PD device pinning
    Step(
        "strategy-override",
        frozenset({"strategy", "role"}),
        _override_env,
        (STRATEGY_ENV, ROLE_ENV, STRATEGY_EXTRA_ENV),
        frozenset({OVERRIDES}),
    ),
    Step(
        "generation",
        frozenset({"variant", "strategy", "generation"}),
        _generation_env,
        (STRATEGY_HW_ENV, RECIPE_HW_ENV, VARIANT_HW_ENV),
    ),
    Step(
        "exact-hardware",
        frozenset({"strategy", "role", "hardware"}),
        _exact_hardware_env,
        (STRATEGY_HW_ENV, ROLE_HW_ENV),
        frozenset({OVERRIDES}),
    ),
)
# Steps that read neither the strategy nor the role: one (variant, hardware) placement shares them.
PLACEMENT_READS = frozenset({"variant", "hardware", "generation"})


def layers(sel: Selection, role: str | None, steps: tuple[Step, ...] = ARG_STEPS) -> list[Layer]:
    """A combination's layers in upstream's join order (the emitter's place left out)."""
    return [layer for step in steps for layer in step.layers(sel, role)]  # type: ignore[misc]  # (not bare)


def step_layers(step: Step, sel: Selection, role: str | None) -> list[Layer]:
    """One step's layers for a selection that is not bare (the rules' view of a step)."""
    return step.layers(sel, role)  # type: ignore[return-value]  # not bare: Layers, in a list


def split_at_emitter(steps: tuple[Step, ...]) -> tuple[tuple[Step, ...], tuple[Step, ...]]:
    """(steps before the emitter's tokens, steps after them)."""
    at = steps.index(EMITTER)
    return steps[:at], steps[at + 1 :]


# What a run of steps reads at most, from the narrowest to the widest (see Run.kind).
PLACEMENT_RUN, STRATEGY_RUN, COMBINATION_RUN = "placement", "strategy", "combination"
# Steps that read neither the hardware id nor the features nor a kv deployment: a strategy's role
# on one variant joins the same lists on every hardware of a generation.
STRATEGY_READS = frozenset({"variant", "generation", "strategy", "role"})


class Run(NamedTuple):
    """Consecutive steps of a join order that read no more than one of three scopes.

    ``kind`` is PLACEMENT_RUN (only the variant, hardware and generation: the same for every
    strategy and role rendered on one variant and hardware), STRATEGY_RUN (no more than
    STRATEGY_READS) or COMBINATION_RUN (anything). The renderer joins a run once per scope;
    ``by_presence[sel.present()]`` are its steps that can add anything to that combination.
    """

    kind: str
    steps: tuple[Step, ...]
    by_presence: tuple[tuple[Step, ...], ...]
    number: int  # distinct among all runs: what callers key what they joined by
    placed: bool  # whether a step of it reads the variant, the hardware or the generation


def _run_kind(step: Step) -> str:
    if step.reads <= PLACEMENT_READS:
        return PLACEMENT_RUN
    return STRATEGY_RUN if step.reads <= STRATEGY_READS else COMBINATION_RUN


def runs(steps: tuple[Step, ...]) -> tuple[Run, ...]:
    """``steps`` in order, grouped into runs of one kind (as few as the order allows: the
    renderer visits every run of every rendering, and a run is joined only once per scope)."""
    grouped: list[tuple[str, tuple[Step, ...]]] = []
    for step in steps:
        kind = _run_kind(step)
        if grouped and grouped[-1][0] == kind:
            grouped[-1] = (kind, (*grouped[-1][1], step))
        else:
            grouped.append((kind, (step,)))
    return tuple(
        Run(
            kind,
            part,
            _by_presence(part),
            next(_RUN_NUMBERS),
            any(step.reads & PLACEMENT_READS for step in part),
        )
        for kind, part in grouped
    )


def _by_presence(steps: tuple[Step, ...]) -> tuple[tuple[Step, ...], ...]:
    return tuple(
        tuple(step for step in steps if _needs_of(step) <= _present(bits))
        for bits in range(1 << len(NEEDS))
    )


_RUN_NUMBERS = itertools.count()


def _layer_names(steps: tuple[Step, ...]) -> frozenset[str]:
    return frozenset(place.layer for step in steps for place in step.places)


# The rules' view of the order (RL310/RL314, RL302): which scopes join the args before the
# emitter's tokens, which after, and which sit on either side depending on the key that
# selects them (a variant's exact-GPU override comes before the emitter, its generation one after).
_BEFORE, _AFTER = (_layer_names(part) for part in split_at_emitter(ARG_STEPS))
BEFORE_EMITTER = _BEFORE - _AFTER
EITHER_SIDE_OF_EMITTER = _BEFORE & _AFTER
# Scopes a generation key selects: one key of each map, and the strategy's replaces the others'.
GENERATION_LAYERS = _layer_names(tuple(step for step in ARG_STEPS if "generation" in step.reads))


def is_omni(recipe: object) -> bool:
    """`meta.tasks` includes "omni": upstream renders no command (docs/upstream-behaviour.md#omni-recipes)."""
    tasks = js_or(get(get(recipe, "meta"), "tasks"), [])
    return isinstance(tasks, (list, str)) and "omni" in tasks
