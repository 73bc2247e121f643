"""What the renderings of one variant on one hardware share: the `Placement`.

The strategy facts, the kv offload option, the docker image and the runs of layers
that do not depend on the strategy are worked out once per (variant, hardware) here,
with the JavaScript object spread/assign the layers are merged by.

Upstream: docs/upstream-behaviour.md#layer-order and #parallelism-flags.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple, TypeAlias

from recipelint.jsvalue import (
    UNDEFINED,
    JsonValue,
    JsValue,
    Undefined,
    get,
    is_number,
    js_divide,
    js_le,
    js_number,
    js_or,
    js_string,
    truthy,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.docker import DockerMeta, docker_meta, image_key
from recipelint.resolve.features import FeatureResolver
from recipelint.resolve.formatting import RenderError
from recipelint.resolve.hardware import (
    hardware_keyed_value,
)
from recipelint.resolve.inputs import (
    Combination,
    Memo,
    RenderInputs,
    typed,
)
from recipelint.resolve.layers import (
    HardwareTable,
    LayerOrItems,
    Run,
    Selection,
    Step,
    Token,
)
from recipelint.resolve.strategy import pd_pool_modes

# An env as the layers assign it: the recipe's mappings' values, and the strings pinning adds.
Env: TypeAlias = "dict[str, JsonValue]"


def spread(source: LayerOrItems) -> list[JsonValue]:
    """`...source` in an array literal: arrays as they are, strings as characters (docs/upstream-behaviour.md#js-values)."""
    kind = type(source)
    if kind is list:
        listed: list[JsonValue] = source  # type: ignore[assignment]  # (kind is list)
        return listed
    if kind is str:
        return list(source)  # type: ignore[arg-type]  # (kind is str)
    raise RenderError(f"{js_string(source)} is not iterable (expected a list of arguments)")


def assign(target: Env, source: LayerOrItems) -> None:
    """`Object.assign(target, source)` for the mappings recipes provide."""
    if type(source) is dict:
        target.update(source)
    elif truthy(source):
        raise RenderError(f"expected a mapping of environment variables, got {js_string(source)}")


def spread_steps(
    args: list[Token], steps: tuple[Step, ...], sel: Selection, role: str | None
) -> None:
    for step in steps:
        for items in step.layers(sel, role):
            args += items if type(items) is list else spread(items)


def assign_steps(env: Env, steps: tuple[Step, ...], sel: Selection, role: str | None) -> None:
    for step in steps:
        for items in step.layers(sel, role):
            if type(items) is dict:
                env.update(items)
            else:
                assign(env, items)


class StrategyFacts(NamedTuple):
    """What a rendering reads of its strategy's spec and of the recipe's overrides for it."""

    spec: JsValue  # the strategy file's data ({} when it has none)
    deploy_type: JsValue  # raw: undefined when the spec has none
    deploy: JsValue  # deploy_type, or "single_node" when it is falsy
    overrides: JsValue  # strategy_overrides[strategy]
    parallel_flag: JsValue
    parallelism: JsValue


def _strategy_facts(inputs: RenderInputs, overrides: JsValue, strategy: str) -> StrategyFacts:
    spec = inputs.strategies.get(strategy, UNDEFINED)
    if not truthy(spec):
        spec = {}
    deploy_type = spec.get("deploy_type", UNDEFINED) if type(spec) is dict else UNDEFINED
    return StrategyFacts(
        spec,
        deploy_type,
        deploy_type if truthy(deploy_type) else "single_node",
        overrides.get(strategy, UNDEFINED) if type(overrides) is dict else UNDEFINED,
        js_or(get(spec, "parallel_flag"), "--tensor-parallel-size"),
        get(spec, "parallelism"),
    )


def _kv_option(
    inputs: RenderInputs,
    recipe: Recipe,
    profile: JsValue,
    kv_offload: str,
    strategy: str,
    deploy_type: JsValue,
) -> JsValue | None:
    """`taxonomy.kv_offload[kv]` behind its strategy, recipe and brand gates."""
    option = get(get(inputs.taxonomy, "kv_offload"), kv_offload)
    if not truthy(option):
        return None
    if deploy_type in ("pd_cluster", "kv_store_lb"):
        return None
    allow = get(option, "strategies")
    if type(allow) is list and allow and strategy not in allow:
        return None
    support = get(recipe.get("kv_offload_support", UNDEFINED), kv_offload)
    if support == "unsupported":
        return None
    if truthy(get(option, "requires_opt_in")) and support != "verified":
        return None
    brands = get(option, "brands")
    if type(brands) is list and brands and get(profile, "brand") not in brands:
        return None
    return option


class Placement:
    """One variant on one hardware: everything its renderings share, whatever the strategy.

    The plan renders several strategies for each (variant, hardware); these values
    depend on neither the strategy nor the node count, so they are worked out once,
    the layers that read only the placement included. What can raise is worked out on
    first use, at the step that needs it, and raises again for every rendering that
    reaches it (nothing is kept from a failure).
    """

    def __init__(
        self,
        inputs: RenderInputs,
        recipe: Recipe,
        variant_key: str,
        hw_id: str,
        strategy_runs: Memo | None = None,
    ) -> None:
        self.inputs, self.recipe, self.variant_key, self.hw_id = (
            inputs,
            recipe,
            variant_key,
            hw_id,
        )
        variants = recipe.get("variants", UNDEFINED)
        self.variant = js_or(get(variants, variant_key), get(variants, "default"), {})
        facts = inputs.hardware(hw_id)
        self.profile, self.gen, self.nvidia, self.gpu_count = facts[:4]
        self._reading = facts.reading
        self._shared_reading: int | None | Undefined = UNDEFINED  # sharing_key's, once asked
        self.model_id = js_or(
            get(self.variant, "model_id"),
            get(recipe.get("model", UNDEFINED), "model_id"),
            "unknown",
        )
        self.strategy_overrides = recipe.get("strategy_overrides", UNDEFINED)
        self.shared: dict[str, list[HardwareTable]] = {}  # Selection.shared of its renderings
        # a placement run's number -> its args, or its env
        self._joined_args: dict[int, list[Token]] = {}
        self._joined_env: dict[int, Env] = {}
        # The strategy runs joined so far, shared with the recipe's other placements that the
        # caller hands the same mapping: keyed by what they read (see _strategy_key).
        self.strategy_runs: Memo = {} if strategy_runs is None else strategy_runs
        # sharing_key -> the outcome of rendering it (a Rendered, or a failure's message)
        self.renderings: Memo = self.strategy_runs.setdefault("renderings", {})
        self._features: FeatureResolver | None = None
        self._scope_number: int | None = None
        self._model_text: str | None = None
        self._meta: DockerMeta | None = None
        self._tp: JsValue = UNDEFINED
        self._pool_modes: list[str] | None = None

    # Worked out on first use: a placement whose renderings are all shared needs neither.
    # (Plain attributes, not cached_property: writing an instance's __dict__ slows every
    # other attribute of it.)
    @property
    def features(self) -> FeatureResolver:
        found = self._features
        if found is None:
            found = self._features = FeatureResolver(
                self.recipe,
                self.variant,
                self.variant_key,
                self.profile,
                self.hw_id,
                self.strategy_runs,
            )
        return found

    @property
    def _scope(self) -> int:
        """The variant and the generation as one small key: (variant, generation) -> a number."""
        found = self._scope_number
        if found is None:
            scopes = self.strategy_runs.setdefault("scopes", {})
            key = (self.variant_key, *self._generation_token())
            found = self._scope_number = scopes.setdefault(key, len(scopes))
        return found

    def _generation_token(self) -> tuple[str | None, bool]:
        """What the layers read of the hardware's generation, as a key: equal only for equal readings.

        They read `table[String(gen)]`, else (on NVIDIA) `table.nvidia`, of the recipe's, the
        variant's and the strategies' hardware_overrides: a generation that is no key of any of
        them reads what no generation reads.
        """
        gen = self.gen
        text = None if gen is None or gen is UNDEFINED else js_string(gen)
        if text is not None:
            keys: set[str] | None = self.strategy_runs.get("generation-keys")
            if keys is None:
                keys = self.strategy_runs["generation-keys"] = _override_keys(self.recipe)
            if text not in keys and text not in _keys(get(self.variant, "hardware_overrides")):
                text = None
        return text, self.nvidia

    def strategy_facts(self, strategy: str) -> StrategyFacts:
        """The strategy's facts, worked out once for every placement sharing strategy_runs."""
        key = ("facts", strategy)
        found: StrategyFacts | None = self.strategy_runs.get(key)
        if found is None:
            found = self.strategy_runs[key] = _strategy_facts(
                self.inputs, self.strategy_overrides, strategy
            )
        return found

    def kv_facts(self, kv_offload: str) -> tuple[JsValue, JsValue]:
        """(the kv_store spec or None when the name is no kv deployment, its instance count)."""
        key = ("kv", kv_offload)
        found: tuple[JsValue, JsValue] | None = self.strategy_runs.get(key)
        if found is None:
            kv = self.inputs.strategies.get(kv_offload, UNDEFINED) if kv_offload else UNDEFINED
            if get(kv, "deploy_type") != "kv_store_lb":
                kv = None
            instances = js_or(get(kv, "default_instances"), 2) if kv is not None else 2
            found = self.strategy_runs[key] = (kv, instances)
        return found

    def kv_option(self, kv_offload: str, strategy: str, deploy_type: JsValue) -> JsValue | None:
        return _kv_option(self.inputs, self.recipe, self.profile, kv_offload, strategy, deploy_type)

    def serves(self, inputs: RenderInputs, recipe: Recipe, combo: Combination) -> bool:
        return (
            inputs is self.inputs
            and recipe is self.recipe
            and combo.variant_key == self.variant_key
            and combo.hw_id == self.hw_id
        )

    @property
    def model_text(self) -> str:
        """String(model_id), as the command line shows it."""
        if self._model_text is None:
            self._model_text = js_string(self.model_id)
        return self._model_text

    @property
    def meta(self) -> DockerMeta:
        if self._meta is None:
            self._meta = self._docker_meta()
        return self._meta

    def _docker_meta(self) -> DockerMeta:
        """docker_meta, shared by the recipe's hardware of one image family when the variant
        pins no image for this hardware id."""
        key = image_key(self.variant, self.profile, self.hw_id)
        if key is None:
            return docker_meta(self.recipe, self.variant, self.profile, self.hw_id)
        runs = self.strategy_runs
        found: DockerMeta | None = runs.get(("docker", self.variant_key, key))
        if found is None:
            found = runs[("docker", self.variant_key, key)] = docker_meta(
                self.recipe, self.variant, self.profile, self.hw_id
            )
        return found

    @property
    def tp_for_single_node_tp(self) -> JsValue:
        """The `single_node_tp` size: declared tp (capped at the GPU count), else what VRAM needs."""
        if self._tp is UNDEFINED:
            self._tp = self._single_node_tp()
        return self._tp

    def _single_node_tp(self) -> JsValue:
        profile, variant, gpu_count = self.profile, self.variant, self.gpu_count
        is_cpu = get(profile, "generation") == "cpu"
        for raw in (
            get(variant, "tp"),
            get(get(self.recipe.get("strategy_overrides", UNDEFINED), "single_node_tp"), "tp"),
        ):
            declared = raw if is_number(raw) else hardware_keyed_value(raw, profile, self.hw_id)
            if is_number(declared) and declared > 0:
                return declared if is_cpu else min(declared, gpu_count)
        vram = get(profile, "vram_gb")
        per_gpu = (
            js_divide(js_number(vram), js_number(gpu_count))
            if truthy(vram) and truthy(gpu_count)
            else 0
        )
        needed = js_or(get(variant, "vram_minimum_gb"), 0)
        if not truthy(needed) or not truthy(per_gpu) or per_gpu <= 0:
            return gpu_count
        return 1 if js_le(needed, per_gpu) else gpu_count

    @property
    def pool_modes(self) -> list[str]:
        if self._pool_modes is None:
            self._pool_modes = pd_pool_modes(self.recipe)
        return self._pool_modes

    def _named_keys(self) -> frozenset[str]:
        """The hardware ids a rendering here may look up: keys of the recipe and of the variant."""
        runs = self.strategy_runs
        key = ("hardware-keys", self.variant_key)
        found: frozenset[str] | None = runs.get(key)
        if found is None:
            recipe: frozenset[str] | None = runs.get("hardware-keys")
            if recipe is None:
                recipe = runs["hardware-keys"] = _mapping_keys(self.recipe, _PLAN_TABLES)
            found = runs[key] = recipe | _mapping_keys(self.variant)
        return found

    def _reading_number(self) -> int | None:
        """The profile's reading as a small number, equal for equal readings (a key hashed
        once per rendering); None when the hardware shares nothing."""
        if self._reading is None or self.hw_id in self._named_keys():
            return None
        numbers: dict[tuple[Hashable, ...], int] = self.strategy_runs.setdefault("readings", {})
        return numbers.setdefault(self._reading, len(numbers))

    def sharing_key(self, combo: Combination) -> tuple[Hashable, ...] | None:
        """What rendering ``combo`` here reads, but the hardware's id, as a key.

        Two placements of the recipe sharing strategy_runs render combinations of equal keys
        alike: the same document but for its `hardware`, the same failure, the same problems
        (a missing image's names the hardware). The key holds the combination, the profile's
        reading and the single_node_tp size; a hardware whose id the recipe or the variant
        names where a rendering may look it up (_named_keys) gets None.
        May raise what the single_node_tp size raises; a key holding a value of the YAML that
        is no scalar cannot be hashed.
        """
        reading = self._shared_reading
        if reading is UNDEFINED:
            reading = self._shared_reading = self._reading_number()
        if reading is None:
            return None
        variant_key, strategy, _hw_id, nodes, features, pd_nodes, kv_offload = combo
        key = (
            reading,
            variant_key,
            strategy,
            nodes if type(nodes) is int else typed(nodes),
            features,
            None if pd_nodes is None else tuple((k, typed(v)) for k, v in pd_nodes.items()),
            kv_offload,
            typed(self.tp_for_single_node_tp) if strategy == "single_node_tp" else None,
        )
        return key

    def run_args(self, run: Run, sel: Selection) -> list[Token]:
        """The args of a placement run, spread once (callers copy before extending)."""
        found = self._joined_args.get(run.number)
        if found is None:
            found = []
            spread_steps(found, run.steps, sel, None)
            self._joined_args[run.number] = found
        return found

    def run_env(self, run: Run, sel: Selection) -> Env:
        """The env of a placement run: its mappings assigned in order into one, once.

        Assigning that one is assigning them in turn: the same keys, in the same order,
        each with its last value.
        """
        found = self._joined_env.get(run.number)
        if found is None:
            found = {}
            assign_steps(found, run.steps, sel, None)
            self._joined_env[run.number] = found = self._interned_env(found)
        return found

    def strategy_args(self, run: Run, sel: Selection, role: str | None) -> list[Token]:
        """The args of a strategy run, spread once per strategy and role (and variant and
        generation, when a step of it reads them)."""
        key = (run.number, sel.strategy, role, self._scope if run.placed else None)
        found: list[Token] | None = self.strategy_runs.get(key)
        if found is None:
            found = []
            spread_steps(found, run.steps, sel, role)
            self.strategy_runs[key] = found
        return found

    def strategy_env(self, run: Run, sel: Selection, role: str | None) -> Env:
        """The env of a strategy run, assigned into one mapping once (as run_env)."""
        key = (run.number, sel.strategy, role, self._scope if run.placed else None)
        found: Env | None = self.strategy_runs.get(key)
        if found is None:
            found = {}
            assign_steps(found, run.steps, sel, role)
            self.strategy_runs[key] = found = self._interned_env(found)
        return found

    def _interned_env(self, env: Env) -> Env:
        """One mapping for every strategy run of the recipe that assigns the same strings, so
        that renderings which differ only in such runs find each other (see _Synthesis.env)."""
        if any(type(value) is not str for value in env.values()):
            return env  # `1` and `true` are equal values but distinct texts
        interned: Env = self.strategy_runs.setdefault(("env", tuple(env.items())), env)
        return interned


def _keys(table: JsValue) -> dict[str, JsonValue] | tuple[()]:
    return table if type(table) is dict else ()


# Where a rendering never looks a hardware id up: the tables only the plan reads (what they
# decide reaches a rendering as its Combination), the variants (a placement reads its own) and
# the default variant's rendering, which the publisher adds before it renders the others.
_PLAN_TABLES = frozenset(
    {
        "meta",
        "recommended_command",
        "variants",
        "strategy_hardware",
        "kv_cache_strategy_hardware",
        "strategy_min_gpus",
        "hardware_opt_in_features",
    }
)
# Read by hardware only for the single_node_tp size, which keys a shared rendering itself.
_TP = "tp"


def _mapping_keys(data: object, skipped: frozenset[str] = frozenset()) -> frozenset[str]:
    """Every key of every mapping in ``data`` but below its top-level keys ``skipped`` and
    below any `tp`: the hardware ids a rendering may look up in it.

    Each container is visited once: YAML aliases may share one many times over.
    """
    if type(data) is not dict:
        return frozenset()
    keys: set[str] = set(data)
    seen: set[int] = set()
    pending = [value for key, value in data.items() if key not in skipped and key != _TP]
    while pending:
        value = pending.pop()
        kind = type(value)
        if (kind is dict or kind is list) and id(value) not in seen:
            seen.add(id(value))
            if kind is dict:
                keys.update(value)
                pending.extend(item for key, item in value.items() if key != _TP)
            else:
                pending.extend(value)
    return frozenset(keys)


def _override_keys(recipe: Recipe) -> set[str]:
    """The keys of the recipe's and its strategies' hardware_overrides."""
    keys = set(_keys(recipe.get("hardware_overrides", UNDEFINED)))
    strategies = recipe.get("strategy_overrides", UNDEFINED)
    for overrides in strategies.values() if type(strategies) is dict else ():
        keys.update(_keys(get(overrides, "hardware_overrides")))
    return keys
