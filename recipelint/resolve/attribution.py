"""Where every token of a rendered command comes from, and which later layer dropped the others.

The renderer spreads the lists of :mod:`recipelint.resolve.layers` (in the join order of
docs/upstream-behaviour.md#layer-order) around the strategy emitter's own tokens, then
dedupes last-wins (docs/upstream-behaviour.md#last-wins-dedupe); the env is its mappings
assigned in turn. :func:`attributed_commands` redoes that join with each token tagged by
its :class:`Source` (a list at a declared place and the token's index in it, or what the
renderer writes itself) and asks :func:`recipelint.argv.unit_fates` which unit each
dropped one lost to. Nothing is read from files: positions are the caller's business
(recipelint.report.showing maps a source's pointer to its document's span).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple, cast

from recipelint.argv import unit_fates
from recipelint.jsvalue import JsonDocument, JsonValue, JsOut, JsValue, truthy
from recipelint.read.recipedata import Recipe
from recipelint.resolve import layers
from recipelint.resolve.command import (
    NVL4_HARDWARE,
    NVL4_ONLY_ENV,
    Combination,
    RenderInputs,
    command_parts,
    env_parts,
    pinned_devices,
    render_command,
    spread,
)
from recipelint.resolve.layers import Layer, Pointer

EMITTER = "strategy emitter"  # the parallelism flags the strategy's deploy type writes
PD_PINNING = "PD device pinning"  # the GPUs a PD pool is pinned to
NVL4_ONLY = "left out: an NVLink-only variable, kept only on NVL4 hardware in a PD cluster"


class Source(NamedTuple):
    """Where one token or env variable comes from: a list at a declared place (``key`` its
    index there, or the variable's name in a mapping), or, without a layer, what the
    renderer writes itself (``origin`` says what)."""

    layer: Layer | None
    key: int | str
    origin: str = ""

    @property
    def pointer(self) -> Pointer | None:
        """The token's own place in its document; None for the renderer's tokens."""
        return None if self.layer is None else (*self.layer.pointer, self.key)

    def is_at(self, document: str, pointer: Pointer) -> bool:
        return (
            self.layer is not None and self.layer.document == document and self.pointer == pointer
        )


class Token(NamedTuple):
    value: JsValue
    source: Source


@dataclass(frozen=True)
class AttributedUnit:
    """A flag with its value, a bare flag or a positional, as the dedupe reads the joined
    tokens (a value may come from the next list, as upstream's tokeniser glues it);
    ``replaced_by`` is the later unit of the same flag that the dedupe keeps instead."""

    tokens: tuple[Token, ...]
    replaced_by: AttributedUnit | None = None

    @property
    def kept(self) -> bool:
        return self.replaced_by is None

    @property
    def values(self) -> list[JsValue]:
        return [token.value for token in self.tokens]


@dataclass(frozen=True)
class ArgsAttribution:
    """One command's joined args: every unit in join order, and the falsy tokens upstream
    drops before the dedupe (`filter(Boolean)`)."""

    units: tuple[AttributedUnit, ...]
    falsy: tuple[Token, ...]

    @property
    def kept(self) -> list[AttributedUnit]:
        return [unit for unit in self.units if unit.kept]

    @property
    def dropped(self) -> list[AttributedUnit]:
        return [unit for unit in self.units if not unit.kept]

    def deduped(self) -> list[JsValue]:
        """The kept tokens laid end to end: the rendered argv after `vllm serve MODEL`."""
        return [value for unit in self.kept for value in unit.values]

    def unit_at(self, document: str, pointer: Pointer) -> AttributedUnit | None:
        """The unit holding the token written at ``pointer`` (an item of a list), if it joins."""
        for unit in self.units:
            if any(token.source.is_at(document, pointer) for token in unit.tokens):
                return unit
        return None


@dataclass(frozen=True)
class EnvAssignment:
    """One variable set by one env layer (or by PD device pinning); ``replaced_by`` is the
    later assignment that wins, ``removed`` why the renderer drops the winning one."""

    name: str
    value: JsonValue
    source: Source
    replaced_by: Source | None = None
    removed: str | None = None

    @property
    def kept(self) -> bool:
        return self.replaced_by is None and self.removed is None


@dataclass(frozen=True)
class AttributedCommand:
    """One `vllm serve` line of a rendering, as the compiler renders it, with its sources."""

    label: str  # "serve", a PD role, "head", "worker 1", ...
    role: str | None
    node_role: str | None
    node_rank: int
    command: str
    argv: list[JsValue]
    docker_command: str | None
    docker_argv: list[JsValue] | None
    args: ArgsAttribution
    env: tuple[EnvAssignment, ...]


def attribute_args(
    before: list[Layer], emitter: list[layers.Token], after: list[Layer]
) -> ArgsAttribution:
    """The join of ``before``, the emitter's tokens and ``after``, each token tagged, deduped."""
    joined = [
        *_tagged(before),
        *(Token(t, Source(None, i, EMITTER)) for i, t in enumerate(emitter)),
    ]
    joined += _tagged(after)
    kept = [token for token in joined if truthy(token.value)]
    falsy = tuple(token for token in joined if not truthy(token.value))
    fates = unit_fates([token.value for token in kept])
    units: list[AttributedUnit | None] = [None] * len(fates)
    # A winner comes after what it replaces: build from the end so it exists when needed.
    for index in range(len(fates) - 1, -1, -1):
        start, stop, replacer = fates[index]
        units[index] = AttributedUnit(
            tuple(kept[start:stop]), units[replacer] if replacer is not None else None
        )
    return ArgsAttribution(tuple(unit for unit in units if unit is not None), falsy)


def _tagged(found: list[Layer]) -> Iterator[Token]:
    """Each list's items as the renderer spreads them (a string, as JS does, by character)."""
    for layer in found:
        for index, item in enumerate(spread(layer.items)):
            yield Token(item, Source(layer, index))


def attribute_env(
    before: list[Layer], pinned: dict[str, JsonValue], after: list[Layer], nvl4_only: bool
) -> tuple[EnvAssignment, ...]:
    """Every assignment of the env layers in order (PD device pinning between them), each
    told whether a later one replaces it; ``nvl4_only``: the NVLink-only variables are removed."""
    assigned = [*_assignments(before)]
    assigned += [(name, value, Source(None, name, PD_PINNING)) for name, value in pinned.items()]
    assigned += _assignments(after)
    last = {name: index for index, (name, _value, _source) in enumerate(assigned)}
    out = []
    for index, (name, value, source) in enumerate(assigned):
        winner = last[name]
        removed = NVL4_ONLY if nvl4_only and winner == index and name in NVL4_ONLY_ENV else None
        replaced = assigned[winner][2] if winner != index else None
        out.append(EnvAssignment(name, value, source, replaced, removed))
    return tuple(out)


def _assignments(found: list[Layer]) -> Iterator[tuple[str, JsonValue, Source]]:
    for layer in found:
        if isinstance(layer.items, dict):
            for name, value in layer.items.items():
                yield name, value, Source(layer, name)


class _Line(NamedTuple):
    """Where one `vllm serve` line is in a rendered document."""

    label: str
    role: str | None
    node_role: str | None
    node_rank: int
    part: Mapping[str, JsOut]  # the mapping holding its keys (a PD role's, or the document)
    prefix: str  # of its keys: "", "head_", "vllm_"
    worker: int | None  # its position in the list of worker lines


def _lines(doc: JsonDocument) -> Iterator[_Line]:
    """Every `vllm serve` line of a rendering, as the renderer lays each shape out."""
    if doc.get("deploy_type") == "pd_cluster":
        for role in layers.PD_ROLES:
            yield _Line(role, role, None, 1, cast("JsonDocument", doc[role]), "", None)
    elif doc.get("deploy_type") == "kv_store_lb":
        workers = cast("list[list[JsValue]]", doc.get("vllm_worker_argvs") or [])
        yield _Line("serve", None, "head" if workers else None, 1, doc, "vllm_", None)
        for index in range(len(workers)):
            yield _Line(
                f"worker {index + 1}", None, "worker", index + 1, doc, "vllm_worker_", index
            )
    elif "head_argv" in doc:
        yield _Line("head", None, "head", 1, doc, "head_", None)
        for index in range(len(cast("list[list[JsValue]]", doc["worker_argvs"]))):
            yield _Line(f"worker {index + 1}", None, "worker", index + 1, doc, "worker_", index)
    else:
        yield _Line("serve", None, None, 1, doc, "", None)


def _field(line: _Line, name: str) -> JsOut:
    """One of the line's rendered fields (``command``, ``argv``, ...); a worker's from its list."""
    if line.worker is None:
        return line.part.get(line.prefix + name)
    listed = line.part.get(line.prefix + name + "s")
    return listed[line.worker] if isinstance(listed, list) else None


def attributed_commands(
    inputs: RenderInputs, recipe: Recipe, combo: Combination
) -> tuple[JsonDocument, list[AttributedCommand]]:
    """(the rendered document, each of its `vllm serve` lines with where its tokens come from).

    Raises what rendering raises (RenderError where upstream's synthesis throws).
    """
    doc = render_command(inputs, recipe, combo)
    pd = doc.get("deploy_type") == "pd_cluster"
    commands = []
    for line in _lines(doc):
        before, emitter, after = command_parts(
            inputs, recipe, combo, line.role, line.node_role, line.node_rank
        )
        env_before, env_after = env_parts(inputs, recipe, combo, line.role)
        pinned = pinned_devices(inputs, recipe, combo, line.role)
        commands.append(
            AttributedCommand(
                line.label,
                line.role,
                line.node_role,
                line.node_rank,
                # the fields as the shapes lay them out (resolve/shapes.py)
                cast(str, _field(line, "command")),
                cast("list[JsValue]", _field(line, "argv")),
                cast("str | None", _field(line, "docker_command")),
                cast("list[JsValue] | None", _field(line, "docker_argv")),
                attribute_args(before, emitter, after),
                attribute_env(
                    env_before, pinned, env_after, pd and combo.hw_id not in NVL4_HARDWARE
                ),
            )
        )
    return doc, commands


def layer_name(layer: Layer, kv_store: str | None = None) -> str:
    """A list's name as a reviewer reads it: its keys in the recipe (`variants.fp8.extra_args`),
    or the file kind and name before them for a strategy, kv_store or taxonomy list."""
    keys = ".".join(str(part) for part in layer.pointer)
    document = layer.document
    if document == layers.STRATEGY_FILE:
        return f"strategy {layer.scope.strategy} {keys}"
    if document == layers.KV_FILE:
        return f"kv_store {kv_store} {keys}" if kv_store else f"kv_store {keys}"
    if document == layers.TAXONOMY:
        return f"taxonomy {keys}"
    return keys
