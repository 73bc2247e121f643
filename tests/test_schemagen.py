"""The committed JSON Schemas are exactly what recipelint.schema.schemagen writes from the models.

The pydantic models in recipelint/schema/model.py are the format's one source; schemas/*.schema.json
are generated from them and committed (editors, the checker and the package read the files).
A change to a model without regenerating, or an edit by hand to a schema file, fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from recipelint.schema import schemagen
from recipelint.schema.builtin import SCHEMA_FILES, load_schema

COMMITTED = Path(__file__).resolve().parents[1] / "schemas"


def test_committed_schemas_are_generated_from_the_models() -> None:
    stale = schemagen.stale_files(COMMITTED)
    assert not stale, (
        f"{stale} differ from the pydantic models in recipelint/schema/model.py: "
        f"run `{schemagen.REGENERATE}` and commit the result (never edit the files by hand)"
    )


def test_every_schema_kind_is_generated_under_its_file_name() -> None:
    assert {spec.kind: spec.file_name for spec in schemagen.SCHEMA_FILES} == SCHEMA_FILES


@pytest.mark.parametrize("spec", schemagen.SCHEMA_FILES, ids=lambda spec: spec.kind)
def test_the_checker_validates_with_the_generated_schema(spec: schemagen.SchemaFile) -> None:
    generated = schemagen.generate_schema(spec)
    Draft202012Validator.check_schema(generated)
    assert generated == load_schema(spec.kind)
    assert generated["$id"] == f"https://recipelint.dev/schemas/{spec.file_name}"


@pytest.mark.parametrize("spec", schemagen.SCHEMA_FILES, ids=lambda spec: spec.kind)
def test_generation_is_deterministic(spec: schemagen.SchemaFile) -> None:
    assert schemagen.schema_text(spec) == schemagen.schema_text(spec)


def test_every_named_definition_is_referenced() -> None:
    for spec in schemagen.SCHEMA_FILES:
        text = schemagen.schema_text(spec)
        for name in json.loads(text).get("$defs", {}):
            assert f'"#/$defs/{name}"' in text, f"{spec.file_name}: $defs/{name} is never used"


def keywords(node: Any) -> Iterator[tuple[str, Any]]:
    """Every (keyword, value) of a schema, at any depth (names under properties included)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from keywords(item)


def test_optional_fields_reject_null_and_literals_carry_no_type() -> None:
    recipe = schemagen.generate_schema(schemagen.SCHEMA_FILES[0])
    found = list(keywords(recipe))
    # A null branch only where null is a value of its own (an install tab), and no defaults.
    assert [value for key, value in found if key == "type" and value == "null"] == ["null"]
    assert recipe["$defs"]["installTab"]["anyOf"][1] == {"type": "null"}
    assert not [value for key, value in found if key == "default" and not isinstance(value, dict)]
    assert "type" not in recipe["$defs"]["precision"]


def test_check_reports_a_stale_file_and_writing_repairs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert schemagen.main(["--folder", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(SCHEMA_FILES.values())
    assert schemagen.main(["--check", "--folder", str(tmp_path)]) == 0
    strategy = tmp_path / "strategy.schema.json"
    strategy.write_text(strategy.read_text(encoding="utf-8").replace("Strategy id", "Id"))
    capsys.readouterr()
    assert schemagen.main(["--check", "--folder", str(tmp_path)]) == 1
    reported = capsys.readouterr().out
    assert "strategy.schema.json differs" in reported and schemagen.REGENERATE in reported
    assert schemagen.main(["--folder", str(tmp_path)]) == 0
    assert schemagen.stale_files(tmp_path) == []


def test_check_of_a_missing_folder_reports_every_file(tmp_path: Path) -> None:
    assert schemagen.stale_files(tmp_path / "absent") == [
        spec.file_name for spec in schemagen.SCHEMA_FILES
    ]


def test_a_folder_that_cannot_be_written_is_reported_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    occupied = tmp_path / "a-file"
    occupied.write_text("", encoding="utf-8")
    assert schemagen.main(["--folder", str(occupied)]) == 2
    assert "cannot write the schemas" in capsys.readouterr().out
