"""Every recipelint output sample in README.md and docs/*.md is what the CLI prints today.

A fence preceded by `<!-- sample: DIR: recipelint ARGS -->` is the stdout of `recipelint ARGS`
run in DIR on inputs under examples/samples/; `python scripts/update_samples.py` rewrites
the fences after a deliberate change of output.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "update_samples", PROJECT_ROOT / "scripts" / "update_samples.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


UPDATE = _script()
SAMPLES = [sample for document in UPDATE.documents() for sample in UPDATE.samples(document)]


def test_the_readme_check_sample_is_marked() -> None:
    assert any(s.document.name == "README.md" and s.args[:1] == ("check",) for s in SAMPLES)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.where for s in SAMPLES])
def test_sample_is_the_cli_output(sample) -> None:  # noqa: ANN001 - the script's Sample, loaded by path
    assert sample.body == UPDATE.render(sample), (
        f"{sample.where} is stale: run `python scripts/update_samples.py` and review the diff"
    )


def test_output_looking_fences_are_marked() -> None:
    """A fence that looks like findings (path:line:col: RLxxx) must be a marked sample, or it can drift."""
    marked = {(s.document, s.start) for s in SAMPLES}
    finding = re.compile(r"^\S+:\d+:\d+: RL\d{3} ", re.MULTILINE)
    for document in UPDATE.documents():
        text = document.read_text(encoding="utf-8")
        for fence in re.finditer(r"^```[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
            if finding.search(fence.group(1)):
                assert (document, fence.start(1)) in marked, (
                    f"{document.name}: unmarked output sample"
                )


def test_rewrite_restores_a_stale_fence(tmp_path: Path) -> None:
    """The update script replaces only fence bodies: a stale sample comes back byte for byte."""
    sample = next(s for s in SAMPLES if s.document.name == "README.md")
    text = sample.document.read_text(encoding="utf-8")
    copy = tmp_path / "README.md"
    copy.write_text(text[: sample.start] + "stale\n" + text[sample.end :], encoding="utf-8")
    assert UPDATE.rewrite(copy, PROJECT_ROOT)
    assert copy.read_text(encoding="utf-8") == text
    assert not UPDATE.rewrite(copy, PROJECT_ROOT)


def test_a_marker_without_a_fence_is_an_error(tmp_path: Path) -> None:
    document = tmp_path / "doc.md"
    document.write_text(
        "<!-- sample: examples/samples/check: recipelint check . -->\ntext\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="must be followed by a ``` fence"):
        UPDATE.samples(document)
