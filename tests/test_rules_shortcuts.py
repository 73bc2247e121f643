"""The rules' cheaper walks give what the plain walks give, on data of any shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from propertyprofile import property_profile

from recipelint.resolve import layers
from recipelint.rules.common import Pointer, as_dict, env_mappings
from recipelint.rules.security import CONTROL, WORD_KEYS, _collect, _read
from recipelint.rules.values import env_maps

# Keys the declared places and the rules look for, and a few they do not.
KEYS = st.sampled_from(
    [
        "model",
        "variants",
        "fp8",
        "hardware_overrides",
        "h100",
        "strategy_overrides",
        "single_node_tp",
        "prefill",
        "decode",
        "env",
        "extra_env",
        "extra_args",
        "omni",
        "tasks",
        "model_id",
        "docker_image",
        "base_env",
        "vllm",
        "kv_offload",
        "VLLM_X",
        "a\x1bb",
        "other",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(alphabet=st.sampled_from(list("ab -$;\x00\x1b\x7f\x85\x9f\t\n")), max_size=6),
)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)
KINDS = st.sampled_from([layers.RECIPE, layers.STRATEGY_FILE, layers.KV_FILE, layers.TAXONOMY])


def _nested(pattern: tuple[str, ...], leaf: Any) -> Any:
    """``leaf`` at a place of ``pattern``: a role, a task and every wildcard filled in."""
    for part in reversed(pattern):
        if part == layers.TASK:
            leaf = [leaf]
        else:
            leaf = {layers.PD_ROLES[0] if part == layers.ROLE else part.strip("<>"): leaf}
    return leaf


ENV_PATTERNS = [place.pattern for place in layers.PLACES if place.kind == layers.ENV]
MAPPINGS = st.dictionaries(KEYS, DATA, max_size=3)
PLACED = st.sampled_from(ENV_PATTERNS).flatmap(lambda p: MAPPINGS.map(lambda d: _nested(p, d)))
# Data with env mappings at declared places (and beside them), as well as data of any shape.
DOCUMENTS = st.one_of(DATA, PLACED, st.dictionaries(KEYS, PLACED | DATA, max_size=4))


def _plain_env_mappings(data: Any, document: str) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    """Each declared env place followed down its pattern, through absent values too."""
    for place in layers.PLACES:
        if place.kind == layers.ENV and place.document == document:
            yield from _follow(data, place.pattern, ())


def _follow(
    value: Any, pattern: tuple[str, ...], pointer: Pointer
) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    if not pattern:
        if isinstance(value, dict):
            yield pointer, value
        return
    part, rest = pattern[0], pattern[1:]
    if part == layers.ROLE:
        for role in layers.PD_ROLES:
            yield from _follow(as_dict(value).get(role), rest, (*pointer, role))
    elif part == layers.TASK:
        for index, item in enumerate(value if isinstance(value, list) else []):
            yield from _follow(item, rest, (*pointer, index))
    elif part.startswith("<"):
        for key, item in as_dict(value).items():
            yield from _follow(item, rest, (*pointer, key))
    else:
        yield from _follow(as_dict(value).get(part), rest, (*pointer, part))


def _plain_env_maps(
    value: Any, kind: str, pointer: Pointer = ()
) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    """Every node visited, scalars included."""
    if isinstance(value, dict):
        for key, item in value.items():
            here = (*pointer, key)
            if isinstance(item, dict) and (
                key in layers.ENV_KEYS or layers.is_list_place(kind, here, layers.ENV)
            ):
                yield here, item
            else:
                yield from _plain_env_maps(item, kind, here)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _plain_env_maps(item, kind, (*pointer, index))


@property_profile(300)
@given(DOCUMENTS, KINDS)
def test_env_mappings_are_those_of_following_every_place(data: Any, kind: str) -> None:
    assert list(env_mappings(data, kind)) == list(_plain_env_mappings(data, kind))


@property_profile(300)
@given(DOCUMENTS, KINDS)
def test_env_maps_are_those_of_visiting_every_node(data: Any, kind: str) -> None:
    assert list(env_maps(data, kind)) == list(_plain_env_maps(data, kind))


def _has_control(entry: tuple[Pointer, Any, Any]) -> bool:
    _pointer, key, value = entry
    return any(isinstance(text, str) and CONTROL.search(text) for text in (key, value))


@property_profile(300)
@given(DOCUMENTS)
def test_the_command_rules_read_the_entries_they_would_pick_from_every_entry(data: Any) -> None:
    every = _collect(data, (), [])
    read: list[tuple[Pointer, Any, Any]] = []
    texts: list[str] = []
    _read(data, (), read, texts)
    picked = [
        entry for entry in every if isinstance(entry[2], (dict, list)) or (entry[1] in WORD_KEYS)
    ]
    assert read == picked
    assert bool(CONTROL.search("".join(texts))) == any(_has_control(e) for e in every)
