"""The compiler reproduces the upstream build of the real corpus byte for byte."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from recipelint.compile.compiler import CompileResult, compile_tree


@pytest.fixture(scope="module")
def corpus_result(corpus_tree: Path) -> CompileResult:
    return compile_tree(corpus_tree)


def _expected(archive: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    with tarfile.open(archive) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".json"):
                name = member.name[2:] if member.name.startswith("./") else member.name
                files[name] = tar.extractfile(member).read()
    return files


def _mismatches(
    produced: dict[str, bytes], expected: dict[str, bytes]
) -> tuple[list[str], list[str], list[str]]:
    missing = sorted(set(expected) - set(produced))
    extra = sorted(set(produced) - set(expected))
    different = sorted(p for p in expected.keys() & produced.keys() if produced[p] != expected[p])
    return missing, extra, different


def test_upstream_corpus_is_reproduced_byte_for_byte(
    corpus_result: CompileResult, shared_dir: Path
) -> None:
    result = corpus_result
    assert result.ok, [d.message for d in result.diagnostics if d.severity.name == "ERROR"]
    produced = dict(result.files.items())
    expected = _expected(shared_dir / "corpus" / "upstream" / "expected.tar.xz")
    assert len(expected) == 12715
    missing, extra, different = _mismatches(produced, expected)
    assert (missing[:5], extra[:5], different[:5]) == ([], [], [])
    assert len(produced) == len(expected)


def test_corpus_compile_reports_only_the_known_promotion_collisions(
    corpus_result: CompileResult,
) -> None:
    result = corpus_result
    assert {d.code for d in result.diagnostics} == {"RL706", "RL707"}
    duplicates = [d.path.name for d in result.diagnostics if d.code == "RL707"]
    assert duplicates == ["ERNIE-4.5-VL-28B-A3B-PT.yaml"]
    collisions = sorted(d.path.name for d in result.diagnostics if d.code == "RL706")
    assert collisions == sorted(
        [
            "dots3-note-prev.yaml",
            "Phi-4-mini-instruct.yaml",
            # The standalone recipe whose id Phi-4-mini's variant takes hears of it too.
            "Phi-4-multimodal-instruct.yaml",
            "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml",
            "Inkling-Small.yaml",
        ]
    )
