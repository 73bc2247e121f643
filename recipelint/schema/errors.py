"""The errors of an invalid document, in one shape whichever validator listed them.

The compiled validator (jsonschema_rs) lists them when it can: importing jsonschema costs a
check more than validating every document of a tree, and a tree with one invalid file would
pay it on every run. jsonschema lists them when the compiled validator cannot stand in for
it: a schema whose patterns it cannot translate or whose references leave the document, a
value it cannot read, or an error of a keyword the messages do not word by name (their text
would then be jsonschema's own message). Either way an error carries what the messages read
(recipelint.schema.messages), as jsonschema names it: the failing keyword, its value in the
schema, the schema holding it, the paths without ``$ref`` steps, and the errors of each
alternative of an ``anyOf``/``oneOf``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from recipelint.schema.validators import (
    compiled_stands_in,
    error_validator_for,
    fast_validator_for,
    schema_for,
)

Path = tuple[str | int, ...]

# The keywords recipelint.schema.messages words by name (propertyNames' errors are worded as
# a key name, whatever keyword inside it failed). Another keyword's finding would quote the
# validator's own message: those documents are listed by jsonschema, as before.
WORDED_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "unevaluatedProperties",
        "required",
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "pattern",
        "format",
    }
)


# The kinds whose context holds each alternative's errors (a oneOf that several alternatives
# satisfy holds none: jsonschema reports it without them).
_ALTERNATIVES = (
    jsonschema_rs.ValidationErrorKind.AnyOf,
    jsonschema_rs.ValidationErrorKind.OneOfNotValid,
)


@dataclass(frozen=True)
class SchemaError:
    """One error, with the fields of jsonschema's ValidationError that the messages read."""

    validator: str
    validator_value: Any
    instance: Any
    schema: Any
    absolute_path: Path
    relative_path: Path
    absolute_schema_path: Path
    relative_schema_path: Path
    context: tuple[SchemaError, ...] = ()
    message: str = ""


def listed_errors(data: Any, kind: str, overlay: str = "") -> list[SchemaError]:
    """Every error of a document of ``kind`` (with a tree's ``overlay``)."""
    listed = _compiled_errors(data, kind, overlay)
    if listed is not None:
        return listed
    validator = error_validator_for(kind, overlay)
    return [from_jsonschema(error) for error in validator.iter_errors(data)]


def _compiled_errors(data: Any, kind: str, overlay: str) -> list[SchemaError] | None:
    """The compiled validator's errors, or None when they could differ from jsonschema's."""
    if not compiled_stands_in(kind, overlay):
        return None
    root = schema_for(kind, overlay)
    try:
        raw = list(fast_validator_for(kind, overlay).iter_errors(data))
    except Exception:  # noqa: BLE001 - a value it cannot read: jsonschema reads it
        return None
    listed = [_from_compiled(error, root, (), ()) for error in raw]
    return None if any(error is None for error in listed) else listed  # type: ignore[return-value]


def from_jsonschema(error: Any) -> SchemaError:
    """A jsonschema ValidationError (and the errors of its alternatives)."""
    return SchemaError(
        validator=str(error.validator),
        validator_value=error.validator_value,
        instance=error.instance,
        schema=error.schema,
        absolute_path=tuple(error.absolute_path),
        relative_path=tuple(error.relative_path),
        absolute_schema_path=tuple(error.absolute_schema_path),
        relative_schema_path=tuple(error.relative_schema_path),
        context=tuple(from_jsonschema(sub) for sub in error.context or ()),
        message=str(error.message),
    )


def _from_compiled(
    error: Any, root: dict[str, Any], parent_path: Path, parent_steps: Sequence[Any]
) -> SchemaError | None:
    """A jsonschema_rs ValidationError as jsonschema reports it, or None when it cannot be.

    ``parent_path`` and ``parent_steps`` are the instance path and the schema steps (as
    the compiled validator writes them, ``$ref`` included) of the alternative it belongs to."""
    kind = error.kind
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.PropertyNames):
        error = kind.error  # jsonschema reports the keyword inside propertyNames
        kind = error.kind
    steps = list(error.evaluation_path)
    if not steps or steps[-1] not in WORDED_KEYWORDS and "propertyNames" not in steps:
        return None
    holder = _schema_at(root, steps[:-1])
    if not isinstance(holder, dict) or steps[-1] not in holder:
        return None
    instance_path = tuple(error.instance_path)
    context: list[SchemaError] = []
    if isinstance(kind, _ALTERNATIVES):
        for branch in kind.context:
            for sub in branch:
                found = _from_compiled(sub, root, instance_path, steps)
                if found is None:
                    return None
                context.append(found)
    return SchemaError(
        validator=steps[-1],
        validator_value=holder[steps[-1]],
        instance=error.instance,
        schema=holder,
        absolute_path=instance_path,
        relative_path=instance_path[len(parent_path) :],
        absolute_schema_path=_without_refs(steps),
        relative_schema_path=_without_refs(steps[len(parent_steps) :]),
        context=tuple(context),
        message=str(error.message),
    )


def _without_refs(steps: Sequence[Any]) -> Path:
    # jsonschema leaves `$ref` out of an error's schema path.
    return tuple(step for step in steps if step != "$ref")


_MISSING = object()


def _schema_at(root: dict[str, Any], steps: Sequence[Any]) -> Any:
    """The subschema an evaluation path leads to, following local references at ``$ref``."""
    node: Any = root
    for step in steps:
        if step == "$ref":
            node = _referenced(root, node.get("$ref") if isinstance(node, dict) else None)
        else:
            node = _child(node, step)
        if node is _MISSING:
            return None
    return node


def _referenced(root: dict[str, Any], ref: Any) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return _MISSING
    node: Any = root
    for part in ref[2:].split("/") if len(ref) > 1 else ():
        key = part.replace("~1", "/").replace("~0", "~")
        node = _child(node, int(key) if isinstance(node, list) and key.isdigit() else key)
        if node is _MISSING:
            break
    return node


def _child(node: Any, step: Any) -> Any:
    if isinstance(node, dict):
        return node.get(step, _MISSING)
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        return node[step]
    return _MISSING
