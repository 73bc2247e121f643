"""RL321: typographic lookalikes of ASCII in args and env values, and their `--fix`."""

from __future__ import annotations

import shutil
import sys
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from treehelp import CONTEXT, Fragment, build_tree, context_text, findings_by_code

from recipelint.check.engine import run_checks
from recipelint.cli import cli
from recipelint.read.tree import load_tree
from recipelint.rulebook.examples import merged_document
from recipelint.rules.context import CheckContext
from recipelint.rules.typography import (
    ascii_lookalike,
    ascii_spelling,
    corrected,
    lookalikes,
    mistaken_lookalikes,
    typographic_lookalikes,
)

RECIPE = "models/acme/demo.yaml"


def _every_char_of(categories: set[str]) -> list[str]:
    return [
        chr(code)
        for code in range(128, sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in categories
    ]


def test_dashes_spaces_and_format_characters_come_from_their_unicode_category() -> None:
    assert {ascii_lookalike(char) for char in _every_char_of({"Pd"})} == {"-"}
    assert {ascii_lookalike(char) for char in _every_char_of({"Zs"})} == {" "}
    assert {ascii_lookalike(char) for char in _every_char_of({"Cf"})} == {""}


def test_initial_and_final_punctuation_passes_for_a_quote() -> None:
    assert {ascii_lookalike(char) for char in _every_char_of({"Pi", "Pf"})} == {'"', "'"}


@pytest.mark.parametrize(
    ("char", "ascii"),
    [
        ("\u2014", "-"),  # em dash
        ("\u2212", "-"),  # minus sign (a math symbol, not Pd)
        ("\u201c", '"'),
        ("\u201d", '"'),
        ("\u00ab", '"'),
        ("\u2018", "'"),
        ("\u2019", "'"),
        ("\u00a0", " "),
        ("\u202f", " "),
        ("\u200b", ""),
        ("\ufeff", ""),
        ("\uff1d", "="),  # fullwidth equals sign, by its compatibility form
        ("\uff02", '"'),  # fullwidth quotation mark: `"` by its compatibility form, not `'`
    ],
)
def test_lookalikes_pass_for_their_ascii(char: str, ascii: str) -> None:
    assert ascii_lookalike(char) == ascii


@pytest.mark.parametrize("char", ["-", '"', "é", "中", "→", "µ"])
def test_ascii_and_real_text_are_no_lookalikes(char: str) -> None:
    assert ascii_lookalike(char) is None


@pytest.mark.parametrize(
    ("text", "argument", "expected"),
    [
        ("\u2014reasoning-parser", True, "--reasoning-parser"),
        ("\u2013max-model-len=4096", True, "--max-model-len=4096"),
        ("-\u2013tp", True, "--tp"),
        ("\u2013q", True, "-q"),
        ("\u22121", True, "-1"),
        ("\u2014x2-mode", True, "--x2-mode"),  # a long name whose second character is no letter
        ("--max\u2011model\u2011len", True, "--max-model-len"),
        ("{\u201cmethod\u201d:\u201cmtp\u201d}", True, '{"method":"mtp"}'),
        ("{\uff02method\uff02:\uff02mtp\uff02}", True, '{"method":"mtp"}'),
        ("\u2014x", False, "-x"),  # an env value is no option
        ("expandable_segments:True\u200b", False, "expandable_segments:True"),
    ],
)
def test_ascii_spelling(text: str, argument: bool, expected: str) -> None:
    assert ascii_spelling(text, argument) == expected


def test_lookalikes_are_listed_once_in_order() -> None:
    found = lookalikes("\u201ca\u201d \u201cb\u201d\u00a0")
    assert [item.label for item in found] == [
        "U+201C LEFT DOUBLE QUOTATION MARK",
        "U+201D RIGHT DOUBLE QUOTATION MARK",
        "U+00A0 NO-BREAK SPACE",
    ]


@pytest.mark.parametrize(
    "text",
    [
        '{"system": "answer \u2014 briefly, \u201cplease\u201d"}',  # JSON that parses
        '--default-chat-template-kwargs={"note": "a\u00a0b"}',
        '--override-generation-config={"note": "x=y \u2014 z"}',  # a `=` inside the JSON
        "{% for m in messages %}\n{{ m.content }} \u2014 ok\n{% endfor %}",  # a template
    ],
)
def test_dashes_and_quotes_inside_prose_are_the_writers(text: str) -> None:
    assert mistaken_lookalikes(text) == []
    assert corrected(text, True) == text


def test_invisible_characters_inside_prose_are_still_mistakes() -> None:
    text = '{"model": "acme/demo\u200b", "note": "\u2014"}'
    assert [item.label for item in mistaken_lookalikes(text)] == ["U+200B ZERO WIDTH SPACE"]
    assert corrected(text, True) == '{"model": "acme/demo", "note": "\u2014"}'


def test_json_nested_past_the_parsers_depth_is_read_as_a_token() -> None:
    text = "[" * 100_000 + "\u2014" + "]" * 100_000
    assert [item.label for item in mistaken_lookalikes(text)] == ["U+2014 EM DASH"]


def test_json_broken_by_curly_quotes_is_no_prose() -> None:
    text = "{\u201cmethod\u201d: \u201cmtp\u201d}"
    assert len(mistaken_lookalikes(text)) == 2
    assert corrected(text, True) == '{"method": "mtp"}'


def test_the_finding_names_the_character_and_the_ascii_spelling(tmp_path: Path) -> None:
    fragment = 'model:\n  base_args: ["\u2014reasoning-parser", "qwen3"]\n'
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})
    assert list(found) == ["RL321"]
    (diag,) = found["RL321"]
    assert diag.message == (
        "argument `\u2014reasoning-parser` holds U+2014 EM DASH (ASCII `-`): "
        "vLLM and the shell read it as written, not as the ASCII it looks like"
    )
    assert diag.hint == "write `--reasoning-parser`"
    assert diag.pointer == ("model", "base_args", 0)


def test_invisible_characters_are_shown_as_escapes(tmp_path: Path) -> None:
    fragment = (
        'model:\n  base_env:\n    PYTORCH_CUDA_ALLOC_CONF: "expandable_segments:True\u200b"\n'
    )
    (diag,) = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})["RL321"]
    assert diag.message.startswith(
        "env `PYTORCH_CUDA_ALLOC_CONF` `expandable_segments:True\\u200b` holds "
        "U+200B ZERO WIDTH SPACE (invisible)"
    )


def test_strategy_file_args_and_env_are_read(tmp_path: Path) -> None:
    strategy = (CONTEXT / "strategies" / "multi_node_tp.yaml").read_text(encoding="utf-8")
    strategy += '  NCCL_IB_HCA: "mlx5\u00a00"\n'
    found = findings_by_code(tmp_path, {"strategies/multi_node_tp.yaml": strategy})
    assert [d.pointer for d in found["RL321"]] == [("env", "NCCL_IB_HCA")]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (
            '    - "\u2014reasoning-parser"\n    - qwen3\n',
            '    - "--reasoning-parser"\n    - qwen3\n',
        ),
        ("    - \u2014reasoning-parser\n    - qwen3\n", "    - --reasoning-parser\n    - qwen3\n"),
        (
            "    - '\u2014reasoning-parser'\n    - qwen3\n",
            "    - '--reasoning-parser'\n    - qwen3\n",
        ),
    ],
)
def test_fix_writes_the_ascii_flag_and_the_file_checks_clean(
    tmp_path: Path, written: str, expected: str
) -> None:
    root = tmp_path / "tree"
    shutil.copytree(CONTEXT, root)
    base = merged_document(RECIPE, "model:\n  base_args: [PLACEHOLDER]\n")
    path = root / RECIPE
    path.parent.mkdir(parents=True, exist_ok=True)
    before = base.replace("  base_args: [PLACEHOLDER]\n", "  base_args:\n" + written)
    path.write_text(before, encoding="utf-8")

    result = CliRunner().invoke(cli, ["check", str(path), "--fix"], catch_exceptions=False)

    after = path.read_text(encoding="utf-8")
    assert after == before.replace(written, expected)
    assert "RL321" in result.stderr
    assert [d for d in run_checks(load_tree(root)) if d.path == path] == []
    again = CliRunner().invoke(cli, ["check", str(path)], catch_exceptions=False)
    assert again.exit_code == 0


def test_a_dash_after_a_hyphen_is_reported_with_the_double_dash(tmp_path: Path) -> None:
    fragment = 'model:\n  base_args: ["-\u2013tp", "2"]\n'
    (diag,) = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})["RL321"]
    assert diag.message.startswith("argument `-\u2013tp` holds U+2013 EN DASH (ASCII `-`): ")
    assert diag.hint == "write `--tp`"


_KV_ARGS = '    args:\n      - "--kv-transfer-config"\n'


def _taxonomy_with_kv_args(*items: str) -> str:
    text = context_text("taxonomy.yaml")
    assert _KV_ARGS in text
    return text.replace(_KV_ARGS, "    args:\n" + "".join(f"      - {i}\n" for i in items), 1)


def test_taxonomy_option_args_are_read_past_items_that_are_no_text(tmp_path: Path) -> None:
    taxonomy = _taxonomy_with_kv_args("4096", '"\u2014kv-transfer-config"')
    found = findings_by_code(tmp_path, {"taxonomy.yaml": taxonomy})
    (diag,) = found["RL321"]
    assert diag.pointer == ("kv_offload", "simple", "args", 1)
    assert diag.hint == "write `--kv-transfer-config`"


def test_a_check_of_one_recipe_leaves_the_taxonomy_alone(tmp_path: Path) -> None:
    taxonomy = _taxonomy_with_kv_args('"\u2014kv-transfer-config"')
    fragment = 'model:\n  base_args: ["\u2014reasoning-parser", "qwen3"]\n'
    root = build_tree(tmp_path, {"taxonomy.yaml": taxonomy, RECIPE: Fragment(fragment)})
    tree = load_tree(root)
    recipe = root / RECIPE

    focused = list(typographic_lookalikes(CheckContext(tree, focus=lambda path: path == recipe)))
    every = list(typographic_lookalikes(CheckContext(tree)))

    assert [(f.doc.path, f.pointer) for f in focused] == [(recipe, ("model", "base_args", 0))]
    assert sorted((f.doc.path.name, f.pointer) for f in every) == [
        ("demo.yaml", ("model", "base_args", 0)),
        ("taxonomy.yaml", ("kv_offload", "simple", "args", 0)),
    ]
