"""What a rendering reads besides the recipe: the hardware taxonomy, profiles and strategies.

`RenderInputs` holds them (with what each hardware's profile reads as, so renderings of
hardware that read alike can be shared); `Combination` names one rendering (variant,
strategy, hardware, node count, features, PD nodes, kv deployment).

Upstream: docs/upstream-behaviour.md#layer-order.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

from recipelint.jsvalue import (
    UNDEFINED,
    JsonValue,
    JsValue,
    get,
    js_or,
)
from recipelint.resolve.hardware import (
    generation_of,
    gpu_count_of,
    is_scalable,
)

NVL4_ONLY_ENV = (
    "VLLM_USE_NCCL_SYMM_MEM",
    "NCCL_CUMEM_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_NVLS_ENABLE",
    "UCX_NET_DEVICES",
)
NVL4_HARDWARE = frozenset({"gb200", "gb300"})


# What the renderings of one recipe share, keyed by what each entry reads (resolve/placement.py,
# plan.py, features.py): entries of many kinds, each read back under the annotation of its kind.
Memo: TypeAlias = "dict[Hashable, Any]"


class HardwareFacts(NamedTuple):
    profile: JsValue  # the taxonomy's profile ({} when it has none)
    gen: JsValue  # generation_of(profile)
    nvidia: bool
    gpu_count: int | float  # gpu_count_of(profile)
    scalable: bool
    reading: tuple[Hashable, ...] | None  # see _profile_reading


# The profile fields a rendering reads (its VRAM reaches it only through the plan's node
# counts and the single_node_tp size, which key a shared rendering themselves).
_READ_PROFILE_FIELDS = ("brand", "generation", "gpu_generation", "gpu_count")
_SCALAR_TYPES = frozenset({str, int, float, bool, type(None), type(UNDEFINED)})


def typed(value: object) -> tuple[type, object]:
    """A scalar as a key that only equal JS values share: `1`, `1.0` and `true` compare equal
    in Python, and `0.0` equals `-0.0`."""
    kind = type(value)
    # (kind is type(value): a float has hex())
    return (kind, value.hex()) if kind is float else (kind, value)  # type: ignore[attr-defined]


def _profile_reading(hw_id: str, profile: JsValue) -> tuple[Hashable, ...] | None:
    """What a rendering reads of a hardware besides its id and VRAM, as a key; None when a
    field is no scalar (such a hardware shares nothing)."""
    values = [get(profile, name) for name in _READ_PROFILE_FIELDS]
    if any(type(value) not in _SCALAR_TYPES for value in values):
        return None
    return (hw_id in NVL4_HARDWARE, *map(typed, values))


@dataclass(frozen=True)
class RenderInputs:
    """The tree-wide inputs every rendering reads."""

    taxonomy: JsValue
    profiles: dict[str, JsonValue]
    strategies: dict[str, JsonValue]  # serving strategies and kv deployments, by name

    @functools.cached_property
    def deploy_types(self) -> dict[str, JsValue]:
        """Each strategy's raw `deploy_type` (undefined when its spec has none)."""
        return {name: get(spec, "deploy_type") for name, spec in self.strategies.items()}

    def deploy_type_of(self, name: object) -> JsValue:
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


# A PD rendering's node count per role ({prefill, decode}); None when the roles share a node.
PdNodes = Mapping[str, JsonValue] | None


class Combination(NamedTuple):
    """What to render: every choice the compiler makes before synthesis.

    A tuple, immutable and cheap to make: the plan makes one per rendering.
    """

    variant_key: str
    strategy: str
    hw_id: str
    node_count: float | int = 1  # a JS number: node counts come from arithmetic on YAML values
    features: tuple[str, ...] = ()
    pd_nodes: PdNodes = None
    kv_offload: str | None = None
