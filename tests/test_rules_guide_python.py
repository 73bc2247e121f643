"""rules/guide_python.py: what the guide rules read of a guide's Python blocks (syntax errors,
the `model=` arguments of calls).

Its shortcut gives what the plain computation gives: a Python block's `model=` arguments are
looked for only in the nodes written on a line that spells `model`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from propertyprofile import property_profile
from rulehelp import findings_of

from recipelint.read.tree import load_tree
from recipelint.rules.common import guide_text
from recipelint.rules.guide_markdown import PYTHON, fenced_blocks
from recipelint.rules.guide_python import (
    _model_arguments,
    model_arguments,
    notebook_style,
    syntax_error,
)


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


def test_python_verdicts_and_model_arguments() -> None:
    assert syntax_error("x = f(\n") is not None
    assert syntax_error("client.chat.completions.create(model='a/b', messages=[])\n") is None
    code = "c.create(model='a/b')\nc.create(\n    model=\"x/y\",\n)\nc.create(model=name)\n"
    assert model_arguments(code) == (("a/b", 1), ("x/y", 3))


def test_deeply_nested_python_is_judged_without_libcst() -> None:
    # libcst's native parser overflows its stack on thousands of brackets; CPython's refusal is used instead.
    assert syntax_error("(" * 5000) == ("too many nested parentheses", 1)
    assert (
        syntax_error("".join(" " * i + "if x:\n" for i in range(300)))[0]
        == "too many levels of indentation"
    )
    assert model_arguments("[" * 5000) == ()


def test_model_arguments_come_in_the_order_of_their_lines() -> None:
    code = "c.create(model='z/last')\nc.create(model='a/first')\nprint('done')\n"
    assert model_arguments(code) == (("z/last", 1), ("a/first", 2))


# CPython refuses these blocks for their other fault; past MAX_NESTING (100) brackets its
# refusal is the verdict, up to it libcst words the message.
TRAILING_PLUS = " +\n"


def test_a_block_nested_past_the_limit_keeps_cpython_s_verdict() -> None:
    assert syntax_error("(" * 101 + "1" + ")" * 101 + TRAILING_PLUS) == ("invalid syntax", 1)
    assert syntax_error(")" + "(" * 101 + "1" + ")" * 101 + "\n") == ("unmatched ')'", 1)


def test_a_block_nested_up_to_the_limit_gets_libcst_s_verdict() -> None:
    for code in ("(" * 100 + "1" + ")" * 100 + TRAILING_PLUS, "()" * 101 + TRAILING_PLUS):
        verdict = syntax_error(code)
        assert verdict is not None and verdict[0].startswith("parser error: error at 2:0:")
        assert verdict[1] == 1
    assert syntax_error(")" + "(" * 100 + "1" + ")" * 100 + "\n") == (
        "tokenizer error: unmatched ')'",
        1,
    )


def test_a_block_too_deep_for_cpython_s_parser_is_reported_as_nested_too_deeply(
    tmp_path: Path,
) -> None:
    """CPython's parser runs out of stack (MemoryError, no message, no line) on thousands of
    nested unary operators: the finding says why, at the block's first line."""
    deep = "-" * 7000 + "1"
    assert syntax_error(f"x = 1\n{deep}\n") == ("nested too deeply", 1)
    guide = f"guide: |\n  ## Client\n\n  ```python\n  x = 1\n  {deep}\n  ```\n"
    [finding] = findings_of(tmp_path, guide, "RL601")
    assert finding.message == "python block in the guide does not parse: nested too deeply"
    lines = (tmp_path / "models/acme/demo.yaml").read_text(encoding="utf-8").split("\n")
    assert lines[finding.line - 1] == "  x = 1"


def test_an_interactive_transcript_is_not_parsed_as_a_module(tmp_path: Path) -> None:
    assert notebook_style(">>> x = (\n")
    assert notebook_style("!pip install vllm\n")
    assert not notebook_style("x = 1\n")
    guide = (
        "guide: |\n  ```python\n  >>> reply = client.create(\n  ```\n\n"
        "  ```python\n  reply = client.create(\n  ```\n"
    )
    [finding] = findings_of(tmp_path, guide, "RL601")
    lines = (tmp_path / "models/acme/demo.yaml").read_text(encoding="utf-8").split("\n")
    assert lines[finding.line - 1] == "  reply = client.create("
