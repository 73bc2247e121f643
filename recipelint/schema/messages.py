"""Error messages: every schema error (recipelint.schema.errors) becomes one Diagnostic at an

It is long because each JSON Schema keyword has its own wording and its own place (key,
value or mapping), and the anyOf/oneOf reduction shares their walk of the schema.

exact place.

An unknown key points at the key, a wrong value at the value, a missing key at the mapping
that lacks it. Errors of ``anyOf``/``oneOf`` are reduced to the branch that fits the
value's shape, so an author reads one actionable message instead of a list of
alternatives; a key indented under the wrong mapping is named as such.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.read.configfile import OVERLAY_FOLDER
from recipelint.read.load import Document, value_at
from recipelint.schema.builtin import (
    CHILD_KEYWORDS,
    INVALID_DATE,
    INVALID_ENUM,
    INVALID_TYPE,
    INVALID_VALUE,
    INVALID_VERSION,
    JSON_TYPE_NAMES,
    MAP_KEYWORDS,
    MISSING_KEY,
    NAMED_KEYWORDS,
    UNKNOWN_KEY,
)
from recipelint.schema.errors import SchemaError
from recipelint.schema.validators import schema_for, subschema_accepts
from recipelint.schema.wording import json_type, one_line, shown_value, suggest, suggest_key

# ----------------------------------------------------------------------------- schema walking


def resolve_ref(root: dict[str, Any], schema: Any) -> Any:
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
        current = resolve_ref(root, current)
        if not isinstance(current, dict):
            break
        if token == "$ref":
            i += 1
            continue
        if token in NAMED_KEYWORDS and i + 1 < len(tokens):
            sub = current.get(token)
            name = tokens[i + 1]
            current = sub[name] if isinstance(sub, (dict, list)) else {}
            if token in CHILD_KEYWORDS:
                steps.append(
                    _Step(
                        instance_path[len(steps)], token in MAP_KEYWORDS, resolve_ref(root, current)
                    )
                )
            i += 2
            continue
        current = current.get(token, {})
        if token in CHILD_KEYWORDS:
            steps.append(
                _Step(instance_path[len(steps)], token in MAP_KEYWORDS, resolve_ref(root, current))
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


def _branch_types(root: dict[str, Any], schema: Any, depth: int = 0) -> set[str] | None:
    """JSON types a (sub)schema accepts; None means any."""
    schema = resolve_ref(root, schema)
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
    names = [JSON_TYPE_NAMES.get(t, t) for t in sorted(set(types), key=list(JSON_TYPE_NAMES).index)]
    if "integer" in types and "number" in types:
        names.remove("an integer")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# ----------------------------------------------------------------------------- flattening


def _flatten(root: dict[str, Any], error: SchemaError) -> list[SchemaError]:
    """Reduce anyOf/oneOf to the errors of the one branch that best fits the value.

    A branch fits when it accepts the value's JSON type; among fitting branches the one
    with the fewest errors at the value itself (unknown or missing keys there mean the
    branch describes another shape) wins, then the one with fewer errors, then the
    first declared.  Nested alternatives are reduced the same way.
    """
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return [error]
    branches: dict[int, list[SchemaError]] = {}
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


def _keyword_value(error: SchemaError) -> Any:
    """The failing keyword's value in the schema (always set on errors the validator raises)."""
    return error.validator_value


def _synthetic_type_error(root: dict[str, Any], error: SchemaError) -> SchemaError:
    types: set[str] = set()
    for branch in _keyword_value(error):
        types |= _branch_types(root, branch) or set()
    return replace(
        error, validator="type", validator_value=sorted(types), context=(), message="wrong type"
    )


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
class ErrorContext:
    doc: Document
    root: dict[str, Any]
    version_pattern: str | None
    date_pattern: str | None
    overlay: str = ""
    # Required keys the tree has not adopted (recipelint.schema.adoption): not reported missing.
    unadopted: frozenset[tuple[str, tuple[str | int, ...]]] = frozenset()

    def diagnostic(
        self, code: str, span: Span, message: str, hint: str | None, pointer: Sequence[str | int]
    ) -> SchemaFinding:
        at = tuple(pointer)
        message, hint = one_line(message), one_line(hint) if hint is not None else None
        return SchemaFinding(
            at, Diagnostic(self.doc.path, span, code, Severity.ERROR, message, hint, at)
        )


def _described(schema: Any) -> str | None:
    description = schema.get("description") if isinstance(schema, dict) else None
    return description if isinstance(description, str) else None


def _unknown_keys(
    ctx: ErrorContext, error: SchemaError, steps: list[_Step]
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
        suggestion = suggest_key(key, allowed)
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


def _misplaced(ctx: ErrorContext, path: tuple[str | int, ...]) -> _Misplaced | None:
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


def _fits(ctx: ErrorContext, owner: tuple[str | int, ...], key: str, value: Any) -> bool:
    """Whether ``key: value`` is a valid entry of the mapping at ``owner``."""
    schema = _schema_at(ctx.root, ctx.doc.data, owner)
    entry = _entry_schema(schema, key) if schema is not None else None
    if entry is None:
        return False
    names = schema.get("propertyNames") if schema is not None else None
    kind, overlay = ctx.doc.kind, ctx.overlay
    if isinstance(names, dict) and not subschema_accepts(kind, overlay, names, key):
        return False
    return subschema_accepts(kind, overlay, entry, value)


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
    schema = resolve_ref(root, schema)
    if not isinstance(schema, dict) or depth > 8:
        return None
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            fitting = [b for b in schema[keyword] if _accepts(_branch_types(root, b), value)]
            return _shape_branch(root, fitting[0], value, depth + 1) if len(fitting) == 1 else None
    return schema


def _missing_keys(
    ctx: ErrorContext, error: SchemaError, steps: list[_Step]
) -> Iterator[SchemaFinding]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    path = tuple(error.absolute_path)
    where = _where(steps, ctx.doc.kind)
    for key in _keyword_value(error):
        if isinstance(error.instance, dict) and key in error.instance:
            continue
        if (ctx.doc.kind, (*path, key)) in ctx.unadopted:
            continue  # a requirement the tree predates
        described = _described(resolve_ref(ctx.root, schema.get("properties", {}).get(key)))
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


def _wrong_type(ctx: ErrorContext, error: SchemaError, steps: list[_Step]) -> SchemaFinding:
    expected = (
        _keyword_value(error)
        if isinstance(_keyword_value(error), list)
        else [_keyword_value(error)]
    )
    path = tuple(error.absolute_path)
    message = f"{_subject(steps, ctx.doc.kind)} must be {_type_phrase(expected)}, not {shown_value(error.instance)}"
    hint = _type_hint(expected, error.instance)
    misplaced = _misplaced(ctx, path)
    if misplaced:
        message, hint = misplaced.explain(message)
    return ctx.diagnostic(INVALID_TYPE, ctx.doc.span(path), message, hint, path)


def _bad_enum(ctx: ErrorContext, error: SchemaError, steps: list[_Step]) -> SchemaFinding:
    allowed = [_keyword_value(error)] if error.validator == "const" else list(_keyword_value(error))
    path = tuple(error.absolute_path)
    listed = ", ".join(json.dumps(v) if not isinstance(v, str) else v for v in allowed)
    message = f"{_subject(steps, ctx.doc.kind)} is {shown_value(error.instance)}; expected one of: {listed}"
    if len(allowed) == 1:
        message = (
            f"{_subject(steps, ctx.doc.kind)} is {shown_value(error.instance)}; expected {listed}"
        )
    suggestion = suggest(error.instance, allowed) if isinstance(error.instance, str) else None
    hint = f"did you mean '{suggestion}'?" if suggestion else None
    return ctx.diagnostic(INVALID_ENUM, ctx.doc.span(path), message, hint, path)


def _in_property_names(error: SchemaError) -> bool:
    return "propertyNames" in error.absolute_schema_path


def _bad_key_name(ctx: ErrorContext, error: SchemaError, steps: list[_Step]) -> SchemaFinding:
    path = tuple(error.absolute_path)
    key = str(error.instance)
    schema = error.schema if isinstance(error.schema, dict) else {}
    rule = _described(schema) or f"it must match {schema.get('pattern', 'the expected form')}"
    message = f"invalid key '{key}' in {_where(steps, ctx.doc.kind)}: {rule[0].lower() + rule[1:]}"
    return ctx.diagnostic(
        INVALID_VALUE, ctx.doc.key_span(path + (key,)), message, None, path + (key,)
    )


def _pattern_code(ctx: ErrorContext, error: SchemaError) -> str:
    if error.validator == "pattern" and _keyword_value(error) == ctx.version_pattern:
        return INVALID_VERSION
    if error.validator == "pattern" and _keyword_value(error) == ctx.date_pattern:
        return INVALID_DATE
    if error.validator == "format" and _keyword_value(error) == "date":
        return INVALID_DATE
    return INVALID_VALUE


def _value_message(error: SchemaError, subject: str) -> str:
    value, limit = error.instance, _keyword_value(error)
    shown = shown_value(value)
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


def _bad_value(ctx: ErrorContext, error: SchemaError, steps: list[_Step]) -> SchemaFinding:
    path = tuple(error.absolute_path)
    code = _pattern_code(ctx, error)
    subject = _subject(steps, ctx.doc.kind)
    if code == INVALID_VERSION:
        message = f"{subject} is {shown_value(error.instance)}, not a version X.Y.Z"
    elif code == INVALID_DATE:
        message = f"{subject} is {shown_value(error.instance)}, not a calendar date YYYY-MM-DD"
    else:
        message = _value_message(error, subject)
        form = _described(error.schema) if error.validator == "pattern" else None
        if form and form != _described(steps[-1].schema if steps else None):
            message += f" ({form[0].lower() + form[1:].rstrip('.')})"
    field_schema = steps[-1].schema if steps else ctx.root
    return ctx.diagnostic(code, ctx.doc.span(path), message, _described(field_schema), path)


def diagnose(ctx: ErrorContext, raw: SchemaError) -> Iterator[SchemaFinding]:
    for error in _flatten(ctx.root, raw):
        yield from _diagnose_one(ctx, error)


def _diagnose_one(ctx: ErrorContext, error: SchemaError) -> Iterator[SchemaFinding]:
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
