"""RL001 at the mistake: a missing colon, an unclosed quote or bracket, a misindented key.

libyaml notices these lines later than they are made (on the next line, at the end of
the file); each test writes the mistake into a recipe of a copied tree and checks the
file through the command line, as an editor's save or pre-commit does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import replace_once

from recipelint.cli import main

RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


@pytest.fixture
def tree(embedded_copy: Path) -> Path:
    return embedded_copy


def _syntax_error(
    tree: Path, capsys: pytest.CaptureFixture[str], old: str, new: str
) -> tuple[dict[str, object], list[str]]:
    """The one RL001 finding of the recipe with ``old`` replaced by ``new``, and its lines."""
    path = tree / RECIPE
    replace_once(path, old, new)
    status = main(["check", "--jobs", "1", "--format", "json", RECIPE])
    [finding] = json.loads(capsys.readouterr().out)
    assert status == 1 and finding["code"] == "RL001"
    return finding, path.read_text(encoding="utf-8").split("\n")


def _line_of(lines: list[str], finding: dict[str, object]) -> str:
    line = finding["line"]
    assert isinstance(line, int)
    return lines[line - 1]


def _text_at(lines: list[str], finding: dict[str, object]) -> str:
    column, end = finding["column"], finding["end_column"]
    assert isinstance(column, int) and isinstance(end, int)
    return _line_of(lines, finding)[column - 1 : end - 1]


def test_a_missing_colon_is_reported_on_its_line_not_on_the_comment_after_it(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(
        tree, capsys, '  provider: "Qwen"\n', '  provider "Qwen"\n  # who publishes it\n'
    )
    assert _text_at(lines, finding) == 'provider "Qwen"'
    assert finding["message"] == 'YAML syntax error: `provider "Qwen"` has no `:` after its key'
    assert finding["hint"] == (
        'write `provider: "Qwen"`: a key, a colon and a space, then the value'
    )


def test_a_missing_colon_before_a_nested_block_is_reported_on_its_line(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(tree, capsys, "\nmodel:\n", "\nmodel\n")
    assert _line_of(lines, finding) == "model" and _text_at(lines, finding) == "model"
    assert finding["message"] == "YAML syntax error: `model` has no `:` after its key"


def test_an_unclosed_quote_is_reported_where_the_string_opens(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(tree, capsys, '  provider: "Qwen"\n', '  provider: "Qwen\n')
    assert _line_of(lines, finding) == '  provider: "Qwen'
    assert _text_at(lines, finding) == '"Qwen'
    assert finding["message"] == (
        'YAML syntax error: the string opened with `"` here is not closed on its line'
    )
    assert finding["hint"] == (
        'close it with `"` at the end of the value; a text over several lines is clearer '
        "as a block scalar (`|` or `>`)"
    )


def test_an_unclosed_quote_at_the_end_of_the_file_is_reported_where_it_opens(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tree / RECIPE
    path.write_text(path.read_text(encoding="utf-8") + "extra: 'open\n", encoding="utf-8")
    finding, lines = _syntax_error(tree, capsys, "extra: 'open\n", "extra: 'open\n")
    assert _line_of(lines, finding) == "extra: 'open" and _text_at(lines, finding) == "'open"


def test_a_key_dedented_out_of_its_block_names_the_blocks_around_it(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(
        tree, capsys, "    vram_minimum_gb: 19\n", "   vram_minimum_gb: 19\n"
    )
    assert _text_at(lines, finding) == "vram_minimum_gb"
    assert finding["message"] == (
        "YAML syntax error: key `vram_minimum_gb` is indented 3 spaces, which matches no "
        "block around it: `precision` above is at 4, `default` at 2"
    )
    assert finding["hint"] == (
        "indent `vram_minimum_gb` 4 spaces to keep it beside `precision`, "
        "or 2 to put it beside `default`"
    )


def test_a_key_indented_under_a_plain_value_is_reported_on_that_key(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(
        tree, capsys, '  provider: "Qwen"\n', '  provider: Qwen\n    extra: "x"\n'
    )
    assert _text_at(lines, finding) == "extra"
    assert finding["message"] == (
        "YAML syntax error: key `extra` is indented 4 spaces, deeper than `provider` above "
        "(2), so it reads as part of that key's value"
    )


def test_a_missing_colon_on_a_block_s_first_key_is_reported_on_its_line(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(tree, capsys, "    precision: bf16\n", "    precision bf16\n")
    assert _text_at(lines, finding) == "precision bf16"
    assert finding["message"] == "YAML syntax error: `precision bf16` has no `:` after its key"


def test_a_value_holding_colon_space_is_told_to_be_quoted(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(
        tree, capsys, '  provider: "Qwen"\n', "  provider: Qwen: Alibaba\n"
    )
    assert _text_at(lines, finding) == "Qwen: Alibaba"
    assert finding["hint"] == 'quote the value: `provider: "Qwen: Alibaba"`'


def test_an_unclosed_bracket_is_reported_where_it_opens(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(
        tree, capsys, '  provider: "Qwen"\n', '  provider: "Qwen"\n  tags: [a, b\n'
    )
    assert _text_at(lines, finding) == "[a, b"
    assert finding["message"] == "YAML syntax error: the `[` opened here is not closed on its line"


def test_a_missing_colon_in_a_list_item_before_its_next_key_is_reported_on_the_item(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finding, lines = _syntax_error(
        tree, capsys, "  tasks:\n    - text\n", "  tasks:\n    - name text\n      kind: chat\n"
    )
    assert _line_of(lines, finding) == "    - name text"
    assert finding["message"] == "YAML syntax error: `name text` has no `:` after its key"


def test_a_key_dedented_out_of_its_block_is_reported_on_that_key(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # libyaml stumbles on the next key (`architecture`), which is where the block resumes;
    # the line that left the block is the one to move back.
    finding, lines = _syntax_error(
        tree, capsys, '  min_vllm_version: "0.8.5"\n', 'min_vllm_version: "0.8.5"\n'
    )
    assert _text_at(lines, finding) == "min_vllm_version"
    assert finding["message"] == (
        "YAML syntax error: key `min_vllm_version` is indented 0 spaces, out of the block "
        "that `model_id` above it and `architecture` below it are in (2), so `architecture` "
        "reads as part of its value"
    )
    assert finding["hint"] == "indent `min_vllm_version` 2 spaces like `model_id`"
