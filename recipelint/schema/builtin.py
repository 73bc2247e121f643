"""The built-in schemas (schemas/*.schema.json), the kinds of file they describe and the
codes of the schema stage (catalog: rules/RL1xx-structure.yaml).

RL101 unknown-key, RL102 invalid-type, RL103 missing-required-key,
RL104 invalid-enum-value, RL105 invalid-version, RL106 invalid-date,
RL107 invalid-value (pattern, range, length, uniqueness, key names: the catch-all),
RL108 invalid-schema-overlay (a tree's own schema extension that cannot be merged).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

# A compiled validator answers "valid?" ~30x faster; the messages still come from jsonschema.
from recipelint.packagedata import SCHEMAS, data_folder

SCHEMA_FILES: dict[str, str] = {
    "recipe": "recipe.schema.json",
    "strategy": "strategy.schema.json",
    "kv_store": "kv_store.schema.json",
    "taxonomy": "taxonomy.schema.json",
    "platforms": "platforms.schema.json",
}

UNKNOWN_KEY = "RL101"
INVALID_TYPE = "RL102"
MISSING_KEY = "RL103"
INVALID_ENUM = "RL104"
INVALID_VERSION = "RL105"
INVALID_DATE = "RL106"
INVALID_VALUE = "RL107"
INVALID_OVERLAY = "RL108"
CODES: dict[str, str] = {
    UNKNOWN_KEY: "unknown-key",
    INVALID_TYPE: "invalid-type",
    MISSING_KEY: "missing-required-key",
    INVALID_ENUM: "invalid-enum-value",
    INVALID_VERSION: "invalid-version",
    INVALID_DATE: "invalid-date",
    INVALID_VALUE: "invalid-value",
    INVALID_OVERLAY: "invalid-schema-overlay",
}

# Keywords that step into a child of the instance (they extend the instance path).
CHILD_KEYWORDS = {
    "properties",
    "patternProperties",
    "additionalProperties",
    "items",
    "prefixItems",
}
MAP_KEYWORDS = {"patternProperties", "additionalProperties"}
NAMED_KEYWORDS = {
    "properties",
    "patternProperties",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "$defs",
}
JSON_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}
YAML_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


# ----------------------------------------------------------------------------- loading


@functools.cache
def load_schema(kind: str) -> dict[str, Any]:
    """The parsed schema for a document kind (read once from the installed package)."""
    text = data_folder(SCHEMAS).joinpath(SCHEMA_FILES[kind]).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
