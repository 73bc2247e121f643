"""Schema stage: validate a loaded document against its JSON Schema (schemas/*.schema.json).

One module per job: :mod:`.builtin` (the built-in schemas and the RL1xx codes),
:mod:`.validators` (validator building, with the ECMA-to-Rust regex translation),
:mod:`.messages` and :mod:`.wording` (error messages), :mod:`.dates` (YAML dates),
:mod:`.formats` (format verdicts, kept between runs),
:mod:`.overlay` (a tree's schema overlays, TOML included) and :mod:`.check` (the entry
point). The public names are importable from here.
"""

from __future__ import annotations

from recipelint.configfile import NO_OVERLAY, OVERLAY_FOLDER, TreeOverlay
from recipelint.schema.builtin import (
    CODES,
    INVALID_DATE,
    INVALID_ENUM,
    INVALID_OVERLAY,
    INVALID_TYPE,
    INVALID_VALUE,
    INVALID_VERSION,
    MISSING_KEY,
    SCHEMA_FILES,
    UNKNOWN_KEY,
    load_schema,
)
from recipelint.schema.check import (
    document_overlay,
    schema_findings,
    validate_document,
    validate_documents,
    validate_each,
)
from recipelint.schema.messages import MAX_DEDENT_LEVELS, SchemaFinding
from recipelint.schema.overlay import CONFIG_CODE, OVERLAY_CODE, read_tree_overlay, tree_overlay
from recipelint.schema.validators import (
    PYTHON_SPACE,
    error_validator_for,
    fast_validator_for,
    known_valid,
    python_pattern_for_rust,
    schema_for,
    validator_for,
)
from recipelint.schema.wording import json_type

__all__ = [
    "CODES",
    "CONFIG_CODE",
    "INVALID_DATE",
    "INVALID_ENUM",
    "INVALID_OVERLAY",
    "INVALID_TYPE",
    "INVALID_VALUE",
    "INVALID_VERSION",
    "MAX_DEDENT_LEVELS",
    "MISSING_KEY",
    "NO_OVERLAY",
    "OVERLAY_CODE",
    "OVERLAY_FOLDER",
    "PYTHON_SPACE",
    "SCHEMA_FILES",
    "UNKNOWN_KEY",
    "SchemaFinding",
    "TreeOverlay",
    "document_overlay",
    "error_validator_for",
    "fast_validator_for",
    "json_type",
    "known_valid",
    "load_schema",
    "python_pattern_for_rust",
    "read_tree_overlay",
    "schema_for",
    "schema_findings",
    "tree_overlay",
    "validate_document",
    "validate_documents",
    "validate_each",
    "validator_for",
]
