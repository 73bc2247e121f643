"""Messages an author can act on: tabs named with their place, indentation mistakes, pointer-form items.

Every case is a small synthetic file read by the real loader, or a tree checked by the real engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from treehelp import tree_findings, write_documents

from recipelint.diagnostics import Diagnostic
from recipelint.read.load import TAB_FIX, load_document

RECIPE = "models/acme/demo.yaml"

# A valid recipe written as text (not dumped), so each case changes exact lines and columns.
BASE = """\
meta:
  title: Demo
  slug: demo
  provider: Acme
  description: Demo.
  date_added: 2026-01-10
  date_updated: 2026-01-12
  difficulty: beginner
  tasks: [text]
model:
  model_id: acme/demo
  min_vllm_version: 0.20.0
  architecture: dense
  parameter_count: 8B
  active_parameters: 8B
  context_length: 32768
  base_args: []
variants:
  default:
    precision: bf16
    vram_minimum_gb: 20
compatible_strategies: [single_node_tp]
guide: |
  ## Overview
"""


def _load(tmp_path: Path, text: str) -> list[Diagnostic]:
    [path] = write_documents(tmp_path, {"x.yaml": text})
    return load_document(path).problems


def _check(root: Path, text: str) -> list[Diagnostic]:
    """The findings on one recipe of a small tree built from the embedded context."""
    return tree_findings(root, {RECIPE: text})


def _edit(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new, 1)


# ----------------------------------------------------------------------------- tabs


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        pytest.param("meta:\n\ttitle: Demo\n", 2, 1, id="before-first-key"),
        pytest.param("meta:\n  a: 1\n\tb: 2\n", 3, 1, id="before-later-key"),
        pytest.param("\tmeta: 1\n", 1, 1, id="before-top-level-key"),
        pytest.param("args:\n\t- a\n", 2, 1, id="before-first-item"),
        pytest.param("args:\n  - a\n\t- b\n", 3, 1, id="before-later-item"),
        pytest.param("args:\n  -\ta\n", 2, 4, id="after-dash"),
        pytest.param("args:\n  - \ta\n", 2, 5, id="after-dash-and-space"),
        pytest.param("args:\n  -\ta: 1\n", 2, 4, id="after-dash-before-key"),
        pytest.param("a:\n  - -\tb\n", 2, 6, id="after-nested-dash"),
        pytest.param("a:\n  - b: 1\n  \tc: 2\n", 3, 3, id="second-key-of-an-item"),
        pytest.param("args:\n\t[a, b]\n", 2, 1, id="before-flow-collection"),
        pytest.param("meta:\n  \ttitle: Demo\n", 2, 3, id="spaces-then-tab"),
        pytest.param("meta:\n\t  title: Demo\n", 2, 1, id="tab-then-spaces"),
        pytest.param("a:\n  b:\n\t  - x\n", 3, 1, id="tab-then-spaces-before-item"),
        pytest.param("meta:\r\n\ttitle: x\r\n", 2, 1, id="crlf"),
        pytest.param("a:\n  b: 1\n\t\n  c: 2\n", 3, 1, id="blank-line"),
        pytest.param("a: 1\n\t# note\n", 2, 1, id="before-comment"),
        pytest.param("d: |\n  line\n\tmore\n", 3, 1, id="block-scalar"),
        pytest.param("a: foo\n\tbar\n", 2, 1, id="plain-continuation"),
    ],
)
def test_a_tab_that_breaks_parsing_is_named_with_its_place_and_fix(
    tmp_path: Path, text: str, line: int, column: int
) -> None:
    [problem] = _load(tmp_path, text)
    assert problem.code == "RL001"
    assert problem.message == f"tab character in the indentation at line {line}, column {column}"
    assert (problem.span.line, problem.span.column, problem.span.end_column) == (
        line,
        column,
        column + 1,
    )
    assert problem.hint == TAB_FIX == "indent with spaces; YAML forbids tabs in indentation"
    assert text.replace("\r\n", "\n").split("\n")[line - 1][column - 1] == "\t"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("args: [\n\t--foo,\n\t--bar\n]\n", id="flow-sequence"),
        pytest.param("m: {\n\ta: 1,\n\tb: [\n\t\t1]}\n", id="flow-mapping"),
        pytest.param("meta:\n  title:\tDemo\n", id="after-colon"),
        pytest.param("a\t: 1\n", id="before-colon"),
        pytest.param('a: "foo\n\tbar"\n', id="quoted-continuation"),
    ],
)
def test_tabs_that_are_not_indentation_still_parse(tmp_path: Path, text: str) -> None:
    assert _load(tmp_path, text) == []


def test_other_syntax_errors_keep_libyaml_s_words(tmp_path: Path) -> None:
    [problem] = _load(tmp_path, "a: [1, 2\nb:\t3\n")
    assert problem.code == "RL001" and problem.message.startswith("YAML syntax error: ")


def test_a_tab_in_a_recipe_is_one_rl001_through_the_engine(tmp_path: Path) -> None:
    text = _edit("    vram_minimum_gb: 20\n", "  \t  vram_minimum_gb: 20\n")
    [finding] = _check(tmp_path, text)
    assert (finding.code, finding.line, finding.column) == ("RL001", 21, 3)
    assert finding.message == "tab character in the indentation at line 21, column 3"
    assert finding.hint == TAB_FIX


# ----------------------------------------------------------------------------- indentation


def _only(findings: list[Diagnostic], code: str) -> Diagnostic:
    [finding] = [d for d in findings if d.code == code]
    return finding


def test_a_variant_nested_in_the_previous_variant_is_indented_too_far(tmp_path: Path) -> None:
    text = _edit(
        "    vram_minimum_gb: 20\n",
        "    vram_minimum_gb: 20\n    fp8:\n      precision: fp8\n      vram_minimum_gb: 10\n",
    )
    finding = _only(_check(tmp_path, text), "RL101")
    assert (finding.line, finding.column) == (22, 5)
    assert finding.message == (
        "`fp8` is not a key of `variants.default`; it is a key of `variants` — "
        "is it indented 2 spaces too far? (expected column 3)"
    )
    assert finding.hint == (
        "move it and the lines under it to column 3 "
        "(as written: unknown key 'fp8' in variant 'default')"
    )


def test_a_variant_field_inside_hardware_overrides_is_indented_too_far(tmp_path: Path) -> None:
    text = _edit(
        "    vram_minimum_gb: 20\n",
        "    hardware_overrides:\n      hopper:\n"
        "        extra_args: [--enforce-eager]\n      vram_minimum_gb: 20\n",
    )
    finding = _only(_check(tmp_path, text), "RL102")
    assert finding.pointer == ("variants", "default", "hardware_overrides", "vram_minimum_gb")
    assert finding.message == (
        "`vram_minimum_gb` is not a key of `variants.default.hardware_overrides`; it is a key "
        "of `variants.default` — is it indented 2 spaces too far? (expected column 5)"
    )
    assert finding.hint.endswith(
        "(as written: 'vram_minimum_gb' in hardware_overrides in variant 'default' "
        "must be a mapping, not the number 20)"
    )


def test_extra_args_under_variants_is_not_indented_enough(tmp_path: Path) -> None:
    text = _edit(
        "    vram_minimum_gb: 20\n", "    vram_minimum_gb: 20\n  extra_args: [--enforce-eager]\n"
    )
    finding = _only(_check(tmp_path, text), "RL102")
    assert finding.message == (
        "`extra_args` is not a key of `variants`; it is a key of `variants.default` — "
        "is it indented 2 spaces too little? (expected column 5)"
    )


def test_a_meta_key_written_at_the_top_level_is_not_indented_enough(tmp_path: Path) -> None:
    text = _edit("  tasks: [text]\n", "  tasks: [text]\nhardware:\n  h100: verified\n")
    finding = _only(_check(tmp_path, text), "RL101")
    assert (finding.line, finding.column) == (10, 1)
    assert finding.message == (
        "`hardware` is not a key of the top level; it is a key of `meta` — "
        "is it indented 2 spaces too little? (expected column 3)"
    )


def test_an_env_variable_outdented_from_base_env(tmp_path: Path) -> None:
    text = _edit(
        "  base_args: []\n",
        '  base_args: []\n  base_env:\n    VLLM_USE_V1: "1"\n  HF_HUB_OFFLINE: "1"\n',
    )
    finding = _only(_check(tmp_path, text), "RL101")
    assert finding.message == (
        "`HF_HUB_OFFLINE` is not a key of `model`; it is a key of `model.base_env` — "
        "is it indented 2 spaces too little? (expected column 5)"
    )


def test_four_space_indentation_counts_its_own_step(tmp_path: Path) -> None:
    text = _edit(
        "variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 20\n",
        "variants:\n    default:\n        precision: bf16\n        vram_minimum_gb: 20\n"
        "        fp8:\n            precision: fp8\n            vram_minimum_gb: 10\n",
    )
    finding = _only(_check(tmp_path, text), "RL101")
    assert finding.message.endswith("is it indented 4 spaces too far? (expected column 5)")


@pytest.mark.parametrize(
    ("old", "new", "code", "message"),
    [
        pytest.param(
            "    vram_minimum_gb: 20\n",
            '    vram_minimum_gb: "20"\n',
            "RL102",
            "'vram_minimum_gb' in variant 'default' must be an integer, not the string '20'",
            id="right-place",
        ),
        pytest.param(
            "  default:\n    precision: bf16\n    vram_minimum_gb: 20\n",
            "  default: {precision: bf16, vram_minimum_gb: 20, fp8: {precision: fp8, vram_minimum_gb: 10}}\n",
            "RL101",
            "unknown key 'fp8' in variant 'default'",
            id="flow-mapping",
        ),
        pytest.param(
            "    vram_minimum_gb: 20\n",
            "    vram_minimum_gb: 20\n    fp8:\n      precision: fp8\n",
            "RL101",
            "unknown key 'fp8' in variant 'default'",
            id="not-a-valid-variant-either",
        ),
        pytest.param(
            "    vram_minimum_gb: 20\n",
            "    vram_minimum_gb: 20\n    fp8_notes: fast\n",
            "RL101",
            "unknown key 'fp8_notes' in variant 'default'",
            id="valid-nowhere-near",
        ),
        pytest.param(
            "    vram_minimum_gb: 20\n",
            "    vram_minimum_gb: 20\n    precison: bf16\n",
            "RL101",
            "unknown key 'precison' in variant 'default' (did you mean 'precision'?)",
            id="did-you-mean-unchanged",
        ),
    ],
)
def test_findings_indentation_does_not_explain_keep_their_message(
    tmp_path: Path, old: str, new: str, code: str, message: str
) -> None:
    finding = _only(_check(tmp_path, _edit(old, new)), code)
    assert finding.message == message


# ----------------------------------------------------------------------------- list items


def test_a_list_item_is_named_by_its_pointer(tmp_path: Path) -> None:
    text = _edit(
        "    vram_minimum_gb: 20\n",
        "    vram_minimum_gb: 20\n  fp8:\n    precision: fp8\n"
        "    vram_minimum_gb: 10\n    extra_args: [--max-num-seqs, 256]\n",
    )
    finding = _only(_check(tmp_path, text), "RL102")
    assert finding.message == "`variants.fp8.extra_args[1]` must be a string, not the number 256"


def test_a_repeated_flag_names_the_first_by_its_pointer(tmp_path: Path) -> None:
    text = _edit(
        "    vram_minimum_gb: 20\n",
        '    vram_minimum_gb: 20\n    extra_args: [--max-num-seqs, "8", '
        '--enforce-eager, --max-num-seqs, "16"]\n',
    )
    finding = _only(_check(tmp_path, text), "RL315")
    assert finding.message == (
        "`--max-num-seqs` appears twice in this list (`--max-num-seqs 8` at "
        "`variants.default.extra_args[0]`, then `--max-num-seqs 16`): last-wins dedupe "
        "silently drops the first"
    )
    assert "\n" not in finding.message
