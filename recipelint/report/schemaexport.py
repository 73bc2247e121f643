"""The JSON Schema a kind of file is validated with, as text: the built-in file byte for
byte, or with a tree's overlays merged in (`recipelint schema` prints it; docs/schemas.md).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from recipelint.packagedata import SCHEMAS, data_folder
from recipelint.schema.builtin import SCHEMA_FILES


class NotInTreeError(Exception):
    """The path whose tree's schema was asked for is inside no recipe tree."""


def builtin_schema_text(kind: str) -> str:
    """The shipped schema file as it is (a copy of it is recognised as no overlay by its $id)."""
    return data_folder(SCHEMAS).joinpath(SCHEMA_FILES[kind]).read_text(encoding="utf-8")


def overlaid_schema(kind: str, patches: str) -> dict[str, Any]:
    """The merged schema, under an $id of its own: it is not the built-in schema.

    The $id is the built-in one with ``?overlay=`` and a digest of the overlays, stable for
    the same overlays. Written back into the tree's schemas/ folder by mistake, a file with
    the built-in $id would be taken for an editor's copy and silently replace the overlay;
    with this one it is read as an overlay and refused (RL108: $id cannot change) instead.
    """
    from recipelint.schema.validators import schema_for

    schema = dict(schema_for(kind, patches))
    digest = hashlib.sha256(patches.encode("utf-8")).hexdigest()[:12]
    schema["$id"] = f"{schema['$id']}?overlay={digest}"
    return schema


def tree_schema_text(kind: str, tree: Path, config_file: Path | None = None) -> str:
    """The schema a tree's documents of ``kind`` are validated with, as JSON text.

    ConfigError when the tree's configuration or overlays cannot be used; NotInTreeError
    when ``tree`` is inside no recipe tree.
    """
    from recipelint.configuration.config import load_config
    from recipelint.read.tree import find_tree_root

    root = find_tree_root(tree)
    if root is None:
        raise NotInTreeError(
            f"{tree} is not inside a recipe tree "
            "(no folder above it holds taxonomy.yaml and models/)"
        )
    # load_config validates the configuration and every overlay (ConfigError).
    patches = load_config(root, config_file).overlay.patches.get(kind, "")
    if not patches:
        return builtin_schema_text(kind)
    return json.dumps(overlaid_schema(kind, patches), indent=2, ensure_ascii=False) + "\n"
