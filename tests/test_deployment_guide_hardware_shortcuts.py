"""RL380-RL383's and RL607's shortcuts give what the plain computation gives.

RL607 reads only the guide blocks in which something selects, tests plain substrings before
its selecting pattern, and scans a heading for hardware words only when its lowercase holds
one. RL380-RL383 keep the ranks of an emitter's tokens per token list.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from propertyprofile import property_profile

from recipelint.flags.catalog import newest_catalog
from recipelint.read.tree import load_tree
from recipelint.resolve.deployment import Deployment, _Placed, ranks_of
from recipelint.rules.common import guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.deployment import _Shared
from recipelint.rules.guide import GuideFacts
from recipelint.rules.guide_hardware import (
    HEADING,
    SELECTING_TEXT,
    GuideOutline,
    HardwareWords,
    _may_select,
    _selecting_commands,
    _selects,
)

# Lines that select, name hardware, serve, fence, or break lines in other ways than "\n".
GUIDE_LINES = st.sampled_from(
    [
        "```bash",
        "```",
        "  ```",
        "~~~sh",
        "~~~",
        "```python",
        "vllm serve org/model \\",
        "  --attention-backend FLASHINFER",
        "-q fp8",
        "  -q fp8 vllm serve m",
        "  -q=awq \\",
        "  --quantization fp8",
        "VLLM_ATTENTION_BACKEND=TRITON_ATTN vllm serve org/model",
        "docker run vllm/vllm-openai:latest org/model --moe-backend x",
        "Run `vllm serve org/model -q fp8` on H200.",
        "echo `vllm serve m --attention_backend X`",
        "## On MI355X",
        "### NVIDIA B200",
        "> ```bash",
        "> vllm serve m -q fp8",
        "pip install -q vllm",
        "",
        "text\rmore -q x",
        "\x0c",
    ]
)


HEADING_LINES = st.sampled_from(
    [
        "# H200",
        "   ## On MI355X ##",
        "    # code",
        "#no",
        "###### x #",
        "####### seven",
        "#",
        "# \r",
        "\t# tab",
    ]
)


def _plain_selecting(facts: GuideFacts) -> list[object]:
    return [command for command in facts.commands if command.lines and _may_select(command)]


def _kept(commands: object) -> list[object]:
    return [c for c in commands if c.lines and _may_select(c)]  # type: ignore[attr-defined]


@property_profile(400)
@given(st.lists(GUIDE_LINES, max_size=14))
# An indented block whose first line selects: only its margin puts a space before `-q`.
@example(["  ```", "  -q fp8 vllm serve m", "  ```"])
def test_selecting_commands_are_the_commands_that_select(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert _kept(_selecting_commands(GuideFacts(text))) == _plain_selecting(GuideFacts(text))


@property_profile(400)
@given(st.lists(GUIDE_LINES, max_size=8).map(" ".join))
def test_selects_is_the_pattern_s_search(text: str) -> None:
    assert _selects(text) == bool(SELECTING_TEXT.search(text))


# `\s` is Unicode whitespace: the separators below ASCII space and the no-break space too.
SHORT_Q_TEXT = st.text(
    alphabet=st.sampled_from(["-", "q", " ", "=", "\t", "\n", "\x1c", "\xa0", "\u2028", "a"]),
    max_size=12,
)


@property_profile(800)
@given(SHORT_Q_TEXT)
def test_short_options_are_the_pattern_s(text: str) -> None:
    assert _selects(text) == bool(SELECTING_TEXT.search(text))


def test_corpus_guides_select_alike(corpus_tree: Path) -> None:
    tree = load_tree(corpus_tree)
    read = 0
    for doc in tree.recipes:
        text = guide_text(doc)
        if not text:
            continue
        assert _selects(text) == bool(SELECTING_TEXT.search(text))
        facts = GuideFacts(text)
        assert _kept(_selecting_commands(facts)) == _plain_selecting(GuideFacts(text))
        read += 1
    assert read > 50


HEADING_WORDS = st.sampled_from(
    [
        "H200",
        "8xH200",
        "2× MI300X",
        "nvidia/",
        "NVIDIA",
        "Blackwell",
        "cpu",
        "CPU offload",
        "ſ",  # long s: case folding matches it with s, lower() does not
        "\u212a",  # Kelvin sign: folds to k
        "İ",
        "`H100`",
        "sm_90",
        "SM100",
        "gfx942",
        "rtx pro 6000",
        "On",
        " ",
        "-",
        "_",
        "x",
    ]
)


@pytest.fixture(scope="module")
def hardware_words(corpus_tree: Path) -> HardwareWords:
    tree = load_tree(corpus_tree)
    ctx = CheckContext(tree)
    return HardwareWords(ctx.profiles, tree.taxonomy.data if tree.taxonomy else None)


def _scanned(words: HardwareWords, text: str) -> frozenset[str] | None:
    """named() without the substring test: every text scanned by the pattern."""
    holds = words._may_hold_a_word
    words._may_hold_a_word = lambda lowered: True  # type: ignore[method-assign]
    try:
        return words._read(text)
    finally:
        words._may_hold_a_word = holds  # type: ignore[method-assign]


def test_named_is_the_scan_s_reading(hardware_words: HardwareWords) -> None:
    @property_profile(500)
    @given(st.lists(HEADING_WORDS, max_size=6).map(" ".join))
    def check(text: str) -> None:
        assert hardware_words.named(text) == _scanned(hardware_words, text)

    check()


TOKENS = st.lists(
    st.sampled_from(
        ["--tensor-parallel-size", "-tp", "--data-parallel-size", "--enable-expert-parallel"]
        + ["2", 2, 2.0, True, "", 0, "--tensor-parallel-size=4", "--no-enable-expert-parallel"]
    ),
    max_size=6,
)


@property_profile(300)
@given(st.lists(TOKENS, min_size=1, max_size=4))
def test_emitter_ranks_are_ranks_of(lists: list[list[object]]) -> None:
    shared = _Shared.__new__(_Shared)
    shared._ranks = {}
    flags = newest_catalog()
    for tokens in lists + lists:  # asked again, from the kept answers
        assert repr(shared.emitter_ranks(tokens, flags)) == repr(ranks_of(tokens, flags))


def _scanned_headings(outline: GuideOutline) -> list[tuple[int, int, str]]:
    """The headings by one scan of the whole guide."""
    found = []
    for match in HEADING.finditer(outline.text):
        number = outline.text.count("\n", 0, match.start()) + 1
        if outline.fence_of(number) is None:
            found.append((number, len(match.group(1)), match.group(2)))
    return found


@property_profile(400)
@given(st.lists(GUIDE_LINES | HEADING_LINES, max_size=14).map("\n".join))
def test_headings_are_the_scan_s(text: str) -> None:
    facts = GuideFacts(text)
    outline = GuideOutline(text, facts.blocks, HardwareWords({}, None))
    assert outline.headings == _scanned_headings(outline)


def test_placed_facts_are_the_deployment_s_last_fields() -> None:
    """deployment_of hands a _Placed to Deployment by position."""
    names = tuple(field.name for field in dataclasses.fields(Deployment))
    assert names[-len(_Placed._fields) :] == _Placed._fields
