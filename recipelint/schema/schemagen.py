"""Write the JSON Schemas in schemas/ from the pydantic models of recipelint.schema.model.

    python -m recipelint.schema.schemagen           # rewrite schemas/*.schema.json
    python -m recipelint.schema.schemagen --check   # exit 1 naming the files that would change

The models are the format's one source; the schema files are generated, committed and
shipped, so the checker reads plain JSON at run time and never imports pydantic for it.
tests/test_schemagen.py fails when a committed file differs from what this writes.

pydantic's own output is adjusted where recipelint's schemas say more than it would:

* null is no value of an optional field (Strict rejects a written null), so the null
  branch and the ``default`` pydantic adds are left out;
* ``Literal`` becomes a bare ``enum``/``const`` (a ``type`` beside it would report a
  wrong type twice);
* a map keeps its value schema's title, which names an entry in messages
  ("variant 'fp8'"), and always states its key constraint as ``propertyNames``;
* a title or description appears only where the model gives one;
* each schema file keeps the definitions its ``SchemaFile`` names, under those names,
  and inlines every other model or alias where it is used.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema
from typing_extensions import TypeAliasType

from recipelint.schema import model as m

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://recipelint.dev/schemas/"
SCHEMA_FOLDER = Path(__file__).resolve().parents[2] / "schemas"
REGENERATE = "python -m recipelint.schema.schemagen"
# Said in every file, for whoever opens one to change the format.
GENERATED_NOTE = (
    f"Generated from recipelint/schema/model.py by `{REGENERATE}`: edit the models, not this file."
)

# Keyword order of every written schema object: metadata first, then the keywords that
# validate in the order the hand-written schemas had them (jsonschema reports errors in
# keyword order), then the subschemas.
_KEY_ORDER = (
    "$schema",
    "$id",
    "$comment",
    "$ref",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "uniqueItems",
    "additionalProperties: false",
    "minProperties",
    "required",
    "propertyNames",
    "additionalProperties",
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "$defs",
)

Definition = type[BaseModel] | TypeAliasType


@dataclass(frozen=True)
class SchemaFile:
    """One schema file: its root model and the definitions it names, in the order written."""

    kind: str
    root: type[BaseModel]
    definitions: tuple[Definition, ...]
    # A definition named other than after its alias or model (``StrategyRole`` -> pdRole).
    renamed: Mapping[Definition, str] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return f"{self.kind}.schema.json"

    def name_of(self, definition: Definition) -> str:
        if definition in self.renamed:
            return self.renamed[definition]
        name = definition.__name__
        return name[:1].lower() + name[1:]


SCHEMA_FILES: tuple[SchemaFile, ...] = (
    SchemaFile(
        "recipe",
        m.Recipe,
        (
            m.Identifier,
            m.VariantKey,
            m.Version,
            m.Date,
            m.Args,
            m.Env,
            m.PositiveInteger,
            m.SupportStatus,
            m.HardwareStatus,
            m.Precision,
            m.ParameterCount,
            m.DockerImage,
            m.BrandImages,
            m.CudaImages,
            m.Meta,
            m.PlatformOverride,
            m.Model,
            m.Install,
            m.InstallTab,
            m.Dependency,
            m.Feature,
            m.Mode,
            m.Companion,
            m.ArgsOverride,
            m.ArgsEnvOverride,
            m.VariantHardwareOverride,
            m.HardwareKeyedInteger,
            m.Variant,
            m.StrategyOverride,
            m.PoolParallelism,
            m.PdRole,
            m.OmniTaskId,
            m.Omni,
            m.OmniTask,
            m.HardwareNote,
            m.AdvancedOption,
        ),
    ),
    SchemaFile(
        "strategy",
        m.Strategy,
        (m.Identifier, m.PositiveInteger, m.Args, m.Env, m.StrategyRole),
        renamed={m.StrategyRole: "pdRole"},
    ),
    SchemaFile(
        "kv_store",
        m.KvStore,
        (
            m.Identifier,
            m.PositiveInteger,
            m.Port,
            m.Version,
            m.Args,
            m.Env,
            m.KvPdRole,
            m.MooncakeConfig,
        ),
        renamed={m.KvPdRole: "pdRole"},
    ),
    SchemaFile(
        "taxonomy",
        m.Taxonomy,
        (
            m.Identifier,
            m.PositiveInteger,
            m.Args,
            m.Env,
            m.HardwareProfile,
            m.KvOffloadGroup,
            m.KvOffloadOption,
        ),
    ),
    SchemaFile("platforms", m.Platforms, (m.Platform,)),
)


class RecipeSchemaGenerator(GenerateJsonSchema):
    """pydantic's generator with recipelint's conventions (the module docstring lists them)."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def literal_schema(self, schema: core_schema.LiteralSchema) -> JsonSchemaValue:
        generated = dict(super().literal_schema(schema))
        generated.pop("type", None)
        return generated

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        generated: JsonSchemaValue = {"type": "object"}
        keys = self.generate_inner(schema["keys_schema"]) if "keys_schema" in schema else {}
        if keys not in ({}, {"type": "string"}):
            generated["propertyNames"] = keys
        values = schema.get("values_schema")
        generated["additionalProperties"] = self.generate_inner(values) if values else True
        self.update_with_validations(generated, schema, self.ValidationsMapping.object)
        return generated

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        generated = super().model_schema(schema)
        config = schema["cls"].model_config
        if config.get("title") is None:
            generated.pop("title", None)
        extra = config.get("json_schema_extra")
        if not isinstance(extra, dict) or "description" not in extra:
            generated.pop("description", None)  # a docstring documents the class, not the field
        return generated


def _reference_name(definition: Definition) -> str:
    """The name pydantic files a definition under in ``$defs`` (before renaming)."""
    return definition.__name__


def generate_schema(spec: SchemaFile) -> dict[str, Any]:
    """The schema of one kind of file, as a JSON-ready dict in the written key order."""
    generator = RecipeSchemaGenerator(ref_template="#/$defs/{model}")
    root = dict(generator.generate(spec.root.__pydantic_core_schema__))
    raw: dict[str, Any] = root.pop("$defs", {})
    kept = {_reference_name(d): spec.name_of(d) for d in spec.definitions}
    missing = sorted(name for name in kept if name not in raw)
    if missing:
        raise ValueError(f"{spec.file_name}: {missing} are not used by {spec.root.__name__}")

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.removeprefix("#/$defs/")
            siblings = {key: resolve(value) for key, value in node.items() if key != "$ref"}
            if name in kept:
                return {"$ref": f"#/$defs/{kept[name]}", **siblings}
            return {**resolve(raw[name]), **siblings}
        return {key: resolve(value) for key, value in node.items()}

    document = {
        "$schema": DIALECT,
        "$id": f"{ID_BASE}{spec.file_name}",
        "$comment": GENERATED_NOTE,
        **resolve(root),
        "$defs": {kept[name]: resolve(raw[name]) for name in kept},
    }
    if not document["$defs"]:
        del document["$defs"]
    ordered: dict[str, Any] = _ordered(document)
    return ordered


def _ordered(node: Any, parent: str | None = None) -> Any:
    """Keywords in _KEY_ORDER; names under properties and $defs keep their own order."""
    if isinstance(node, list):
        return [_ordered(item) for item in node]
    if not isinstance(node, dict):
        return node
    if parent in ("properties", "$defs"):
        return {key: _ordered(value) for key, value in node.items()}
    rank = {key: index for index, key in enumerate(_KEY_ORDER)}

    def place(key: str) -> tuple[int, str]:
        # A closed object says so right after its type; a map's value schema comes late.
        spelled = f"{key}: false" if node[key] is False else key
        return rank.get(spelled, rank.get(key, len(rank))), key

    keys = sorted(node, key=place)
    return {key: _ordered(node[key], key) for key in keys}


def schema_text(spec: SchemaFile) -> str:
    """The file's text: two-space JSON, non-ASCII kept, a final newline."""
    return json.dumps(generate_schema(spec), indent=2, ensure_ascii=False) + "\n"


def stale_files(folder: Path, specs: Iterable[SchemaFile] = SCHEMA_FILES) -> list[str]:
    """Names of the schema files in ``folder`` that differ from what the models generate."""
    stale = []
    for spec in specs:
        path = folder / spec.file_name
        written = path.read_text(encoding="utf-8") if path.is_file() else None
        if written != schema_text(spec):
            stale.append(spec.file_name)
    return stale


def write_schemas(folder: Path, specs: Iterable[SchemaFile] = SCHEMA_FILES) -> list[str]:
    """Write every schema file that differs; the names of those written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = stale_files(folder, specs)
    by_name = {spec.file_name: spec for spec in specs}
    for name in written:
        (folder / name).write_text(schema_text(by_name[name]), encoding="utf-8")
    return written


def main(argv: list[str] | None = None, echo: Callable[[str], object] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m recipelint.schema.schemagen",
        description="Write schemas/*.schema.json from the pydantic models of recipelint.schema.model.",
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    parser.add_argument("--folder", type=Path, help="where the files are (default: schemas/)")
    options = parser.parse_args(argv)
    folder: Path = options.folder or SCHEMA_FOLDER
    if options.folder is None and not SCHEMA_FOLDER.is_dir():
        # An installed package has no schemas/ beside it: the files belong to a checkout.
        echo(f"no {SCHEMA_FOLDER}: run this in a recipelint checkout, or give --folder")
        return 2
    try:
        return _check(folder, echo) if options.check else _write(folder, echo)
    except OSError as exc:
        echo(f"cannot write the schemas to {folder}: {exc}")
        return 2


def _check(folder: Path, echo: Callable[[str], object]) -> int:
    stale = stale_files(folder)
    for name in stale:
        echo(f"{name} differs from the models; run {REGENERATE}")
    return 1 if stale else 0


def _write(folder: Path, echo: Callable[[str], object]) -> int:
    for name in write_schemas(folder):
        echo(f"wrote {folder / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
