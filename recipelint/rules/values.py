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

from recipelint.jsvalue import JsonValue, js_string
from recipelint.read.load import Document
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
    value: object, kind: str, pointer: Pointer = ()
) -> Iterator[tuple[Pointer, dict[str, JsonValue]]]:
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
                f"date_updated {updated} is earlier than date_added {added}: the recipe's "
                "page shows an update older than its catalog entry",
                "if the recipe changed after it entered the catalog, set date_updated to that "
                "day; a recipe written before its merge day may keep its authoring day",
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


def _serves_another_size(variant: dict[str, JsonValue], billions: float) -> bool:
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
                or mixed_precision(data, variant)
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


# --- omni task examples ----------------------------------------------------------------------

# vLLM-Omni's serve flag that picks the pipeline a server loads (fl2va, ref2va, …); an
# example request names the task it asks for in its body ("task", "task_type") or a form field.
SERVED_TASK_FLAG = "--task-type"
REQUESTED_TASK = re.compile(
    r"""["']task(?:_type)?["']\s*:\s*["'](?P<body>[\w.-]+)["']"""
    r"""|(?:-F|--form)\s+["']?task(?:_type)?=(?P<form>[\w.-]+)"""
)
# (pointer of the curl, the task it asks for, line and column of that name in the curl)
OmniRequest = tuple[Pointer, str, int, int]
# (pointer of the --task-type value, the task served)
OmniServed = tuple[Pointer, str]


def requested_task(text: object) -> tuple[str, int] | None:
    """The one task an example request asks for, and where its name is; None if none or several."""
    if not isinstance(text, str):
        return None
    found = []
    for match in REQUESTED_TASK.finditer(text):
        group = "body" if match.group("body") else "form"
        found.append((match.group(group), match.start(group)))
    return found[0] if len({name for name, _ in found}) == 1 else None


def _served_task(ctx: CheckContext, lists: list[tuple[Pointer, JsonValue]]) -> OmniServed | None:
    """The last --task-type of the lists joined in order (argparse keeps the last)."""
    served = None
    for pointer, items in lists:
        if not isinstance(items, list):
            continue
        for unit in ctx.units(items):
            if unit.canonical != SERVED_TASK_FLAG:
                continue
            if unit.inline_value is not None:
                served = ((*pointer, unit.index), unit.inline_value)
            elif isinstance(unit.value, str) and unit.value_index is not None:
                served = ((*pointer, unit.value_index), unit.value)
    return served


def _task_examples(
    ctx: CheckContext, data: dict[str, JsonValue], index: int, task: dict[str, JsonValue]
) -> Iterator[tuple[str | None, OmniRequest | None, OmniServed | None]]:
    """(hardware or None, its own example request, the task served) of a task and each override."""
    here: Pointer = ("omni", "tasks", index)
    lists: list[tuple[Pointer, JsonValue]] = [
        (("model", "base_args"), as_dict(data.get("model")).get("base_args")),
        ((*here, "extra_args"), task.get("extra_args")),
    ]
    yield None, _request((*here, "curl"), task.get("curl")), _served_task(ctx, lists)
    for hardware, override in as_dict(task.get("hardware_overrides")).items():
        at: Pointer = (*here, "hardware_overrides", hardware)
        override = as_dict(override)
        served = _served_task(ctx, [*lists, ((*at, "extra_args"), override.get("extra_args"))])
        yield hardware, _request((*at, "curl"), override.get("curl")), served


def _request(pointer: Pointer, curl: object) -> OmniRequest | None:
    found = requested_task(curl)
    if found is None or not isinstance(curl, str):
        return None
    name, offset = found
    line_start = curl.rfind("\n", 0, offset) + 1
    return pointer, name, curl.count("\n", 0, offset), offset - line_start


def _named_task(key: object, vocabulary: set[str]) -> str | None:
    """The task of the recipe's vocabulary a task key names: `fl2va` for `fl2va_first`."""
    if not isinstance(key, str):
        return None
    named = [
        name
        for name in vocabulary
        if key == name or key.startswith(f"{name}_") or key.endswith(f"_{name}")
    ]
    return max(named, key=len) if named else None


@check("RL555")
def omni_task_examples_agree(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        tasks = as_list(as_dict(data.get("omni")).get("tasks"))
        examples = {
            index: list(_task_examples(ctx, data, index, task))
            for index, task in enumerate(tasks)
            if isinstance(task, dict)
        }
        served_names = {s[1] for rows in examples.values() for _, _, s in rows if s}
        requested_names = {r[1] for rows in examples.values() for _, r, _ in rows if r}
        reported: set[Pointer] = set()
        for index, rows in examples.items():
            task = as_dict(tasks[index])  # a mapping: examples holds only those
            key = task.get("key") or task.get("id")
            named = _named_task(key, served_names | requested_names)
            for finding in _omni_task_mismatches(doc, key, named, rows, served_names):
                if finding.pointer not in reported:
                    reported.add(finding.pointer)
                    yield finding


def _omni_task_mismatches(
    doc: Document,
    key: object,
    named: str | None,
    rows: list[tuple[str | None, OmniRequest | None, OmniServed | None]],
    served_names: set[str],
) -> Iterator[Finding]:
    own = rows[0][1]  # the task's own example request, which its hardware overrides inherit
    for hardware, request, served in rows:
        where = f"omni task `{key}`" + (f" on `{hardware}`" if hardware else "")
        # What the preset is: the task its key names, else (on a hardware) the task's own request.
        expected = (
            (named, "its key names")
            if named
            else (own[1], "the task's own example asks for")
            if own and hardware
            else None
        )
        if request and expected and request[1] != expected[0]:
            yield _request_mismatch(doc, where, request, *expected)
        shown = expected or ((request[1], "its example request asks for") if request else None)
        if served and shown and shown[0] in served_names and served[1] != shown[0]:
            yield Finding(
                doc,
                served[0],
                f"{where} serves `{SERVED_TASK_FLAG} {served[1]}`, but {shown[1]} `{shown[0]}`: "
                "the server does not run the task the preset sends",
                f"serve `{SERVED_TASK_FLAG} {shown[0]}` here, or move the override under the "
                "task it belongs to",
            )


def _request_mismatch(
    doc: Document, where: str, request: OmniRequest, expected: str, why: str
) -> Finding:
    pointer, asked, line, column = request
    return Finding(
        doc,
        pointer,
        f"the example request of {where} asks for task `{asked}`, but {why} `{expected}`: "
        "the preset sends another task than the one it is listed under",
        f"ask for `{expected}` here, or move the example under the task it shows",
        span=doc.scalar_line_span(pointer, line, column, column + len(asked)),
    )
