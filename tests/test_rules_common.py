"""rules/common.py: the env mappings of a document, found by a cheaper walk, are those of
following every declared place, on data of any shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given
from propertyprofile import property_profile
from rulehelp import DOCUMENTS, KINDS

from recipelint.read.load import parse_yaml
from recipelint.resolve import layers
from recipelint.rules.common import (
    Pointer,
    as_dict,
    env_mappings,
    guide_span,
    offered_strategies,
    taxonomy_arg_lists,
)


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


@property_profile(300)
@given(DOCUMENTS, KINDS)
def test_env_mappings_are_those_of_following_every_place(data: Any, kind: str) -> None:
    assert list(env_mappings(data, kind)) == list(_plain_env_mappings(data, kind))


GUIDE = "guide: |\n  intro\n  vllm serve x\n"


def test_a_guide_span_is_the_line_narrowed_to_the_needle_even_at_its_first_column() -> None:
    doc = parse_yaml(GUIDE)
    whole = guide_span(doc, 2)
    assert (whole.line, whole.column) == (3, 3)
    at_start = guide_span(doc, 2, "vllm")
    assert (at_start.line, at_start.column, at_start.end_column) == (3, 3, 7)
    assert guide_span(doc, 2, "serve").column == 8
    assert guide_span(doc, 2, "absent") == whole


def test_strategies_offered_through_strategy_hardware_are_added_once() -> None:
    data = {
        "compatible_strategies": ["single_node_tp"],
        "strategy_hardware": {
            "single_node_tp": {"h100": "supported"},
            "multi_node_tp": {"h200": "supported"},
            "single_node_dep": ["supported"],
        },
    }
    assert offered_strategies(data) == ["single_node_tp", "multi_node_tp"]


def test_an_env_place_holding_no_mapping_yields_none() -> None:
    assert list(env_mappings({"model": {"env": "X=1"}}, layers.RECIPE)) == []
    walls = {"model": "x", "variants": {"a": 5}, "strategy_overrides": {"s": []}, "features": 1}
    assert list(env_mappings(walls, layers.RECIPE)) == []


def test_no_taxonomy_has_no_arg_lists() -> None:
    assert list(taxonomy_arg_lists(None, lambda text: [text])) == []
