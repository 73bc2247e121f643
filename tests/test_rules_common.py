"""rules/common.py: the env mappings of a document, found by a cheaper walk, are those of
following every declared place, on data of any shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given
from propertyprofile import property_profile
from rulehelp import DOCUMENTS, KINDS

from recipelint.resolve import layers
from recipelint.rules.common import Pointer, as_dict, env_mappings


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
