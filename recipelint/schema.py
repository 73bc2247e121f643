"""Schema stage: validate a loaded document against its JSON Schema (schemas/*.schema.json).

Every jsonschema error becomes one Diagnostic at an exact place: an unknown key points
at the key, a wrong value at the value, a missing key at the mapping that lacks it.
Errors of ``anyOf``/``oneOf`` are reduced to the branch that fits the value's shape, so
an author reads one actionable message instead of a list of alternatives.

Codes (catalog: rules/RL1xx-structure.yaml):

RL101 unknown-key, RL102 invalid-type, RL103 missing-required-key,
RL104 invalid-enum-value, RL105 invalid-version, RL106 invalid-date,
RL107 invalid-value (pattern, range, length, uniqueness, key names: the catch-all),
RL108 invalid-schema-overlay (a tree's own schema extension that cannot be merged).

A tree may extend the built-in schemas for fields its pull request adds (see "tree
overlays" below and docs/schemas.md); validators are cached per (schema, overlay).
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# A compiled validator answers "valid?" ~30x faster; the messages still come from jsonschema.
import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.validators import extend

from recipelint.config import OVERLAY_FOLDER  # config imports this module only lazily
from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.load import Document, load_document, value_at
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
_CHILD_KEYWORDS = {
    "properties",
    "patternProperties",
    "additionalProperties",
    "items",
    "prefixItems",
}
_MAP_KEYWORDS = {"patternProperties", "additionalProperties"}
_NAMED_KEYWORDS = {
    "properties",
    "patternProperties",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "$defs",
}
_JSON_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}
_YAML_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


# ----------------------------------------------------------------------------- loading


@functools.cache
def load_schema(kind: str) -> dict[str, Any]:
    """The parsed schema for a document kind (read once from the installed package)."""
    text = data_folder(SCHEMAS).joinpath(SCHEMA_FILES[kind]).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


# Overlays are keyed by their canonical JSON ("" = none), so a tree without one shares the
# built-in validators, and a tree with one compiles its own once per process.
@functools.lru_cache(maxsize=64)
def schema_for(kind: str, overlay: str = "") -> dict[str, Any]:
    """The schema of a kind with a tree's overlay merged in (tree_overlay gives ``overlay``)."""
    return _overlaid(kind, overlay) if overlay else load_schema(kind)


@functools.lru_cache(maxsize=64)
def validator_for(kind: str, overlay: str = "") -> Draft202012Validator:
    schema = schema_for(kind, overlay)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


# ----------------------------------------------------------------------------- fast validity


# What Python's `\s` matches in a str pattern: exactly the characters for which str.isspace()
# is true (tests/test_schema_fast.py recomputes it). ECMA and Rust `\s` differ: they lack
# \x1c-\x1f, and ECMA adds \ufeff.
PYTHON_SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class _Untranslatable(Exception):
    """A pattern whose meaning in Python's `re` the compiled validator might not reproduce."""


def python_pattern_for_rust(pattern: str) -> str:
    """``pattern`` rewritten so the compiled validator accepts what Python's ``re.search`` accepts.

    Handled: ``\\s`` (spelled out as Python's own set) and ``$`` (Python's also matches
    before a final newline). Anything else that could differ between the dialects
    (``.``, ``\\d``, ``\\w``, ``\\b``, their negations, inline flags, …) raises _Untranslatable, and
    documents of that kind are then always validated by jsonschema.
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 >= len(pattern):
                raise _Untranslatable(pattern)
            escaped = pattern[i + 1]
            if escaped == "s":
                out.append(PYTHON_SPACE if in_class else f"[{PYTHON_SPACE}]")
            elif escaped.isascii() and not escaped.isalnum():
                out.append(char + escaped)  # an escaped punctuation character is itself in both
            else:
                raise _Untranslatable(pattern)
            i += 2
            continue
        if in_class:
            if char == "[" or char == "]" and out[-1] in ("[", "[^"):
                raise _Untranslatable(
                    pattern
                )  # nested classes, set operations, `[]` (empty in ECMA)
            in_class = char != "]"
            out.append(char)
        elif char == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                out.append("[^")
                i += 2
                continue
            out.append(char)
        elif char == "$":
            out.append("\n?$")
        elif char == "." or char == "(" and pattern[i + 1 : i + 2] == "?":
            raise _Untranslatable(pattern)
        else:
            out.append(char)
        i += 1
    if in_class:
        raise _Untranslatable(pattern)
    return "".join(out)


def _rust_schema(node: Any) -> Any:
    """A copy of a schema with every regular expression translated for the compiled validator."""
    if isinstance(node, dict):
        copied: dict[str, Any] = {}
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                copied[key] = python_pattern_for_rust(value)
            elif key == "patternProperties" and isinstance(value, dict):
                copied[key] = {
                    python_pattern_for_rust(p): _rust_schema(v) for p, v in value.items()
                }
            else:
                copied[key] = _rust_schema(value)
        return copied
    if isinstance(node, list):
        return [_rust_schema(value) for value in node]
    return node


def _formats(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        if isinstance(node.get("format"), str):
            found.add(node["format"])
        for value in node.values():
            _formats(value, found)
    elif isinstance(node, list):
        for value in node:
            _formats(value, found)
    return found


@functools.lru_cache(maxsize=64)
def fast_validator_for(kind: str, overlay: str = "") -> Any:
    """The compiled validator of a kind, or None when it cannot be made to agree with jsonschema.

    Formats are checked by jsonschema's own format checker (its `date` rejects year 0000,
    the compiled one does not), and patterns are translated (python_pattern_for_rust).
    """
    schema = schema_for(kind, overlay)
    try:
        translated = _rust_schema(schema)
    except _Untranslatable:
        return None
    try:
        return jsonschema_rs.Draft202012Validator(
            translated, validate_formats=True, formats=_format_callbacks(schema)
        )
    except Exception:  # noqa: BLE001 - a schema it cannot compile: jsonschema alone, as before
        return None


def _conforms(checker: Any, name: str, value: Any) -> bool:
    return bool(checker.conforms(value, name))


def _format_callbacks(schema: Any) -> dict[str, Callable[..., bool]]:
    checker = Draft202012Validator.FORMAT_CHECKER
    return {name: functools.partial(_conforms, checker, name) for name in _formats(schema, set())}


class _Acceptance:
    """Which values one subschema of a kind accepts, as the compiled validator says.

    jsonschema, which words the RL1xx findings, walks every value of a document it rejects,
    valid ones included; a valid value yields no error, so skipping the values this says
    are valid leaves its errors as they were. A subschema is compiled on first use (with
    the schema's ``$defs`` beside it, which its local references point into); a value the
    compiled validator cannot read counts as not accepted.
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self._defs = _rust_schema(schema.get("$defs", {}))
        self._formats = _format_callbacks(schema)
        # id(subschema) -> (subschema, its compiled validator or None); the subschema is
        # kept so that its id stays its own.
        self._compiled: dict[int, tuple[Any, Any]] = {}

    def accepts(self, subschema: Any, value: Any) -> bool:
        entry = self._compiled.get(id(subschema))
        if entry is None or entry[0] is not subschema:
            entry = self._compiled[id(subschema)] = (subschema, self._compile(subschema))
        try:
            return entry[1] is not None and bool(entry[1].is_valid(value))
        except Exception:  # noqa: BLE001 - a value it cannot read: jsonschema looks at it
            return False

    def _compile(self, subschema: Any) -> Any:
        if not isinstance(subschema, dict) or "$defs" in subschema:
            return None
        try:
            translated = {**_rust_schema(subschema), "$defs": self._defs}
            return jsonschema_rs.Draft202012Validator(
                translated, validate_formats=True, formats=self._formats
            )
        except Exception:  # noqa: BLE001 - untranslatable or not compilable: never skipped
            return None


def _only_local_definitions(node: Any) -> bool:
    """Every ``$ref`` points into ``#/$defs``, so a subschema compiled beside the ``$defs`` means
    what it means in place."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref is not None and not (isinstance(ref, str) and ref.startswith("#/$defs/")):
            return False
        return all(_only_local_definitions(value) for value in node.values())
    if isinstance(node, list):
        return all(_only_local_definitions(value) for value in node)
    return True


def _pruning_keywords(acceptance: _Acceptance) -> dict[str, Callable[..., Any]]:
    """jsonschema's own keywords that descend into values, given only the values that fail."""
    keywords = Draft202012Validator.VALIDATORS
    properties, additional, items = (
        keywords["properties"],
        keywords["additionalProperties"],
        keywords["items"],
    )

    def failing_properties(validator: Any, named: Any, instance: Any, schema: Any) -> Any:
        if isinstance(named, dict) and isinstance(instance, dict):
            named = {
                key: sub
                for key, sub in named.items()
                if key in instance and not acceptance.accepts(sub, instance[key])
            }
        return properties(validator, named, instance, schema)

    def failing_additional(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
        if isinstance(extra, dict) and isinstance(instance, dict):
            # Only the values are descended into: which keys are extra is unchanged.
            instance = {
                key: value
                for key, value in instance.items()
                if not acceptance.accepts(extra, value)
            }
        return additional(validator, extra, instance, schema)

    def failing_items(validator: Any, each: Any, instance: Any, schema: Any) -> Any:
        if (
            isinstance(each, dict)
            and isinstance(instance, list)
            and "prefixItems" not in schema
            and all(acceptance.accepts(each, value) for value in instance)
        ):
            return ()
        return items(validator, each, instance, schema)

    return {
        "properties": failing_properties,
        "additionalProperties": failing_additional,
        "items": failing_items,
    }


@functools.lru_cache(maxsize=64)
def error_validator_for(kind: str, overlay: str = "") -> Draft202012Validator:
    """jsonschema's validator of a kind, for the errors of a document: the same errors as
    validator_for's, found without descending into the values the compiled validator accepts."""
    schema = schema_for(kind, overlay)
    if fast_validator_for(kind, overlay) is None or not _only_local_definitions(schema):
        return validator_for(kind, overlay)
    keywords = _pruning_keywords(_Acceptance(schema))
    pruning: Any = extend(Draft202012Validator, keywords)  # type: ignore[no-untyped-call]
    return pruning(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)  # type: ignore[no-any-return]


def known_valid(doc: Document, overlay: str = "") -> bool:
    """True only when the document certainly has no jsonschema error (then there is nothing to map).

    False means "ask jsonschema": the document is invalid, or the compiled validator cannot
    read it (a non-string key, a lone surrogate, a value that is not JSON, …).
    """
    validator = fast_validator_for(doc.kind, overlay)
    if validator is None:
        return False
    try:
        return bool(validator.is_valid(doc.data))
    except Exception:  # noqa: BLE001 - any refusal of the accelerator means: take the slow path
        return False


# ----------------------------------------------------------------------------- schema walking


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    """Follow local ``$ref``s; sibling keywords of a ``$ref`` (title, description) win."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 32:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            break
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        schema, seen = merged, seen + 1
    return schema


@dataclass(frozen=True)
class _Step:
    """How one instance path element was reached in the schema."""

    element: str | int
    via_map: bool
    schema: dict[str, Any]


def _steps(
    root: dict[str, Any], schema_path: Sequence[Any], instance_path: Sequence[Any]
) -> list[_Step]:
    """Replay an error's schema path to learn, per instance element, which keyword consumed it."""
    steps: list[_Step] = []
    current: Any = root
    tokens = list(schema_path)
    i = 0
    while i < len(tokens) and len(steps) < len(instance_path):
        token = tokens[i]
        current = _resolve(root, current)
        if not isinstance(current, dict):
            break
        if token == "$ref":
            i += 1
            continue
        if token in _NAMED_KEYWORDS and i + 1 < len(tokens):
            sub = current.get(token)
            name = tokens[i + 1]
            current = sub[name] if isinstance(sub, (dict, list)) else {}
            if token in _CHILD_KEYWORDS:
                steps.append(
                    _Step(
                        instance_path[len(steps)], token in _MAP_KEYWORDS, _resolve(root, current)
                    )
                )
            i += 2
            continue
        current = current.get(token, {})
        if token in _CHILD_KEYWORDS:
            steps.append(
                _Step(instance_path[len(steps)], token in _MAP_KEYWORDS, _resolve(root, current))
            )
        i += 1
    return steps


def _field_path(elements: Sequence[str | int]) -> str:
    text = ""
    for element in elements:
        text += (
            f"[{element}]"
            if isinstance(element, int)
            else (f".{element}" if text else str(element))
        )
    return text


def _lower_first(title: str) -> str:
    """ "Variant" -> "variant", but "KV offload option" keeps its acronym."""
    return title[:1].lower() + title[1:] if title[1:2].islower() else title


def _entry_title(step: _Step) -> str | None:
    """The title of a map entry ("Variant", "Feature"), if the entry's schema has one."""
    title = step.schema.get("title") if step.via_map and isinstance(step.element, str) else None
    return _lower_first(title) if isinstance(title, str) else None


def _where(steps: Sequence[_Step], kind: str) -> str:
    """Name the container at the end of ``steps``: "variant 'fp8'", "mode 'mtp' in feature 'x'", "meta"."""
    if not steps:
        return "the kv_store file" if kind == "kv_store" else f"the {kind}"
    anchor = max((i for i, step in enumerate(steps) if _entry_title(step)), default=-1)
    if anchor == len(steps) - 1:
        head = f"{_entry_title(steps[-1])} '{steps[-1].element}'"
        outer = max((i for i, step in enumerate(steps[:-1]) if _entry_title(step)), default=-1)
        return f"{head} in {_where(steps[: outer + 1], kind)}" if outer >= 0 else head
    tail = _field_path([step.element for step in steps[anchor + 1 :]])
    return tail if anchor < 0 else f"{tail} in {_where(steps[: anchor + 1], kind)}"


def _subject(steps: Sequence[_Step], kind: str) -> str:
    """Name a value by its field and container ("'difficulty' in meta"), a list item by its
    pointer ("`variants.fp8.extra_args[1]`": 0-based, as written in an editor's path, never "item 1")."""
    if not steps:
        return f"the {kind.replace('_', ' ')}"
    element = steps[-1].element
    if isinstance(element, int):
        return f"`{_field_path([step.element for step in steps])}`"
    return f"'{element}' in {_where(steps[:-1], kind)}"


# ----------------------------------------------------------------------------- value shapes


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def _shown(value: Any) -> str:
    """A short, YAML-like rendering of a value for messages."""
    kind = json_type(value)
    if kind == "string":
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"the string '{text}'"
    if kind in ("integer", "number"):
        return f"the number {value}"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "null":
        return "null (an empty value)"
    return "a mapping" if kind == "object" else "a list"


def _branch_types(root: dict[str, Any], schema: Any, depth: int = 0) -> set[str] | None:
    """JSON types a (sub)schema accepts; None means any."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "type" in schema:
        declared = schema["type"]
        return set(declared if isinstance(declared, list) else [declared])
    if "const" in schema:
        return {json_type(schema["const"])}
    if "enum" in schema:
        return {json_type(value) for value in schema["enum"]}
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            types: set[str] = set()
            for branch in schema[keyword]:
                sub = _branch_types(root, branch, depth + 1)
                if sub is None:
                    return None
                types |= sub
            return types
    return None


def _accepts(types: set[str] | None, value: Any) -> bool:
    if types is None:
        return True
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


def _type_phrase(types: Sequence[str]) -> str:
    names = [
        _JSON_TYPE_NAMES.get(t, t) for t in sorted(set(types), key=list(_JSON_TYPE_NAMES).index)
    ]
    if "integer" in types and "number" in types:
        names.remove("an integer")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# ----------------------------------------------------------------------------- flattening


def _flatten(root: dict[str, Any], error: ValidationError) -> list[ValidationError]:
    """Reduce anyOf/oneOf to the errors of the one branch that best fits the value.

    A branch fits when it accepts the value's JSON type; among fitting branches the one
    with the fewest errors at the value itself (unknown or missing keys there mean the
    branch describes another shape) wins, then the one with fewer errors, then the
    first declared.  Nested alternatives are reduced the same way.
    """
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return [error]
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    fitting = [
        (index, subs)
        for index, subs in sorted(branches.items())
        if _accepts(_branch_types(root, _keyword_value(error)[index]), error.instance)
    ]
    if not fitting:
        return [_synthetic_type_error(root, error)]
    _, chosen = min(
        fitting,
        key=lambda item: (sum(1 for e in item[1] if not e.relative_path), len(item[1]), item[0]),
    )
    return [flat for sub in chosen for flat in _flatten(root, sub)]


def _keyword_value(error: ValidationError) -> Any:
    """The failing keyword's value in the schema (always set on errors the validator raises)."""
    return error.validator_value


def _synthetic_type_error(root: dict[str, Any], error: ValidationError) -> ValidationError:
    types: set[str] = set()
    for branch in _keyword_value(error):
        types |= _branch_types(root, branch) or set()
    synthetic = ValidationError(
        "wrong type",
        validator="type",
        validator_value=sorted(types),
        instance=error.instance,
        schema=error.schema,
    )
    synthetic.path = error.path
    synthetic.relative_path = error.relative_path
    synthetic.schema_path = error.schema_path
    synthetic.relative_schema_path = error.relative_schema_path
    synthetic.parent = error.parent
    return synthetic


# ----------------------------------------------------------------------------- diagnostics


@dataclass(frozen=True)
class SchemaFinding:
    """A schema diagnostic with the JSON pointer (path into the document's data) it is about."""

    pointer: tuple[str | int, ...]
    diagnostic: Diagnostic

    @property
    def code(self) -> str:
        return self.diagnostic.code


@dataclass(frozen=True)
class _Context:
    doc: Document
    root: dict[str, Any]
    version_pattern: str | None
    date_pattern: str | None
    overlay: str = ""

    def diagnostic(
        self, code: str, span: Span, message: str, hint: str | None, pointer: Sequence[str | int]
    ) -> SchemaFinding:
        at = tuple(pointer)
        message, hint = _one_line(message), _one_line(hint) if hint is not None else None
        return SchemaFinding(
            at, Diagnostic(self.doc.path, span, code, Severity.ERROR, message, hint, at)
        )


_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _one_line(text: str) -> str:
    """Keys and values quoted from the document, with line breaks and control characters escaped,
    so every schema message is one printable line whatever the document holds."""
    return _CONTROL_CHARACTERS.sub(
        lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text
    )


def _suggest(word: str, choices: Sequence[Any]) -> str | None:
    texts = [str(choice) for choice in choices if isinstance(choice, str)]
    lowered = {text.lower(): text for text in texts}
    if word.lower() in lowered and lowered[word.lower()] != word:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word, texts, n=1, cutoff=0.7)
    return close[0] if close else None


def _normal_key(key: str) -> str:
    return key.lower().replace("-", "_")


def _edits(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def _suggest_key(key: str, allowed: Sequence[str]) -> str | None:
    """A known key the unknown one is a misspelling of: same up to case and -/_, or one slip
    (two on a key of 8+ characters). Anything further may be a new field with its own
    meaning, and naming a different key would send the author the wrong way."""
    wanted = _normal_key(key)
    budget = 0 if len(wanted) < 4 else 1 if len(wanted) < 8 else 2
    best: tuple[int, str] | None = None
    for name in allowed:
        distance = _edits(wanted, _normal_key(name))
        if distance <= budget and (best is None or distance < best[0]):
            best = (distance, name)
    return best[1] if best else None


def _described(schema: Any) -> str | None:
    description = schema.get("description") if isinstance(schema, dict) else None
    return description if isinstance(description, str) else None


def _unknown_keys(
    ctx: _Context, error: ValidationError, steps: list[_Step]
) -> Iterator[SchemaFinding]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    allowed = sorted(schema.get("properties", {}))
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    where = _where(steps, ctx.doc.kind)
    path = tuple(error.absolute_path)
    instance: Any = error.instance  # the mapping holding the unknown keys
    for key in instance:
        if key in allowed or any(p.search(key) for p in patterns):
            continue
        suggestion = _suggest_key(key, allowed)
        misplaced = None if suggestion else _misplaced(ctx, path + (key,))
        if suggestion:
            message = f"unknown key '{key}' in {where} (did you mean '{suggestion}'?)"
            hint = f"rename it to '{suggestion}'"
        elif misplaced:
            message, hint = misplaced.explain(f"unknown key '{key}' in {where}")
        else:
            message = f"unknown key '{key}' in {where}"
            elsewhere = _owners(ctx.doc.kind, ctx.overlay).get(key)
            listed = ", ".join(allowed[:12]) + (", …" if len(allowed) > 12 else "")
            if elsewhere:
                hint = f"'{key}' is a key of {' and of '.join(elsewhere[:3])}, not of this mapping: move it or remove it"
            else:
                # The schema may simply be older than the field (a new site reads it): say what
                # is known, that the schema lacks it, not that nothing reads it.
                hint = (
                    f"the schema does not know it (allowed here: {listed}); "
                    if allowed
                    else "the schema does not know it; "
                ) + (
                    f"if the field is new, declare it in the tree: {OVERLAY_FOLDER}/{ctx.doc.kind}.schema.json"
                    " or [tool.recipelint.schema] (docs/schemas.md); otherwise remove it"
                )
        yield ctx.diagnostic(
            UNKNOWN_KEY, ctx.doc.key_span(path + (key,)), message, hint, path + (key,)
        )


@functools.lru_cache(maxsize=64)
def _owners(kind: str, overlay: str = "") -> dict[str, list[str]]:
    """Property name -> titles of the closed mappings that define it (for "move it there" hints)."""
    owners: dict[str, set[str]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            title = node.get("title")
            if (
                isinstance(node.get("properties"), dict)
                and node.get("additionalProperties") is False
                and title
            ):
                for name in node["properties"]:
                    owners.setdefault(name, set()).add(_lower_first(title))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema_for(kind, overlay))
    return {name: sorted(titles) for name, titles in owners.items()}


# ----------------------------------------------------------------------------- indentation
#
# A key one indentation step off lands in the neighbouring mapping, and the schema then
# reports it there as unknown (RL101) or of the wrong type (RL102). When the key and its
# value would be valid one level out (indented too far) or in the block mapping written
# just above it (not far enough), the message says so and names the column it belongs at.


# How many blocks deep a key dedented out of them is looked for.
MAX_DEDENT_LEVELS = 4


@dataclass(frozen=True)
class _Misplaced:
    key: str
    written_in: tuple[str | int, ...]  # the mapping the key is read in
    owner: tuple[str | int, ...]  # the mapping it would be valid in
    written: int  # the column the key starts at
    expected: int  # the column of the owner's keys

    def explain(self, as_written: str) -> tuple[str, str]:
        """The message and hint; the hint keeps what the schema says of the key where it is."""
        steps = abs(self.written - self.expected)
        direction = "too far" if self.written > self.expected else "too little"
        message = (
            f"`{self.key}` is not a key of {_mapping_name(self.written_in)}; it is a key of "
            f"{_mapping_name(self.owner)} — is it indented {steps} space{'s' * (steps != 1)} {direction}?"
            f" (expected column {self.expected})"
        )
        return (
            message,
            f"move it and the lines under it to column {self.expected} (as written: {as_written})",
        )


def _mapping_name(pointer: Sequence[str | int]) -> str:
    return f"`{_field_path(pointer)}`" if pointer else "the top level"


_ABSENT = object()


def _value_or_absent(data: Any, pointer: Sequence[str | int]) -> Any:
    return value_at(data, pointer, _ABSENT)


def _misplaced(ctx: _Context, path: tuple[str | int, ...]) -> _Misplaced | None:
    """Whether the key at ``path`` is explained by its indentation (None: it is not, or cannot be told)."""
    doc = ctx.doc
    key = path[-1] if path else None
    if not isinstance(key, str):
        return None
    written = doc.block_key_column(path)
    if written is None:
        return None
    parent, value = path[:-1], _value_or_absent(doc.data, path)
    # Indented too far: it is read inside its parent's value, and belongs beside the parent.
    if parent and isinstance(parent[-1], str):
        outer = _value_or_absent(doc.data, parent[:-1])
        column = doc.block_key_column(parent)
        if (
            isinstance(outer, dict)
            and key not in outer
            and column is not None
            and column < written
            and _fits(ctx, parent[:-1], key, value)
        ):
            return _Misplaced(key, parent, parent[:-1], written, column)
    # Not indented enough: it ends the block mappings written just above it (the last one
    # and those nested last in it), and belongs in the outermost of them that takes it.
    here = doc.key_span(path)
    previous = _previous_key(doc, parent, here, key)
    owner = parent + (previous,) if previous is not None else None
    while owner is not None and len(owner) - len(parent) <= MAX_DEDENT_LEVELS:
        inner = _value_or_absent(doc.data, owner)
        if not isinstance(inner, dict) or not inner:
            return None
        column = doc.block_key_column(owner + (next(iter(inner)),))
        if column is None or column <= written:
            return None
        if key not in inner and _fits(ctx, owner, key, value):
            return _Misplaced(key, parent, owner, written, column)
        last = _previous_key(doc, owner, here)
        owner = owner + (last,) if last is not None else None
    return None


def _previous_key(
    doc: Document, parent: tuple[str | int, ...], here: Span, key: str | None = None
) -> str | None:
    """The key of ``parent`` other than ``key`` written last before ``here`` (dict order can
    differ after a merge)."""
    mapping = _value_or_absent(doc.data, parent)
    best: tuple[tuple[int, int], str] | None = None
    for name in mapping if isinstance(mapping, dict) else ():
        if name == key or doc.block_key_column(parent + (name,)) is None:
            continue
        span = doc.key_span(parent + (name,))
        place = (span.line, span.column)
        if place < (here.line, here.column) and (best is None or place > best[0]):
            best = (place, name)
    return best[1] if best else None


def _fits(ctx: _Context, owner: tuple[str | int, ...], key: str, value: Any) -> bool:
    """Whether ``key: value`` is a valid entry of the mapping at ``owner``."""
    schema = _schema_at(ctx.root, ctx.doc.data, owner)
    entry = _entry_schema(schema, key) if schema is not None else None
    if entry is None:
        return False
    validator = error_validator_for(ctx.doc.kind, ctx.overlay)
    names = schema.get("propertyNames") if schema is not None else None
    try:
        if isinstance(names, dict) and not validator.evolve(schema=names).is_valid(key):
            return False
        return bool(validator.evolve(schema=entry).is_valid(value))
    except Exception:  # noqa: BLE001 - a value jsonschema cannot read: no explanation rather than a traceback
        return False


def _entry_schema(schema: dict[str, Any], key: str) -> Any:
    """The schema of ``key``'s value in a mapping; None when the mapping does not name it.

    An open mapping (no additionalProperties) accepts anything, which explains nothing."""
    properties = schema.get("properties")
    if isinstance(properties, dict) and key in properties:
        return properties[key]
    patterns = schema.get("patternProperties")
    for pattern, sub in patterns.items() if isinstance(patterns, dict) else ():
        try:
            if re.search(pattern, key):
                return sub
        except re.error:
            return None
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _schema_at(
    root: dict[str, Any], data: Any, pointer: Sequence[str | int]
) -> dict[str, Any] | None:
    """The schema of the mapping at ``pointer``; None where an alternative leaves it ambiguous."""
    schema: Any = root
    for part in pointer:
        schema = _shape_branch(root, schema, data)
        if schema is None:
            return None
        if isinstance(data, dict) and isinstance(part, str) and part in data:
            schema = _entry_schema(schema, part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            schema = schema.get("items") if isinstance(schema.get("items"), dict) else None
        else:
            return None
        if schema is None:
            return None
        data = data[part]
    return _shape_branch(root, schema, data)


def _shape_branch(
    root: dict[str, Any], schema: Any, value: Any, depth: int = 0
) -> dict[str, Any] | None:
    """``schema`` resolved, with anyOf/oneOf reduced to the one branch that accepts ``value``'s type."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or depth > 8:
        return None
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            fitting = [b for b in schema[keyword] if _accepts(_branch_types(root, b), value)]
            return _shape_branch(root, fitting[0], value, depth + 1) if len(fitting) == 1 else None
    return schema


def _missing_keys(
    ctx: _Context, error: ValidationError, steps: list[_Step]
) -> Iterator[SchemaFinding]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    path = tuple(error.absolute_path)
    where = _where(steps, ctx.doc.kind)
    for key in _keyword_value(error):
        if isinstance(error.instance, dict) and key in error.instance:
            continue
        described = _described(_resolve(ctx.root, schema.get("properties", {}).get(key)))
        hint = f"add '{key}': {described}" if described else f"add '{key}'"
        yield ctx.diagnostic(
            MISSING_KEY, ctx.doc.span(path), f"missing required key '{key}' in {where}", hint, path
        )


def _type_hint(expected: Sequence[str], value: Any) -> str | None:
    if "string" in expected and json_type(value) in ("integer", "number", "boolean"):
        rendered = json.dumps(value)
        return f'quote it: "{rendered}"'
    if (
        {"integer", "number"} & set(expected)
        and isinstance(value, str)
        and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value)
    ):
        return f"remove the quotes: {value}"
    if "array" in expected and isinstance(value, str):
        return f'write a list: ["{value}"], one token per item'
    if json_type(value) == "null":
        return "give it a value, or delete the key"
    return None


def _wrong_type(ctx: _Context, error: ValidationError, steps: list[_Step]) -> SchemaFinding:
    expected = (
        _keyword_value(error)
        if isinstance(_keyword_value(error), list)
        else [_keyword_value(error)]
    )
    path = tuple(error.absolute_path)
    message = f"{_subject(steps, ctx.doc.kind)} must be {_type_phrase(expected)}, not {_shown(error.instance)}"
    hint = _type_hint(expected, error.instance)
    misplaced = _misplaced(ctx, path)
    if misplaced:
        message, hint = misplaced.explain(message)
    return ctx.diagnostic(INVALID_TYPE, ctx.doc.span(path), message, hint, path)


def _bad_enum(ctx: _Context, error: ValidationError, steps: list[_Step]) -> SchemaFinding:
    allowed = [_keyword_value(error)] if error.validator == "const" else list(_keyword_value(error))
    path = tuple(error.absolute_path)
    listed = ", ".join(json.dumps(v) if not isinstance(v, str) else v for v in allowed)
    message = (
        f"{_subject(steps, ctx.doc.kind)} is {_shown(error.instance)}; expected one of: {listed}"
    )
    if len(allowed) == 1:
        message = f"{_subject(steps, ctx.doc.kind)} is {_shown(error.instance)}; expected {listed}"
    suggestion = _suggest(error.instance, allowed) if isinstance(error.instance, str) else None
    hint = f"did you mean '{suggestion}'?" if suggestion else None
    return ctx.diagnostic(INVALID_ENUM, ctx.doc.span(path), message, hint, path)


def _in_property_names(error: ValidationError) -> bool:
    return "propertyNames" in error.absolute_schema_path


def _bad_key_name(ctx: _Context, error: ValidationError, steps: list[_Step]) -> SchemaFinding:
    path = tuple(error.absolute_path)
    key = str(error.instance)
    schema = error.schema if isinstance(error.schema, dict) else {}
    rule = _described(schema) or f"it must match {schema.get('pattern', 'the expected form')}"
    message = f"invalid key '{key}' in {_where(steps, ctx.doc.kind)}: {rule[0].lower() + rule[1:]}"
    return ctx.diagnostic(
        INVALID_VALUE, ctx.doc.key_span(path + (key,)), message, None, path + (key,)
    )


def _pattern_code(ctx: _Context, error: ValidationError) -> str:
    if error.validator == "pattern" and _keyword_value(error) == ctx.version_pattern:
        return INVALID_VERSION
    if error.validator == "pattern" and _keyword_value(error) == ctx.date_pattern:
        return INVALID_DATE
    if error.validator == "format" and _keyword_value(error) == "date":
        return INVALID_DATE
    return INVALID_VALUE


def _value_message(error: ValidationError, subject: str) -> str:
    value, limit = error.instance, _keyword_value(error)
    shown = _shown(value)
    messages = {
        "minimum": f"{subject} is {value}; it must be at least {limit}",
        "maximum": f"{subject} is {value}; it must be at most {limit}",
        "exclusiveMinimum": f"{subject} is {value}; it must be greater than {limit}",
        "exclusiveMaximum": f"{subject} is {value}; it must be less than {limit}",
        "minLength": f"{subject} is empty",
        "maxLength": f"{subject} is longer than {limit} characters",
        "minItems": f"{subject} needs at least {limit} item{'s' if limit != 1 else ''}",
        "maxItems": f"{subject} has more than {limit} items",
        "uniqueItems": f"{subject} lists the same item more than once",
        "minProperties": f"{subject} is an empty mapping",
        "pattern": f"{subject} is {shown}, which is not of the expected form",
        "format": f"{subject} is {shown}, which is not a valid {limit}",
        "oneOf": f"{subject} matches more than one of the accepted forms",
    }
    return messages.get(str(error.validator), f"{subject} is not valid: {error.message}")


def _bad_value(ctx: _Context, error: ValidationError, steps: list[_Step]) -> SchemaFinding:
    path = tuple(error.absolute_path)
    code = _pattern_code(ctx, error)
    subject = _subject(steps, ctx.doc.kind)
    if code == INVALID_VERSION:
        message = f"{subject} is {_shown(error.instance)}, not a version X.Y.Z"
    elif code == INVALID_DATE:
        message = f"{subject} is {_shown(error.instance)}, not a calendar date YYYY-MM-DD"
    else:
        message = _value_message(error, subject)
        form = _described(error.schema) if error.validator == "pattern" else None
        if form and form != _described(steps[-1].schema if steps else None):
            message += f" ({form[0].lower() + form[1:].rstrip('.')})"
    field_schema = steps[-1].schema if steps else ctx.root
    return ctx.diagnostic(code, ctx.doc.span(path), message, _described(field_schema), path)


def _diagnose(ctx: _Context, raw: ValidationError) -> Iterator[SchemaFinding]:
    for error in _flatten(ctx.root, raw):
        yield from _diagnose_one(ctx, error)


def _diagnose_one(ctx: _Context, error: ValidationError) -> Iterator[SchemaFinding]:
    steps = _steps(ctx.root, error.absolute_schema_path, list(error.absolute_path))
    if _in_property_names(error):
        yield _bad_key_name(ctx, error, steps)
    elif error.validator in ("additionalProperties", "unevaluatedProperties"):
        yield from _unknown_keys(ctx, error, steps)
    elif error.validator == "required":
        yield from _missing_keys(ctx, error, steps)
    elif error.validator == "type":
        yield _wrong_type(ctx, error, steps)
    elif error.validator in ("enum", "const"):
        yield _bad_enum(ctx, error, steps)
    else:
        yield _bad_value(ctx, error, steps)


# ----------------------------------------------------------------------------- dates in the source


@dataclass(frozen=True)
class _DatePlan:
    """Where a date can sit at or under one schema: the children the walk steps into
    (None for a child under which none can)."""

    is_date: bool
    named: dict[str, Any]  # every property, whether or not a date can sit under it
    extra: Any  # additionalProperties
    items: Any


class _DateSchema:
    """Where dates can sit in one kind's schema, worked out once per subschema.

    Subschemas are keyed by id and kept beside their answer, so an id stays their own.
    """

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self._holds: dict[int, tuple[Any, bool]] = {}
        self._plans: dict[int, tuple[Any, _DatePlan | None]] = {}

    def may_hold(self, schema: Any) -> bool:
        """Whether a date can sit at or under ``schema`` (False prunes the walk)."""
        cached = self._holds.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        # A $ref cycle in progress: assume it can (never prunes wrongly).
        self._holds[id(schema)] = (schema, True)
        resolved = _resolve(self.root, schema)
        holds = False
        if isinstance(resolved, dict):
            extra = resolved.get("additionalProperties")
            properties = resolved.get("properties", {})
            children = list(properties.values()) if isinstance(properties, dict) else []
            children += [sub for sub in (extra, resolved.get("items")) if isinstance(sub, dict)]
            holds = resolved.get("format") == "date" or any(map(self.may_hold, children))
        self._holds[id(schema)] = (schema, holds)
        return holds

    def plan(self, schema: Any) -> _DatePlan | None:
        cached = self._plans.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        resolved = _resolve(self.root, schema) if self.may_hold(schema) else None
        plan = None
        if isinstance(resolved, dict):
            properties = resolved.get("properties", {})
            named = properties if isinstance(properties, dict) else {}
            plan = _DatePlan(
                resolved.get("format") == "date",
                {key: self._holding(sub) for key, sub in named.items()},
                self._holding(resolved.get("additionalProperties")),
                self._holding(resolved.get("items")),
            )
        self._plans[id(schema)] = (schema, plan)
        return plan

    def _holding(self, schema: Any) -> Any:
        return schema if isinstance(schema, dict) and self.may_hold(schema) else None

    def pointers(
        self, schema: Any, value: Any, pointer: tuple[Any, ...]
    ) -> Iterator[tuple[Any, ...]]:
        """Pointers of the values whose schema is a date (fixed keys and map values only)."""
        plan = self.plan(schema)
        if plan is None:
            return
        if plan.is_date and isinstance(value, str):
            yield pointer
        if isinstance(value, dict):
            for key, child in value.items():
                sub = plan.named.get(key, plan.extra)
                if sub is not None:
                    yield from self.pointers(sub, child, pointer + (key,))
        elif isinstance(value, list) and plan.items is not None:
            for index, child in enumerate(value):
                yield from self.pointers(plan.items, child, pointer + (index,))


@functools.lru_cache(maxsize=64)  # as schema_for's: one per kind and overlay
def _date_schema(kind: str, overlay: str = "") -> _DateSchema:
    return _DateSchema(schema_for(kind, overlay))


def _written_dates(ctx: _Context) -> Iterator[SchemaFinding]:
    """Dates js-yaml silently changes: 2026-02-30 rolls over, a timestamp shifts to UTC."""
    dates = _date_schema(ctx.doc.kind, ctx.overlay)
    for pointer in dates.pointers(dates.root, ctx.doc.data, ()):
        value = _get(ctx.doc.data, pointer)
        if not isinstance(value, str):
            continue
        written = ctx.doc.one_line_source(pointer).strip().strip("'\"")
        if not written or written == value:
            continue
        span = ctx.doc.span(pointer)
        if _YAML_DATE.match(written):
            message = f"'{pointer[-1]}' is {written}, which is not a calendar day (the compiler reads it as {value})"
        else:
            message = f"'{pointer[-1]}' is the timestamp {written}; the compiler keeps only its UTC day, {value}"
        yield ctx.diagnostic(INVALID_DATE, span, message, "write a real day as YYYY-MM-DD", pointer)


def _get(data: Any, pointer: Sequence[str | int]) -> Any:
    for part in pointer:
        data = data[part]
    return data


# ----------------------------------------------------------------------------- tree overlays
#
# A tree may declare schema extensions next to its data, so the pull request that adds a
# field declares it too: <tree>/schemas/<name>.schema.json|yaml|yml and
# [tool.recipelint.schema] in the tree's configuration. An overlay is merged into the
# built-in schema add-only (docs/schemas.md): it may add properties and keywords at places
# that exist, never change or remove what is built in.

OVERLAY_CODE = "RL108"
CONFIG_CODE = "RL016"
_OVERLAY_SUFFIXES = (".json", ".yaml", ".yml")
_MAX_OVERLAY_DEPTH = 64
# Keywords whose value maps names to schemas; an overlay adds new names (fields) under them.
_NAME_MAPS = {"properties", "patternProperties", "dependentSchemas", "$defs"}
_ADDABLE_MAPS = {"properties", "patternProperties", "dependentSchemas"}
_KEYWORDS = {
    "$ref",
    "$comment",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
}
# Keywords that name or re-root schemas: an overlay that added one could redirect the built-in ones.
_REFUSED = {"$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef", "$vocabulary", "$defs"}


@dataclass(frozen=True)
class TreeOverlay:
    """The overlays of one tree: per schema name, the canonical JSON of the patches that apply."""

    patches: dict[str, str]
    problems: tuple[Diagnostic, ...] = ()


NO_OVERLAY = TreeOverlay({})

Locator = Callable[[tuple[Any, ...], bool], Span]


@dataclass
class _Source:
    """One overlay as written: where it is, which code its problems get, how to place a pointer."""

    kind: str
    patch: Any
    path: Path
    code: str
    locate: Locator
    label: str


def _stat(path: str | Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


# root -> (files read, their stat signatures, overlay); re-read when any of those files changes.
_OVERLAYS: dict[str, tuple[tuple[str, ...], tuple[Any, ...], TreeOverlay]] = {}


def tree_overlay(root: Path | str) -> TreeOverlay:
    """The schema overlays of the tree at ``root`` (NO_OVERLAY when it declares none).

    Cached per tree on the stat signatures of the files it read: every document of a
    check asks, and without overlays the answer costs three stat calls.
    """
    key = os.path.abspath(root)
    cached = _OVERLAYS.get(key)
    if cached is not None and tuple(map(_stat, cached[0])) == cached[1]:
        return cached[2]
    base = Path(key)
    depends = [base / ".recipelint.toml", base / "pyproject.toml", base / OVERLAY_FOLDER]
    overlay = _read_overlays(base, depends)
    files = tuple(map(str, depends))
    _OVERLAYS[key] = (files, tuple(map(_stat, files)), overlay)
    return overlay


def _tree_root(doc: Document) -> str | None:
    """The tree root a document was loaded from: its path without its tree-relative name."""
    path, rel = os.fspath(doc.path), doc.rel
    if not rel or not path.endswith(rel) or path[-len(rel) - 1 : -len(rel)] not in ("/", os.sep):
        return None
    return path[: -len(rel) - 1] or os.sep


def _read_overlays(root: Path, depends: list[Path]) -> TreeOverlay:
    problems: list[Diagnostic] = []
    sources = _folder_sources(root, problems, depends) + _config_sources(root, problems, depends)
    patches: dict[str, list[Any]] = {}
    for kind in SCHEMA_FILES:
        merged = copy.deepcopy(load_schema(kind))
        for source in (s for s in sources if s.kind == kind and not _is_builtin_copy(s)):
            found = _apply(merged, source)
            if found:
                problems += found
            else:
                patches.setdefault(kind, []).append(source.patch)
    if not patches and not problems:
        return NO_OVERLAY
    canonical = {
        kind: json.dumps(listed, sort_keys=True, ensure_ascii=False)
        for kind, listed in patches.items()
    }
    return TreeOverlay(canonical, tuple(problems))


def _is_builtin_copy(source: _Source) -> bool:
    """A copy of the built-in schema kept in the tree for editors (docs/schemas.md) is no overlay:
    it carries the built-in $id, and a stale copy must not fail the check."""
    return isinstance(source.patch, dict) and source.patch.get("$id") == load_schema(
        source.kind
    ).get("$id")


def _problem(
    source: _Source, pointer: tuple[Any, ...], message: str, hint: str, at_key: bool = False
) -> Diagnostic:
    return Diagnostic(
        source.path,
        source.locate(pointer, at_key),
        source.code,
        Severity.ERROR,
        _one_line(message),
        _one_line(hint),
        pointer,
    )


def _folder_sources(root: Path, problems: list[Diagnostic], depends: list[Path]) -> list[_Source]:
    """<tree>/schemas/<name>.schema.json|yaml|yml, confined to the tree like every tree file."""
    folder = root / OVERLAY_FOLDER
    if not folder.is_dir():
        return []
    from recipelint.tree import confined_files

    sources: list[_Source] = []
    seen: dict[str, Path] = {}
    files = sorted(
        {p for suffix in _OVERLAY_SUFFIXES for p in confined_files(root, folder, suffix, problems)}
    )
    for path in files:
        name, _, suffix = path.name.partition(".schema.")
        if not suffix:
            continue  # not an overlay (a README, a helper file)
        rel = f"{OVERLAY_FOLDER}/{path.name}"
        depends.append(path)
        if name not in SCHEMA_FILES:
            close = difflib.get_close_matches(name, list(SCHEMA_FILES), n=1)
            problems.append(
                Diagnostic(
                    path,
                    Span(1, 1),
                    OVERLAY_CODE,
                    Severity.ERROR,
                    f"{rel} names no built-in schema"
                    + (f" (did you mean {close[0]}.schema.{suffix}?)" if close else ""),
                    f"name an overlay after the schema it extends: {', '.join(f'{k}.schema.json' for k in SCHEMA_FILES)}",
                )
            )
            continue
        if name in seen:
            problems.append(
                Diagnostic(
                    path,
                    Span(1, 1),
                    OVERLAY_CODE,
                    Severity.ERROR,
                    f"two overlays for the {name} schema: {OVERLAY_FOLDER}/{seen[name].name} and {rel}",
                    "keep one file per schema: merge them",
                )
            )
            continue
        seen[name] = path
        source = _file_source(name, path, rel, OVERLAY_CODE, problems)
        if source is not None:
            sources.append(source)
    return sources


def _file_source(
    kind: str, path: Path, rel: str, code: str, problems: list[Diagnostic]
) -> _Source | None:
    """An overlay file read as the tree's YAML is read (JSON is YAML): positions, limits, no tags."""
    doc = load_document(path, rel, "other")
    if doc.problems and path.suffix == ".json":
        # YAML refuses some valid JSON (a tab before a key): JSON then, without positions
        with contextlib.suppress(ValueError, RecursionError):
            doc = Document(path, rel, "other", doc.text, json.loads(doc.text), True)
    if not doc.usable:
        problems.extend(doc.problems)
        return None

    def locate(pointer: tuple[Any, ...], at_key: bool) -> Span:
        return doc.key_span(pointer) if at_key else doc.span(pointer)

    return _Source(kind, doc.data, path, code, locate, rel)


def _config_sources(root: Path, problems: list[Diagnostic], depends: list[Path]) -> list[_Source]:
    """[tool.recipelint.schema]: per schema name an inline overlay or the path of an overlay file."""
    from recipelint.config import ConfigError, config_diagnostic, locate, read_config_file

    try:
        found = read_config_file(root)
    except ConfigError:
        return []  # an unreadable configuration is load_config's to report
    table = found.table.get("schema") if found else None
    if found is None or table is None:
        return []
    if not isinstance(table, dict):
        problems.append(
            config_diagnostic(
                found.path,
                "'schema' must be a table: schema name = overlay table or file path",
                locate(found.text, "schema"),
            )
        )
        return []
    sources: list[_Source] = []
    for kind, value in table.items():
        where = locate(found.text, kind, "schema")
        if kind not in SCHEMA_FILES:
            close = difflib.get_close_matches(kind, list(SCHEMA_FILES), n=1)
            problems.append(
                config_diagnostic(
                    found.path,
                    f"schema.{kind}: no built-in schema is named '{kind}'"
                    + (f" (did you mean '{close[0]}'?)" if close else "")
                    + f"; the names are {', '.join(SCHEMA_FILES)}",
                    where,
                )
            )
        elif isinstance(value, str):
            path = _inside_tree(root, value)
            if path is None:
                problems.append(
                    config_diagnostic(
                        found.path,
                        f"schema.{kind}: '{value}' is not an overlay file inside the tree"
                        " (a .json, .yaml or .yml path relative to the tree root)",
                        locate(found.text, value, kind),
                    )
                )
                continue
            depends.append(path)
            if not _same_as_folder_overlay(root, kind, path):
                source = _file_source(kind, path, value, OVERLAY_CODE, problems)
                sources += [source] if source is not None else []
        elif isinstance(value, dict):
            sources.append(
                _Source(
                    kind,
                    value,
                    found.path,
                    CONFIG_CODE,
                    _toml_locator(found.text, kind),
                    f"[tool.recipelint.schema.{kind}]",
                )
            )
        else:
            problems.append(
                config_diagnostic(
                    found.path,
                    f"schema.{kind} must be an overlay table or the path of an overlay file",
                    where,
                )
            )
    return sources


_TOML_KEY = r"""(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)"""
_TOML_KEYS = rf"{_TOML_KEY}(?:\s*\.\s*{_TOML_KEY})*"
_TOML_HEADER = re.compile(rf"^\s*\[\[?\s*({_TOML_KEYS})\s*\]")
_TOML_ASSIGN = re.compile(rf"^\s*({_TOML_KEYS})\s*=")


def _toml_keys(written: str) -> list[str]:
    return [key[1:-1] if key[:1] in "\"'" else key for key in re.findall(_TOML_KEY, written)]


def _toml_locator(text: str, kind: str) -> Locator:
    """Place a pointer of an inline overlay. tomllib keeps no positions, so each line's key
    path (its table header plus its own dotted key) is compared with the pointer's: the
    first line sharing the longest start with it wins."""
    paths: list[tuple[int, list[str]]] = []
    header: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _TOML_HEADER.match(line):
            header = _toml_keys(match.group(1))
            paths.append((number, header))
        elif match := _TOML_ASSIGN.match(line):
            paths.append((number, header + _toml_keys(match.group(1))))

    def find(pointer: tuple[Any, ...], at_key: bool) -> Span:
        wanted = [kind, *map(str, pointer)]
        best, where = 0, Span(1, 1)
        for number, path in paths:
            tail = path[path.index("schema") + 1 :] if "schema" in path else []
            shared = next(
                (i for i, (a, b) in enumerate(zip(tail, wanted, strict=False)) if a != b),
                min(len(tail), len(wanted)),
            )
            if shared > best:
                best, where = shared, Span(number, 1)
        return where

    return find


def _inside_tree(root: Path, value: str) -> Path | None:
    """The overlay file a configured path names, if it is one and stays inside the tree (links resolved)."""
    if not value.endswith(_OVERLAY_SUFFIXES) or "\x00" in value:
        return None
    try:
        path = (root / value).resolve()
        path.relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return None
    return path if path.is_file() else None


def _same_as_folder_overlay(root: Path, kind: str, path: Path) -> bool:
    """The config may name the schemas/ file itself: it is then applied once."""
    folder = (root / OVERLAY_FOLDER).resolve()
    return path.parent == folder and path.name.startswith(f"{kind}.schema.")


# ----------------------------------------------------------------------------- merging an overlay


@dataclass
class _Merge:
    source: _Source
    problems: list[Diagnostic]
    added: list[tuple[tuple[Any, ...], Any]]


def _apply(schema: dict[str, Any], source: _Source) -> list[Diagnostic]:
    """Merge ``source`` into ``schema`` (in place) if the whole overlay is valid; else its problems."""
    if not isinstance(source.patch, dict):
        return [
            _problem(
                source,
                (),
                f"{source.label} must be a mapping: a fragment of the {source.kind} schema",
                'write e.g. {"$defs": {"model": {"properties": {"new_field": {"type": "string"}}}}}',
            )
        ]
    if _depth(source.patch) > _MAX_OVERLAY_DEPTH:
        return [
            _problem(
                source,
                (),
                f"{source.label} nests deeper than {_MAX_OVERLAY_DEPTH} levels",
                "an overlay adds fields: write each added fragment out flat",
            )
        ]
    odd = _non_string_key(source.patch, ())
    if odd is not None:
        return [
            _problem(
                source,
                odd,
                f"the key {odd[-1]!r} at {_pointer_text(odd[:-1])} is not a string",
                "quote it: JSON Schema names are strings",
                at_key=True,
            )
        ]
    trial = copy.deepcopy(schema)
    merge = _Merge(source, [], [])
    _merge(trial, source.patch, (), False, merge)
    if not merge.problems:
        for pointer, value in merge.added:
            merge.problems += _fragment_problems(trial, source, pointer, value)
    if not merge.problems:
        schema.clear()
        schema.update(trial)
    return merge.problems


def _non_string_key(node: Any, at: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The pointer of the first key that is not a string (YAML allows `1: x`; JSON Schema does not)."""
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in children:
        if isinstance(node, dict) and not isinstance(key, str):
            return at + (key,)
        found = _non_string_key(value, at + (key,))
        if found is not None:
            return found
    return None


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level <= _MAX_OVERLAY_DEPTH:
            children = (
                node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
            )
            stack += [(child, level + 1) for child in children]
    return deepest


def _merge(
    base: dict[str, Any], patch: dict[str, Any], at: tuple[Any, ...], in_map: bool, merge: _Merge
) -> None:
    for key, value in patch.items():
        here = at + (key,)
        if key in base:
            old = base[key]
            if isinstance(old, dict) and isinstance(value, dict):
                _merge(old, value, here, not in_map and key in _NAME_MAPS, merge)
            elif old != value or json_type(old) != json_type(value):
                merge.problems.append(
                    _problem(
                        merge.source,
                        here,
                        f"the overlay changes the built-in value at {_pointer_text(here)}"
                        f" ({_shown(old)}); an overlay may only add",
                        _replace_hint(key, old),
                    )
                )
            continue
        refusal = _refusal(base, key, at, in_map, merge.source.kind)
        if refusal:
            merge.problems.append(_problem(merge.source, here, refusal[0], refusal[1], at_key=True))
            continue
        base[key] = copy.deepcopy(value)
        merge.added.append((here, value))


def _replace_hint(key: str, old: Any) -> str:
    if key == "enum":
        return "an overlay cannot widen or narrow an enum; change the built-in schema in recipelint"
    if key == "additionalProperties" and old is False:
        return "keep the mapping closed: add the new field under 'properties' next to it"
    return "remove this key from the overlay (a built-in constraint is never removed or changed)"


def _refusal(
    base: dict[str, Any], key: str, at: tuple[Any, ...], in_map: bool, kind: str
) -> tuple[str, str] | None:
    """Why ``key`` may not be added to ``base`` (None: it may)."""
    where = _pointer_text(at)
    if in_map:
        if at and at[-1] in _ADDABLE_MAPS:
            return None
        close = _suggest_key(str(key), [str(k) for k in base])
        return (
            f"'{key}' is not a definition of the built-in {kind} schema (at {where})"
            + (f" (did you mean '{close}'?)" if close else ""),
            "an overlay adds fields under an existing definition's 'properties'; $ref a built-in definition"
            " instead of adding one",
        )
    if key in _REFUSED:
        return (
            f"an overlay may not add '{key}' (at {where})",
            "write added fragments inline; $ref may point to a built-in definition",
        )
    if key not in _KEYWORDS:
        keywords = difflib.get_close_matches(str(key), sorted(_KEYWORDS), n=1, cutoff=0.8)
        return (
            f"'{key}' is not a JSON Schema keyword (at {where})"
            + (f" (did you mean '{keywords[0]}'?)" if keywords else ""),
            "a new field goes under 'properties' of the mapping that holds it",
        )
    ref = base.get("$ref")
    if key in ("properties", "patternProperties") and isinstance(ref, str) and ref.startswith("#/"):
        target = "/".join(part.replace("~1", "/").replace("~0", "~") for part in ref[2:].split("/"))
        return (
            f"the built-in schema at {where} is a reference to {ref}: fields added here are still refused there",
            f"add them at /{target}/properties",
        )
    return None


def _pointer_text(pointer: Sequence[Any]) -> str:
    return (
        "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in pointer)
        if pointer
        else "the root"
    )


@functools.cache
def _metaschema_validator() -> Draft202012Validator:
    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


def _fragment_problems(
    merged: dict[str, Any], source: _Source, pointer: tuple[Any, ...], value: Any
) -> list[Diagnostic]:
    """An added fragment must be valid JSON Schema, its $refs local and resolvable, its patterns regexes."""
    fragment = value if pointer[-2:-1] and pointer[-2] in _NAME_MAPS else {pointer[-1]: value}
    offset = pointer if fragment is value else pointer[:-1]
    error = best_match(_metaschema_validator().iter_errors(fragment))
    if error is not None:
        at = offset + tuple(error.absolute_path)
        reason = error.message[:160]
        if at and at[-1] == "type" and isinstance(error.instance, str):
            reason = f"'{error.instance[:40]}' is not a JSON type ({', '.join(_JSON_TYPE_NAMES)})"
        return [
            _problem(
                source,
                at,
                f"not a valid JSON Schema fragment at {_pointer_text(at)}: {reason}",
                "see https://json-schema.org/draft/2020-12 for the keyword",
            )
        ]
    found: list[Diagnostic] = []
    for at, key, item in _walk(fragment, offset):
        if key == "$ref" and isinstance(item, str) and not _resolves(merged, item):
            found.append(
                _problem(
                    source,
                    at,
                    f"$ref '{item}' does not point into the {source.kind} schema",
                    "use a local reference such as #/$defs/args (no other files, no URLs)",
                )
            )
        elif (
            key == "pattern"
            and isinstance(item, str)
            or key == "patternProperties"
            and isinstance(item, str)
        ):
            try:
                re.compile(item)
            except (re.error, RecursionError, OverflowError) as exc:
                found.append(
                    _problem(
                        source,
                        at,
                        f"'{item[:60]}' is not a regular expression: {exc}",
                        "write a valid pattern",
                        at_key=key == "patternProperties",
                    )
                )
    return found


def _walk(node: Any, at: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str, Any]]:
    """(pointer, key, value) for every mapping entry, and every patternProperties name as a value."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield at + (key,), str(key), value
            if key == "patternProperties" and isinstance(value, dict):
                yield from ((at + (key, name), "patternProperties", name) for name in value)
            yield from _walk(value, at + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, at + (index,))


def _resolves(root: dict[str, Any], ref: str) -> bool:
    if ref == "#":
        return True
    if not ref.startswith("#/"):
        return False
    target: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return False
    return isinstance(target, (dict, bool))


def _overlaid(kind: str, overlay: str) -> dict[str, Any]:
    """The built-in schema with the (already validated) patches of ``overlay`` merged in."""
    schema = copy.deepcopy(load_schema(kind))
    for patch in json.loads(overlay):
        _merge(
            schema,
            patch,
            (),
            False,
            _Merge(_Source(kind, patch, Path(), "", lambda p, k: Span(1, 1), ""), [], []),
        )
    return schema


# ----------------------------------------------------------------------------- entry point


def _context(doc: Document, overlay: str = "") -> _Context:
    root = schema_for(doc.kind, overlay)
    defs = load_schema(doc.kind).get(
        "$defs", {}
    )  # RL105/RL106 patterns: built in, an overlay cannot change them
    return _Context(
        doc,
        root,
        defs.get("version", {}).get("pattern"),
        defs.get("date", {}).get("pattern"),
        overlay,
    )


def document_overlay(doc: Document) -> TreeOverlay:
    """The overlays of the tree a document belongs to (found from its path and tree-relative name)."""
    root = _tree_root(doc)
    return tree_overlay(root) if root is not None else NO_OVERLAY


def schema_findings(doc: Document, overlay: TreeOverlay | None = None) -> list[SchemaFinding]:
    """Schema findings with their pointers, sorted by position; empty for unparsed files or other kinds."""
    if not doc.usable or doc.kind not in SCHEMA_FILES:
        return []
    patches = (overlay or document_overlay(doc)).patches.get(doc.kind, "")
    ctx = _context(doc, patches)
    found: list[SchemaFinding] = []
    if not known_valid(doc, patches):
        for error in error_validator_for(doc.kind, patches).iter_errors(doc.data):
            found.extend(_diagnose(ctx, error))
    found.extend(_written_dates(ctx))
    unique: dict[tuple[Any, ...], SchemaFinding] = {}
    for finding in found:
        d = finding.diagnostic
        unique.setdefault((d.code, d.span, d.message), finding)
    return sorted(unique.values(), key=lambda f: f.diagnostic.sort_key())


def validate_documents(docs: Iterable[Document]) -> list[Diagnostic]:
    """validate_document for each document; the overlays of a tree are found once."""
    overlays: dict[str | None, TreeOverlay] = {}
    found: list[Diagnostic] = []
    for doc in docs:
        root = _tree_root(doc)
        if root not in overlays:
            overlays[root] = document_overlay(doc)
        found += validate_document(doc, overlays[root])
    return found


def validate_document(doc: Document, overlay: TreeOverlay | None = None) -> list[Diagnostic]:
    """Schema diagnostics for one loaded document (the `check` pipeline's schema stage).

    The problems of the tree's overlays come with every document's (the check keeps one
    copy of each): they are about the overlay files, whichever document is checked.
    """
    if not doc.usable or doc.kind not in SCHEMA_FILES:
        return []
    overlay = overlay or document_overlay(doc)
    return [finding.diagnostic for finding in schema_findings(doc, overlay)] + list(
        overlay.problems
    )
