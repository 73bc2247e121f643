"""Laws of argument merging (recipelint.argv), proven over generated hostile argument lists.

Every property runs on token lists that mix flags, values and positionals with the
tokens upstream gets wrong or treats specially: values starting with `-`, `--x=v`,
underscore and dotted flags, empty strings, JS-falsy values, non-strings, unicode.

CI runs a fixed-seed bounded profile; `RECIPELINT_PROPERTIES=long` runs a soak
(see docs/properties.md).
"""

from __future__ import annotations

import math
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from recipelint import argv
from recipelint.argv import (
    NO_VALUE,
    Unit,
    dedupe,
    dedupe_tokens,
    flag,
    merge,
    merge_tokens,
    parse,
    positional,
)
from recipelint.resolve.formatting import (
    CONTINUATION,
    RenderError,
    format_command,
    serve_command,
    shell_quote,
)

# Property tests over generated argument lists, hundreds of examples each: the slow step
# (`pytest -m slow`) runs them.
pytestmark = pytest.mark.slow

LONG = os.environ.get("RECIPELINT_PROPERTIES") == "long"
EXAMPLES = int(os.environ.get("RECIPELINT_PROPERTY_EXAMPLES", "100000" if LONG else "300"))
PROFILE = settings(
    max_examples=EXAMPLES,
    derandomize=not LONG,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# A small pool makes repeats (the interesting case for dedupe) frequent.
FLAG_POOL = [
    "--x",
    "--x=1",
    "--x=2",
    "--foo_bar",
    "--foo-bar",
    "--a.b",
    "--attention_config.use_fp4_indexer_cache",
    "-1",
    "-",
    "--",
    "-tp",
    "--ünï",
    "--tensor-parallel-size",
    "--enable-x",
]
VALUE_POOL = ["v", "w", "1", "True", "0", "ü", "a b", "$HEAD_IP", '{"k": 1}', "=", "_"]

flag_tokens = st.one_of(
    st.sampled_from(FLAG_POOL), st.text(max_size=5).map(lambda text: "-" + text)
)
string_values = st.one_of(
    st.sampled_from(VALUE_POOL), st.text(max_size=5).filter(lambda t: not t.startswith("-"))
)
falsy_tokens = st.sampled_from(["", 0, 0.0, -0.0, False, None, math.nan])
other_tokens = st.one_of(
    st.integers(-3, 3),
    st.floats(allow_nan=False, width=16),
    st.booleans(),
    st.sampled_from([{}, [], {"a": 1}, ["--x"]]),
)
any_token = st.one_of(flag_tokens, flag_tokens, string_values, falsy_tokens, other_tokens)
token_lists = st.lists(any_token, max_size=24)
# What recipes hold: strings only ("" among them, which upstream drops).
string_token_lists = st.lists(
    st.one_of(flag_tokens, flag_tokens, string_values, st.just("")), max_size=24
)


@st.composite
def unit_lists(draw: st.DrawFn) -> list[Unit]:
    """Units drawn directly (not through parse), so any sequence of units is reachable."""
    units = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["valued", "bare", "positional"]))
        if kind == "positional":
            units.append(positional(draw(st.one_of(string_values, other_tokens))))
        elif kind == "bare":
            units.append(flag(draw(flag_tokens)))
        else:
            units.append(flag(draw(flag_tokens), draw(st.one_of(string_values, other_tokens))))
    return units


@st.composite
def flag_led_layers(draw: st.DrawFn) -> list[Any]:
    """A layer as recipes write them: it starts with a flag, then anything (hostile tokens too)."""
    return [draw(flag_tokens), *draw(token_lists)]


@st.composite
def well_formed_layers(draw: st.DrawFn) -> list[Any]:
    """Flags each followed by at most one value and no positional anywhere: re-parsing is stable."""
    layer: list[Any] = []
    for _ in range(draw(st.integers(0, 8))):
        layer.append(draw(flag_tokens))
        if draw(st.booleans()):
            layer.append(draw(st.one_of(string_values, other_tokens, falsy_tokens)))
    return layer


# ------------------------------------------------------------------ helpers


def typed(tokens: list[Any]) -> list[tuple[type, Any]]:
    """Compare token lists by type too: Python says 1 == True == 1.0, JS output does not."""
    return [(type(token), token) for token in tokens]


def typed_units(units: list[Unit]) -> list[tuple[Any, type, Any]]:
    return [(unit.flag, type(unit.value), unit.value) for unit in units]


def js_truthy(token: Any) -> bool:
    if token is None or token is False or token == "":
        return False
    if type(token) in (int, float):
        return token == token and token != 0
    return True


def looks_like_flag(token: Any) -> bool:
    return isinstance(token, str) and token[:1] == "-"


def reference_dedupe(args: list[Any]) -> list[Any]:
    """The obviously-correct version: group greedily, then keep a flag group if no later group repeats it."""
    groups: list[list[Any]] = []
    for token in filter(js_truthy, args):
        previous = groups[-1] if groups else None
        if (
            not looks_like_flag(token)
            and previous
            and looks_like_flag(previous[0])
            and len(previous) == 1
        ):
            previous.append(token)  # the value of a flag that has none yet
        else:
            groups.append([token])
    out: list[Any] = []
    for index, group in enumerate(groups):
        later_flags = [g[0] for g in groups[index + 1 :] if looks_like_flag(g[0])]
        if not looks_like_flag(group[0]) or group[0] not in later_flags:
            out.extend(group)
    return out


def is_subsequence(small: list[Any], big: list[Any]) -> bool:
    remaining = iter(big)
    return all(any(item is candidate for candidate in remaining) for item in small)


def last_unit_of(units: list[Unit], name: str) -> Unit:
    return [unit for unit in units if unit.flag == name][-1]


def positionals(units: list[Unit]) -> list[Unit]:
    return [unit for unit in units if unit.is_positional]


def unit_dedupe(tokens: list[Any]) -> list[Any]:
    """argv's dedupe on units, laid out as tokens again."""
    return argv.tokens(dedupe(parse(tokens)))


def rendered_args(tokens: list[Any]) -> list[Any] | None:
    """What the renderer publishes after `vllm serve MODEL`, or None when it refuses the list."""
    try:
        _, published = serve_command("org/model", "org/model", list(tokens))
    except RenderError:
        return None
    return published[3:]


# ------------------------------------------------------------------ agreement


@PROFILE
@given(token_lists)
@example(
    ["--max-num-seqs", 0, "--x", "v"]
)  # upstream-behaviour.md#last-wins-dedupe: 0 is dropped, the flag turns bare
@example(
    ["--a", "-1", "--b", "-1"]
)  # upstream-behaviour.md#last-wins-dedupe: values starting with - are flags
@example(
    ["--enable-x", "pos", "--enable-x"]
)  # upstream-behaviour.md#last-wins-dedupe: the positional is swallowed, then dropped
@example(["--x=1", "--x", "2", "--x=3"])  # three distinct flags
@example(["--x", "", "v", "--x", 0, "--x", "w", "p"])  # falsy tokens vanish before grouping
def test_token_and_unit_dedupe_agree_with_the_reference(tokens: list[Any]) -> None:
    expected = reference_dedupe(tokens)
    assert typed(dedupe_tokens(tokens)) == typed(expected)
    assert typed(unit_dedupe(tokens)) == typed(expected)


@PROFILE
@given(st.one_of(string_token_lists, token_lists))
@example(["--tp", "8", "", "--tp", "4", "p"])
def test_the_renderer_publishes_the_dedupe_or_refuses_a_non_string(tokens: list[Any]) -> None:
    """The renderer's argv is argv's dedupe; a non-string that survives it aborts the rendering."""
    expected = unit_dedupe(tokens)
    rendered = rendered_args(tokens)
    if all(type(token) is str for token in expected):
        assert rendered is not None
        assert typed(rendered) == typed(expected) == typed(dedupe_tokens(tokens))
    else:
        assert rendered is None


@PROFILE
@given(string_token_lists)
@example(["p", "--a", "--b", "x y", "q", "--c", "-1"])
def test_the_command_text_has_one_line_per_unit(tokens: list[Any]) -> None:
    """The renderer's line layout groups tokens as argv's tokeniser does (a flag with its value,
    a bare flag, a positional), re-reading the deduped list."""
    deduped = dedupe_tokens(tokens)
    lines = [
        unit.value
        if unit.flag is None
        else unit.flag
        if unit.is_bare
        else unit.flag + " " + shell_quote(unit.value)
        for unit in parse(deduped)
    ]
    assert format_command("org/model", deduped) == "vllm serve org/model" + "".join(
        CONTINUATION + line for line in lines
    )


@PROFILE
@given(st.lists(token_lists, max_size=6))
def test_layer_stack_merge_is_the_compilers_dedupe(layers: list[list[Any]]) -> None:
    concatenated = [token for layer in layers for token in layer]
    assert typed(merge_tokens(*layers)) == typed(reference_dedupe(concatenated))
    assert typed(merge_tokens(*layers)) == typed(unit_dedupe(concatenated))


def test_documented_examples() -> None:
    assert dedupe_tokens(["--max-num-seqs", 0]) == ["--max-num-seqs"]
    assert dedupe_tokens(["--a", "-1", "--b", "-1"]) == ["--a", "--b", "-1"]
    assert dedupe_tokens(["--enable-x", "pos", "--enable-x"]) == ["--enable-x"]
    assert dedupe_tokens(["--x=1", "--x", "2", "--x=3"]) == ["--x=1", "--x", "2", "--x=3"]
    assert dedupe_tokens(["--foo_bar", "1", "--foo-bar", "2"]) == [
        "--foo_bar",
        "1",
        "--foo-bar",
        "2",
    ]
    assert dedupe_tokens(["--tp", "8", "p", "--trust", "--tp", "4"]) == [
        "p",
        "--trust",
        "--tp",
        "4",
    ]


# ------------------------------------------------------------------ parse


@PROFILE
@given(token_lists)
def test_parse_round_trips_the_kept_tokens(tokens: list[Any]) -> None:
    kept = [token for token in tokens if js_truthy(token)]
    assert typed(argv.tokens(parse(tokens))) == typed(kept)


@PROFILE
@given(token_lists)
def test_a_non_flag_token_is_a_value_exactly_when_a_flag_precedes_it(tokens: list[Any]) -> None:
    """The swallowing rule, stated precisely on the falsy-filtered tokens."""
    kept = [token for token in tokens if js_truthy(token)]
    expected_positionals = [
        token
        for index, token in enumerate(kept)
        if not looks_like_flag(token) and (index == 0 or not looks_like_flag(kept[index - 1]))
    ]
    assert typed([unit.value for unit in positionals(parse(tokens))]) == typed(expected_positionals)


@PROFILE
@given(token_lists, token_lists)
def test_parse_distributes_over_concatenation_except_at_a_glue_boundary(
    left: list[Any], right: list[Any]
) -> None:
    """P(a+b) = P(a)+P(b), unless a ends with a bare flag and b's first kept token is not a flag:
    then that token becomes the flag's value (one unit glued across the layer boundary)."""
    head, tail = parse(left), parse(right)
    glued = bool(head) and head[-1].is_bare and bool(tail) and tail[0].is_positional
    if glued:
        expected = head[:-1] + [flag(head[-1].flag, tail[0].value)] + tail[1:]
    else:
        expected = head + tail
    assert typed_units(parse(left + right)) == typed_units(expected)


# ------------------------------------------------------------------ dedupe laws


@PROFILE
@given(unit_lists())
def test_dedupe_is_idempotent_on_units(units: list[Unit]) -> None:
    once = dedupe(units)
    assert typed_units(dedupe(once)) == typed_units(once)


@PROFILE
@given(token_lists)
def test_dedupe_is_idempotent_on_tokens(tokens: list[Any]) -> None:
    """Holds on tokens too, although re-parsing can regroup units: output has no repeated flag."""
    once = dedupe_tokens(tokens)
    assert typed(dedupe_tokens(once)) == typed(once)


@PROFILE
@given(unit_lists())
def test_each_surviving_flag_carries_its_last_occurrences_value(units: list[Unit]) -> None:
    for unit in dedupe(units):
        if unit.flag is not None:
            last = last_unit_of(units, unit.flag)
            assert unit is last


@PROFILE
@given(unit_lists())
def test_survivors_keep_their_relative_order(units: list[Unit]) -> None:
    assert is_subsequence(dedupe(units), units)


@PROFILE
@given(unit_lists())
def test_no_flag_appears_twice_and_every_flag_survives_once(units: list[Unit]) -> None:
    names = argv.flags(dedupe(units))
    assert len(names) == len(set(names))
    assert set(names) == set(argv.flags(units))


@PROFILE
@given(token_lists)
def test_no_flag_token_appears_twice_in_the_command_line(tokens: list[Any]) -> None:
    names = [token for token in dedupe_tokens(tokens) if looks_like_flag(token)]
    assert len(names) == len(set(names))


@PROFILE
@given(unit_lists())
def test_positionals_are_never_dropped_or_reordered(units: list[Unit]) -> None:
    survivors = dedupe(units)
    assert [id(unit) for unit in positionals(survivors)] == [
        id(unit) for unit in positionals(units)
    ]


@PROFILE
@given(token_lists)
def test_a_dropped_non_flag_token_was_a_value_of_an_overridden_flag(tokens: list[Any]) -> None:
    """Dedupe never drops a positional; a non-flag token disappears only as the value of a flag
    occurrence that a later occurrence of the same flag overrides (the swallowing quirk)."""
    units = parse(tokens)
    survivors = {id(unit) for unit in dedupe(units)}
    for unit in units:
        if id(unit) not in survivors:
            assert unit.flag is not None
            assert any(later.flag == unit.flag for later in units[units.index(unit) + 1 :])


# ------------------------------------------------------------------ merge laws


@PROFILE
@given(unit_lists(), unit_lists(), unit_lists())
def test_merge_is_associative_on_units(a: list[Unit], b: list[Unit], c: list[Unit]) -> None:
    flat = typed_units(merge(a, b, c))
    assert typed_units(merge(merge(a, b), c)) == flat
    assert typed_units(merge(a, merge(b, c))) == flat


@PROFILE
@given(well_formed_layers(), well_formed_layers(), well_formed_layers())
def test_merge_is_associative_on_well_formed_token_layers(
    a: list[Any], b: list[Any], c: list[Any]
) -> None:
    flat = typed(merge_tokens(a, b, c))
    assert typed(merge_tokens(merge_tokens(a, b), c)) == flat
    assert typed(merge_tokens(a, merge_tokens(b, c))) == flat


def test_token_merge_is_not_associative_once_a_positional_can_be_glued() -> None:
    """Why the token-level law needs positional-free layers: deduping `--a --b v p --b w` leaves
    `--a p --b w`, and re-parsing glues `p` to `--a`; a later `--a` then takes `p` with it."""
    a, c = ["--a", "--b", "v", "p", "--b", "w"], ["--a"]
    assert merge_tokens(a, c) == ["p", "--b", "w", "--a"]
    assert merge_tokens(merge_tokens(a), c) == ["--b", "w", "--a"]


@PROFILE
@given(unit_lists(), unit_lists())
def test_a_layer_never_changes_flags_it_does_not_mention(
    base: list[Unit], layer: list[Unit]
) -> None:
    mentioned = set(argv.flags(layer))
    merged = merge(base, layer)
    untouched = [unit for unit in merged if unit.flag is not None and unit.flag not in mentioned]
    before = [unit for unit in dedupe(base) if unit.flag is not None and unit.flag not in mentioned]
    assert [id(unit) for unit in untouched] == [id(unit) for unit in before]
    assert [id(u) for u in positionals(merged)] == [
        id(u) for u in positionals(base) + positionals(layer)
    ]


@PROFILE
@given(token_lists, flag_led_layers())
def test_a_flag_led_token_layer_never_changes_flags_it_does_not_mention(
    base: list[Any], layer: list[Any]
) -> None:
    """On tokens the law holds for layers that start with a flag (every recipe list the
    compiler concatenates does, or its first token would be glued to the previous layer).
    It is stated on the deduped units: flattening them to a command line may put a bare
    flag right before a positional, which a reader (vLLM too) then takes as its value."""
    mentioned = set(argv.flags(parse(layer)))
    merged = dedupe(parse(base + layer))
    alone = dedupe(parse(base))
    assert typed_units(
        [u for u in merged if u.flag is not None and u.flag not in mentioned]
    ) == typed_units([u for u in alone if u.flag is not None and u.flag not in mentioned])


@PROFILE
@given(st.lists(token_lists, max_size=5))
def test_token_merge_equals_unit_merge_without_glue_boundaries(layers: list[list[Any]]) -> None:
    nonempty = [parsed for parsed in map(parse, layers) if parsed]
    glue = any(
        left[-1].is_bare and right[0].is_positional
        for left, right in zip(nonempty, nonempty[1:], strict=False)
    )
    if not glue:
        assert typed(merge_tokens(*layers)) == typed(argv.tokens(merge(*nonempty)))


def test_unit_rendering() -> None:
    assert flag("--x", "1").tokens() == ["--x", "1"]
    assert flag("--x").tokens() == ["--x"] and flag("--x").is_bare
    assert positional("p").tokens() == ["p"] and positional("p").is_positional
    assert repr(NO_VALUE) == "NO_VALUE"
