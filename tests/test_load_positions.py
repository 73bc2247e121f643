"""A document loaded without positions reads them from its text when asked: the same values,
problems and places as one that recorded them while loading."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from mutations import fuzz_settings, mutated_files  # noqa: E402

from recipelint.read.load import DEFAULT_LIMITS, Document, LoadLimits, parse_yaml  # noqa: E402
from recipelint.read.recipefiles import RecipeFile  # noqa: E402

EMBEDDED = Path(__file__).resolve().parent.parent / "recipes"


def _both(text: str, limits: LoadLimits = DEFAULT_LIMITS) -> tuple[Document, Document]:
    recorded = parse_yaml(text, Path("r.yaml"), "recipe", limits=limits)
    later = parse_yaml(text, Path("r.yaml"), "recipe", limits=limits, positions=False)
    return recorded, later


def _assert_alike(recorded: Document, later: Document) -> None:
    assert later.problems == recorded.problems
    assert later.usable == recorded.usable
    assert later == recorded  # values, text and every node's place


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: [x, {c: d}]\n",
        "a: 1",  # the last line unterminated: libyaml's end-of-stream marks
        "\ufeffa: 1\n",
        "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
        "- a\n- b\n",  # RL007 points at the top-level value
        "guide: |\n  line one\n  line two\n",
        "a: 1\na: 2\n",
        "k: 'caf\u00e9'\nl: \u2014\n",
    ],
)
def test_positions_read_later_are_the_recorded_ones(text: str) -> None:
    recorded, later = _both(text)
    _assert_alike(recorded, later)
    assert later.span(("a",)) == recorded.span(("a",))
    assert later.has_position(("a",)) == recorded.has_position(("a",))
    assert later.key_span(("m", "y")) == recorded.key_span(("m", "y"))


def test_positions_are_read_again_under_the_limits_of_the_load() -> None:
    depth = DEFAULT_LIMITS.max_depth + 10  # refused under the default limits
    deep = "a: " + "[" * depth + "1" + "]" * depth + "\n"
    recorded, later = _both(deep, LoadLimits(max_depth=depth + 1))
    assert recorded.usable
    innermost = ("a",) + (0,) * depth
    assert later.span(innermost) == recorded.span(innermost) != later.span(())


def test_a_compiled_recipe_file_places_its_findings_like_a_loaded_one() -> None:
    for path in sorted((EMBEDDED / "models").rglob("*.yaml"))[:20]:
        rel = path.relative_to(EMBEDDED).as_posix()
        from_file = RecipeFile(path, rel, LoadLimits()).document()
        recorded = parse_yaml(path.read_text(encoding="utf-8"), path, "recipe", rel)
        _assert_alike(recorded, from_file)


@fuzz_settings(150)
@given(mutated_files())
def test_mutated_files_place_alike_with_and_without_recorded_positions(case: tuple) -> None:
    _, data = case
    _assert_alike(*_both(data.decode("utf-8", "surrogateescape")))


@pytest.mark.parametrize(
    ("text", "pointer", "written"),
    [
        ("d: 2026-02-30\n", ("d",), "2026-02-30"),
        ("d: '2026-02-30'  # note\n", ("d",), "'2026-02-30'"),
        ("k: caf\u00e9\nd: 2026-1-1\n", ("d",), "2026-1-1"),
        ("d: 2026-02-30", ("d",), "2026-02-30"),  # no line break after it
        ("d: |\n  2026-02-30\n", ("d",), ""),  # a block scalar spans lines
        ("d: [a,\n  b]\n", ("d",), ""),
        ("d: 1\ne: 2\n", ("absent",), ""),  # the nearest written node is the whole document
    ],
)
def test_one_line_source_is_the_value_as_written(
    text: str, pointer: tuple[str, ...], written: str
) -> None:
    recorded, later = _both(text)
    assert recorded.one_line_source(pointer) == later.one_line_source(pointer)
    assert recorded.one_line_source(pointer) == written
