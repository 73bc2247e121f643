"""Features: which are on by default, which mode each uses, and the args they add.

Upstream: docs/upstream-behaviour.md#default-features, #feature-args, #companions, #feature-mode-validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, cast

from recipelint.jsvalue import (
    JS_WHITESPACE,
    UNDEFINED,
    JsonDocument,
    JsonValue,
    JsValue,
    Undefined,
    get,
    js_or,
    js_string,
    truthy,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.hardware import generation_of, hardware_key, is_nvidia
from recipelint.resolve.inputs import Memo
from recipelint.resolve.layers import (
    FEATURE_ARGS,
    FEATURE_HW_ARGS,
    MODE_ARGS,
    MODE_HW_ARGS,
    BoundValue,
    Layer,
    Place,
    Pointer,
)

# A feature's gate: the feature (None when it is falsy), its `strategies` allow-list, whether it
# has a companion command.
Gate: TypeAlias = "tuple[JsValue | None, JsValue, bool]"


def _iterable_names(value: JsValue) -> list[JsonValue]:
    """`new Set(x || [])` / `for (const f of x || [])` over parsed data."""
    if not truthy(value):
        return []
    if type(value) is list:
        return value
    if type(value) is str:
        return list(value)
    raise TypeError(f"{js_string(value)} is not iterable")


def default_features(recipe: Recipe, hw_id: str, variant_key: str) -> list[str]:
    """Every feature, minus opt-ins (recipe-wide and per exact hardware), unless the variant forces it.

    docs/upstream-behaviour.md#default-features.
    """
    opt_in = set(_iterable_names(recipe.get("opt_in_features", UNDEFINED)))
    opt_in.update(_iterable_names(get(recipe.get("hardware_opt_in_features", UNDEFINED), hw_id)))
    forced = js_or(get(get(recipe.get("variants", UNDEFINED), variant_key), "default_modes"), {})
    forced_keys = set(forced) if type(forced) is dict else set()
    features = js_or(recipe.get("features", UNDEFINED), {})
    names = list(features) if type(features) is dict else []
    return [f for f in names if f in forced_keys or f not in opt_in]


def allowed_for_strategy(feature: JsValue, strategy: str) -> bool:
    allow = get(feature, "strategies")
    return type(allow) is not list or not allow or strategy in allow


def mode_variants(mode: JsValue) -> list[JsonValue] | None:
    """The variant keys a mode is confined to, or None when it is offered to every variant
    (no `variants`, an empty list, or one that is not a list)."""
    allow = get(mode, "variants")
    return allow if type(allow) is list and allow else None


def _mode_allowed_for_variant(mode: JsValue, variant_key: str) -> bool:
    allow = mode_variants(mode)
    return allow is None or variant_key in allow


def _mode_supported(mode: JsValue, profile: JsValue, hw_id: str) -> bool:
    table = get(mode, "hardware")
    if not isinstance(table, dict):
        return True
    gen = generation_of(profile)
    if truthy(gen) and table.get(js_string(gen)) == "unsupported":
        return False
    return not (truthy(hw_id) and table.get(hw_id) == "unsupported")


def is_modal(feature: JsValue) -> bool:
    modes = get(feature, "modes")
    return truthy(modes) and isinstance(modes, (dict, list))


def resolve_mode_key(
    feature: JsValue, name: str, variant: JsValue, variant_key: str, profile: JsValue, hw_id: str
) -> str | Undefined:
    """The mode a modal feature uses here: variant default, feature default, else the first allowed."""
    modes = get(feature, "modes")
    if type(modes) is not dict:
        return UNDEFINED
    allowed = [
        key
        for key, mode in modes.items()
        if _mode_allowed_for_variant(mode, variant_key) and _mode_supported(mode, profile, hw_id)
    ]
    if not allowed:
        return UNDEFINED
    for candidate in (get(get(variant, "default_modes"), name), get(feature, "default_mode")):
        if truthy(candidate) and candidate in allowed:
            return candidate
    return allowed[0]


@dataclass(frozen=True)
class FeatureContext:
    recipe: Recipe
    variant: JsValue
    variant_key: str
    strategy: str
    profile: JsValue
    hw_id: str
    kv_composing: bool


class FeatureResolver:
    """The args each feature contributes for one variant on one hardware.

    A feature's args depend on the variant and the hardware, never on the strategy,
    so a plan rendering several strategies resolves each feature once (on first use,
    so a feature that every strategy filters out is never resolved, as before).
    """

    def __init__(
        self,
        recipe: Recipe,
        variant: JsValue,
        variant_key: str,
        profile: JsValue,
        hw_id: str,
        shared: Memo | None = None,
    ) -> None:
        self.recipe, self.variant, self.variant_key = recipe, variant, variant_key
        self.profile, self.hw_id = profile, hw_id
        self.features = recipe.get("features", UNDEFINED)
        self.gen = generation_of(profile)
        self.nvidia = is_nvidia(profile)
        # What reads the recipe alone, shared with the resolvers of the recipe's other
        # placements that are handed the same mapping: the gates, and the args of a feature
        # that has neither modes nor hardware overrides.
        self._shared = {} if shared is None else shared
        self._gates: dict[str, Gate] = self._shared.setdefault("feature-gates", {})
        self._plain: dict[str, Layer | None] = self._shared.setdefault("feature-args", {})
        # feature name -> its args layer, or None when it adds none
        self._args: dict[str, Layer | None] = {}
        # (enabled, kv composing) -> the args, when no allow-list makes them depend on the strategy
        self._blind: dict[tuple[tuple[str, ...], bool], list[JsValue]] = {}

    def args_for(
        self, enabled: list[str] | tuple[str, ...], strategy: str, kv_composing: bool
    ) -> list[JsValue]:
        """The arg sources (lists to spread) contributed by the enabled features, in order.

        Callers only read the list: when no enabled feature has a `strategies` allow-list it is
        the same for every strategy, and one list serves them all.
        """
        if type(enabled) is not tuple:
            return [layer.items for layer in self.layers_for(enabled, strategy, kv_composing)]
        key = (enabled, kv_composing)
        found = self._blind.get(key)
        if found is not None:
            return found
        layers = self.layers_for(enabled, strategy, kv_composing)
        found = [layer.items for layer in layers]
        if not any(self._gate_of(name)[1] for name in enabled):
            self._blind[key] = found
        return found

    def _gate_of(self, name: str) -> Gate:
        gate = self._gates.get(name)
        if gate is None:
            gate = self._gates[name] = self._gate(name)
        return gate

    def layers_for(
        self, enabled: list[str] | tuple[str, ...], strategy: str, kv_composing: bool
    ) -> list[Layer]:
        """The args layers of the enabled features, in order (resolve.layers' `features` step)."""
        out: list[Layer] = []
        for name in enabled:
            gate = self._gates.get(name)
            if gate is None:
                gate = self._gates[name] = self._gate(name)
            feat, allow, has_companion = gate
            if feat is None:
                continue
            if type(allow) is list and allow and strategy not in allow:  # allowed_for_strategy
                continue
            if kv_composing and has_companion:
                continue
            if name in self._args:
                args = self._args[name]
            elif name in self._plain:
                args = self._args[name] = self._plain[name]
            else:
                args = self._args[name] = self._resolve(name, feat)
                if not is_modal(feat) and type(get(feat, "hardware_overrides")) is not dict:
                    self._plain[name] = args  # nothing of the placement read
            if args is not None:
                out.append(args)
        return out

    def _gate(self, name: str) -> Gate:
        """(the feature or None when it is falsy, its `strategies` allow-list, whether it has a companion command)."""
        feat = get(self.features, name)
        if not truthy(feat):
            return (None, None, False)
        return (feat, get(feat, "strategies"), truthy(get(get(feat, "companion"), "command")))

    def _resolve(self, name: str, feat: JsValue) -> Layer | None:
        """The feature's args: its mode's (hardware override first), else its own; None if falsy."""
        if is_modal(feat):
            key = resolve_mode_key(
                feat, name, self.variant, self.variant_key, self.profile, self.hw_id
            )
            # (the key is a string when it is truthy)
            mode = get(get(feat, "modes"), key) if truthy(key) else None  # type: ignore[arg-type]
            if not truthy(mode):
                return None
            table = get(mode, "hardware_overrides")
            hw_key = hardware_key(table, self.profile, self.hw_id)
            # a key is found only in a mapping
            override_args = (
                get(cast("dict[str, JsonValue]", table)[hw_key], "args")
                if hw_key is not None
                else UNDEFINED
            )
            if (
                override_args is not None and override_args is not UNDEFINED
            ):  # `??`: the override's, when set
                return _layer(MODE_HW_ARGS, override_args, feature=name, mode=key, hardware=hw_key)  # type: ignore[arg-type]
            return _layer(MODE_ARGS, get(mode, "args"), feature=name, mode=key)  # type: ignore[arg-type]
        overrides = get(feat, "hardware_overrides")
        gen = self.gen
        by_gen = js_string(gen) if truthy(gen) else None
        # `overrides[gen] || (nvidia ? overrides.nvidia : null)`
        hw_key = (
            by_gen
            if by_gen is not None and truthy(get(overrides, by_gen))
            else "nvidia"
            if self.nvidia
            else None
        )
        override_args = get(get(overrides, hw_key), "args") if hw_key is not None else UNDEFINED
        if override_args is not None and override_args is not UNDEFINED:
            return _layer(FEATURE_HW_ARGS, override_args, feature=name, hardware=hw_key)
        return _layer(FEATURE_ARGS, get(feat, "args"), feature=name)


def _layer(place: Place, args: JsValue, **bound: BoundValue) -> Layer | None:
    return place.layer_at(args, **bound) if truthy(args) else None


def feature_args(ctx: FeatureContext, enabled: list[str]) -> list[JsValue]:
    """The arg sources (lists to spread) contributed by the enabled features, in order."""
    resolver = FeatureResolver(ctx.recipe, ctx.variant, ctx.variant_key, ctx.profile, ctx.hw_id)
    return resolver.args_for(enabled, ctx.strategy, ctx.kv_composing)


def companions(recipe: Recipe, enabled: list[str], strategy: str) -> list[JsonDocument]:
    features = recipe.get("features", UNDEFINED)
    out: list[JsonDocument] = []
    for name in enabled:
        feat = get(features, name)
        companion = get(feat, "companion")
        command = get(companion, "command")
        if not truthy(command) or not allowed_for_strategy(feat, strategy):
            continue
        out.append(
            {
                "feature": name,
                "label": js_or(get(companion, "label"), name),
                "description": js_or(get(companion, "description"), ""),
                "command": js_string(command).rstrip(JS_WHITESPACE),
            }
        )
    return out


def feature_mode_problems(recipe: Recipe) -> list[tuple[Pointer, str]]:
    """Cross-reference errors between features' modes and variants (upstream aborts on any).

    docs/upstream-behaviour.md#feature-mode-validation.
    """
    problems: list[tuple[Pointer, str]] = []
    features = js_or(recipe.get("features", UNDEFINED), {})
    variants = js_or(recipe.get("variants", UNDEFINED), {})
    if type(features) is not dict:
        features = {}
    if type(variants) is not dict:
        variants = {}
    for fname, feature in features.items():
        modes = get(feature, "modes")
        if modes is UNDEFINED:
            continue
        where: Pointer = ("features", fname, "modes")
        mode_keys = list(modes) if type(modes) is dict else []
        if not mode_keys:
            problems.append((where, f"features.{fname}.modes must be a non-empty map"))
            continue
        modes = cast("dict[str, JsonValue]", modes)  # it has keys
        if get(feature, "args") is not UNDEFINED:
            problems.append(
                (
                    ("features", fname, "args"),
                    f"features.{fname} cannot declare both args and modes",
                )
            )
        default_mode = get(feature, "default_mode")
        if truthy(default_mode) and default_mode not in mode_keys:
            problems.append(
                (
                    ("features", fname, "default_mode"),
                    f"features.{fname}.default_mode references unknown mode {js_string(default_mode)}",
                )
            )
        for mkey, mode in modes.items():
            if type(get(mode, "args")) is not list:
                problems.append(
                    (where + (mkey,), f"features.{fname}.modes.{mkey}.args must be an array")
                )
            allow = get(mode, "variants")
            if allow is not UNDEFINED and type(allow) is not list:
                problems.append(
                    (
                        where + (mkey, "variants"),
                        f"features.{fname}.modes.{mkey}.variants must be an array",
                    )
                )
            for vkey in allow if type(allow) is list else []:
                if not (type(vkey) is str and vkey in variants):
                    problems.append(
                        (
                            where + (mkey, "variants"),
                            f"features.{fname}.modes.{mkey}.variants references unknown variant {js_string(vkey)}",
                        )
                    )
        for vkey in variants:
            if not any(_mode_allowed_for_variant(modes[m], vkey) for m in mode_keys):
                problems.append(
                    (where, f"features.{fname} has no mode available for variant {vkey}")
                )
    for vkey, variant in variants.items():
        chosen = js_or(get(variant, "default_modes"), {})
        if type(chosen) is not dict:
            continue
        for fname, chosen_key in chosen.items():
            where = ("variants", vkey, "default_modes", fname)
            chosen_feature = get(features, fname)
            feature_modes = get(chosen_feature, "modes")
            chosen_mode = (
                get(feature_modes, js_string(chosen_key))
                if type(feature_modes) is dict
                else UNDEFINED
            )
            if not truthy(chosen_feature):
                problems.append(
                    (where, f"variants.{vkey}.default_modes references unknown feature {fname}")
                )
            elif not truthy(feature_modes):
                problems.append(
                    (where, f"variants.{vkey}.default_modes references non-modal feature {fname}")
                )
            elif not truthy(chosen_mode):
                problems.append(
                    (
                        where,
                        f"variants.{vkey}.default_modes.{fname} references unknown mode {js_string(chosen_key)}",
                    )
                )
            elif (
                type(allowed := get(chosen_mode, "variants")) is list
                and allowed
                and vkey not in allowed
            ):
                problems.append(
                    (
                        where,
                        f"variants.{vkey}.default_modes.{fname} selects mode {js_string(chosen_key)}, "
                        "which is unavailable for that variant",
                    )
                )
    return problems
