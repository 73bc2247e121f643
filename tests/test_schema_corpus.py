"""Schema findings on the real upstream corpus, each reviewed and pinned.

Every entry was checked by hand against the upstream docs (CONTRIBUTING.md, CLAUDE.md)
and the upstream compiler/site sources: each one is a real defect of that file.  A
finding that appears or disappears fails the test, in either direction.
"""

from __future__ import annotations

import time
from pathlib import Path

from recipelint.read.tree import load_tree
from recipelint.schema.check import schema_findings

REVIEWED: dict[tuple[str, str, tuple], str] = {
    (
        "kv_store/kv_store_centralized_mooncake.yaml",
        "RL102",
        ("vllm", "env", "PYTHONHASHSEED"),
    ): 'env value 0 is a number; the JSON API publishes it as a number (taxonomy writes "0")',
    (
        "kv_store/kv_store_distributed_mooncake.yaml",
        "RL102",
        ("vllm", "env", "PYTHONHASHSEED"),
    ): 'env value 0 is a number; the JSON API publishes it as a number (taxonomy writes "0")',
    (
        "models/IndexTeam/IndexTTS-2.5.yaml",
        "RL107",
        ("model", "parameter_count"),
    ): "'Undisclosed' is a placeholder where a count with a B/T suffix is documented",
    (
        "models/IndexTeam/IndexTTS-2.5.yaml",
        "RL107",
        ("model", "active_parameters"),
    ): "'Undisclosed' is a placeholder where a count with a B/T suffix is documented",
    (
        "models/OpenMOSS-Team/MOSS-Transcribe-Diarize.yaml",
        "RL103",
        ("model",),
    ): "model.context_length missing (every other recipe sets it; 0 is the no-context convention)",
    (
        "models/Qwen/Qwen3.8-2.4T-A95B.yaml",
        "RL105",
        ("model", "min_vllm_version"),
    ): "min_vllm_version 'nightly' is not a version; the install note prints 'vLLM nightly'",
    (
        "models/deepseek-ai/DeepSeek-V4-Flash.yaml",
        "RL104",
        ("meta", "difficulty"),
    ): "difficulty 'hard' is not beginner/intermediate/advanced",
    (
        "models/deepseek-ai/DeepSeek-V4-Pro.yaml",
        "RL104",
        ("meta", "difficulty"),
    ): "difficulty 'hard' is not beginner/intermediate/advanced",
    (
        "models/inclusionAI/Ling-3.0-flash.yaml",
        "RL103",
        ("meta",),
    ): "meta.date_added missing: the recipe drops out of the 'Latest recipes' ranking",
    (
        "models/meta-models/Muse-Glimmer-30B.yaml",
        "RL101",
        ("features", "spec_decoding", "hardware"),
    ): "feature-level hardware gate is read by nothing (only modes have `hardware`): rtx_5090 is not gated",
    (
        "models/moonshotai/Kimi-K3.yaml",
        "RL104",
        ("meta", "difficulty"),
    ): "difficulty 'hard' is not beginner/intermediate/advanced",
    (
        "models/moonshotai/Kimi-K3.yaml",
        "RL107",
        ("model", "active_parameters"),
    ): "prose '16 experts/token + shared …' where an active parameter count is documented",
    (
        "models/tencent/Hy3-preview.yaml",
        "RL101",
        ("hardware_overrides", "amd", "install_note"),
    ): "install_note under a hardware override is read by nothing; the note never shows",
    (
        "models/zai-org/GLM-GA.yaml",
        "RL103",
        ("model",),
    ): "model.active_parameters missing (dense: same as parameter_count)",
}


def test_corpus_schema_findings_are_exactly_the_reviewed_ones(corpus_tree: Path) -> None:
    started = time.perf_counter()
    tree = load_tree(corpus_tree)
    assert len(tree.recipes) == 138 and len(tree.strategies) == 9 and len(tree.kv_stores) == 2
    found: dict[tuple[str, str, tuple], str] = {}
    for doc in tree.documents():
        for finding in schema_findings(doc):
            found[(doc.rel, finding.code, finding.pointer)] = finding.diagnostic.message
    assert sorted(found) == sorted(REVIEWED), {k: v for k, v in found.items() if k not in REVIEWED}
    assert time.perf_counter() - started < 30


def test_missing_key_findings_name_the_reviewed_keys(corpus_tree: Path) -> None:
    tree = load_tree(corpus_tree)
    messages = sorted(
        finding.diagnostic.message
        for doc in tree.recipes
        for finding in schema_findings(doc)
        if finding.code == "RL103"
    )
    assert messages == [
        "missing required key 'active_parameters' in model",
        "missing required key 'context_length' in model",
        "missing required key 'date_added' in meta",
    ]


def test_every_corpus_document_kind_is_validated(corpus_tree: Path) -> None:
    kinds = sorted({doc.kind for doc in load_tree(corpus_tree).documents()})
    assert kinds == ["kv_store", "platforms", "recipe", "strategy", "taxonomy"]


def test_edge_fixtures_never_crash_and_report_known_shapes(edge_tree: Path) -> None:
    """The synthetic edge recipes are minimal on purpose; pin the structural oddities they carry."""
    tree = load_tree(edge_tree)
    found = {(doc.rel, f.code, f.pointer) for doc in tree.documents() for f in schema_findings(doc)}
    for expected in [
        ("models/edge/dedupe.yaml", "RL101", ("extra_meta",)),
        ("models/edge/dedupe.yaml", "RL102", ("model", "base_env", "NUM")),
        ("models/edge/dedupe.yaml", "RL102", ("features", "nullfeat")),
        ("models/edge/dedupe.yaml", "RL102", ("variants", "fp8", "tp")),
        ("models/edge/dedupe.yaml", "RL106", ("meta", "date_added")),
        ("models/edge/numarg.yaml", "RL102", ("model", "base_args", 1)),
        ("models/edge/nodefault.yaml", "RL103", ("variants",)),
        ("models/edge/promote.yaml", "RL101", ("variants", "a", "json")),
        ("models/edge/tpdp.yaml", "RL107", ("strategy_overrides", "pd_cluster", "decode", "tp")),
    ]:
        assert expected in found


def test_embedded_tree_is_schema_clean(embedded_tree: Path) -> None:
    tree = load_tree(embedded_tree)
    assert tree.recipes, "the embedded tree has recipes"
    problems = [
        (doc.rel, f.code, f.diagnostic.message)
        for doc in tree.documents()
        for f in schema_findings(doc)
    ]
    assert problems == []
