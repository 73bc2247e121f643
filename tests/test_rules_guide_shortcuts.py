"""The guide rules' shortcuts give what the plain computation gives.

A block is dedented without textwrap where the answer is plain, fence lines are found by
map(), and a Python block's `model=` arguments are looked for only in the nodes written on
a line that spells `model`.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from propertyprofile import property_profile

from recipelint.read.tree import load_tree
from recipelint.rules.common import guide_text
from recipelint.rules.guide import GuideFacts, _package
from recipelint.rules.guide_flags import command_judge, guide_release
from recipelint.rules.guide_markdown import PYTHON, _lines_holding, dedented, fenced_blocks
from recipelint.rules.guide_python import _model_arguments
from recipelint.rules.versions import GUIDE_MINIMUM, guide_minimums


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


GUIDE_WORDS = st.sampled_from(
    [
        "vLLM >= 0.11",
        "vllm 0.11.0 or later",
        "VLLM: ≥ v1.2",
        "**vLLM** version >= 0.10.1",
        "vLlM  1.2.3 OR NEWER",
        "pip install vllm>=0.9",
        "vllm/vllm-openai",
        "vllm",
        " ",
        "\n",
        "*",
        ">=",
        "İ",
        "ß",
        "x",
    ]
)


@property_profile(500)
@given(st.lists(GUIDE_WORDS, max_size=16))
def test_guide_minimums_are_the_pattern_s_matches(words: list[str]) -> None:
    text = "".join(words)
    expected = [(m.span(), m.groups()) for m in GUIDE_MINIMUM.finditer(text)]
    assert [(m.span(), m.groups()) for m in guide_minimums(text)] == expected


def _walked(code: str) -> tuple[tuple[str, int], ...]:
    """Every call of the module visited, in ast.walk's order."""
    found = [
        (keyword.value.value, keyword.lineno)
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "model"
        and isinstance(keyword.value, ast.Constant)
        and isinstance(keyword.value.value, str)
    ]
    return tuple(sorted(found, key=lambda item: item[1]))


# Statements that hide a `model=` where only a full walk would look: under a decorator
# written above its definition, inside f-strings spread over lines, in nested calls on one
# line, split from its value, beyond ASCII, after a carriage return.
TRICKY = [
    '@app(model="deco")\ndef f():\n    pass\n',
    '@a\n@b(\n    model="deep",\n)\nclass C:\n    x = 1\n',
    'x = f"""\n{g(model="in-fstring")}\n"""\n',
    'x = f"""{g(\nmodel=\'split\')}"""\n',
    'f(g(model="a"), model="b"); h(model="c")\n',
    'f(model\n= "apart")\n',
    'f(model # a comment\n = ("paren" "joined"))\n',
    'f(ｍｏｄｅｌ="wide")\n',
    'f(model="cr")\rg(model="after")\n',
    'def f(model="default"):\n    return g(model=model)\n',
    "if x:\n    for y in z:\n        with w as v:\n            call(model='nested')\n",
    'lambda: f(model="in-lambda")\n',
    "[f(model=m) for m in ms]\nf(model='listed')\n",
]
LINES = st.sampled_from(
    [
        "import os",
        "client = OpenAI()",
        "r = client.chat.completions.create(",
        '    model="org/name",',
        "    messages=[{'role': 'user'}],",
        ")",
        "@decorate(model='d')",
        "def handler():",
        "    return call(model='inner')",
        "print(f'{x(model=\"f\")}')",
        'x = f"""',
        '{g(model="ml")}',
        '"""',
        "if cond:",
        "    pass",
    ]
)


@pytest.mark.parametrize("code", TRICKY)
def test_model_arguments_of_tricky_code_are_the_full_walk_s(code: str) -> None:
    assert _model_arguments(ast.parse(code), code) == _walked(code)


@property_profile(500)
@given(st.lists(LINES, max_size=14))
def test_model_arguments_of_generated_code_are_the_full_walk_s(lines: list[str]) -> None:
    code = "\n".join(lines) + "\n"
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return
    assert _model_arguments(tree, code) == _walked(code)


def test_model_arguments_of_the_corpus_guides_are_the_full_walk_s(corpus_tree: Path) -> None:
    checked = 0
    for doc in load_tree(corpus_tree).recipes:
        for block in fenced_blocks(guide_text(doc) or "") if doc.usable else ():
            if block.language not in PYTHON:
                continue
            try:
                tree = ast.parse(block.code)
            except SyntaxError:
                continue
            assert _model_arguments(tree, block.code) == _walked(block.code), doc.rel
            checked += 1
    assert checked


FOLLOWING = (None, "-x", "--other", "auto", "8192", "$VAR", "org/model", "[a]")


def test_an_option_that_takes_no_word_says_the_same_whatever_follows(corpus_tree: Path) -> None:
    judged = 0
    for doc in load_tree(corpus_tree).recipes:
        guide = guide_text(doc) if doc.usable else None
        for command in GuideFacts(guide).commands if guide else ():
            judge = command_judge(guide_release(doc.data), _package(doc, command))
            for word in command.words:
                if judge.reads_next_word(word):
                    continue
                readings = {
                    judge.reading(word, after, via) for after in FOLLOWING for via in (False, True)
                }
                assert len({r for r in readings if r[0]}) == 0, word
                assert len(readings) <= 2, word  # one per via_image at most
                assert {judge.reading(word, None, via) for via in (False, True)} == readings, word
                judged += 1
    assert judged
