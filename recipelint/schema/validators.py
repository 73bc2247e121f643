"""Validator building: a kind's schema (with a tree's overlay merged in) compiled into the
fast `jsonschema_rs` validator that answers "valid?" and lists an invalid document's errors
(its regexes translated from ECMA to Rust syntax), and the `jsonschema` validator that lists
them where the compiled one cannot stand in for it (recipelint.schema.errors).

Validators are cached per (kind, overlay), the overlay keyed by its canonical JSON.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

# A compiled validator answers "valid?" ~30x faster; the messages still come from jsonschema.
import jsonschema_rs

from recipelint.read.load import Document
from recipelint.schema.builtin import load_schema
from recipelint.schema.formats import conforms
from recipelint.schema.overlay import overlaid

if TYPE_CHECKING:
    # jsonschema is imported only where it runs (listing a document's errors, checking a
    # format): a check of valid or cached documents never pays for it.
    from jsonschema import Draft202012Validator


# Overlays are keyed by their canonical JSON ("" = none), so a tree without one shares the
# built-in validators, and a tree with one compiles its own once per process.
@functools.lru_cache(maxsize=64)
def schema_for(kind: str, overlay: str = "") -> dict[str, Any]:
    """The schema of a kind with a tree's overlay merged in (tree_overlay gives ``overlay``)."""
    return overlaid(kind, overlay) if overlay else load_schema(kind)


@functools.lru_cache(maxsize=64)
def validator_for(kind: str, overlay: str = "") -> Draft202012Validator:
    from jsonschema import Draft202012Validator

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


def _mappings(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping in a JSON value, itself included, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _mappings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _mappings(value)


def _formats(node: Any) -> set[str]:
    return {m["format"] for m in _mappings(node) if isinstance(m.get("format"), str)}


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


def _format_callbacks(schema: Any) -> dict[str, Callable[..., bool]]:
    return {name: functools.partial(conforms, name) for name in _formats(schema)}


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
        # The definitions each definition names: a subschema is compiled beside only those
        # it reaches (converting every definition for each compile was most of its cost).
        self._refs: dict[str, set[str] | None] = {}
        self._formats = _format_callbacks(schema)
        # id(subschema) -> (subschema, its compiled validator or None); the subschema is
        # kept so that its id stays its own.
        self._compiled: dict[int, tuple[Any, Any]] = {}

    def accepts(self, subschema: Any, value: Any) -> bool:
        return self.verdict(subschema, value) is True

    def verdict(self, subschema: Any, value: Any) -> bool | None:
        """The compiled validator's verdict; None when it has none (a subschema it cannot
        compile, a value it cannot read)."""
        entry = self._compiled.get(id(subschema))
        if entry is None or entry[0] is not subschema:
            entry = self._compiled[id(subschema)] = (subschema, self._compile(subschema))
        if entry[1] is None:
            return None
        try:
            return bool(entry[1].is_valid(value))
        except Exception:  # noqa: BLE001 - a value it cannot read: jsonschema looks at it
            return None

    def _compile(self, subschema: Any) -> Any:
        if not isinstance(subschema, dict) or "$defs" in subschema:
            return None
        try:
            translated = {**_rust_schema(subschema), "$defs": self._defs_of(subschema)}
            return jsonschema_rs.Draft202012Validator(
                translated, validate_formats=True, formats=self._formats
            )
        except Exception:  # noqa: BLE001 - untranslatable or not compilable: never skipped
            return None

    def _defs_of(self, subschema: Any) -> Any:
        """The definitions the subschema reaches through its references, or all of them
        when a reference names none by its plain name."""
        reached = self._reaching(_definition_refs(subschema))
        if reached is None:
            return self._defs
        return {name: self._defs[name] for name in self._defs if name in reached}

    def _reaching(self, names: set[str]) -> set[str] | None:
        found: set[str] = set()
        waiting = list(names)
        while waiting:
            name = waiting.pop()
            if name in found:
                continue
            refs = self._refs_of(name)
            if refs is None:
                return None
            found.add(name)
            waiting += refs
        return found

    def _refs_of(self, name: str) -> set[str] | None:
        """The definitions one definition names directly; None for a name that is none."""
        if name not in self._refs:
            known = isinstance(self._defs, dict) and name in self._defs
            self._refs[name] = _definition_refs(self._defs[name]) if known else None
        return self._refs[name]


def _definition_refs(node: Any) -> set[str]:
    """The first segment after `#/$defs/` of every reference in ``node``, as written."""
    refs = (m.get("$ref") for m in _mappings(node))
    return {
        ref[len("#/$defs/") :].split("/", 1)[0]
        for ref in refs
        if isinstance(ref, str) and ref.startswith("#/$defs/")
    }


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
    from jsonschema import Draft202012Validator

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
def compiled_stands_in(kind: str, overlay: str = "") -> bool:
    """Whether the compiled validator can answer for jsonschema on this kind's schema: it
    compiles it, and every reference points into the schema's own ``$defs`` (so a subschema
    compiled beside them means what it means in place)."""
    schema = schema_for(kind, overlay)
    return fast_validator_for(kind, overlay) is not None and _only_local_definitions(schema)


@functools.lru_cache(maxsize=64)
def _acceptance_for(kind: str, overlay: str) -> _Acceptance | None:
    return _Acceptance(schema_for(kind, overlay)) if compiled_stands_in(kind, overlay) else None


def subschema_accepts(kind: str, overlay: str, subschema: Any, value: Any) -> bool:
    """Whether a subschema of a kind's schema (an object inside schema_for's answer) accepts a
    value, as jsonschema says; asked of the compiled validator when it can answer."""
    acceptance = _acceptance_for(kind, overlay)
    verdict = None if acceptance is None else acceptance.verdict(subschema, value)
    if verdict is not None:
        return verdict
    try:
        return bool(validator_for(kind, overlay).evolve(schema=subschema).is_valid(value))
    except Exception:  # noqa: BLE001 - a value jsonschema cannot read either: not accepted
        return False


@functools.lru_cache(maxsize=64)
def error_validator_for(kind: str, overlay: str = "") -> Draft202012Validator:
    """jsonschema's validator of a kind, for the errors of a document: the same errors as
    validator_for's, found without descending into the values the compiled validator accepts."""
    from jsonschema import Draft202012Validator
    from jsonschema.validators import extend

    acceptance = _acceptance_for(kind, overlay)
    if acceptance is None:
        return validator_for(kind, overlay)
    keywords = _pruning_keywords(acceptance)
    pruning: Any = extend(Draft202012Validator, keywords)  # type: ignore[no-untyped-call]
    return pruning(schema_for(kind, overlay), format_checker=Draft202012Validator.FORMAT_CHECKER)  # type: ignore[no-any-return]


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
