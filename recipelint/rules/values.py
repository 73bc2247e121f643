"""RL550–RL599: values a schema can type but not judge.

Environment values that are not strings, date order, and VRAM figures that
disagree with the documented formula ``ceil(params × bytes per param × 1.2)``.
(Impossible dates are the schema stage's RL106.)
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Iterator
from typing import Any

from recipelint.jsvalue import js_string
from recipelint.load import Document
from recipelint.resolve.deployment import (
    VRAM_HEADROOM,
    bytes_per_param,
    mixed_precision,
    parameter_billions,
)
from recipelint.resolve.layers import ENV, ENV_KEYS, is_list_place
from recipelint.rules.common import Pointer, as_dict, as_list
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check


@functools.lru_cache(maxsize=8192)
def _declared_env(kind: str, pointer: Pointer) -> bool:
    """Whether a pointer names a declared env place: the same pointers recur in every recipe."""
    return is_list_place(kind, pointer, ENV)


def env_maps(
    value: Any, kind: str, pointer: Pointer = ()
) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    """Every env mapping in a document of ``kind``: under an env key wherever it is nested (an
    env key anywhere reaches some command or a reader of the API), and at every declared place."""
    # Only mappings and lists are walked into: a scalar holds no mapping, and recipes hold
    # thousands of scalars.
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict):
                here = (*pointer, key)
                if key in ENV_KEYS or _declared_env(kind, here):
                    yield here, item
                else:
                    yield from env_maps(item, kind, here)
            elif isinstance(item, list):
                yield from env_maps(item, kind, (*pointer, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from env_maps(item, kind, (*pointer, index))


def _documents(ctx: CheckContext) -> Iterator[Document]:
    yield from ctx.recipes
    yield from (
        doc for doc in [*ctx.strategies.values(), *ctx.kv_stores.values()] if ctx.in_focus(doc)
    )


@check("RL551")
def env_values_are_strings(ctx: CheckContext) -> Iterator[Finding]:
    for doc in _documents(ctx):
        for pointer, env in env_maps(doc.data, doc.kind):
            for name, value in env.items():
                if isinstance(value, str):
                    continue
                kind = "null" if value is None else f"the {type(value).__name__} {js_string(value)}"
                yield Finding(
                    doc,
                    pointer + (name,),
                    f"env `{name}` is {kind}, "
                    "not a string: the JSON API publishes it untyped and docker `-e` prints it the "
                    "JavaScript way",
                    f'quote it: {name}: "{js_string(value)}"',
                )


# --- dates -------------------------------------------------------------------------------


def _valid_date(text: str) -> bool:
    """Only real YYYY-MM-DD days are compared; RL106 (schema) reports the others."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


@check("RL553")
def date_order(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        meta = as_dict(doc.data.get("meta")) if isinstance(doc.data, dict) else {}
        added, updated = meta.get("date_added"), meta.get("date_updated")
        if (
            isinstance(added, str)
            and isinstance(updated, str)
            and _valid_date(added)
            and _valid_date(updated)
            and updated < added
        ):
            yield Finding(
                doc,
                ("meta", "date_updated"),
                f"date_updated {updated} is earlier than date_added {added}",
                "date_added is the first day in the catalog; date_updated the latest change",
            )


# --- VRAM ------------------------------------------------------------------------------------


def expected_vram(billions: float, precision: str) -> float | None:
    """The documented formula before its ceil: params x bytes per parameter x 1.2."""
    per_param = bytes_per_param(precision)
    return billions * per_param * VRAM_HEADROOM if per_param else None


def vram_band(precision: str) -> tuple[float, float] | None:
    """(lowest, highest) share of the formula a vram_minimum_gb of this precision may be.

    Below the weights alone (the formula without its headroom) nothing loads. Above, the
    fewer bits a quantised checkpoint gives its parameters, the more its unquantised parts
    (embeddings, norms, scales) weigh beside them: 1.5x for 16-bit checkpoints, 2x for 8-bit,
    3x for 4-bit ones.
    """
    per_param = bytes_per_param(precision)
    if not per_param:
        return None
    return 1 / VRAM_HEADROOM, 1 + 1 / per_param


# A parameter size written in a model id or description: `4b`, `0.6B`, the `47B` of `A47B`.
NAMED_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)[bB](?![a-zA-Z])")


def _serves_another_size(variant: dict[str, Any], billions: float) -> bool:
    """Whether the variant's model id or description names parameter sizes, none of them the
    model's: it serves another checkpoint than the one parameter_count describes."""
    text = " ".join(str(variant.get(key) or "") for key in ("model_id", "description"))
    sizes = [float(size) for size in NAMED_SIZE.findall(text)]
    return bool(sizes) and all(abs(size - billions) > 0.1 * billions for size in sizes)


@check("RL554")
def vram_minimum(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        model = as_dict(data.get("model"))
        billions = parameter_billions(model.get("parameter_count"))
        # Omni pipelines are never sized by the command builder, and their parameter_count
        # describes one component (the transformer), not the whole pipeline in memory.
        if billions is None or "omni" in as_list(as_dict(data.get("meta")).get("tasks")):
            continue
        for name, variant in as_dict(data.get("variants")).items():
            variant = as_dict(variant)
            precision, vram = variant.get("precision"), variant.get("vram_minimum_gb")
            if (
                not isinstance(precision, str)
                or not isinstance(vram, (int, float))
                or isinstance(vram, bool)
                or mixed_precision(variant)
                or _serves_another_size(variant, billions)
            ):
                continue
            expected, band = expected_vram(billions, precision), vram_band(precision)
            if expected is None or band is None or expected <= 0:
                continue
            low, high = band
            if low * expected - 0.5 <= vram <= math.ceil(high * expected):
                continue
            yield Finding(
                doc,
                ("variants", name, "vram_minimum_gb"),
                f"vram_minimum_gb {vram} is far from {model['parameter_count']} × "
                f"{bytes_per_param(precision):g} bytes ({precision}) × 1.2 = {expected:.0f} GB "
                f"(a {precision} checkpoint needs {low * expected:.0f}–{high * expected:.0f} GB)",
                f"use ceil(params × bytes × 1.2) = {int(-(-expected // 1))}, or describe the "
                "checkpoint as mixed precision",
            )
