"""Tree overlays: the schema extensions a tree declares next to its data, read and merged.

It is long because overlays come from three sources (files, inline TOML tables, paths in
TOML) and the add-only merge explains every refusal at its source position.

<tree>/schemas/<name>.schema.json|yaml|yml and the ``schema`` table of the tree's
configuration (inline TOML tables or overlay file paths) are merged into the built-in
schema add-only (docs/schemas.md): an overlay may add properties and keywords at places
that exist, never change or remove what is built in. A broken overlay is an RL108 (a file)
or RL016 (the configuration) problem. The configuration is given, never looked up here:
:func:`recipelint.configuration.config.load_config` reads it and calls :func:`read_tree_overlay`.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import functools
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint.diagnostics import Diagnostic, Severity, Span
from recipelint.read.configfile import (
    NO_OVERLAY,
    OVERLAY_FOLDER,
    ConfigError,
    ConfigFile,
    TreeOverlay,
    config_diagnostic,
    discover_config_file,
    locate,
)
from recipelint.read.load import Document, load_document
from recipelint.schema.builtin import JSON_TYPE_NAMES, SCHEMA_FILES, load_schema
from recipelint.schema.wording import json_type, one_line, shown_value, suggest_key

if TYPE_CHECKING:
    # jsonschema is imported where an overlay fragment is checked: most trees have none.
    from jsonschema import Draft202012Validator

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


def read_tree_overlay(root: Path, found: ConfigFile | None) -> TreeOverlay:
    """The schema overlays of the tree at ``root`` under its configuration ``found`` (None:
    no configuration file), with their problems; NO_OVERLAY when it declares none."""
    root = Path(os.path.abspath(root))  # problems name overlay files by absolute path
    problems: list[Diagnostic] = []
    sources = _folder_sources(root, problems) + _config_sources(root, problems, found)
    patches: dict[str, list[Any]] = {}
    for kind in SCHEMA_FILES:
        merged = copy.deepcopy(load_schema(kind))
        for source in (s for s in sources if s.kind == kind and not _is_builtin_copy(s)):
            found_problems = _apply(merged, source)
            if found_problems:
                problems += found_problems
            else:
                patches.setdefault(kind, []).append(source.patch)
    if not patches and not problems:
        return NO_OVERLAY
    canonical = {
        kind: json.dumps(listed, sort_keys=True, ensure_ascii=False)
        for kind, listed in patches.items()
    }
    return TreeOverlay(canonical, tuple(problems))


def tree_overlay(root: Path | str) -> TreeOverlay:
    """The schema overlays of the tree at ``root`` under the configuration discovery finds
    (an unreadable one counts as none: load_config is the one to report it)."""
    try:
        found = discover_config_file(Path(root))
    except ConfigError:
        found = None
    return read_tree_overlay(Path(root), found)


def tree_root(doc: Document) -> str | None:
    """The tree root a document was loaded from: its path without its tree-relative name."""
    path, rel = os.fspath(doc.path), doc.rel
    if not rel or not path.endswith(rel) or path[-len(rel) - 1 : -len(rel)] not in ("/", os.sep):
        return None
    return path[: -len(rel) - 1] or os.sep


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
        one_line(message),
        one_line(hint),
        pointer,
    )


def _folder_sources(root: Path, problems: list[Diagnostic]) -> list[_Source]:
    """<tree>/schemas/<name>.schema.json|yaml|yml, confined to the tree like every tree file."""
    folder = root / OVERLAY_FOLDER
    if not folder.is_dir():
        return []
    from recipelint.read.tree import confined_files

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


def _config_sources(
    root: Path, problems: list[Diagnostic], found: ConfigFile | None
) -> list[_Source]:
    """[tool.recipelint.schema]: per schema name an inline overlay or the path of an overlay file."""
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
                        f" ({shown_value(old)}); an overlay may only add",
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
        close = suggest_key(str(key), [str(k) for k in base])
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
    from jsonschema import Draft202012Validator

    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


def _fragment_problems(
    merged: dict[str, Any], source: _Source, pointer: tuple[Any, ...], value: Any
) -> list[Diagnostic]:
    """An added fragment must be valid JSON Schema, its $refs local and resolvable, its patterns regexes."""
    fragment = value if pointer[-2:-1] and pointer[-2] in _NAME_MAPS else {pointer[-1]: value}
    offset = pointer if fragment is value else pointer[:-1]
    from jsonschema.exceptions import best_match

    error = best_match(_metaschema_validator().iter_errors(fragment))
    if error is not None:
        at = offset + tuple(error.absolute_path)
        reason = error.message[:160]
        if at and at[-1] == "type" and isinstance(error.instance, str):
            reason = f"'{error.instance[:40]}' is not a JSON type ({', '.join(JSON_TYPE_NAMES)})"
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


def overlaid(kind: str, overlay: str) -> dict[str, Any]:
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
