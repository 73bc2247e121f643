"""Structural fixes through ruamel.yaml's round trip: the document's own indentation is
detected, only the lines of the renamed or inserted keys are written, whatever else ruamel
would re-flow stays byte for byte, and a change ruamel cannot make within those lines is
refused rather than written."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from treehelp import tree_in_memory, write_file

from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.fix.fixers import ALL_FIXERS, fix_paths, plan_document
from recipelint.fix.structural_fix import (
    Allowed,
    Indentation,
    detect_indentation,
    rename_key,
    rewrite,
)
from recipelint.read.load import Document
from recipelint.read.tree import load_tree

REL = "models/acme/Structural-8B.yaml"

HEAD = """\
meta:
    title: "Structural 8B"
    slug: "structural-8b"
    provider: "Acme"
    description: "Four-space indentation; block lists indented like the corpus's odd files."
    date_added: 2026-01-10
    date_updated: 2026-01-12
    tasks:
    - text
model:
    model_id: "acme/Structural-8B"
    min_vllm_version: "0.20.0"
    architecture: dense
    parameter_count: "8B"
    active_parameters: "8B"
    context_length: 32768
    base_args:
          - "--max-model-len"\x20\x20\x20
          - "8192"
\x20\x20\x20\x20
"""
GUIDE = """\
compatible_strategies: [single_node_tp]
guide: |
    ## Overview
    `mtp` in prose stays.
"""


def fixed(text: str, code: str) -> str | None:
    """One planning pass over ``text`` with every fixer, catalog-marked or not."""
    tree, doc = tree_in_memory(REL, text)
    found = [d for d in run_checks(tree, Config(select=(code,))) if d.path == doc.path]
    assert [d.code for d in found] == [code], found
    return plan_document(doc, found, ALL_FIXERS)


def whole_dump(text: str) -> str:
    """What a plain ruamel round trip of the whole document writes, with the detected indentation."""
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 1 << 20
    data = yaml.load(text)
    found = detect_indentation(data)
    yaml.indent(mapping=found.mapping, sequence=found.sequence, offset=found.offset)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


# ------------------------------------------------------------------ indentation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a:\n  b: 1\n  c:\n  - x\n", Indentation(2, 2, 0)),
        ("a:\n    b: 1\n    c:\n        - x\n", Indentation(4, 6, 4)),
        ("a:\n  b:\n    c: 1\n  d:\n    - x\n    - y\n", Indentation(2, 4, 2)),
        ("a: {b: 1}\nc: [x]\n", Indentation(2, 2, 0)),  # flow only: ruamel's defaults
    ],
)
def test_indentation_is_detected_from_the_document(text: str, expected: Indentation) -> None:
    assert detect_indentation(YAML().load(text)) == expected


# ------------------------------------------------------------------ RL503, a renamed key

RETIRED = (
    HEAD
    + """\
features:
    "mtp":      # quoted key, comment kept at its distance
        description: "Multi-token prediction"
        args: ["--speculative-config", '{"method":"mtp"}']
opt_in_features:
- 'mtp'
variants:
    default:
        precision: bf16
        vram_minimum_gb: 20
    mtp:
        precision: bf16\x20\x20\x20
        vram_minimum_gb: 22
        default_modes: {mtp: on}
"""
    + GUIDE
)


def test_a_rename_rewrites_only_the_renamed_lines_where_ruamel_would_reflow_others() -> None:
    # The bait is real: dumping the whole document changes lines nobody asked to change.
    assert whole_dump(RETIRED) != RETIRED
    result = fixed(RETIRED, "RL503")
    expected = (
        RETIRED.replace('    "mtp":      # quoted', '    "spec_decoding":      # quoted')
        .replace("- 'mtp'", "- 'spec_decoding'")
        .replace("{mtp: on}", "{spec_decoding: on}")
    )
    assert result == expected


def test_a_rename_keeps_crlf_line_endings() -> None:
    crlf = RETIRED.replace("\n", "\r\n")
    result = fixed(crlf, "RL503")
    assert result is not None
    assert "\n" not in result.replace("\r\n", "")
    assert result.replace("\r\n", "\n") == fixed(RETIRED, "RL503")


def test_a_rename_that_ruamel_can_only_write_by_reflowing_other_lines_is_refused() -> None:
    """A flow mapping over several lines: ruamel writes it on one line, which would rewrite
    lines that hold no renamed key, so no fix is proposed and the finding stays."""
    text = (
        HEAD
        + "features: {mtp: {description: a},\n"
        + "    other: {description: b}}\n"
        + "variants:\n    default: {precision: bf16, vram_minimum_gb: 20}\n"
        + GUIDE
    )
    assert fixed(text, "RL503") is None


def test_rewrite_drops_every_difference_outside_the_allowed_lines() -> None:
    text = "a:   \n  b: 1\n  c:\n      - x\nd: 2\n"

    def rename(data: Any) -> bool:
        return rename_key(data["a"], "b", "bee")

    kept = rewrite(text, rename, Allowed(lines=frozenset({2})))
    assert kept is not None and len(kept) == 1
    start, end, new = kept[0].start, kept[0].end, kept[0].text
    assert text[start:end] == "  b: 1\n" and new == "  bee: 1\n"
    assert rewrite(text, rename, Allowed(lines=frozenset({4, 5}))) == []


def test_input_ruamel_cannot_read_gets_no_structural_fix() -> None:
    assert rewrite("a: 1\na: 2\n", lambda data: True, Allowed(lines=frozenset({1}))) is None
    assert rewrite("- a\n", lambda data: True, Allowed(lines=frozenset({1}))) is None
    assert rewrite("a: 1\rb: 2\n", lambda data: True, Allowed(lines=frozenset({1}))) is None


# ------------------------------------------------------------------ RL502, an inserted key

FUSED = (
    HEAD
    + """\
features:
    spec_decoding:
        description: "Speculative decoding"
        modes:
            mtp:
                args: ["--speculative-config", '{"method":"mtp","num_speculative_tokens":1}']
            dspark:
                variants: [dspark]
                args: ["--speculative-config", '{"method":"dspark","num_speculative_tokens":5}']
opt_in_features: [spec_decoding]
variants:
    default:
        precision: bf16
        vram_minimum_gb: 20
    dspark:
        model_id: "acme/Structural-8B-DSpark"
        precision: bf16
        vram_minimum_gb: 22   # fused draft
        # the draft ships inside the checkpoint

"""
    + GUIDE
)


def test_a_missing_default_mode_is_inserted_after_the_variants_last_key() -> None:
    result = fixed(FUSED, "RL502")
    assert result == FUSED.replace(
        "vram_minimum_gb: 22   # fused draft\n",
        "vram_minimum_gb: 22   # fused draft\n"
        "        default_modes:\n            spec_decoding: dspark\n",
    )


def test_a_default_mode_joins_an_existing_default_modes_mapping() -> None:
    text = FUSED.replace(
        "    dspark:\n        model_id",
        "    dspark:\n        default_modes:\n            other: x\n        model_id",
    )
    result = fixed(text, "RL502")
    assert result == text.replace(
        "            other: x\n", "            other: x\n            spec_decoding: dspark\n"
    )


def test_a_flow_variant_gets_the_key_on_its_own_line() -> None:
    text = FUSED.replace(
        '    dspark:\n        model_id: "acme/Structural-8B-DSpark"\n'
        "        precision: bf16\n        vram_minimum_gb: 22   # fused draft\n",
        '    dspark: {model_id: "acme/Structural-8B-DSpark", precision: bf16, vram_minimum_gb: 22}\n',
    )
    result = fixed(text, "RL502")
    assert result == text.replace(
        "vram_minimum_gb: 22}", "vram_minimum_gb: 22, default_modes: {spec_decoding: dspark}}"
    )


def test_no_default_mode_is_inserted_when_two_modes_could_be_meant() -> None:
    text = FUSED.replace(
        "            mtp:\n                args",
        "            mtp:\n                variants: [dspark]\n                args",
    )
    assert fixed(text, "RL502") is None


# ------------------------------------------------------------------ the corpus


def _retire(doc: Document) -> str:
    """The recipe with its `spec_decoding` feature, and every reference to it, spelt `mtp`:
    what RL503's fix must turn back into the original bytes."""
    data = doc.data
    spans = [doc.key_span(("features", "spec_decoding"))]
    spans += [
        doc.span(("opt_in_features", index))
        for index, name in enumerate(data.get("opt_in_features") or [])
        if name == "spec_decoding"
    ]
    for hardware, names in (data.get("hardware_opt_in_features") or {}).items():
        spans += [
            doc.span(("hardware_opt_in_features", hardware, index))
            for index, name in enumerate(names)
            if name == "spec_decoding"
        ]
    for key, variant in (data.get("variants") or {}).items():
        if "spec_decoding" in (variant.get("default_modes") or {}):
            spans.append(doc.key_span(("variants", key, "default_modes", "spec_decoding")))
    lines = doc.text.splitlines(keepends=True)
    for span in sorted(spans, key=lambda s: (s.line, s.column), reverse=True):
        line = lines[span.line - 1]
        start, end = span.column - 1, (span.end_column or span.column) - 1
        assert line[start:end] == "spec_decoding", (doc.rel, span)  # plain in the corpus
        lines[span.line - 1] = line[:start] + "mtp" + line[end:]
    return "".join(lines)


def test_retiring_and_fixing_every_corpus_feature_gives_back_the_corpus(
    corpus_tree: Path, tmp_path: Path
) -> None:
    """On real recipes: spell each spec_decoding feature `mtp` and its references with it,
    run `--fix`, and every file is byte-identical to the corpus again."""
    root = tmp_path / "tree"
    shutil.copytree(corpus_tree, root)
    retired: dict[Path, str] = {}
    for doc in load_tree(root).recipes:
        features = doc.data.get("features") if isinstance(doc.data, dict) else None
        if isinstance(features, dict) and "spec_decoding" in features and "mtp" not in features:
            retired[doc.path] = doc.text
            write_file(doc.path, _retire(doc))
    assert len(retired) >= 40  # most corpus recipes offer speculative decoding

    changes = fix_paths({root: [root]}, select=("RL503",))

    assert changes.fixed["RL503"] == len(retired)
    for path, original in retired.items():
        assert path.read_text(encoding="utf-8") == original, path


# ------------------------------------------------------------------ hostile input


def test_merged_keys_and_complex_keys_get_an_answer_not_a_traceback() -> None:
    merged = "base: &b\n  x: 1\nd:\n  <<: *b\n  y: 2\ne:\n  f:\n    <<: *b\n"
    assert detect_indentation(YAML().load(merged)) == Indentation(2, 2, 0)
    for text in (merged, "d:\n  ? [a, b]\n  : 1\n", "d:\n  !!set {a, b}: 1\n"):
        rewrite(text, lambda data: True, Allowed(lines=frozenset({1})))


YAMLISH = st.text(alphabet=st.sampled_from(list("ab:-{}[],&*!<?|>#'\" \n\t\r%@`0")), max_size=80)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(YAMLISH)
def test_rewrite_never_raises_on_any_text(text: str) -> None:
    every_line = Allowed(lines=frozenset(range(1, text.count("\n") + 2)))
    kept = rewrite(text, lambda data: True, every_line)
    assert kept is None or all(0 <= r.start <= r.end <= len(text) for r in kept)
