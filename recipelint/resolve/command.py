"""One deployment's commands: arg layers, env layers, and the per-deploy-type shape.

`render_command` is the compiler's unit of work: (recipe, variant, strategy,
hardware, node count, features, PD nodes, kv deployment) -> the JSON document the
API publishes for it. It raises :class:`RenderError` where upstream's synthesis
throws (upstream then drops that rendering with a warning).

Upstream: docs/upstream-behaviour.md#layer-order, #parallelism-flags, #env-layers and #deploy-types;
the documents' shape: #rendering-documents; the throws: #error-handling.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, NamedTuple

from recipelint.jsvalue import (
    JS_WHITESPACE,
    UNDEFINED,
    coalesce,
    get,
    is_number,
    js_divide,
    js_floor,
    js_max,
    js_number,
    js_or,
    js_string,
    normalize_number,
    truthy,
)
from recipelint.resolve.docker import DockerMeta, DockerWrapper, docker_meta, image_key
from recipelint.resolve.features import FeatureResolver, companions
from recipelint.resolve.formatting import RenderError, check_serve_args, serve_command
from recipelint.resolve.hardware import (
    generation_of,
    gpu_count_of,
    hardware_keyed_value,
    is_scalable,
)
from recipelint.resolve.layers import (
    ARG_STEPS,
    ENV_STEPS,
    PLACEMENT_RUN,
    STRATEGY_RUN,
    Layer,
    Run,
    Selection,
    Step,
    generation_key,
    layers,
    runs,
    split_at_emitter,
)
from recipelint.resolve.strategy import pd_pool_modes

NVL4_ONLY_ENV = (
    "VLLM_USE_NCCL_SYMM_MEM",
    "NCCL_CUMEM_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_NVLS_ENABLE",
    "UCX_NET_DEVICES",
)
NVL4_HARDWARE = frozenset({"gb200", "gb300"})
PD_PORTS = {"prefill": 8001, "decode": 8002}
SERVE_PORT = 8000


class HardwareFacts(NamedTuple):
    profile: Any  # the taxonomy's profile ({} when it has none)
    gen: Any  # generation_of(profile)
    nvidia: bool
    gpu_count: Any  # gpu_count_of(profile)
    scalable: bool
    reading: tuple[Any, ...] | None  # see _profile_reading


# The profile fields a rendering reads (its VRAM reaches it only through the plan's node
# counts and the single_node_tp size, which key a shared rendering themselves).
_READ_PROFILE_FIELDS = ("brand", "generation", "gpu_generation", "gpu_count")
_SCALAR_TYPES = frozenset({str, int, float, bool, type(None), type(UNDEFINED)})


def typed(value: Any) -> tuple[Any, Any]:
    """A scalar as a key that only equal JS values share: `1`, `1.0` and `true` compare equal
    in Python, and `0.0` equals `-0.0`."""
    kind = type(value)
    return (kind, value.hex()) if kind is float else (kind, value)


def _profile_reading(hw_id: str, profile: Any) -> tuple[Any, ...] | None:
    """What a rendering reads of a hardware besides its id and VRAM, as a key; None when a
    field is no scalar (such a hardware shares nothing)."""
    values = [get(profile, name) for name in _READ_PROFILE_FIELDS]
    if any(type(value) not in _SCALAR_TYPES for value in values):
        return None
    return (hw_id in NVL4_HARDWARE, *map(typed, values))


@dataclass(frozen=True)
class RenderInputs:
    """The tree-wide inputs every rendering reads."""

    taxonomy: Any
    profiles: dict[str, Any]
    strategies: dict[str, Any]  # serving strategies and kv deployments, by name

    @functools.cached_property
    def deploy_types(self) -> dict[str, Any]:
        """Each strategy's raw `deploy_type` (undefined when its spec has none)."""
        return {name: get(spec, "deploy_type") for name, spec in self.strategies.items()}

    def deploy_type_of(self, name: Any) -> Any:
        """`strategies[name]?.deploy_type`: undefined for an unknown (or non-string) name."""
        return self.deploy_types.get(name, UNDEFINED) if type(name) is str else UNDEFINED

    @functools.cached_property
    def _hardware(self) -> dict[str, HardwareFacts]:
        return {}

    def hardware(self, hw_id: str) -> HardwareFacts:
        """What renderings read of a hardware profile, worked out once per hardware id."""
        found = self._hardware.get(hw_id)
        if found is None:
            profile = js_or(self.profiles.get(hw_id, UNDEFINED), {})
            found = self._hardware[hw_id] = HardwareFacts(
                profile,
                generation_of(profile),
                get(profile, "brand") == "NVIDIA",
                gpu_count_of(profile),
                is_scalable(profile),
                _profile_reading(hw_id, profile),
            )
        return found

    @functools.cached_property
    def kv_ids(self) -> list[str]:
        return [
            name
            for name, spec in self.strategies.items()
            if get(spec, "deploy_type") == "kv_store_lb"
        ]


class Combination(NamedTuple):
    """What to render: every choice the compiler makes before synthesis.

    A tuple, immutable and cheap to make: the plan makes one per rendering.
    """

    variant_key: str
    strategy: str
    hw_id: str
    node_count: float | int = 1  # a JS number: node counts come from arithmetic on YAML values
    features: tuple[str, ...] = ()
    pd_nodes: dict[str, Any] | None = None
    kv_offload: str | None = None


def spread(source: Any) -> list[Any]:
    """`...source` in an array literal: arrays as they are, strings as characters (docs/upstream-behaviour.md#js-values)."""
    kind = type(source)
    if kind is list:
        listed: list[Any] = source
        return listed
    if kind is str:
        return list(source)
    raise RenderError(f"{js_string(source)} is not iterable (expected a list of arguments)")


def assign(target: dict[str, Any], source: Any) -> None:
    """`Object.assign(target, source)` for the mappings recipes provide."""
    if type(source) is dict:
        target.update(source)
    elif truthy(source):
        raise RenderError(f"expected a mapping of environment variables, got {js_string(source)}")


# The join orders split at the emitter's tokens, in runs.
_ARGS_BEFORE, _ARGS_AFTER = (runs(part) for part in split_at_emitter(ARG_STEPS))
_ENV_BEFORE, _ENV_AFTER = (runs(part) for part in split_at_emitter(ENV_STEPS))


def _spread_steps(
    args: list[Any], steps: tuple[Step, ...], sel: Selection, role: str | None
) -> None:
    for step in steps:
        for items in step.layers(sel, role):
            args += items if type(items) is list else spread(items)


def _assign_steps(
    env: dict[str, Any], steps: tuple[Step, ...], sel: Selection, role: str | None
) -> None:
    for step in steps:
        for items in step.layers(sel, role):
            if type(items) is dict:
                env.update(items)
            else:
                assign(env, items)


class StrategyFacts(NamedTuple):
    """What a rendering reads of its strategy's spec and of the recipe's overrides for it."""

    spec: Any  # the strategy file's data ({} when it has none)
    deploy_type: Any  # raw: undefined when the spec has none
    deploy: Any  # deploy_type, or "single_node" when it is falsy
    overrides: Any  # strategy_overrides[strategy]
    parallel_flag: Any
    parallelism: Any


def _strategy_facts(catalog: RenderInputs, overrides: Any, strategy: str) -> StrategyFacts:
    spec = catalog.strategies.get(strategy, UNDEFINED)
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
    catalog: RenderInputs,
    recipe: dict[str, Any],
    profile: Any,
    kv_offload: str,
    strategy: str,
    deploy_type: Any,
) -> Any:
    """`taxonomy.kv_offload[kv]` behind its strategy, recipe and brand gates."""
    option = get(get(catalog.taxonomy, "kv_offload"), kv_offload)
    if not truthy(option):
        return None
    if deploy_type in ("pd_cluster", "kv_store_lb"):
        return None
    allow = get(option, "strategies")
    if type(allow) is list and allow and strategy not in allow:
        return None
    support = get(get(recipe, "kv_offload_support"), kv_offload)
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
        catalog: RenderInputs,
        recipe: dict[str, Any],
        variant_key: str,
        hw_id: str,
        strategy_runs: dict[Any, Any] | None = None,
    ) -> None:
        self.catalog, self.recipe, self.variant_key, self.hw_id = (
            catalog,
            recipe,
            variant_key,
            hw_id,
        )
        variants = get(recipe, "variants")
        self.variant = js_or(get(variants, variant_key), get(variants, "default"), {})
        facts = catalog.hardware(hw_id)
        self.profile, self.gen, self.nvidia, self.gpu_count = facts[:4]
        self._reading = facts.reading
        self._shared_reading: Any = UNDEFINED  # sharing_key's reading, once asked
        self.model_id = js_or(
            get(self.variant, "model_id"), get(get(recipe, "model"), "model_id"), "unknown"
        )
        self.strategy_overrides = get(recipe, "strategy_overrides")
        self.shared: dict[Any, Any] = {}  # Selection.shared of every rendering here
        self._joined: dict[
            int, Any
        ] = {}  # a placement run's number -> its args (list) or env (dict)
        # The strategy runs joined so far, shared with the recipe's other placements that the
        # caller hands the same mapping: keyed by what they read (see _strategy_key).
        self.strategy_runs: dict[Any, Any] = {} if strategy_runs is None else strategy_runs
        # sharing_key -> the outcome of rendering it (a Rendered, or a failure's message)
        self.renderings: dict[Any, Any] = self.strategy_runs.setdefault("renderings", {})
        self._features: FeatureResolver | None = None
        self._scope_number: int | None = None
        self._model_text: str | None = None
        self._meta: DockerMeta | None = None
        self._tp: Any = UNDEFINED
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
            keys: set[Any] | None = self.strategy_runs.get("generation-keys")
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
                self.catalog, self.strategy_overrides, strategy
            )
        return found

    def kv_facts(self, kv_offload: str) -> tuple[Any, Any]:
        """(the kv_store spec or None when the name is no kv deployment, its instance count)."""
        key = ("kv", kv_offload)
        found: tuple[Any, Any] | None = self.strategy_runs.get(key)
        if found is None:
            kv = self.catalog.strategies.get(kv_offload, UNDEFINED) if kv_offload else UNDEFINED
            if get(kv, "deploy_type") != "kv_store_lb":
                kv = None
            instances = js_or(get(kv, "default_instances"), 2) if kv is not None else 2
            found = self.strategy_runs[key] = (kv, instances)
        return found

    def kv_option(self, kv_offload: str, strategy: str, deploy_type: Any) -> Any:
        return _kv_option(
            self.catalog, self.recipe, self.profile, kv_offload, strategy, deploy_type
        )

    def serves(self, catalog: RenderInputs, recipe: dict[str, Any], combo: Combination) -> bool:
        return (
            catalog is self.catalog
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
    def tp_for_single_node_tp(self) -> Any:
        """The `single_node_tp` size: declared tp (capped at the GPU count), else what VRAM needs."""
        if self._tp is UNDEFINED:
            self._tp = self._single_node_tp()
        return self._tp

    def _single_node_tp(self) -> Any:
        profile, variant, gpu_count = self.profile, self.variant, self.gpu_count
        is_cpu = get(profile, "generation") == "cpu"
        for raw in (
            get(variant, "tp"),
            get(get(get(self.recipe, "strategy_overrides"), "single_node_tp"), "tp"),
        ):
            declared = raw if is_number(raw) else hardware_keyed_value(raw, profile, self.hw_id)
            if is_number(declared) and declared > 0:
                return declared if is_cpu else min(declared, gpu_count)
        vram = get(profile, "vram_gb")
        per_gpu = js_divide(vram, gpu_count) if truthy(vram) and truthy(gpu_count) else 0
        needed = js_or(get(variant, "vram_minimum_gb"), 0)
        if not truthy(needed) or not truthy(per_gpu) or per_gpu <= 0:
            return gpu_count
        return 1 if needed <= per_gpu else gpu_count

    @property
    def pool_modes(self) -> list[str]:
        if self._pool_modes is None:
            self._pool_modes = pd_pool_modes(self.recipe)
        return self._pool_modes

    def _named_keys(self) -> frozenset[Any]:
        """The hardware ids a rendering here may look up: keys of the recipe and of the variant."""
        runs = self.strategy_runs
        key = ("hardware-keys", self.variant_key)
        found: frozenset[Any] | None = runs.get(key)
        if found is None:
            recipe: frozenset[Any] | None = runs.get("hardware-keys")
            if recipe is None:
                recipe = runs["hardware-keys"] = _mapping_keys(self.recipe, _PLAN_TABLES)
            found = runs[key] = recipe | _mapping_keys(self.variant)
        return found

    def _reading_number(self) -> int | None:
        """The profile's reading as a small number, equal for equal readings (a key hashed
        once per rendering); None when the hardware shares nothing."""
        if self._reading is None or self.hw_id in self._named_keys():
            return None
        numbers: dict[tuple[Any, ...], int] = self.strategy_runs.setdefault("readings", {})
        return numbers.setdefault(self._reading, len(numbers))

    def sharing_key(self, combo: Combination) -> tuple[Any, ...] | None:
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

    def run_args(self, run: Run, sel: Selection) -> list[Any]:
        """The args of a placement run, spread once (callers copy before extending)."""
        found: list[Any] | None = self._joined.get(run.number)
        if found is None:
            found = []
            _spread_steps(found, run.steps, sel, None)
            self._joined[run.number] = found
        return found

    def run_env(self, run: Run, sel: Selection) -> dict[str, Any]:
        """The env of a placement run: its mappings assigned in order into one, once.

        Assigning that one is assigning them in turn: the same keys, in the same order,
        each with its last value.
        """
        found: dict[str, Any] | None = self._joined.get(run.number)
        if found is None:
            found = {}
            _assign_steps(found, run.steps, sel, None)
            self._joined[run.number] = found = self._interned_env(found)
        return found

    def strategy_args(self, run: Run, sel: Selection, role: str | None) -> list[Any]:
        """The args of a strategy run, spread once per strategy and role (and variant and
        generation, when a step of it reads them)."""
        key = (run.number, sel.strategy, role, self._scope if run.placed else None)
        found: list[Any] | None = self.strategy_runs.get(key)
        if found is None:
            found = []
            _spread_steps(found, run.steps, sel, role)
            self.strategy_runs[key] = found
        return found

    def strategy_env(self, run: Run, sel: Selection, role: str | None) -> dict[str, Any]:
        """The env of a strategy run, assigned into one mapping once (as run_env)."""
        key = (run.number, sel.strategy, role, self._scope if run.placed else None)
        found: dict[str, Any] | None = self.strategy_runs.get(key)
        if found is None:
            found = {}
            _assign_steps(found, run.steps, sel, role)
            self.strategy_runs[key] = found = self._interned_env(found)
        return found

    def _interned_env(self, env: dict[str, Any]) -> dict[str, Any]:
        """One mapping for every strategy run of the recipe that assigns the same strings, so
        that renderings which differ only in such runs find each other (see _Synthesis.env)."""
        if any(type(value) is not str for value in env.values()):
            return env  # `1` and `true` are equal values but distinct texts
        interned: dict[str, Any] = self.strategy_runs.setdefault(("env", tuple(env.items())), env)
        return interned


def _keys(table: Any) -> Any:
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


def _mapping_keys(data: Any, skipped: frozenset[str] = frozenset()) -> frozenset[Any]:
    """Every key of every mapping in ``data`` but below its top-level keys ``skipped`` and
    below any `tp`: the hardware ids a rendering may look up in it.

    Each container is visited once: YAML aliases may share one many times over.
    """
    if type(data) is not dict:
        return frozenset()
    keys: set[Any] = set(data)
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


def _override_keys(recipe: dict[str, Any]) -> set[Any]:
    """The keys of the recipe's and its strategies' hardware_overrides."""
    keys = set(_keys(get(recipe, "hardware_overrides")))
    strategies = get(recipe, "strategy_overrides")
    for overrides in strategies.values() if type(strategies) is dict else ():
        keys.update(_keys(get(overrides, "hardware_overrides")))
    return keys


class _Synthesis(Selection):
    """One combination being rendered: the bare Selection its layers read, plus what the emitter needs."""

    __slots__ = (
        "catalog",
        "combo",
        "placement",
        "problems",
        "_layers",
        "deploy_type",
        "profile",
        "gpu_count",
        "total_gpus",
        "model_id",
        "instances",
        "deploy",
        "single_node_tp",
        "presence",
        "facts",
        "dp_local",
    )

    def __init__(
        self,
        catalog: RenderInputs,
        recipe: dict[str, Any],
        combo: Combination,
        placement: Placement,
    ) -> None:
        self.catalog, self.recipe, self.combo, self.placement = catalog, recipe, combo, placement
        self.problems: list[Any] = []  # (pointer, message): renders, but is invalid
        self._layers: dict[str | None, Any] = {}  # role -> (args before, args after the emitter)
        self.variant_key, self.hw_id, self.strategy = combo.variant_key, combo.hw_id, combo.strategy
        self.variant = placement.variant
        facts = placement.strategy_facts(combo.strategy)
        self.facts = facts
        self.spec = facts.spec
        deploy_type = self.deploy_type = facts.deploy_type
        self.profile = placement.profile
        self.gen = placement.gen
        self.nvidia = placement.nvidia
        gpu_count = self.gpu_count = placement.gpu_count
        nodes = combo.node_count
        # gpu_count * Math.max(1, nodes)
        self.total_gpus = gpu_count * (nodes if nodes != nodes or nodes > 1 else 1)
        self.model_id = placement.model_id
        kv_offload = combo.kv_offload
        self.kv_option_id = kv_offload
        if kv_offload is None:
            self.kv = self.kv_option = None
            self.kv_composing = False
            self.instances = 2
        else:
            self.kv, self.instances = placement.kv_facts(kv_offload)
            self.kv_composing = self.kv is not None and deploy_type != "pd_cluster"
            self.kv_option = placement.kv_option(kv_offload, combo.strategy, deploy_type)
        overrides = self.overrides = facts.overrides
        self.deploy = facts.deploy
        self.single_node_tp = (
            placement.tp_for_single_node_tp if combo.strategy == "single_node_tp" else gpu_count
        )
        features = self.features = (
            placement.features.args_for(combo.features, combo.strategy, self.kv_composing)
            if combo.features
            else []
        )
        self.memo = None
        self.shared = placement.shared
        self.bare = True
        self.dp_local: Any = UNDEFINED  # _dep_local_override(), once asked
        # Selection.present(), inlined: every rendering asks it once
        self.presence = (
            (type(overrides) is dict)
            | (bool(features) << 1)
            | ((self.kv_option is not None or self.kv is not None) << 2)
        )

    # ------------------------------------------------------------ args

    def build_args(self, role: str | None, node_role: str | None, node_rank: int = 1) -> list[Any]:
        """The layers before the emitter (resolve.layers.ARG_STEPS), its tokens, the layers after."""
        before, after = self._role_layers(role)
        return before + self._parallel_args(role, node_role, node_rank) + after

    def _role_layers(self, role: str | None) -> tuple[list[Any], list[Any]]:
        """The args before and after the parallelism flags; they do not depend on the node rank."""
        cached = self._layers.get(role)
        if cached is None:
            cached = self._layers[role] = (
                self._joined_args(_ARGS_BEFORE, role),
                self._joined_args(_ARGS_AFTER, role),
            )
        return cached

    def _joined_args(self, parts: tuple[Run, ...], role: str | None) -> list[Any]:
        args: list[Any] = []
        placement = self.placement
        for run in parts:
            kind = run.kind
            if kind is PLACEMENT_RUN:
                found = placement._joined.get(run.number)  # Placement.run_args, inlined
                args += found if found is not None else placement.run_args(run, self)
            elif kind is STRATEGY_RUN:
                args += placement.strategy_args(run, self, role)
            else:
                steps = run.by_presence[self.presence]
                if steps:
                    _spread_steps(args, steps, self, role)
        return args

    def _parallel_args(self, role: str | None, node_role: str | None, node_rank: int) -> list[Any]:
        facts, combo = self.facts, self.combo
        deploy = facts.deploy_type
        flag = facts.parallel_flag
        nodes = combo.node_count
        multi = deploy == "multi_node" and nodes > 1
        # Math.max(1, rank): the plan's ranks are ints
        rank = (node_rank if node_rank > 1 else 1) if node_role == "worker" else 0
        # (compared before the single-node return: a non-number instance count fails alike)
        address = "$VLLM_INSTANCE_1" if self.kv_composing and self.instances > 1 else "$HEAD_IP"
        s = js_string
        if not multi and deploy != "pd_cluster":
            return [flag, s(self.single_node_tp)]
        parallelism = facts.parallelism
        if multi and flag == "--data-parallel-size":
            dp_local = self.dp_local
            if dp_local is UNDEFINED:  # the head and every worker read it
                dp_local = self.dp_local = self._dep_local_override()
            out = [
                "--data-parallel-size",
                s(self.total_gpus),
                "--data-parallel-size-local",
                s(self.gpu_count),
                "--data-parallel-address",
                address,
            ]
            if node_role == "worker":
                out += ["--data-parallel-start-rank", s(normalize_number(rank * dp_local))]
            return out
        if multi and parallelism == "tp_pp":
            out = [
                "--tensor-parallel-size",
                s(self.gpu_count),
                "--pipeline-parallel-size",
                s(nodes),
                "--nnodes",
                s(nodes),
                "--node-rank",
                s(rank),
                "--master-addr",
                address,
            ]
            return out + ["--headless"] if rank > 0 else out
        if multi and parallelism == "tp_dp":
            out = [
                "--tensor-parallel-size",
                s(self.gpu_count),
                "--data-parallel-size",
                s(nodes),
                "--data-parallel-size-local",
                "1",
                "--data-parallel-address",
                address,
            ]
            return out + ["--data-parallel-start-rank", s(rank)] if node_role == "worker" else out
        if multi:
            out = [
                "--tensor-parallel-size",
                s(self.total_gpus),
                "--nnodes",
                s(nodes),
                "--node-rank",
                s(rank),
                "--master-addr",
                address,
            ]
            return out + ["--headless"] if rank > 0 else out
        if deploy == "pd_cluster":
            return self._pd_parallel_args(role or "")
        return [flag, s(self.single_node_tp)]

    def _dep_local_override(self) -> Any:
        """The last `--data-parallel-size-local` value the recipe's overrides set, as Number() reads it."""
        so = self.overrides
        so_hw = get(so, "hardware_overrides")
        sources = [
            get(so, "vllm_args"),
            get(so, "extra_args"),
            get(generation_key(so_hw, self.gen, self.nvidia)[1], "extra_args"),
            get(get(so_hw, self.combo.hw_id), "extra_args"),
        ]
        flat: list[Any] = []
        for source in sources:
            flat += spread(js_or(source, []))
        for index in range(len(flat) - 1, -1, -1):
            if flat[index] == "--data-parallel-size-local":
                return js_number(flat[index + 1] if index + 1 < len(flat) else UNDEFINED)
        return self.gpu_count

    def _pd_role(self, role: str) -> dict[str, Any]:
        raw = self.combo.pd_nodes.get(role) if self.combo.pd_nodes else None
        if is_number(raw):
            return {"nodes": raw}
        return raw if type(raw) is dict else {}

    def _pool_nodes(self, role: str) -> Any:
        nodes = self._pd_role(role).get("nodes", UNDEFINED)
        return nodes if is_number(nodes) else (1 if self.combo.node_count > 1 else 0)

    def pool_gpus(self, role: str) -> Any:
        """The GPUs a PD role's pool holds: its nodes' GPUs, or half of one shared node."""
        pool_nodes = self._pool_nodes(role)
        return js_floor(self.gpu_count / 2) if pool_nodes == 0 else pool_nodes * self.gpu_count

    def _pd_parallel_args(self, role: str) -> list[Any]:
        s = js_string
        role_cfg = js_or(get(self.spec, role), {})
        so_role = js_or(get(self.overrides, role), {})
        pd_role = self._pd_role(role)
        pool_nodes = self._pool_nodes(role)
        pool_gpus = self.pool_gpus(role)
        mode = js_or(
            pd_role.get("parallelism"),
            get(so_role, "parallelism"),
            get(role_cfg, "parallelism"),
            "tp",
        )
        allowed = self.placement.pool_modes
        if mode not in allowed:
            mode = allowed[0]
        upper = role.upper()
        if mode == "dep":
            nodes_in_pool = js_max(1, pool_nodes)
            tp_explicit = coalesce(get(so_role, "tp"), get(role_cfg, "tp"))
            tp = coalesce(tp_explicit, 1)
            if not is_number(tp) or tp <= 0:
                self.problems.append(
                    (
                        ("strategy_overrides", self.combo.strategy, role, "tp"),
                        f"PD {role} pool `tp` must be a positive number, got {js_string(tp)}: the rendered "
                        f"data-parallel size would be {js_string(js_divide(self.gpu_count, js_number(tp)))}",
                    )
                )
            dp_local = js_max(1, js_floor(js_divide(self.gpu_count, js_number(tp))))
            out: list[Any] = []
            if tp_explicit is not UNDEFINED:
                out += ["--tensor-parallel-size", s(tp)]
            out += [
                "--data-parallel-size",
                s(normalize_number(nodes_in_pool * dp_local)),
                "--data-parallel-size-local",
                s(normalize_number(dp_local)),
                "--data-parallel-start-rank",
                s(normalize_number(0 * dp_local)),
                "--data-parallel-address",
                f"${upper}_NODE_1",
                "--data-parallel-rpc-port",
                f"${upper}_DP_RPC_PORT",
            ]
            if nodes_in_pool > 1:
                out.append("--data-parallel-hybrid-lb")
            return out + ["--enable-expert-parallel"]
        flag = js_or(
            get(so_role, "parallel_flag"),
            get(role_cfg, "parallel_flag"),
            get(self.spec, "parallel_flag"),
            "--tensor-parallel-size",
        )
        out = [flag, s(normalize_number(js_max(1, pool_gpus)))]
        if mode == "tep":
            out.append("--enable-expert-parallel")
        if pool_nodes > 1:
            out += [
                "--nnodes",
                s(pool_nodes),
                "--node-rank",
                "0",
                "--master-addr",
                f"${upper}_NODE_1",
            ]
        return out

    # ------------------------------------------------------------ env

    def build_env(self, role: str | None) -> dict[str, Any]:
        """The env layers (resolve.layers.ENV_STEPS) assigned in order, PD device pinning at the emitter's place."""
        env: dict[str, Any] = {}
        self._assign_runs(env, _ENV_BEFORE, role)
        pd = self.deploy_type == "pd_cluster"
        if pd and role:
            self._pin_pd_devices(env, role)
        self._assign_runs(env, _ENV_AFTER, role)
        if pd and self.hw_id not in NVL4_HARDWARE:
            for key in NVL4_ONLY_ENV:
                env.pop(key, None)
        return env

    def env(self, role: str | None, meta: DockerMeta) -> tuple[dict[str, Any], DockerWrapper]:
        """build_env(role), and the `docker run` wrapper of that env and image.

        Outside a PD cluster the env is its mappings assigned in turn; the recipe's renderings
        that assign the same mappings (Placement interns them) with the same image share the
        wrapper (formatting the env for docker is most of a wrapper's cost), and each gets a
        copy of the env.
        """
        if self.deploy_type == "pd_cluster":
            env = self.build_env(role)
            return env, DockerWrapper(env, meta)
        pieces: list[dict[str, Any]] = []
        self._env_pieces(pieces, _ENV_BEFORE, role)
        self._env_pieces(pieces, _ENV_AFTER, role)
        key = ("docker-env", role, id(meta), *map(id, pieces))
        cached = self.placement.strategy_runs
        found = cached.get(key)
        if found is None:
            env = {}
            for piece in pieces:
                env.update(piece)
            # the entry holds the pieces and the image: no other object takes their ids meanwhile
            found = cached[key] = (env, DockerWrapper(env, meta), pieces, meta)
        return dict(found[0]), found[1]

    def _env_pieces(
        self, pieces: list[dict[str, Any]], parts: tuple[Run, ...], role: str | None
    ) -> None:
        """The mappings _assign_runs would assign, in order (falsy ones left out)."""
        placement = self.placement
        for run in parts:
            kind = run.kind
            if kind is PLACEMENT_RUN:
                found = placement._joined.get(run.number)
                pieces.append(found if found is not None else placement.run_env(run, self))
            elif kind is STRATEGY_RUN:
                pieces.append(placement.strategy_env(run, self, role))
            else:
                for step in run.by_presence[self.presence]:
                    for items in step.layers(self, role):
                        if type(items) is dict:
                            pieces.append(items)
                        else:
                            assign({}, items)  # raises for what Object.assign would not take

    def _assign_runs(self, env: dict[str, Any], parts: tuple[Run, ...], role: str | None) -> None:
        placement = self.placement
        for run in parts:
            kind = run.kind
            if kind is PLACEMENT_RUN:
                found = placement._joined.get(run.number)  # Placement.run_env, inlined
                env.update(found if found is not None else placement.run_env(run, self))
            elif kind is STRATEGY_RUN:
                env.update(placement.strategy_env(run, self, role))
            else:
                steps = run.by_presence[self.presence]
                if steps:
                    _assign_steps(env, steps, self, role)

    def _pin_pd_devices(self, env: dict[str, Any], role: str) -> None:
        pool_nodes = self._pool_nodes(role)
        gpus = self.gpu_count
        if pool_nodes >= 1:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(_length(gpus)))
            if pool_nodes >= 2:
                env["GLOO_SOCKET_IFNAME"] = "$IFACE_NAME"
                env["NCCL_SOCKET_IFNAME"] = "$IFACE_NAME"
            return
        half = js_floor(gpus / 2)
        if half > 0:
            ids = (
                range(_length(half))
                if role == "prefill"
                # _length(half) is half itself here, bounded like every other rendered count
                else range(_length(half), _length(half) + _length(gpus - half))
            )
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in ids)

    # ------------------------------------------------------------ assembly

    def command(
        self, role: str | None, node_role: str | None, node_rank: int = 1
    ) -> tuple[str, list[Any]]:
        """The `vllm serve` line and argv of build_args(role, node_role, node_rank)."""
        args = self.build_args(role, node_role, node_rank)
        return serve_command(self.model_id, self.placement.model_text, args)

    def check_command(self, role: str | None, node_role: str | None, node_rank: int = 1) -> None:
        """Raise what command() raises, without laying out the command line."""
        args = self.build_args(role, node_role, node_rank)
        self.placement.model_text  # noqa: B018 - String(model_id) is part of every command
        check_serve_args(args)


# Far beyond any real deployment; upstream would build arrays this long (or throw).
MAX_RENDERED_ITEMS = 4096


def _length(value: Any) -> int:
    """`Array.from({length: v})`: how many GPUs, nodes or endpoints to list."""
    if not is_number(value) or value != value or value <= 0:
        return 0
    if value > MAX_RENDERED_ITEMS:
        raise RenderError(
            f"{js_string(value)} nodes, GPUs or instances is beyond any real deployment"
        )
    return int(value)


def _follower_ranks(nodes: Any) -> list[int]:
    count = js_or(nodes, 1)
    return list(range(1, _length(count - 1) + 1)) if is_number(count) else []


def render_command(
    catalog: RenderInputs,
    recipe: dict[str, Any],
    combo: Combination,
    problems: list[Any] | None = None,
    placement: Placement | None = None,
) -> dict[str, Any]:
    """The published JSON for one combination (before `strategy_spec`/`hardware_profile`).

    Raises RenderError where upstream's synthesis throws. Input that upstream renders
    but that is nonetheless broken (a PD `tp: 0`, no image for the hardware) renders
    the same way and adds a (pointer, message) pair to ``problems``. A ``placement``
    for the combination's variant and hardware saves recomputing what it shares.
    """
    if placement is None or not placement.serves(catalog, recipe, combo):
        placement = Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    return render_placed(placement, combo, problems)


def render_placed(
    placement: Placement, combo: Combination, problems: list[Any] | None = None
) -> dict[str, Any]:
    """render_command for a combination of the placement's variant and hardware."""
    rendered = placed_rendering(placement, combo, True)
    if problems is not None:
        rendered.report(problems, combo.hw_id)
    return rendered.document


def check_placed(
    placement: Placement, combo: Combination, problems: list[Any] | None = None
) -> None:
    """What render_placed raises and adds to ``problems``, without building the document:
    the args, env and parts it reads are worked out and judged the same way, in the same
    order, but no command line, docker command or JSON is laid out."""
    rendered = placed_rendering(placement, combo, False)
    if problems is not None:
        rendered.report(problems, combo.hw_id)


class Rendered(NamedTuple):
    """One rendering's outcome, told apart from the hardware it was rendered on."""

    document: dict[str, Any]  # {} when it was judged without being laid out
    problems: list[Any]  # (pointer, message): renders, but is invalid
    image_missing: bool

    def report(self, problems: list[Any], hw_id: str) -> None:
        """Add what renders but is broken: the synthesis's own problems, then a missing image."""
        problems.extend(self.problems)
        if self.image_missing:
            problems.append(
                (
                    ("model", "docker_image"),
                    f"no container image exists for {hw_id} (nightly images are not published "
                    "for this hardware): the docker command would run `undefined`",
                )
            )


def placed_rendering(placement: Placement, combo: Combination, documents: bool) -> Rendered:
    """The combination rendered on the placement (laid out, or without ``documents`` only
    judged); raises RenderError where upstream's synthesis throws."""
    synth = _Synthesis(placement.catalog, placement.recipe, combo, placement)
    meta = placement.meta
    shape = _shape(synth)
    doc: dict[str, Any] = {}
    if documents:
        doc = _RENDERERS[shape](synth, meta)
    else:
        _CHECKERS[shape](synth, meta)
    return Rendered(doc, synth.problems, meta.image is UNDEFINED)


def _shape(synth: _Synthesis) -> int:
    """Which of _RENDERERS lays the combination out."""
    if synth.deploy == "pd_cluster":
        return 0
    if synth.kv_composing:
        return 1
    return 2 if synth.deploy == "multi_node" and synth.combo.node_count > 1 else 3


def rendered_layers(
    catalog: RenderInputs,
    recipe: dict[str, Any],
    combo: Combination,
    role: str | None = None,
    node_role: str | None = None,
    node_rank: int = 1,
    placement: Placement | None = None,
) -> tuple[list[Any], dict[str, Any]]:
    """(the args before dedupe, the env) the renderer builds for one command of a combination.

    Raises what rendering raises; a ``placement`` shares what it joined with the renderings
    that used it, as in render_command.
    """
    if placement is None or not placement.serves(catalog, recipe, combo):
        placement = Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    synth = _Synthesis(catalog, recipe, combo, placement)
    return synth.build_args(role, node_role, node_rank), synth.build_env(role)


class Emitted(NamedTuple):
    """The strategy emitter's part of one command: its parallelism tokens (as the head node gets
    them), and the nodes and GPUs the strategy allots that command (a PD role: its pool's)."""

    tokens: list[Any]
    nodes: Any
    gpus: Any


def emitted(
    catalog: RenderInputs,
    recipe: dict[str, Any],
    combo: Combination,
    role: str | None = None,
    placement: Placement | None = None,
) -> Emitted:
    """What the emitter writes for one command of a combination, and what it allots it.

    Raises what rendering the parallelism tokens raises. A single-node deploy type runs on one
    node whatever node count the plan gave it (its tokens never span nodes).
    """
    if placement is None or not placement.serves(catalog, recipe, combo):
        placement = Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    # The tokens read no feature: the features' layers are not joined
    synth = _Synthesis(catalog, recipe, combo._replace(features=()), placement)
    tokens = synth._parallel_args(role, None, 1)
    if synth.deploy == "pd_cluster" and role:
        pool_nodes = synth._pool_nodes(role)
        return Emitted(tokens, js_max(1, pool_nodes), synth.pool_gpus(role))
    nodes = combo.node_count if synth.deploy == "multi_node" and combo.node_count > 1 else 1
    return Emitted(tokens, nodes, synth.gpu_count * nodes)


def rendered_args(
    catalog: RenderInputs,
    recipe: dict[str, Any],
    combo: Combination,
    role: str | None = None,
    placement: Placement | None = None,
) -> list[Any]:
    """The head node's args before dedupe, as rendered_layers gives them, without the env."""
    if placement is None or not placement.serves(catalog, recipe, combo):
        placement = Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    return _Synthesis(catalog, recipe, combo, placement).build_args(role, None, 1)


def _layered_synthesis(
    catalog: RenderInputs, recipe: dict[str, Any], combo: Combination
) -> _Synthesis:
    """A fresh synthesis of the combination that yields the rules' view: a Layer for each list."""
    synth = _Synthesis(
        catalog, recipe, combo, Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    )
    synth.bare = False
    return synth


def command_parts(
    catalog: RenderInputs,
    recipe: dict[str, Any],
    combo: Combination,
    role: str | None = None,
    node_role: str | None = None,
    node_rank: int = 1,
) -> tuple[list[Layer], list[Any], list[Layer]]:
    """(layers before the emitter's tokens, the emitter's tokens, layers after them), per resolve.layers.

    The rendered args are these spread in order, then deduplicated (resolve.formatting).
    """
    synth = _layered_synthesis(catalog, recipe, combo)
    synth.features = synth.placement.features.layers_for(
        combo.features, combo.strategy, synth.kv_composing
    )
    before, after = split_at_emitter(ARG_STEPS)
    return (
        layers(synth, role, before),
        synth._parallel_args(role, node_role, node_rank),
        layers(synth, role, after),
    )


def env_parts(
    catalog: RenderInputs, recipe: dict[str, Any], combo: Combination, role: str | None = None
) -> tuple[list[Layer], list[Layer]]:
    """(env layers before the PD device pinning, env layers after it), per resolve.layers."""
    synth = _layered_synthesis(catalog, recipe, combo)
    before, after = split_at_emitter(ENV_STEPS)
    return layers(synth, role, before), layers(synth, role, after)


def pinned_devices(
    catalog: RenderInputs, recipe: dict[str, Any], combo: Combination, role: str | None
) -> dict[str, Any]:
    """The variables PD device pinning sets for a role (none outside a PD cluster's roles)."""
    placement = Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    synth = _Synthesis(catalog, recipe, combo, placement)
    env: dict[str, Any] = {}
    if synth.deploy_type == "pd_cluster" and role:
        synth._pin_pd_devices(env, role)
    return env


def _base(
    synth: _Synthesis, meta: DockerMeta, deploy_type: str, env: dict[str, Any]
) -> dict[str, Any]:
    combo = synth.combo
    base = {
        "hardware": combo.hw_id,
        "strategy": combo.strategy,
        "variant": combo.variant_key,
        "node_count": combo.node_count,
        "deploy_type": deploy_type,
        "env": env,
    }
    if meta.image is not UNDEFINED:
        base["docker_image"] = meta.image
    return base


def _render_single_node(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    command, argv = synth.command(None, None)
    env, docker = synth.env(None, meta)
    out = _base(synth, meta, synth.deploy, env)
    out["command"] = command
    out["argv"] = argv
    out.update(docker.wrap(command, argv))
    extra = _companions(synth)
    kv_companion = _kv_companion(synth)
    if kv_companion is not None:
        extra.append(kv_companion)
    if extra:
        out["companions"] = extra
    return out


def _check_single_node(synth: _Synthesis, meta: DockerMeta) -> None:
    synth.check_command(None, None)
    synth.env(None, meta)
    _companions(synth)
    _kv_companion(synth)


def _kv_companion(synth: _Synthesis) -> dict[str, Any] | None:
    """The kv offload option's companion command, when it has one."""
    option = synth.kv_option
    if option is None or not truthy(get(get(option, "companion"), "command")):
        return None
    companion = option["companion"]
    description = " ".join(
        part
        for part in (
            js_or(get(companion, "description"), ""),
            f"Requires: {js_string(option['install'])}" if truthy(get(option, "install")) else "",
        )
        if truthy(part)
    )
    return {
        "feature": f"kv_offload:{synth.combo.kv_offload}",
        "label": js_or(get(companion, "label"), synth.combo.kv_offload),
        "description": description,
        "command": js_string(companion["command"]).rstrip(JS_WHITESPACE),
    }


def _companions(synth: _Synthesis) -> list[dict[str, Any]]:
    """The enabled features' companion commands; which features have one is worked out once
    for the recipe's renderings (most have none)."""
    enabled = synth.combo.features
    if not enabled:
        return []
    key = ("companions", enabled)
    runs = synth.placement.strategy_runs
    having: list[str] | None = runs.get(key)
    if having is None:
        features = get(synth.recipe, "features")
        having = runs[key] = [
            name
            for name in enabled
            if truthy(get(get(get(features, name), "companion"), "command"))
        ]
    return companions(synth.recipe, having, synth.combo.strategy) if having else []


def _render_multi_node(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    head_cmd, head_argv = synth.command(None, "head")
    workers = [synth.command(None, "worker", r) for r in _follower_ranks(synth.combo.node_count)]
    env, docker = synth.env(None, meta)  # the head and every worker share the env and the image
    head = docker.wrap(head_cmd, head_argv)
    worker_dockers = [docker.wrap(cmd, argv) for cmd, argv in workers]
    out = _base(synth, meta, "multi_node", env)
    out.update(
        {
            "head_command": head_cmd,
            "worker_command": workers[0][0],
            "worker_commands": [cmd for cmd, _ in workers],
            "head_argv": head_argv,
            "worker_argv": workers[0][1],
            "worker_argvs": [argv for _, argv in workers],
            "head_docker_command": head["docker_command"],
            "worker_docker_command": worker_dockers[0]["docker_command"],
            "worker_docker_commands": [w["docker_command"] for w in worker_dockers],
            "head_docker_argv": head["docker_argv"],
            "worker_docker_argv": worker_dockers[0]["docker_argv"],
            "worker_docker_argvs": [w["docker_argv"] for w in worker_dockers],
        }
    )
    return out


def _check_multi_node(synth: _Synthesis, meta: DockerMeta) -> None:
    synth.check_command(None, "head")
    for rank in _follower_ranks(synth.combo.node_count):
        synth.check_command(None, "worker", rank)
    synth.env(None, meta)


def _pd_role_meta(synth: _Synthesis, role: str) -> dict[str, Any]:
    """The role metadata upstream reports; it does not snap to `pool_modes` (unlike the args)."""
    so_role = js_or(get(synth.overrides, role), {})
    role_cfg = js_or(get(synth.spec, role), {})
    nodes = synth._pool_nodes(role)
    mode = js_or(
        synth._pd_role(role).get("parallelism"),
        get(so_role, "parallelism"),
        get(role_cfg, "parallelism"),
        "tp",
    )
    gpus = synth.gpu_count
    pool_gpus = js_floor(gpus / 2) if nodes == 0 else nodes * gpus
    tp = js_or(get(so_role, "tp"), get(role_cfg, "tp"), 1) if mode == "dep" else pool_gpus
    dp_local = js_max(1, js_floor(js_divide(gpus, js_number(tp)))) if mode == "dep" else 0
    dp_size = js_max(1, nodes) * dp_local if mode == "dep" else 1
    return {
        "nodes": nodes,
        "parallelism": mode,
        "tp": tp,
        "dpLocal": normalize_number(dp_local),
        "dpSize": normalize_number(dp_size),
        "poolGpus": normalize_number(pool_gpus),
        "currentNode": 0,
        "startRank": 0,
    }


def _render_pd(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    roles, router_lines = _pd_router(synth)
    rendered = {}
    for role in ("prefill", "decode"):
        command, argv = synth.command(role, None)
        env = synth.build_env(role)
        doc = {"command": command, "argv": argv, "env": env, **roles[role]}
        doc.update(DockerWrapper(env, meta).wrap(command, argv, PD_PORTS[role]))
        rendered[role] = doc
    out = _base(synth, meta, "pd_cluster", {})
    out["prefill"] = rendered["prefill"]
    out["decode"] = rendered["decode"]
    out["router"] = {"command": "\n".join(router_lines), "install": "uv pip install vllm-router"}
    out["router_config"] = js_or(get(synth.spec, "router"), {"policy": "round_robin"})
    return out


def _check_pd(synth: _Synthesis, meta: DockerMeta) -> None:
    _pd_router(synth)
    for role in ("prefill", "decode"):
        synth.check_command(role, None)
        DockerWrapper(synth.build_env(role), meta)


def _pd_router(synth: _Synthesis) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each pool's metadata and the router's command lines."""
    strategy = synth.spec
    policy = js_or(get(get(strategy, "router"), "policy"), "round_robin")
    roles = {}
    for role in ("prefill", "decode"):
        role_meta = _pd_role_meta(synth, role)
        roles[role] = role_meta
    endpoints = []
    for role, flag in (("prefill", "--prefill"), ("decode", "--decode")):
        role_meta = roles[role]
        count = js_max(1, js_or(role_meta["nodes"], 1)) if role_meta["parallelism"] == "dep" else 1
        port = PD_PORTS[role]
        endpoints += [
            f"    {flag} http://${role.upper()}_NODE_{i + 1}:{port} \\"
            for i in range(_length(count))
        ]
    intra = coalesce(
        get(get(synth.overrides, "router"), "intra_node_data_parallel_size"),
        js_max(js_or(roles["prefill"]["dpLocal"], 0), js_or(roles["decode"]["dpLocal"], 0), 1),
    )
    router_lines = [
        f"vllm-router --policy {js_string(policy)} \\",
        "    --vllm-pd-disaggregation \\",
        *endpoints,
        "    --host $ROUTER_HOST \\",
        "    --port $ROUTER_PORT \\",
        f"    --intra-node-data-parallel-size {js_string(normalize_number(intra))}",
    ]
    return roles, router_lines


def _brand_install(synth: _Synthesis, raw: Any) -> Any:
    if isinstance(raw, (dict, list)):
        brand = get(synth.profile, "brand")
        key = "amd" if brand == "AMD" else "nvidia" if brand == "NVIDIA" else None
        return js_or(get(raw, key), None) if key else None
    return raw if truthy(raw) else None


def _kv_router(kv: Any, instances: Any) -> dict[str, Any] | None:
    """The cache-aware router in front of the instances; none for a single instance."""
    if not instances > 1:
        return None
    router, vllm = get(kv, "router"), get(kv, "vllm")
    port = js_or(get(vllm, "port"), 8000)
    lines = [
        f"vllm-router --policy {js_string(js_or(get(router, 'policy'), 'cache_aware'))} \\",
        *[
            f"    --backend-url http://$VLLM_INSTANCE_{i + 1}:{js_string(port)} \\"
            for i in range(_length(instances))
        ],
        "    --host $ROUTER_HOST \\",
        "    --port $ROUTER_PORT \\",
        "    --cache-threshold 0.5 \\",
        "    --balance-abs-threshold 4 \\",
        "    --balance-rel-threshold 1.1",
    ]
    return {
        "command": "\n".join(lines),
        "install": js_or(get(router, "install"), "uv pip install vllm-router"),
        "port": js_or(get(router, "port"), 30080),
    }


def _kv_services(kv: Any) -> dict[str, Any]:
    master, store = get(kv, "mooncake_master"), get(kv, "mooncake_store_config")
    return {
        "master": {
            "command": js_or(get(master, "command"), "mooncake_master"),
            "description": js_or(get(master, "description"), ""),
        },
        "store": (
            {
                "command": get(store, "command"),
                "description": js_or(get(store, "description"), ""),
                "config": js_or(get(store, "config"), None),
                "note": js_or(get(store, "note"), ""),
            }
            if truthy(store)
            else None
        ),
    }


class _KvParts(NamedTuple):
    """What a kv deployment's renderings take from its spec alone."""

    services: dict[str, Any]  # master and store
    router: dict[str, Any] | None
    min_vllm_version: Any
    install: Any  # vllm.install, by brand or not
    mooncake_config: Any
    mooncake_config_note: Any


def _kv_parts(synth: _Synthesis) -> _KvParts:
    """The parts of a kv deployment that read only its spec, so the renderings of one recipe
    share them (as they share the specs' own mappings)."""
    key = ("kv-parts", synth.combo.kv_offload)
    shared = synth.placement.strategy_runs
    found: _KvParts | None = shared.get(key)
    if found is None:
        kv = synth.kv
        vllm_config = get(kv, "mooncake_vllm_config")
        found = shared[key] = _KvParts(
            _kv_services(kv),
            _kv_router(kv, synth.instances),
            js_or(get(kv, "min_vllm_version"), None),
            get(get(kv, "vllm"), "install"),
            js_or(get(vllm_config, "template"), {}),
            js_or(get(vllm_config, "note"), ""),
        )
    return found


_NO_KV_WORKERS = dict.fromkeys(
    (
        "vllm_worker_command",
        "vllm_worker_commands",
        "vllm_worker_argv",
        "vllm_worker_argvs",
        "vllm_worker_docker_command",
        "vllm_worker_docker_argv",
        "vllm_worker_docker_commands",
        "vllm_worker_docker_argvs",
    )
)


def _render_kv(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    """A Mooncake deployment: the serving strategy's commands plus router, master and store."""
    combo = synth.combo
    multi = synth.deploy_type == "multi_node" and combo.node_count > 1
    command, argv = synth.command(None, "head" if multi else None)
    workers = (
        [synth.command(None, "worker", r) for r in _follower_ranks(combo.node_count)]
        if multi
        else []
    )
    env, docker = synth.env(None, meta)  # the instance's head and workers share them
    worker_dockers = [docker.wrap(c, a) for c, a in workers]
    vllm_docker = docker.wrap(command, argv)
    parts = _kv_parts(synth)
    out = _base(synth, meta, "kv_store_lb", env)
    out["strategy"] = combo.kv_offload or combo.strategy
    out["serving_strategy"] = combo.strategy
    out["kv_min_vllm_version"] = parts.min_vllm_version
    out["instances"] = synth.instances
    out["vllm_command"] = command
    out["vllm_argv"] = argv
    if workers:
        out["vllm_worker_command"] = workers[0][0]
        out["vllm_worker_commands"] = [c for c, _ in workers]
        out["vllm_worker_argv"] = workers[0][1]
        out["vllm_worker_argvs"] = [a for _, a in workers]
        out["vllm_worker_docker_command"] = worker_dockers[0]["docker_command"]
        out["vllm_worker_docker_argv"] = worker_dockers[0]["docker_argv"]
        out["vllm_worker_docker_commands"] = [w["docker_command"] for w in worker_dockers]
        out["vllm_worker_docker_argvs"] = [w["docker_argv"] for w in worker_dockers]
    else:
        out.update(_NO_KV_WORKERS)
    out["vllm_install"] = _brand_install(synth, parts.install)
    out["vllm_docker_command"] = vllm_docker["docker_command"]
    out["vllm_docker_argv"] = vllm_docker["docker_argv"]
    out.update(parts.services)
    out["router"] = parts.router
    out["mooncake_config"] = parts.mooncake_config
    out["mooncake_config_note"] = parts.mooncake_config_note
    return out


def _check_kv(synth: _Synthesis, meta: DockerMeta) -> None:
    combo = synth.combo
    multi = synth.deploy_type == "multi_node" and combo.node_count > 1
    synth.check_command(None, "head" if multi else None)
    if multi:
        for rank in _follower_ranks(combo.node_count):
            synth.check_command(None, "worker", rank)
    synth.env(None, meta)
    _kv_parts(synth)


# By _shape: what lays a combination out, and what judges it without laying it out.
_RENDERERS = (_render_pd, _render_kv, _render_multi_node, _render_single_node)
_CHECKERS = (_check_pd, _check_kv, _check_multi_node, _check_single_node)
