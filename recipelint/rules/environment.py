"""RL361–RL363: `VLLM_*` environment variables against the releases a recipe claims.

Every env mapping at a place :mod:`recipelint.resolve.layers` declares (recipes,
strategy and kv_store files, the taxonomy's kv_offload options) is read against the
environment-variable catalog (:mod:`recipelint.flags.env_catalog`): a name no release
from the document's minimum on reads (RL361), a value the minimum release cannot
convert and refuses to start with (RL362), and a value it accepts but reads the other
way (RL363). Names outside the `VLLM_` prefix belong to other software and are not
judged; so are vLLM-Omni's own (`VLLM_OMNI_`), which the catalog does not cover.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.flags.catalog import NIGHTLY, version_key, written_release
from recipelint.flags.env_catalog import (
    EnvSpec,
    EnvValueCheck,
    check_env_value,
    closest_env_names,
    covered_release,
    env_eras,
    env_releases,
    env_span,
)
from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.docker import runs_other_build
from recipelint.rules.common import Pointer, as_dict, env_mappings
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check
from recipelint.spelling import tight_matches

UNKNOWN, INVALID, MISREAD = "RL361", "RL362", "RL363"
PREFIX = "VLLM_"
OTHER_PACKAGE_PREFIXES = ("VLLM_OMNI_",)


@dataclass(frozen=True)
class EnvMapping:
    """One env mapping at a declared place of a document."""

    doc: Document
    pointer: Pointer
    values: dict[str, JsonValue]


def focused_env_mappings(ctx: CheckContext) -> Iterator[EnvMapping]:
    """The env mappings of every document in focus: recipes, strategy and kv_store files, the taxonomy."""
    shared = [
        (layers.STRATEGY_FILE, list(ctx.strategies.values())),
        (layers.KV_FILE, list(ctx.kv_stores.values())),
    ]
    taxonomy = ctx.tree.taxonomy
    if taxonomy is not None and taxonomy.usable:
        shared.append((layers.TAXONOMY, [taxonomy]))
    for doc in ctx.recipes:
        for pointer, values in ctx.env_mappings_of(doc):
            yield EnvMapping(doc, pointer, values)
    for kind, docs in shared:
        for doc in docs:
            if ctx.in_focus(doc):
                for pointer, values in env_mappings(doc.data, kind):
                    yield EnvMapping(doc, pointer, values)


# -- the release a mapping is judged at ---------------------------------------------------


def _release(raw: object) -> str | None:
    """The catalogued release standing for a min_vllm_version; `nightly` is the newest."""
    text = written_release(raw)
    if text == NIGHTLY:
        return env_releases()[-1]
    return covered_release(text) if text is not None else None


def _later(first: str | None, second: str | None) -> str | None:
    if first is None or second is None:
        return first or second
    return max(first, second, key=version_key)


def minimum_release(data: object, pointer: Pointer) -> str | None:
    """The release a mapping must work on: the document's minimum, raised by its variant's."""
    root = as_dict(data)
    found = _release(as_dict(root.get("model")).get("min_vllm_version"))
    if found is None:
        found = _release(root.get("min_vllm_version"))  # a kv_store file states its own
    if len(pointer) > 1 and pointer[0] == "variants":
        variant = as_dict(as_dict(root.get("variants")).get(str(pointer[1])))
        found = _later(found, _release(variant.get("min_vllm_version")))
    return found


# -- the checks -----------------------------------------------------------------------------


@check(UNKNOWN, INVALID, MISREAD)
def vllm_environment(ctx: CheckContext) -> Iterator[Finding]:
    for mapping in focused_env_mappings(ctx):
        if runs_other_build(mapping.doc.data, mapping.pointer):
            continue
        release = minimum_release(mapping.doc.data, mapping.pointer)
        for name, value in mapping.values.items():
            if not _judged(name):
                continue
            pointer = (*mapping.pointer, name)
            spec = _spec_from(name, release)
            if not _read_from(name, release):
                # A recipe that asks for a nightly build may set a variable only main reads yet;
                # one that releases read and then dropped is gone from nightly too.
                if env_span(name) is None and _asks_for_nightly(mapping.doc.data):
                    continue
                yield _unknown(mapping.doc, pointer, name, release)
            elif spec is not None and isinstance(value, str):
                yield from _value(mapping.doc, pointer, spec, value, release)


def _asks_for_nightly(data: object) -> bool:
    model = as_dict(as_dict(data).get("model"))
    minimum = model.get("min_vllm_version")
    return model.get("nightly_required") is True or (
        isinstance(minimum, str) and minimum.strip().lower() == NIGHTLY
    )


def _judged(name: object) -> bool:
    return (
        isinstance(name, str)
        and name.startswith(PREFIX)
        and not name.startswith(OTHER_PACKAGE_PREFIXES)
    )


def _read_from(name: str, release: str | None) -> bool:
    """Whether some catalogued release from ``release`` on (any, without one) reads ``name``."""
    span = env_span(name)
    if span is None:
        return False
    return release is None or version_key(span[1]) >= version_key(release)


def _spec_from(name: str, release: str | None) -> EnvSpec | None:
    """How the minimum release reads ``name``, else the first later release that does."""
    if release is None:
        eras = env_eras(name)
        return eras[-1] if eras else None
    floor = version_key(release)
    return next((era for era in env_eras(name) if version_key(era.last) >= floor), None)


def _unknown(doc: Document, pointer: Pointer, name: str, release: str | None) -> Finding:
    span = env_span(name)
    since = f" from {release} on" if release else ""
    if span is not None:
        message = (
            f"`{name}` was read by vLLM {span[0]} to {span[1]} only; "
            f"no release{since} reads it, so setting it does nothing"
        )
        # A name releases read is no misspelling: a neighbour one edit away is another
        # setting (FP4 is not INT4), so nothing is proposed in its place.
        hint = f"delete it: no release after vLLM {span[1]} reads it"
    else:
        message = f"no vLLM release{since} reads `{name}`: setting it does nothing"
        hint = _did_you_mean(name, release)
    return Finding(doc, pointer, message, hint, at_key=True, code=UNKNOWN)


def _did_you_mean(name: str, release: str | None) -> str:
    close = tight_matches(name.upper(), closest_env_names(name, release or env_releases()[-1]))
    if close:
        return "did you mean " + " or ".join(f"`{candidate}`" for candidate in close) + "?"
    return "remove it, or check the name against `recipelint env list`"


def _value(
    doc: Document, pointer: Pointer, spec: EnvSpec, value: str, release: str | None
) -> Iterator[Finding]:
    try:
        verdict = check_env_value(spec, value)
    except RecursionError:  # vLLM's own json.loads fails on it the same way
        verdict = EnvValueCheck("bad", "nested deeper than Python's JSON parser reads")
    at = f"vLLM {release}" if release else "vLLM"
    accepted = f"accepted: {spec.describe()}"
    if verdict.status == "bad":
        yield Finding(
            doc,
            pointer,
            f"`{spec.name}: {value}` is not valid on {at} ({verdict.reason}): "
            "vLLM fails when it reads it",
            accepted,
            code=INVALID,
        )
    elif verdict.status == "misread":
        yield Finding(
            doc,
            pointer,
            f"`{spec.name}: {value}` is accepted by {at} but {verdict.reason}",
            _meant_hint(spec),
            code=MISREAD,
        )


def _meant_hint(spec: EnvSpec) -> str:
    """How to write the value the author meant: the opposite of what vLLM reads."""
    if spec.type == "switch" and spec.true_words:
        meaning = "false" if spec.negated else "true"
        return f"write `{spec.true_words[0]}` for {meaning}; {spec.describe()}"
    return f"remove the variable to leave it off; {spec.describe()}"
