"""Schema overlays: a tree declares the fields its pull request adds, next to its data.

Overlays come from <tree>/schemas/<name>.schema.json|yaml and [tool.recipelint.schema];
they are merged into the built-in schema add-only (docs/schemas.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from treehelp import BlockYaml, base_recipe, build_tree, check_tree, write_documents

from recipelint.cli import main
from recipelint.configuration.config import load_config
from recipelint.read.configfile import NO_OVERLAY, ConfigError
from recipelint.read.load import load_document
from recipelint.schema.overlay import tree_overlay
from recipelint.schema.validators import fast_validator_for, known_valid, validator_for

RECIPE = "models/acme/demo.yaml"
FIELD = {
    "$defs": {
        "model": {
            "properties": {
                "quant_recipe": {"type": "string", "description": "How it was quantised."}
            }
        }
    }
}


def _recipe(quant_recipe: object = "nvfp4-v2") -> BlockYaml:
    """The base recipe with a field the built-in schema does not know."""
    recipe = base_recipe()
    recipe["model"]["quant_recipe"] = quant_recipe
    return BlockYaml(recipe)


def _tree(
    tmp_path: Path, quant_recipe: object = "nvfp4-v2", files: dict[str, str] | None = None
) -> Path:
    return build_tree(tmp_path, {RECIPE: _recipe(quant_recipe), **(files or {})})


def _edited(tmp_path: Path, old: str, new: str, files: dict[str, str] | None = None) -> Path:
    """A tree whose recipe has ``old`` replaced by ``new``."""
    text = _recipe().text
    assert old in text
    return build_tree(tmp_path, {RECIPE: text.replace(old, new), **(files or {})})


def _found(root: Path) -> list[tuple[str, str, int, int, str]]:
    """(file, code, line, column, message) of the schema-stage and overlay findings."""
    return [
        (d.path.relative_to(root).as_posix(), d.code, d.span.line, d.span.column, d.message)
        for d in check_tree(root)
        if d.code.startswith(("RL1", "RL016", "RL00"))
    ]


# ----------------------------------------------------------------------------- without an overlay


def test_a_new_field_without_overlay_is_rl101_whose_hint_names_the_overlay(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    [diag] = [d for d in check_tree(root) if d.code == "RL101"]
    assert (
        diag.message == "unknown key 'quant_recipe' in model"
    )  # no did-you-mean to an unrelated key
    assert (
        "if the field is new, declare it in the tree: schemas/recipe.schema.json or [tool.recipelint.schema]"
        in diag.hint
    )
    assert tree_overlay(root) is NO_OVERLAY


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("Base_Args", "base_args"),
        ("base-args", "base_args"),
        ("context_lenght", "context_length"),
        ("model_idd", "model_id"),
        ("min_vllm_verison", "min_vllm_version"),
    ],
)
def test_did_you_mean_offers_near_identical_spellings(tmp_path: Path, key: str, meant: str) -> None:
    root = _edited(tmp_path, "  quant_recipe:", f"  {key}:")
    [diag] = [d for d in check_tree(root) if d.code == "RL101"]
    assert diag.message.endswith(f"(did you mean '{meant}'?)")


@pytest.mark.parametrize(
    "key", ["quant_recipe", "arch", "context", "base_env_file", "maintainer", "vram"]
)
def test_did_you_mean_never_names_a_key_with_another_meaning(tmp_path: Path, key: str) -> None:
    root = _edited(tmp_path, "  quant_recipe:", f"  {key}:")
    [diag] = [d for d in check_tree(root) if d.code == "RL101"]
    assert "did you mean" not in diag.message


# ----------------------------------------------------------------------------- declaring the field


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        ("schemas/recipe.schema.json", json.dumps(FIELD, indent=2)),
        ("schemas/recipe.schema.yaml", yaml.safe_dump(FIELD)),
        ("schemas/recipe.schema.yml", yaml.safe_dump(FIELD)),
        (
            ".recipelint.toml",
            '[schema.recipe."$defs".model.properties.quant_recipe]\ntype = "string"\n',
        ),
        (
            "pyproject.toml",
            '[tool.recipelint.schema.recipe."$defs".model.properties.quant_recipe]\ntype = "string"\n',
        ),
        (".recipelint.toml", '[schema]\nrecipe = "extensions/recipe.yaml"\n'),
    ],
)
def test_a_declared_field_is_accepted_and_validated(tmp_path: Path, rel: str, text: str) -> None:
    files = {rel: text, "extensions/recipe.yaml": yaml.safe_dump(FIELD)}
    assert _found(_tree(tmp_path, files=files)) == []
    load_config(tmp_path)  # a valid overlay is a valid configuration
    found = _found(_tree(tmp_path, quant_recipe=4, files=files))
    assert [(f, c) for f, c, *_ in found] == [(RECIPE, "RL102")]
    assert "'quant_recipe' in model must be a string, not the number 4" in found[0][4]


def test_the_overlay_adds_without_loosening_anything_else(tmp_path: Path) -> None:
    root = _edited(
        tmp_path,
        "  quant_recipe:",
        "  quant_recipe: x\n  maintainer:",
        files={"schemas/recipe.schema.json": json.dumps(FIELD)},
    )
    assert [(c, m) for _, c, _, _, m in _found(root)] == [
        ("RL101", "unknown key 'maintainer' in model")
    ]


def test_both_validators_apply_the_overlay(tmp_path: Path) -> None:
    """The compiled fast path and jsonschema agree with the overlay as without it."""
    root = _tree(tmp_path, files={"schemas/recipe.schema.json": json.dumps(FIELD)})
    patches = tree_overlay(root).patches["recipe"]
    doc = load_document(root / RECIPE, RECIPE, "recipe")
    assert fast_validator_for("recipe", patches) is not None
    assert known_valid(doc, patches) and validator_for("recipe", patches).is_valid(doc.data)
    assert not known_valid(doc) and not validator_for("recipe").is_valid(
        doc.data
    )  # the built-in is unchanged
    doc.data["model"]["quant_recipe"] = 4
    assert not known_valid(doc, patches) and not validator_for("recipe", patches).is_valid(doc.data)


def test_overlays_are_read_from_the_files_as_they_are_when_loaded(tmp_path: Path) -> None:
    """No process-wide cache: an overlay edited between two loads is the one the second sees."""
    root = _tree(tmp_path, files={"schemas/recipe.schema.json": json.dumps(FIELD)})
    first = load_config(root).overlay
    assert first.patches and tree_overlay(root) == first
    write_documents(
        root,
        {
            "schemas/recipe.schema.json": json.dumps(
                {"$defs": {"model": {"properties": {"other": {}}}}}
            )
        },
    )
    assert load_config(root).overlay != first
    assert [c for _, c, *_ in _found(root)] == ["RL101"]  # quant_recipe is no longer declared


def test_folder_and_config_overlays_both_apply(tmp_path: Path) -> None:
    other = {"$defs": {"variant": {"properties": {"calibration": {"type": "string"}}}}}
    root = _edited(
        tmp_path,
        "precision: bf16",
        "precision: bf16\n    calibration: c4",
        files={
            "schemas/recipe.schema.json": json.dumps(FIELD),
            ".recipelint.toml": '[schema]\nrecipe = "extensions/more.json"\n',
            "extensions/more.json": json.dumps(other),
        },
    )
    assert _found(root) == []


# ----------------------------------------------------------------------------- broken overlays


BROKEN = [
    # (overlay file text, line, column, message fragment)
    (
        '{\n  "$defs": {\n    "model": {\n      "additionalProperties": true\n    }\n  }\n}\n',
        4,
        31,
        "the overlay changes the built-in value at /$defs/model/additionalProperties",
    ),
    (
        '{"properties": {\n  "model": {"properties": {"quant_recipe": {"type": "string"}}}}}\n',
        2,
        13,
        "is a reference to #/$defs/model",
    ),
    ('{"$defs": {"modle": {"properties": {"x": {}}}}}', 1, 12, "(did you mean 'model'?)"),
    (
        '{"$defs": {"model": {"properties": {\n  "quant_recipe": {"type": "strin"}}}}}',
        2,
        28,
        "'strin' is not a JSON type",
    ),
    (
        '{"$defs": {"model": {"propertes": {"x": {}}}}}',
        1,
        22,
        "'propertes' is not a JSON Schema keyword (at /$defs/model) (did you mean 'properties'?)",
    ),
    (
        '{"$defs": {"model": {"properties": {"x": {"$ref": "#/$defs/nothing"}}}}}',
        1,
        51,
        "$ref '#/$defs/nothing' does not point into",
    ),
    (
        '{"$defs": {"model": {"properties": {"x": {"$ref": "https://example.com/s.json"}}}}}',
        1,
        51,
        "does not point into",
    ),
    (
        '{"$defs": {"model": {"properties": {"x": {"type": "string", "pattern": "(["}}}}}',
        1,
        72,
        "is not a regular expression",
    ),
    (
        '{"$defs": {"model": {"$id": "https://example.com/model"}}}',
        1,
        22,
        "an overlay may not add '$id'",
    ),
    (
        '{"$defs": {"model": {"required": ["model_id"]}}}',
        1,
        34,
        "changes the built-in value at /$defs/model/required",
    ),
    ('["not", "a", "mapping"]', 1, 1, "must be a mapping"),
]


@pytest.mark.parametrize(("text", "line", "column", "fragment"), BROKEN)
def test_a_broken_overlay_file_is_rl108_at_its_place_and_not_applied(
    tmp_path: Path, text: str, line: int, column: int, fragment: str
) -> None:
    root = _tree(tmp_path, files={"schemas/recipe.schema.json": text})
    found = _found(root)
    overlay = [f for f in found if f[0] == "schemas/recipe.schema.json"]
    assert [(c, ln, col) for _, c, ln, col, _ in overlay] == [("RL108", line, column)], overlay
    assert fragment in overlay[0][4]
    # not applied: the recipe is checked against the built-in schema
    assert [(f, c) for f, c, *_ in found if f == RECIPE] == [(RECIPE, "RL101")]
    with pytest.raises(ConfigError) as caught:  # and the configuration refuses it
        load_config(root)
    assert caught.value.diagnostic.code == "RL108"


def test_overlay_syntax_errors_keep_their_code_and_place(tmp_path: Path) -> None:
    root = _tree(
        tmp_path, files={"schemas/recipe.schema.yaml": "$defs:\n  model:\n    properties: {x: [}\n"}
    )
    [(rel, code, line, _, _)] = [f for f in _found(root) if f[0].startswith("schemas/")]
    assert (rel, code, line) == ("schemas/recipe.schema.yaml", "RL001", 3)


@pytest.mark.parametrize(
    ("files", "fragment"),
    [
        (
            {"schemas/recipes.schema.json": "{}"},
            "names no built-in schema (did you mean recipe.schema.json?)",
        ),
        (
            {"schemas/recipe.schema.json": "{}", "schemas/recipe.schema.yaml": "{}"},
            "two overlays for the recipe schema",
        ),
    ],
)
def test_folder_mistakes_are_rl108(tmp_path: Path, files: dict[str, str], fragment: str) -> None:
    root = _tree(tmp_path, files=files)
    messages = [m for f, c, _, _, m in _found(root) if c == "RL108"]
    assert len(messages) == 1 and fragment in messages[0]


def test_a_number_as_key_is_read_as_its_string(tmp_path: Path) -> None:
    text = (
        "$defs:\n  model:\n    properties:\n      1: {type: string}\n"  # js-yaml: keys are strings
    )
    root = _tree(tmp_path, files={"schemas/recipe.schema.yaml": text})
    assert [f for f in _found(root) if f[0].startswith("schemas/")] == []
    assert '"1"' in tree_overlay(root).patches["recipe"]


def test_other_files_in_the_schemas_folder_are_ignored(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        files={"schemas/README.md": "notes", "schemas/recipe.schema.json": json.dumps(FIELD)},
    )
    assert _found(root) == []


@pytest.mark.parametrize(
    ("config", "line", "fragment"),
    [
        ('schema = "recipe.json"\n', 1, "'schema' must be a table"),
        (
            '[schema]\nrecipes = "x.json"\n',
            2,
            "no built-in schema is named 'recipes' (did you mean 'recipe'?)",
        ),
        ('[schema]\nrecipe = "../outside.json"\n', 2, "is not an overlay file inside the tree"),
        ('[schema]\nrecipe = "missing.json"\n', 2, "is not an overlay file inside the tree"),
        ('[schema]\nrecipe = "taxonomy.yaml.txt"\n', 2, "is not an overlay file inside the tree"),
        ("[schema]\nrecipe = 3\n", 2, "must be an overlay table or the path of an overlay file"),
        (
            '[schema.recipe."$defs".model]\nadditionalProperties = true\n',
            2,
            "changes the built-in value",
        ),
        (
            '[schema.recipe."$defs".model.properties.x]\ntype = "strin"\n',
            2,
            "'strin' is not a JSON type",
        ),
        (
            "[schema.recipe]\n" + "a = " + "{a=" * 80 + "1" + "}" * 80 + "\n",
            1,
            "nests deeper than 64 levels",
        ),
    ],
)
def test_config_overlay_problems_are_rl016_at_the_line(
    tmp_path: Path, config: str, line: int, fragment: str
) -> None:
    (tmp_path.parent / "outside.json").write_text(json.dumps(FIELD), encoding="utf-8")
    root = _tree(tmp_path, files={".recipelint.toml": config, "taxonomy.yaml.txt": "{}"})
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    diag = caught.value.diagnostic
    assert (diag.code, diag.path.name, diag.span.line) == ("RL016", ".recipelint.toml", line), diag
    assert fragment in diag.message


def test_the_check_reports_a_broken_overlay_with_place_and_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, files={"schemas/recipe.schema.json": BROKEN[0][0]})
    assert main(["check", str(root), "--format", "json"]) == 1
    records = json.loads(capsys.readouterr().out)
    assert {
        (r["path"].endswith("schemas/recipe.schema.json"), r["code"], r["line"], r["column"])
        for r in records
    } == {(True, "RL108", 4, 31)}
    assert all(r["hint"] for r in records)


def test_a_linked_overlay_folder_outside_the_tree_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "recipe.schema.json").write_text(json.dumps(FIELD), encoding="utf-8")
    root = _tree(tmp_path / "tree")
    (root / "schemas").mkdir()
    (root / "schemas/recipe.schema.json").symlink_to(outside / "recipe.schema.json")
    found = _found(root)
    assert [(f, c) for f, c, *_ in found if f == RECIPE] == [(RECIPE, "RL101")]  # not applied
