"""The RL1xx catalog entries: one per schema code, and every example behaves as documented."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from catalog_harness import CONTEXT, run_example

from recipelint.diagnostics import Severity
from recipelint.read.configfile import OVERLAY_FOLDER
from recipelint.read.load import parse_yaml
from recipelint.rulebook.catalog import Example, load_rulebook
from recipelint.schema.builtin import CODES
from recipelint.schema.check import validate_document

CATALOG = Path(__file__).resolve().parent.parent / "rules" / "RL1xx-structure.yaml"


def entries() -> list[dict]:
    return yaml.safe_load(CATALOG.read_text(encoding="utf-8"))["rules"]


def kind_of(path: str) -> str:
    return "recipe" if path.startswith("models/") else path.split("/", 1)[0].rstrip("s")


def example_of(entry: dict, kind: str) -> Example:
    """The entry's example as the rulebook reads it (a fragment merged into its base)."""
    return getattr(load_rulebook()[entry["code"]], kind)[0]


def codes_for(example: Example, tmp_path: Path) -> list[str]:
    if example.path.startswith(
        f"{OVERLAY_FOLDER}/"
    ):  # an overlay is no document: check a tree holding it
        if not (CONTEXT / "taxonomy.yaml").is_file():
            pytest.skip("recipes/ context tree missing")
        return [d.code for d in run_example(example, tmp_path)]
    doc = parse_yaml(example.content, path=Path(example.path), kind=kind_of(example.path))
    assert doc.usable, doc.problems
    return [d.code for d in validate_document(doc)]


def test_catalog_covers_exactly_the_schema_codes() -> None:
    data = yaml.safe_load(CATALOG.read_text(encoding="utf-8"))
    assert data["family"] == "RL1xx" and data["title"]
    assert {e["code"]: e["name"] for e in entries()} == CODES
    for entry in entries():
        Severity.parse(entry["severity"])
        assert entry["severity"] == "error", "validate_document emits RL1xx as errors"
        for field in ("summary", "rationale", "fix"):
            assert str(entry[field]).strip(), (entry["code"], field)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["code"])
def test_failing_example_raises_exactly_its_code(entry: dict, tmp_path: Path) -> None:
    assert codes_for(example_of(entry, "failing"), tmp_path) == [entry["code"]]


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["code"])
def test_passing_example_is_schema_clean(entry: dict, tmp_path: Path) -> None:
    assert codes_for(example_of(entry, "passing"), tmp_path) == []
