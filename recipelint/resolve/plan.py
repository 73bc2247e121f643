"""Choosing what to render for one variant: hardware list, recommended strategy, alternatives.

Upstream: docs/upstream-behaviour.md#variant-rendering, #recommended-strategy and #kv-store; what a failed
synthesis does: #error-handling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, TypeGuard, cast

from recipelint.jsvalue import (
    JS_TYPE_ERRORS,
    UNDEFINED,
    JsonDocument,
    JsonValue,
    JsValue,
    get,
    js_in,
    js_max,
    js_or,
    nullish,
    truthy,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.command import (
    Combination,
    Placement,
    Rendered,
    RenderInputs,
    placed_rendering,
)
from recipelint.resolve.features import default_features
from recipelint.resolve.formatting import RenderError
from recipelint.resolve.hardware import (
    default_among,
    fits_single_node,
    is_kv_store_brand_supported,
    list_compatible_hardware,
    pick_fitting_variant,
)
from recipelint.resolve.inputs import Memo, PdNodes
from recipelint.resolve.layers import is_omni
from recipelint.resolve.strategy import (
    SKIP,
    effective_compatible,
    is_reachable,
    is_supported_on_hardware,
    listed_strategies,
    nodes_for_strategy,
    pick_pd_nodes,
    recommend_strategy,
)
from recipelint.resolve.synthesis import Problem

# Exceptions that mean "this input is not the shape synthesis expects": upstream's
# try/catch around synthesis turns them into a skipped rendering.
SYNTHESIS_ERRORS = (RenderError, *JS_TYPE_ERRORS)


@dataclass
class Problems:
    """What went wrong while rendering one recipe; the compiler turns these into diagnostics."""

    failed: list[tuple[str, str, str, str]] = field(
        default_factory=list
    )  # variant, strategy, hw, message
    invalid: list[Problem] = field(default_factory=list)
    unrunnable: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # variant, hw, strategy rendered anyway


@dataclass
class HardwareRendering:
    hw_id: str
    recommended: JsonDocument
    alternatives: dict[str, JsonDocument]


def variant_hardware(
    inputs: RenderInputs, recipe: Recipe, variant: JsValue
) -> tuple[str, list[str]]:
    """The default hardware, then every other selectable hardware in taxonomy order.

    Step 3 of docs/upstream-behaviour.md#variant-rendering.
    """
    profiles = inputs.profiles
    declared = js_or(get(recipe.get("meta", UNDEFINED), "hardware"), {})
    compatible = [
        hw
        for hw in list_compatible_hardware(profiles, variant, recipe)
        if not truthy(get(profiles[hw], "restricted")) or js_in(hw, declared)
    ]
    default_hw = default_among(
        profiles, variant, recipe, compatible
    )  # = pick_default_hardware(...)
    ordered = [default_hw] + [hw for hw in compatible if hw != default_hw]
    return default_hw, ordered


def _try_render(
    combo: Combination, problems: Problems, placement: Placement, documents: bool = True
) -> JsonDocument | None:
    """The rendered document, or without ``documents`` an empty one standing for it (the
    rendering is judged alike); None when the rendering fails.

    A combination the recipe's other hardware rendered with an equal sharing key is not
    rendered again: its outcome is taken with this hardware's id.
    """
    try:
        key = placement.sharing_key(combo)
        found = None if key is None else placement.renderings.get(key)
    except SYNTHESIS_ERRORS:  # a key of no scalar, or what rendering raises again below
        key = found = None
    if found is None:
        found = _attempt(combo, placement, documents)
        if key is not None:
            placement.renderings[key] = found
    if isinstance(found, str):
        problems.failed.append((combo.variant_key, combo.strategy, combo.hw_id, found))
        return None
    if found.problems or found.image_missing:
        found.report(problems.invalid, combo.hw_id)
    document = found.document
    return {**document, "hardware": combo.hw_id} if document else {}


def _attempt(combo: Combination, placement: Placement, documents: bool) -> Rendered | str:
    """The rendering, or the message of the error it fails with."""
    try:
        return placed_rendering(placement, combo, documents)
    except SYNTHESIS_ERRORS as exc:
        return str(exc)


class _RecipePlan:
    """What the plan reads of a recipe alone, worked out once for all its hardware."""

    def __init__(self, inputs: RenderInputs, recipe: Recipe) -> None:
        self.inputs, self.recipe = inputs, recipe
        self.compatible = effective_compatible(recipe)
        # Without these tables nothing the plan offers reads the hardware id, only its GPUs
        # and brand; without strategy_min_gpus each strategy's node floor is its deploy type's.
        self.min_gpus_unset = nullish(recipe.get("strategy_min_gpus", UNDEFINED))
        self.id_blind = (
            type(recipe.get("strategy_hardware", UNDEFINED)) is not dict
            and type(recipe.get("kv_cache_strategy_hardware", UNDEFINED)) is not dict
            and type(recipe.get("strategy_min_gpus", UNDEFINED)) is not dict
        )
        self._offered: dict[tuple[object, ...], list[str]] = {}
        self._features: dict[str, tuple[str, ...]] = {}
        self._recommended: dict[float | int, str] = {}  # node count -> recommend_strategy
        self._kv_serving: dict[float | int, str | None] = {}  # node count -> kv_serving_for

    def recommendation(self, nodes: float | int) -> str:
        """recommend_strategy at a node count (which reads the recipe alone)."""
        found = self._recommended.get(nodes)
        if found is None:
            found = self._recommended[nodes] = recommend_strategy(
                self.recipe, nodes, self.compatible
            )
        return found

    def kv_serving_for(self, nodes: float | int) -> str | None:
        """The serving strategy each Mooncake instance runs (the same for every kv deployment)."""
        if nodes not in self._kv_serving:
            self._kv_serving[nodes] = self._pick_kv_serving(nodes)
        return self._kv_serving[nodes]

    def _pick_kv_serving(self, nodes: float | int) -> str | None:
        """strategy_hardware is not consulted."""
        strategies, deploy_types = self.inputs.strategies, self.inputs.deploy_types

        def usable(name: object) -> TypeGuard[str]:
            if type(name) is not str or name not in strategies:
                return False
            deploy = deploy_types[name]
            if deploy in ("pd_cluster", "kv_store_lb"):
                return False
            return bool(deploy == "multi_node" if nodes > 1 else deploy != "multi_node")

        preferred = self.recommendation(nodes)
        if usable(preferred):
            return preferred
        return next((s for s in self.compatible if usable(s)), None)

    def offered(self, profile: JsValue, hw_id: str, scalable: bool) -> list[str]:
        """_compatible_strategies, shared by the hardware that read alike (callers only read it)."""
        gpus = get(profile, "gpu_count")
        if not self.id_blind or (type(gpus) is not int and type(gpus) is not float):
            return _compatible_strategies(
                self.inputs, self.recipe, profile, hw_id, scalable, self.compatible
            )
        key = (type(gpus), gpus, scalable, is_kv_store_brand_supported(profile))
        found = self._offered.get(key)
        if found is None:
            found = self._offered[key] = _compatible_strategies(
                self.inputs, self.recipe, profile, hw_id, scalable, self.compatible
            )
        return found

    def features(self, hw_id: str, variant_key: str) -> tuple[str, ...]:
        """default_features, shared by the hardware without opt-ins of their own."""
        own = get(self.recipe.get("hardware_opt_in_features", UNDEFINED), hw_id)
        if own is not UNDEFINED:
            return tuple(default_features(self.recipe, hw_id, variant_key))
        found = self._features.get(variant_key)
        if found is None:
            found = self._features[variant_key] = tuple(
                default_features(self.recipe, hw_id, variant_key)
            )
        return found


def _recipe_plan(inputs: RenderInputs, recipe: Recipe, strategy_runs: Memo | None) -> _RecipePlan:
    if strategy_runs is None:
        return _RecipePlan(inputs, recipe)
    found: _RecipePlan | None = strategy_runs.get("plan")
    if found is None:
        found = strategy_runs["plan"] = _RecipePlan(inputs, recipe)
    return found


def _compatible_strategies(
    inputs: RenderInputs,
    recipe: Recipe,
    profile: JsValue,
    hw_id: str,
    scalable: bool,
    compatible: list[JsonValue],
) -> list[str]:
    """The strategies offered on this hardware; ``compatible`` is effective_compatible(recipe)."""
    gpus = get(profile, "gpu_count")
    candidates: list[JsonValue] = list(dict.fromkeys([*compatible, *inputs.kv_ids]))
    listed = listed_strategies(recipe)
    # A name that is no string (a number in compatible_strategies) is looked up and kept as it is:
    # JS reads tables by its String() and concatenates it into keys, where Python misses the key
    # or raises (min_gpus' "multi_node_" + key); a divergence, not fixed here.
    kept: list[str] = []
    for name in candidates:
        deploy = inputs.deploy_type_of(name)
        if deploy == "kv_store_lb":
            opted_out = (
                # (a string: only a string names a kv deployment)
                get(get(recipe.get("kv_cache_strategy_hardware", UNDEFINED), name), hw_id)  # type: ignore[arg-type]
                == "unsupported"
            )
            if scalable and is_kv_store_brand_supported(profile) and not opted_out:
                kept.append(name)  # type: ignore[arg-type]
            continue
        if not is_supported_on_hardware(recipe, name, profile, hw_id, listed):  # type: ignore[arg-type]
            continue
        if not is_reachable(recipe, name, deploy, gpus, hw_id):  # type: ignore[arg-type]
            continue
        if scalable or (not str(name).startswith("multi_node_") and name != "pd_cluster"):
            kept.append(name)  # type: ignore[arg-type]
    return kept


class _HardwarePlan:
    """The choices for one (variant, hardware): which strategies, at how many nodes."""

    def __init__(
        self,
        inputs: RenderInputs,
        recipe: Recipe,
        variant_key: str,
        variant: JsValue,
        hw_id: str,
        profile: JsValue,
        shared: _RecipePlan,
    ) -> None:
        self.inputs, self.recipe, self.variant_key, self.variant = (
            inputs,
            recipe,
            variant_key,
            variant,
        )
        self.hw_id, self.profile, self.shared = hw_id, profile, shared
        self.gpus = gpus = get(profile, "gpu_count")
        self.scalable = inputs.hardware(hw_id).scalable
        self._deploy_types = inputs.deploy_types
        self.compatible = shared.compatible  # effective_compatible(recipe)
        # No GPU floor to read: every strategy needs one node (two for a multi-node one).
        self._floors_only = shared.min_gpus_unset and (type(gpus) is int or type(gpus) is float)
        self._fits: bool | None = None

    @property
    def fits(self) -> bool:
        """fits_single_node, which the recommendation and every kv deployment read."""
        if self._fits is None:
            self._fits = fits_single_node(self.profile, self.variant)
        return self._fits

    def deploy_of(self, name: object) -> JsValue:
        """RenderInputs.deploy_type_of."""
        return self._deploy_types.get(name, UNDEFINED) if type(name) is str else UNDEFINED

    def nodes_for(self, name: str) -> int | float:
        return self._nodes_for(name, self.deploy_of(name))

    def _nodes_for(self, name: str, deploy: JsValue) -> int | float:
        floor = 2 if deploy == "multi_node" else 1
        if self._floors_only:
            return floor  # Math.max(floor, ceil(0 / gpus) || 1)
        return js_max(floor, nodes_for_strategy(self.recipe, name, self.gpus, self.hw_id))

    def pd_nodes(self) -> PdNodes | Literal["skip"]:
        return pick_pd_nodes(
            self.profile, self.variant, self.recipe, self.inputs.strategies, self.hw_id
        )

    def recommended(self, compatible: list[str], problems: Problems) -> tuple[str, float | int]:
        """The recommended strategy and its node count (a single-node one may get 2)."""
        multi_capable = self.scalable and any(str(s).startswith("multi_node_") for s in compatible)
        base_nodes = 2 if not self.fits and multi_capable else 1
        name = self.shared.recommendation(base_nodes)
        if name not in compatible:
            name = next(
                (s for s in compatible if self.deploy_of(s) != "kv_store_lb" and s != "pd_cluster"),
                next((s for s in compatible if self.deploy_of(s) != "kv_store_lb"), name),
            )
            if name not in compatible:
                problems.unrunnable.append((self.variant_key, self.hw_id, name))
        return name, js_max(base_nodes, self.nodes_for(name))

    def kv_serving_for(self, nodes: float | int) -> str | None:
        """The serving strategy each Mooncake instance runs (the same for every kv deployment)."""
        return self.shared.kv_serving_for(nodes)

    def alternative(self, name: str, features: tuple[str, ...]) -> Combination | None:
        """How an alternative strategy is rendered; None when it is skipped on this hardware."""
        if name == "pd_cluster":
            pd = self.pd_nodes()
            return (
                None
                if pd == SKIP
                else Combination(self.variant_key, name, self.hw_id, 1, features, pd)
            )
        deploy = self.deploy_of(name)
        if deploy != "kv_store_lb":
            return Combination(
                self.variant_key, name, self.hw_id, self._nodes_for(name, deploy), features
            )
        nodes: float | int = 1 if self.fits else 2  # kv_nodes_per_instance
        serving = self.kv_serving_for(nodes)
        if serving is None and nodes == 2:
            nodes, serving = 1, self.kv_serving_for(1)
        if serving is None:
            return None
        if self.deploy_of(serving) == "multi_node":
            nodes = js_max(nodes, nodes_for_strategy(self.recipe, serving, self.gpus, self.hw_id))
        return Combination(self.variant_key, serving, self.hw_id, nodes, features, None, name)


def _plan_for(
    inputs: RenderInputs,
    recipe: Recipe,
    variant_key: str,
    hw_id: str,
    shared: _RecipePlan,
) -> _HardwarePlan | None:
    """On hardware that cannot scale out, a variant too big for one box yields to one that fits."""
    variants = recipe.get("variants", UNDEFINED)
    variant = get(variants, variant_key)
    if not truthy(variant):
        return None
    profile = inputs.hardware(hw_id).profile
    if not inputs.hardware(hw_id).scalable and not fits_single_node(profile, variant):
        fitting = pick_fitting_variant(recipe, profile, hw_id)
        if fitting is None:
            return None
        # a fitting variant was found among its items: variants is a mapping
        variant_key, variant = fitting, cast("dict[str, JsonValue]", variants)[fitting]
    return _HardwarePlan(inputs, recipe, variant_key, variant, hw_id, profile, shared)


def _recommended_combination(
    inputs: RenderInputs,
    recipe: Recipe,
    variant_key: str,
    hw_id: str,
    problems: Problems,
    strategy_runs: Memo | None,
) -> tuple[_HardwarePlan, Combination, list[str]] | None:
    """(the plan, the recommended combination, the strategies offered) for one (variant,
    hardware); None when nothing is rendered there."""
    shared = _recipe_plan(inputs, recipe, strategy_runs)
    plan = _plan_for(inputs, recipe, variant_key, hw_id, shared)
    if plan is None:
        return None
    compatible = shared.offered(plan.profile, hw_id, plan.scalable)
    name, nodes = plan.recommended(compatible, problems)
    features = shared.features(hw_id, plan.variant_key)
    pd_nodes = plan.pd_nodes() if name == "pd_cluster" else None
    if pd_nodes == SKIP:
        return None
    return plan, Combination(plan.variant_key, name, hw_id, nodes, features, pd_nodes), compatible


def hardware_combinations(
    inputs: RenderInputs, recipe: Recipe, variant_key: str, hw_id: str
) -> tuple[str, dict[str, Combination]] | None:
    """What build_variant_rendering renders for one (variant, hardware), before rendering it:
    the recommended strategy's name, and the combination of every strategy offered there by
    name, the recommended one first (a kv_store one as its serving strategy with that kv
    deployment). None when nothing is rendered there. Renderings that fail are not told apart.
    """
    planned = _recommended_combination(inputs, recipe, variant_key, hw_id, Problems(), None)
    if planned is None:
        return None
    plan, combo, compatible = planned
    found = {combo.strategy: combo}
    for other in compatible:
        alternative = plan.alternative(other, combo.features) if other != combo.strategy else None
        if alternative is not None:
            found[other] = alternative
    return combo.strategy, found


def build_variant_rendering(
    inputs: RenderInputs,
    recipe: Recipe,
    variant_key: str,
    hw_id: str,
    problems: Problems,
    strategy_runs: Memo | None = None,
    documents: bool = True,
) -> HardwareRendering | None:
    """The recommended rendering and every alternative strategy for one (variant, hardware).

    docs/upstream-behaviour.md#recommended-strategy (the kv_store alternatives: #kv-store).

    ``strategy_runs`` is shared by the calls for one recipe's hardware (Placement says why).
    Without ``documents`` each rendering is an empty mapping: which renderings exist and
    what they report are the same, but nothing is laid out.
    """
    planned = _recommended_combination(inputs, recipe, variant_key, hw_id, problems, strategy_runs)
    if planned is None:
        return None
    plan, combo, compatible = planned
    name, features = combo.strategy, combo.features
    # Every strategy below renders the same variant on the same hardware.
    placement = Placement(inputs, recipe, plan.variant_key, hw_id, strategy_runs)
    recommended = _try_render(combo, problems, placement, documents)
    if recommended is None:
        return None
    spec = inputs.strategies.get(name) if type(name) is str else None
    if spec is not None:
        recommended["strategy_spec"] = spec
    recommended["hardware_profile"] = plan.profile
    alternatives: dict[str, JsonDocument] = {}
    for other in compatible:
        alternative = plan.alternative(other, features) if other != name else None
        rendered = (
            _try_render(alternative, problems, placement, documents)
            if alternative is not None
            else None
        )
        if rendered is not None:
            alternatives[other] = rendered
    return HardwareRendering(hw_id, recommended, alternatives)


def render_variant(
    inputs: RenderInputs,
    recipe: Recipe,
    variant_key: str,
    problems: Problems,
    documents: bool = True,
    strategy_runs: Memo | None = None,
) -> tuple[str, list[HardwareRendering]] | None:
    """Every hardware rendering of a variant, default hardware first; None when it has none there.

    docs/upstream-behaviour.md#variant-rendering.

    Without ``documents`` the renderings are planned and judged but left empty
    (build_variant_rendering). ``strategy_runs`` is the work shared with the recipe's other
    variants rendered with the same mapping (a fresh one by default).
    """
    variant = get(recipe.get("variants", UNDEFINED), variant_key)
    if not truthy(variant):
        return None
    if is_omni(recipe):
        return None
    default_hw, hw_ids = variant_hardware(inputs, recipe, variant)
    rendered = []
    if strategy_runs is None:
        strategy_runs = {}
    for hw_id in hw_ids:
        built = build_variant_rendering(
            inputs, recipe, variant_key, hw_id, problems, strategy_runs, documents
        )
        if built is not None:
            rendered.append(built)
    if not rendered or rendered[0].hw_id != default_hw:
        return None
    return default_hw, rendered


def planned_combinations(
    inputs: RenderInputs,
    recipe: Recipe,
    variant_key: str,
    strategy_runs: Memo | None = None,
    alternatives: bool = True,
    hardware: Callable[[str], bool] | None = None,
    hardware_of: Callable[[Recipe, JsValue], tuple[str, list[str]]] | None = None,
) -> Iterator[tuple[Combination, bool]]:
    """The combinations render_variant renders for a variant, without rendering any: the plan's
    choices (hardware, strategy, node count, features, PD nodes, variant substitution on hardware
    that cannot scale out) alone, each with whether it is the hardware's recommended one (given
    first, then its alternatives).

    A combination whose rendering would fail is still given (its alternatives too). Without
    ``alternatives`` only the recommended ones are given; with ``hardware``, only those of the
    hardware it accepts (the others are not planned at all). ``hardware_of`` answers
    variant_hardware (recipe, variant) where a caller keeps its answers.
    """
    variant = get(recipe.get("variants", UNDEFINED), variant_key)
    if not truthy(variant) or is_omni(recipe):
        return
    runs = strategy_runs if strategy_runs is not None else {}
    ordered = (
        hardware_of(recipe, variant)[1]
        if hardware_of is not None
        else variant_hardware(inputs, recipe, variant)[1]
    )
    for hw_id in ordered:
        if hardware is not None and not hardware(hw_id):
            continue
        planned = _recommended_combination(inputs, recipe, variant_key, hw_id, Problems(), runs)
        if planned is None:
            continue
        plan, combo, compatible = planned
        yield combo, True
        for other in compatible if alternatives else ():
            alternative = (
                plan.alternative(other, combo.features) if other != combo.strategy else None
            )
            if alternative is not None:
                yield alternative, False
