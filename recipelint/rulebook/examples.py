"""The files of the rule catalog's examples: whole documents, or fragments of one.

An example in ``rules/RL*.yaml`` gives either ``content``, the whole file (for rules
about a whole file: YAML syntax, encoding, file naming), or ``fragment``, only the
keys that matter. A fragment is merged into the base document of its file's kind,
``rules/base-<kind>.yaml`` (``base-recipe.yaml`` for ``models/...``): mappings merge
key by key, any other value (a list included) replaces the base's, and a key tagged
``!delete`` is removed. The merge goes through ruamel.yaml's round-trip mode, so the
quoting, flow lists and comments of both texts survive into the merged file, and
YAML 1.2 keeps ``yes`` a string as the compiler reads it.

ruamel.yaml is imported only when an example is merged (`explain`, the rule
reference, the tests): loading the catalog for a `check` never pays for it.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterator
from typing import Any

from recipelint.packagedata import RULE_CATALOG, data_folder

DELETE_TAG = "!delete"

# The first path segment of a tree file names its kind, as the tree loader sorts them.
_KINDS = {
    "models": "recipe",
    "strategies": "strategy",
    "kv_store": "kv_store",
    "taxonomy.yaml": "taxonomy",
    "platforms.yaml": "platforms",
}


class ExampleError(ValueError):
    """A catalog example that cannot become a file (our own data: a test keeps it valid)."""


def file_kind(path: str) -> str:
    """The kind of tree file at ``path`` (relative to the tree root): recipe, strategy, …"""
    return _KINDS.get(path.split("/", 1)[0], "other")


def base_name(kind: str) -> str:
    return f"base-{kind}.yaml"


@functools.cache
def base_document(kind: str) -> str:
    """The text of the base document fragments of this kind are merged into."""
    source = data_folder(RULE_CATALOG) / base_name(kind)
    if not source.is_file():
        raise ExampleError(f"the catalog has no base document for a {kind} ({base_name(kind)})")
    return source.read_text(encoding="utf-8")


def merged_document(path: str, fragment: str) -> str:
    """The whole file an example's fragment stands for."""
    yaml = _round_trip()
    base = _load(yaml, base_document(file_kind(path)), base_name(file_kind(path)))
    _merge(base, _load(yaml, fragment, f"the fragment for {path}"))
    base.ca.comment = None  # the base's header speaks of the catalog, not of the example
    out = io.StringIO()
    yaml.dump(base, out)
    return out.getvalue()


def fragment_changes(path: str, fragment: str) -> tuple[list[str], list[str]]:
    """The dotted keys of the base a fragment sets and those it removes, in its order."""
    yaml = _round_trip()
    base = _load(yaml, base_document(file_kind(path)), base_name(file_kind(path)))
    changes = list(_leaves(base, _load(yaml, fragment, f"the fragment for {path}"), ""))
    return (
        [key for key, removed in changes if not removed],
        [key for key, removed in changes if removed],
    )


class _Verbatim(str):
    """A timestamp's text: an example may hold an impossible date (2026-02-30) on purpose."""


def _round_trip() -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.representer import RoundTripRepresenter

    # Subclasses, so the timestamp handling stays local to the examples' reader and writer.
    class Constructor(RoundTripConstructor):
        pass

    class Representer(RoundTripRepresenter):
        pass

    timestamp = "tag:yaml.org,2002:timestamp"
    Constructor.add_constructor(timestamp, lambda _, node: _Verbatim(node.value))
    Representer.add_representer(
        _Verbatim, lambda representer, text: representer.represent_scalar(timestamp, str(text))
    )
    yaml = YAML(typ="rt")
    yaml.Constructor, yaml.Representer = Constructor, Representer
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096  # never fold a long flag list: the example must read as written
    return yaml


def _load(yaml: Any, text: str, what: str) -> Any:
    from ruamel.yaml.error import YAMLError

    try:
        value = yaml.load(text)
    except YAMLError as exc:
        raise ExampleError(f"{what} is not YAML a fragment can be merged from: {exc}") from None
    if not isinstance(value, dict):
        raise ExampleError(f"{what} is not a mapping of keys")
    return value


def _is_delete(value: Any) -> bool:
    tag = getattr(value, "tag", None)
    return getattr(tag, "value", None) == DELETE_TAG


def _merge(base: Any, fragment: Any) -> None:
    for key, value in fragment.items():
        if _is_delete(value):
            base.pop(key, None)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
            if key in fragment.ca.items:  # a comment on the fragment's line goes with it
                base.ca.items[key] = fragment.ca.items[key]


def _leaves(base: Any, fragment: Any, prefix: str) -> Iterator[tuple[str, bool]]:
    for key, value in fragment.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            yield from _leaves(base[key], value, dotted + ".")
        else:
            yield dotted, _is_delete(value)
