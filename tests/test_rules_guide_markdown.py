"""rules/guide_markdown.py: a guide's fenced blocks, and its shortcuts (a block dedented without
textwrap where the answer is plain, fence lines found by map()) giving what the plain
computation gives."""

from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st
from propertyprofile import property_profile

from recipelint.rules.guide_markdown import _lines_holding, dedented, fenced_blocks


@property_profile(500)
@given(st.text(alphabet=st.sampled_from(list(" \t\nab#`~\x0c")), max_size=40))
def test_dedented_is_textwrap_s_dedent(code: str) -> None:
    assert dedented(code) == textwrap.dedent(code)


@property_profile(300)
@given(st.lists(st.sampled_from(["", "```", "a ``` b", "~~~", "``", "~~", "x~~~"]), max_size=12))
def test_fence_lines_are_the_lines_holding_a_fence(lines: list[str]) -> None:
    tildes = any("~~~" in line for line in lines)
    expected = [i for i, line in enumerate(lines) if "```" in line or "~~~" in line]
    assert _lines_holding(lines, "```", tildes) == expected


def test_fenced_blocks_keep_language_and_line() -> None:
    guide = "## Launch\n\n```bash\nvllm serve a/b\n```\n\n  ```python\n  print(1)\n  ```\n"
    blocks = fenced_blocks(guide)
    assert [(b.language, b.code, b.line) for b in blocks] == [
        ("bash", "vllm serve a/b", 4),
        ("python", "print(1)", 8),
    ]


def test_a_fence_inside_a_longer_fence_is_text_of_the_outer_block() -> None:
    guide = "````markdown\n```bash\nvllm serve a/b\n```\n````\n"
    [block] = fenced_blocks(guide)
    assert (block.language, block.code, block.line) == (
        "markdown",
        "```bash\nvllm serve a/b\n```",
        2,
    )


def test_a_block_s_blank_lines_are_emptied_and_its_margin_removed() -> None:
    assert dedented("vllm serve a/b \\\n  \n  --x") == "vllm serve a/b \\\n\n  --x"
    assert dedented("\n  vllm serve a/b\n  --x") == "\nvllm serve a/b\n--x"
    guide = "```bash\n\n  vllm serve a/b\n```\n"
    assert [(b.code, b.line) for b in fenced_blocks(guide)] == [("\nvllm serve a/b", 2)]
