"""Schema stage: validate a loaded document against its JSON Schema (schemas/*.schema.json).

Every jsonschema error becomes one Diagnostic at an exact place: an unknown key points
at the key, a wrong value at the value, a missing key at the mapping that lacks it.
Errors of ``anyOf``/``oneOf`` are reduced to the branch that fits the value's shape, so
an author reads one actionable message instead of a list of alternatives.

Codes (catalog: rules/RL1xx-structure.yaml):

RL101 unknown-key, RL102 invalid-type, RL103 missing-required-key,
RL104 invalid-enum-value, RL105 invalid-version, RL106 invalid-date,
RL107 invalid-value (pattern, range, length, uniqueness, key names: the catch-all).
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

try:  # a compiled validator answers "valid?" ~30x faster; the messages still come from jsonschema
    import jsonschema_rs
except ImportError:  # pragma: no cover - a declared dependency; without it every document takes the slow path
    jsonschema_rs = None

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.load import Document

SCHEMA_PACKAGE = "recipelint._schemas"
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
CODES: dict[str, str] = {
    UNKNOWN_KEY: "unknown-key",
    INVALID_TYPE: "invalid-type",
    MISSING_KEY: "missing-required-key",
    INVALID_ENUM: "invalid-enum-value",
    INVALID_VERSION: "invalid-version",
    INVALID_DATE: "invalid-date",
    INVALID_VALUE: "invalid-value",
}

# Keywords that step into a child of the instance (they extend the instance path).
_CHILD_KEYWORDS = {"properties", "patternProperties", "additionalProperties", "items", "prefixItems"}
_MAP_KEYWORDS = {"patternProperties", "additionalProperties"}
_NAMED_KEYWORDS = {"properties", "patternProperties", "prefixItems", "anyOf", "oneOf", "allOf", "$defs"}
_JSON_TYPE_NAMES = {
    "object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "null",
}
_YAML_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


# ----------------------------------------------------------------------------- loading


@functools.cache
def load_schema(kind: str) -> dict[str, Any]:
    """The parsed schema for a document kind (read once from the installed package)."""
    text = resources.files(SCHEMA_PACKAGE).joinpath(SCHEMA_FILES[kind]).read_text(encoding="utf-8")
    return json.loads(text)


@functools.cache
def validator_for(kind: str) -> Draft202012Validator:
    schema = load_schema(kind)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


# ----------------------------------------------------------------------------- fast validity


# What Python's `\s` matches in a str pattern: exactly the characters for which str.isspace()
# is true (tests/test_schema_fast.py recomputes it). ECMA and Rust `\s` differ: they lack
# \x1c-\x1f, and ECMA adds \ufeff.
PYTHON_SPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


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
                raise _Untranslatable(pattern)  # nested classes, set operations, `[]` (empty in ECMA)
            in_class = char != "]"
            out.append(char)
        elif char == "[":
            in_class = True
            if pattern[i + 1: i + 2] == "^":
                out.append("[^")
                i += 2
                continue
            out.append(char)
        elif char == "$":
            out.append("\n?$")
        elif char == "." or char == "(" and pattern[i + 1: i + 2] == "?":
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
                copied[key] = {python_pattern_for_rust(p): _rust_schema(v) for p, v in value.items()}
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


@functools.cache
def fast_validator_for(kind: str) -> Any:
    """The compiled validator of a kind, or None when it cannot be made to agree with jsonschema.

    Formats are checked by jsonschema's own format checker (its `date` rejects year 0000,
    the compiled one does not), and patterns are translated (python_pattern_for_rust).
    """
    if jsonschema_rs is None:
        return None
    schema = load_schema(kind)
    try:
        translated = _rust_schema(schema)
    except _Untranslatable:
        return None
    checker = Draft202012Validator.FORMAT_CHECKER
    formats = {name: functools.partial(_conforms, checker, name) for name in _formats(schema, set())}
    try:
        return jsonschema_rs.Draft202012Validator(translated, validate_formats=True, formats=formats)
    except Exception:  # noqa: BLE001 - a schema it cannot compile: jsonschema alone, as before
        return None


def _conforms(checker: Any, name: str, value: Any) -> bool:
    return bool(checker.conforms(value, name))


def known_valid(doc: Document) -> bool:
    """True only when the document certainly has no jsonschema error (then there is nothing to map).

    False means "ask jsonschema": the document is invalid, or the compiled validator cannot
    read it (a non-string key, a lone surrogate, a value that is not JSON, …).
    """
    validator = fast_validator_for(doc.kind)
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


def _steps(root: dict[str, Any], schema_path: Sequence[Any], instance_path: Sequence[Any]) -> list[_Step]:
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
                steps.append(_Step(instance_path[len(steps)], token in _MAP_KEYWORDS, _resolve(root, current)))
            i += 2
            continue
        current = current.get(token, {})
        if token in _CHILD_KEYWORDS:
            steps.append(_Step(instance_path[len(steps)], token in _MAP_KEYWORDS, _resolve(root, current)))
        i += 1
    return steps


def _field_path(elements: Sequence[str | int]) -> str:
    text = ""
    for element in elements:
        text += f"[{element}]" if isinstance(element, int) else (f".{element}" if text else str(element))
    return text


def _lower_first(title: str) -> str:
    """"Variant" -> "variant", but "KV offload option" keeps its acronym."""
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
    tail = _field_path([step.element for step in steps[anchor + 1:]])
    return tail if anchor < 0 else f"{tail} in {_where(steps[: anchor + 1], kind)}"


def _subject(steps: Sequence[_Step], kind: str) -> str:
    """Name a value by its field and container: "'difficulty' in meta", "item 2 of base_args in model"."""
    if not steps:
        return f"the {kind.replace('_', ' ')}"
    element = steps[-1].element
    label = f"item {element}" if isinstance(element, int) else f"'{element}'"
    container = _where(steps[:-1], kind)
    joiner = " of " if isinstance(element, int) else " in "
    return f"{label}{joiner}{container}"


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
    names = [_JSON_TYPE_NAMES.get(t, t) for t in sorted(set(types), key=list(_JSON_TYPE_NAMES).index)]
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
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        (index, subs) for index, subs in sorted(branches.items())
        if _accepts(_branch_types(root, error.validator_value[index]), error.instance)
    ]
    if not fitting:
        return [_synthetic_type_error(root, error)]
    _, chosen = min(fitting, key=lambda item: (sum(1 for e in item[1] if not e.relative_path), len(item[1]), item[0]))
    return [flat for sub in chosen for flat in _flatten(root, sub)]


def _synthetic_type_error(root: dict[str, Any], error: ValidationError) -> ValidationError:
    types: set[str] = set()
    for branch in error.validator_value:
        types |= _branch_types(root, branch) or set()
    synthetic = ValidationError(
        "wrong type", validator="type", validator_value=sorted(types), instance=error.instance,
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

    def diagnostic(self, code: str, span: Span, message: str, hint: str | None,
                   pointer: Sequence[str | int]) -> SchemaFinding:
        at = tuple(pointer)
        message, hint = _one_line(message), _one_line(hint) if hint is not None else None
        return SchemaFinding(at, Diagnostic(self.doc.path, span, code, Severity.ERROR, message, hint, at))


_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _one_line(text: str) -> str:
    """Keys and values quoted from the document, with line breaks and control characters escaped,
    so every schema message is one printable line whatever the document holds."""
    return _CONTROL_CHARACTERS.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


def _suggest(word: str, choices: Sequence[Any]) -> str | None:
    texts = [str(choice) for choice in choices if isinstance(choice, str)]
    lowered = {text.lower(): text for text in texts}
    if word.lower() in lowered and lowered[word.lower()] != word:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word, texts, n=1, cutoff=0.7)
    return close[0] if close else None


def _described(schema: Any) -> str | None:
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        return schema["description"]
    return None


def _unknown_keys(ctx: _Context, error: ValidationError, steps: list[_Step]) -> Iterator[SchemaFinding]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    allowed = sorted(schema.get("properties", {}))
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    where = _where(steps, ctx.doc.kind)
    path = tuple(error.absolute_path)
    for key in error.instance:
        if key in allowed or any(p.search(key) for p in patterns):
            continue
        suggestion = _suggest(key, allowed)
        if suggestion:
            message = f"unknown key '{key}' in {where} (did you mean '{suggestion}'?)"
            hint = f"rename it to '{suggestion}'"
        else:
            message = f"unknown key '{key}' in {where}"
            elsewhere = _owners(ctx.doc.kind).get(key)
            listed = ", ".join(allowed[:12]) + (", …" if len(allowed) > 12 else "")
            if elsewhere:
                hint = f"'{key}' is a key of {' and of '.join(elsewhere[:3])}, not of this mapping: move it or remove it"
            else:
                hint = f"remove it: nothing reads it (allowed here: {listed})" if allowed else "remove it"
        yield ctx.diagnostic(UNKNOWN_KEY, ctx.doc.key_span(path + (key,)), message, hint, path + (key,))


@functools.cache
def _owners(kind: str) -> dict[str, list[str]]:
    """Property name -> titles of the closed mappings that define it (for "move it there" hints)."""
    owners: dict[str, set[str]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            title = node.get("title")
            if isinstance(node.get("properties"), dict) and node.get("additionalProperties") is False and title:
                for name in node["properties"]:
                    owners.setdefault(name, set()).add(_lower_first(title))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(load_schema(kind))
    return {name: sorted(titles) for name, titles in owners.items()}


def _missing_keys(ctx: _Context, error: ValidationError, steps: list[_Step]) -> Iterator[SchemaFinding]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    path = tuple(error.absolute_path)
    where = _where(steps, ctx.doc.kind)
    for key in error.validator_value:
        if isinstance(error.instance, dict) and key in error.instance:
            continue
        described = _described(_resolve(ctx.root, schema.get("properties", {}).get(key)))
        hint = f"add '{key}': {described}" if described else f"add '{key}'"
        yield ctx.diagnostic(MISSING_KEY, ctx.doc.span(path), f"missing required key '{key}' in {where}",
                             hint, path)


def _type_hint(expected: Sequence[str], value: Any) -> str | None:
    if "string" in expected and json_type(value) in ("integer", "number", "boolean"):
        rendered = json.dumps(value)
        return f"quote it: \"{rendered}\""
    if {"integer", "number"} & set(expected) and isinstance(value, str) and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value):
        return f"remove the quotes: {value}"
    if "array" in expected and isinstance(value, str):
        return f"write a list: [\"{value}\"], one token per item"
    if json_type(value) == "null":
        return "give it a value, or delete the key"
    return None


def _wrong_type(ctx: _Context, error: ValidationError, steps: list[_Step]) -> SchemaFinding:
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    path = tuple(error.absolute_path)
    message = f"{_subject(steps, ctx.doc.kind)} must be {_type_phrase(expected)}, not {_shown(error.instance)}"
    return ctx.diagnostic(INVALID_TYPE, ctx.doc.span(path), message, _type_hint(expected, error.instance), path)


def _bad_enum(ctx: _Context, error: ValidationError, steps: list[_Step]) -> SchemaFinding:
    allowed = [error.validator_value] if error.validator == "const" else list(error.validator_value)
    path = tuple(error.absolute_path)
    listed = ", ".join(json.dumps(v) if not isinstance(v, str) else v for v in allowed)
    message = f"{_subject(steps, ctx.doc.kind)} is {_shown(error.instance)}; expected one of: {listed}"
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
    return ctx.diagnostic(INVALID_VALUE, ctx.doc.key_span(path + (key,)), message, None, path + (key,))


def _pattern_code(ctx: _Context, error: ValidationError) -> str:
    if error.validator == "pattern" and error.validator_value == ctx.version_pattern:
        return INVALID_VERSION
    if error.validator == "pattern" and error.validator_value == ctx.date_pattern:
        return INVALID_DATE
    if error.validator == "format" and error.validator_value == "date":
        return INVALID_DATE
    return INVALID_VALUE


def _value_message(error: ValidationError, subject: str) -> str:
    value, limit = error.instance, error.validator_value
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


# id(schema) -> (schema, whether a date can sit at or under it); the schema is kept so its id stays its own.
_HOLDS_DATE: dict[int, tuple[Any, bool]] = {}


def _may_hold_date(root: dict[str, Any], schema: Any) -> bool:
    """Whether _date_pointers can yield anything at or under ``schema`` (False prunes the walk)."""
    cached = _HOLDS_DATE.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    _HOLDS_DATE[id(schema)] = (schema, True)  # a $ref cycle in progress: assume it can (never prunes wrongly)
    resolved = _resolve(root, schema)
    holds = False
    if isinstance(resolved, dict):
        extra = resolved.get("additionalProperties")
        properties = resolved.get("properties", {})
        children = list(properties.values()) if isinstance(properties, dict) else []
        children += [sub for sub in (extra, resolved.get("items")) if isinstance(sub, dict)]
        holds = resolved.get("format") == "date" or any(_may_hold_date(root, sub) for sub in children)
    _HOLDS_DATE[id(schema)] = (schema, holds)
    return holds


def _date_pointers(root: dict[str, Any], schema: Any, value: Any, pointer: tuple) -> Iterator[tuple]:
    """Pointers of the values whose schema is a date (fixed keys and map values only)."""
    if not _may_hold_date(root, schema):
        return
    schema = _resolve(root, schema)
    if not isinstance(schema, dict):
        return
    if schema.get("format") == "date" and isinstance(value, str):
        yield pointer
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, child in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from _date_pointers(root, sub, child, pointer + (key,))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, child in enumerate(value):
            yield from _date_pointers(root, schema["items"], child, pointer + (index,))


def _source_text(doc: Document, span: Span) -> str:
    lines = doc.text.splitlines()
    if span.end_line is None or span.end_column is None or span.end_line != span.line:
        return ""
    if not 0 < span.line <= len(lines):
        return ""
    return lines[span.line - 1][span.column - 1: span.end_column - 1]


def _written_dates(ctx: _Context) -> Iterator[SchemaFinding]:
    """Dates js-yaml silently changes: 2026-02-30 rolls over, a timestamp shifts to UTC."""
    for pointer in _date_pointers(ctx.root, ctx.root, ctx.doc.data, ()):
        span = ctx.doc.span(pointer)
        written = _source_text(ctx.doc, span).strip().strip("'\"")
        value = _get(ctx.doc.data, pointer)
        if not written or written == value or not isinstance(value, str):
            continue
        if _YAML_DATE.match(written):
            message = f"'{pointer[-1]}' is {written}, which is not a calendar day (the compiler reads it as {value})"
        else:
            message = f"'{pointer[-1]}' is the timestamp {written}; the compiler keeps only its UTC day, {value}"
        yield ctx.diagnostic(INVALID_DATE, span, message, "write a real day as YYYY-MM-DD", pointer)


def _get(data: Any, pointer: Sequence[str | int]) -> Any:
    for part in pointer:
        data = data[part]
    return data


# ----------------------------------------------------------------------------- entry point


def _context(doc: Document) -> _Context:
    root = load_schema(doc.kind)
    defs = root.get("$defs", {})
    return _Context(doc, root, defs.get("version", {}).get("pattern"), defs.get("date", {}).get("pattern"))


def schema_findings(doc: Document) -> list[SchemaFinding]:
    """Schema findings with their pointers, sorted by position; empty for unparsed files or other kinds."""
    if not doc.usable or doc.kind not in SCHEMA_FILES:
        return []
    ctx = _context(doc)
    found: list[SchemaFinding] = []
    if not known_valid(doc):
        for error in validator_for(doc.kind).iter_errors(doc.data):
            found.extend(_diagnose(ctx, error))
    found.extend(_written_dates(ctx))
    unique: dict[tuple, SchemaFinding] = {}
    for finding in found:
        d = finding.diagnostic
        unique.setdefault((d.code, d.span, d.message), finding)
    return sorted(unique.values(), key=lambda f: f.diagnostic.sort_key())


def validate_document(doc: Document) -> list[Diagnostic]:
    """Schema diagnostics for one loaded document (the `check` pipeline's schema stage)."""
    return [finding.diagnostic for finding in schema_findings(doc)]
