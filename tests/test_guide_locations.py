"""Findings inside the guide sit on their own line and column of the block scalar.

Document.scalar_line_span maps a line of a parsed string to where it is written; every
mapped line is checked against the value, and what cannot be placed gets the node's span.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from treehelp import base_recipe, tree_findings

from recipelint.diagnostics import Span
from recipelint.read.load import parse_yaml

RECIPE = "models/acme/demo.yaml"


def written(text: str, span: Span) -> str:
    """The source text a one-line span covers."""
    lines = re.split("\r\n|\r|\n", text)
    assert span.end_line == span.line, span
    return lines[span.line - 1][span.column - 1 : span.end_column - 1]


def every_line(text: str, pointer: tuple) -> list[tuple[str, Span]]:
    doc = parse_yaml(text)
    assert doc.usable, doc.problems
    value = doc.data
    for part in pointer:
        value = value[part]
    return [
        (line, doc.scalar_line_span(pointer, index)) for index, line in enumerate(value.split("\n"))
    ]


@pytest.mark.parametrize(
    ("text", "pointer", "expected"),
    [
        ("g: |\n  a\n  bb\n\n  c\n", ("g",), [(2, 3), (3, 3), (4, 1), (5, 3)]),
        ("g: |-\n  a\n   b\n", ("g",), [(2, 3), (3, 3)]),
        ("g: |+\n  a\n\n\nx: 1\n", ("g",), [(2, 3), (3, 1), (4, 1)]),
        ("g: |2\n   a\n  b\n", ("g",), [(2, 3), (3, 3)]),
        ("k:\n  g: |2\n     a\n    b\n", ("k", "g"), [(3, 5), (4, 5)]),
        ("k:\n- |2\n   a\n  b\n", ("k", 0), [(3, 3), (4, 3)]),
        ("g: >2-\n   a\n  b\n", ("g",), [(2, 3), (3, 3)]),
        ("g: |\r\n  a\r\n  b\r\n", ("g",), [(2, 3), (3, 3)]),
        ("g: |\n\n  a\n  b\n", ("g",), [(2, 1), (3, 3), (4, 3)]),
        ("g: |  # a comment\n    a\n    b", ("g",), [(2, 5), (3, 5)]),
        ("g: >\n  a\n  b\n\n  c\n   d\n  e\n", ("g",), [(2, 3), (5, 3), (6, 3), (7, 3)]),
        ("g: >-\n\n  a\n  b\n\n\n  c\n", ("g",), [(2, 1), (3, 3), None, (7, 3)]),
        ("g: plain\n  more\n\n  next\n", ("g",), [(1, 4), (4, 3)]),
        ('g: "x\n  y\n\n  z"\n', ("g",), [(1, 5), (4, 3)]),
    ],
)
def test_each_value_line_maps_to_its_source_line(text: str, pointer: tuple, expected: list) -> None:
    lines = every_line(text, pointer)
    for (line, span), place in zip(lines, expected, strict=False):
        if place is None:
            continue
        assert (span.line, span.column) == place, (line, span)
        source = written(text, span)
        # A literal line is written verbatim; a folded or flow line starts with its first source line.
        assert (
            source == line
            if text.split(":", 1)[1].lstrip().startswith("|")
            else line.startswith(source)
        )


def test_offsets_narrow_the_span_to_a_word() -> None:
    text = "a: 1\nguide: |\n  ## Launch\n  run vllm/vllm-openai:v1 now\n"
    doc = parse_yaml(text)
    line = doc.data["guide"].split("\n")[1]
    start = line.index("vllm/")
    span = doc.scalar_line_span(("guide",), 1, start, start + len("vllm/vllm-openai:v1"))
    assert written(text, span) == "vllm/vllm-openai:v1"
    assert (span.line, span.column) == (4, 7)


@pytest.mark.parametrize(
    "text",
    [
        'g: "a\\nb"\n',  # an escape writes the break: no source line holds line 1
        "g: 'it''s\n\n  x'\n",  # '' is one quote in the value
        "g: |\n  a\n",  # line 5 does not exist
        "g: 12\n",  # not a string
    ],
)
def test_what_cannot_be_placed_gets_the_node_span(text: str) -> None:
    doc = parse_yaml(text)
    node = doc.span(("g",))
    for index in range(6):
        span = doc.scalar_line_span(("g",), index)
        assert span == node or (span.end_line == span.line and span.line >= node.line)
    assert doc.scalar_line_span(("g",), 5) == node
    assert doc.scalar_line_span(("missing",), 0) == doc.span(("missing",))


def test_mapped_lines_always_hold_their_value_line() -> None:
    """Property: for block scalars of every style, a mapped span never points at the wrong text."""
    bodies = ["a", "", " b", "c d", "", "", "e", "  f", "g"]
    for header in ("|", "|-", "|+", ">", ">-", ">+", "|2", ">2"):
        for cut in range(1, len(bodies) + 1):
            text = (
                "k:\n  g: "
                + header
                + "\n"
                + "".join(("    " + body if body else "") + "\n" for body in bodies[:cut])
                + "x: 1\n"
            )
            doc = parse_yaml(text)
            if not doc.usable:
                continue
            value = doc.data["k"]["g"]
            node = doc.span(("k", "g"))
            for index, line in enumerate(value.split("\n")):
                span = doc.scalar_line_span(("k", "g"), index)
                if span == node:
                    continue
                source = written(text, span)
                assert source == line if header[0] == "|" else line.startswith(source), (
                    header,
                    cut,
                    index,
                )


# --- the guide rules use it -------------------------------------------------------------------


def recipe_text(guide: str) -> str:
    """The base recipe with ``guide`` written as a literal block at the end, as authors write it."""
    recipe = base_recipe()
    del recipe["guide"]
    return (
        yaml.safe_dump(recipe, sort_keys=False)
        + "guide: |\n"
        + "".join(f"  {line}\n" if line else "\n" for line in guide.split("\n"))
    )


GUIDE = """## Prerequisites
- vLLM >= 0.22.0

## Launch

```bash
docker run vllm/vllm-openai:demo-preview acme/demo
vllm serve acme/other-model --max-model-len 8192
vllm serve acme/demo --max_model_len 8192 \\
  --gpu-memory-util-x 0.9
```

```python
from openai import OpenAI
client = OpenAI()
client.chat.completions.create(model="acme/unknown", messages=[])
```

```python
print((
```"""


def test_guide_findings_point_at_their_own_line_and_column(tmp_path: Path) -> None:
    text = recipe_text(GUIDE)
    found = {d.code: d for d in tree_findings(tmp_path, {RECIPE: text})}
    expected = {
        "RL405": "vLLM >= 0.22.0",
        "RL406": "vllm/vllm-openai:demo-preview",
        "RL603": "acme/other-model",
        "RL602": "acme/unknown",
        "RL604": "--gpu-memory-util-x",
        "RL606": "--max_model_len",
    }
    for code, needle in expected.items():
        assert code in found, sorted(found)
        assert written(text, found[code].span) == needle, (code, found[code].span)
        assert "line " not in found[code].message  # the place is the span, not a number in the text
    assert text.split("\n")[found["RL601"].span.line - 1].strip() == "print(("


def test_an_edit_above_the_guide_moves_the_finding_with_its_line(tmp_path: Path) -> None:
    text = recipe_text(GUIDE)
    before = next(d for d in tree_findings(tmp_path, {RECIPE: text}) if d.code == "RL603")
    edited = text.replace(
        "guide: |\n  ## Prerequisites\n",
        "guide: |\n  ## Intro\n  Two new lines.\n  ## Prerequisites\n",
    )
    after = next(d for d in tree_findings(tmp_path, {RECIPE: edited}) if d.code == "RL603")
    assert after.span.line == before.span.line + 2 and after.message == before.message
